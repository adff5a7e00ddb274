#!/bin/sh
# Every image a help page shows (<media src="figures/NAME.png">) is installed from
# docs/screenshots: NAME.png for English and NAME-zh_CN.png for Chinese must exist there, and
# help/meson.build must install it.
set -u
top=$1
status=0
for src in $(grep -ho 'src="figures/[a-z0-9-]*\.png"' "$top"/help/C/*.page | sort -u); do
  name=${src#src=\"figures/}
  name=${name%.png\"}
  for shot in "$name.png" "$name-zh_CN.png"; do
    [ -f "$top/docs/screenshots/$shot" ] || { echo "missing docs/screenshots/$shot"; status=1; }
  done
  grep -q "'$name'" "$top/help/meson.build" ||
    { echo "help/meson.build does not install figure $name (help_figures)"; status=1; }
done
exit $status
