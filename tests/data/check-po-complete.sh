#!/bin/sh
# Fails when a translation has an untranslated or fuzzy message, or when a source file with
# translatable strings is missing from po/POTFILES.in.
set -eu
podir=$1
top=$(dirname "$podir")
status=0
for po in "$podir"/*.po; do
  stats=$(msgfmt --statistics -o /dev/null "$po" 2>&1)
  case "$stats" in
    *untranslated*|*fuzzy*) echo "$po: $stats"; status=1 ;;
  esac
done
cd "$top"
for f in $(grep -rlE --include='*.c' --include='*.ui' '_\(|N_\(|ngettext|translatable="yes"' src ui); do
  grep -qxF "$f" po/POTFILES.in || { echo "missing from po/POTFILES.in: $f"; status=1; }
done
sort -c po/POTFILES.in 2>/dev/null || { echo "po/POTFILES.in is not sorted"; status=1; }
# every translatable string of the sources must be in zh_CN.po
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
xgettext --from-code=UTF-8 --add-comments --keyword=_ --keyword=N_ --keyword=C_:1c,2 \
  --keyword=NC_:1c,2 --keyword=g_dngettext:2,3 --keyword=ngettext:1,2 --keyword=qf_ngettext:1,2 \
  --files-from=po/POTFILES.in -o "$tmp/qualify.pot"
sed -i 's/charset=CHARSET/charset=UTF-8/' "$tmp/qualify.pot"
for po in "$podir"/*.po; do
  msgmerge -q --no-fuzzy-matching -o "$tmp/merged.po" "$po" "$tmp/qualify.pot"
  stats=$(msgfmt --statistics -o /dev/null "$tmp/merged.po" 2>&1)
  case "$stats" in
    *untranslated*|*fuzzy*)
      echo "$po lacks strings from the sources: $stats"
      msgattrib --untranslated "$tmp/merged.po" | grep '^msgid' | head -20
      status=1 ;;
  esac
done
exit $status
