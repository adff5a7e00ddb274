#!/bin/sh
# The help's screenshots are copies of docs/screenshots (tools/screenshots makes those from the
# real window): fails when they differ, so the help never shows an old window.
# help/C/figures/NAME.png = docs/screenshots/NAME.png; help/zh_CN/figures/NAME.png =
# docs/screenshots/NAME-zh_CN.png. (Copies, not symlinks: meson will install symlinks as they are.)
set -u
top=$1
status=0
for f in "$top"/help/C/figures/*.png; do
  name=$(basename "$f" .png)
  for pair in "C:$name.png" "zh_CN:$name-zh_CN.png"; do
    lang=${pair%%:*}
    shot="$top/docs/screenshots/${pair#*:}"
    fig="$top/help/$lang/figures/$name.png"
    if [ ! -f "$shot" ]; then
      echo "no $shot for $fig"; status=1
    elif ! cmp -s "$shot" "$fig"; then
      echo "$fig is older than $shot: cp $shot $fig"; status=1
    fi
  done
done
exit $status
