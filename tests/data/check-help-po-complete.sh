#!/bin/sh
# Fails when a help page has a paragraph that help/LANG/LANG.po does not translate (or
# translates fuzzily): the translation must follow every change of help/C/*.page.
set -eu
helpdir=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$helpdir/C" && itstool -o "$tmp/help.pot" *.page)
status=0
for po in "$helpdir"/*/*.po; do
  msgmerge -q --no-fuzzy-matching -o "$tmp/merged.po" "$po" "$tmp/help.pot"
  # An image's entry changes with its md5 whenever tools/screenshots runs; the translated
  # image lives under the same name in help/LANG/figures, so those entries are not counted.
  msggrep --invert-match -K -e "^external ref=" -o "$tmp/text.po" "$tmp/merged.po"
  stats=$(msgfmt --statistics -o /dev/null "$tmp/text.po" 2>&1)
  missing=""
  case "$stats" in
    *untranslated*|*fuzzy*)
      missing="$stats
$(msgattrib --untranslated "$tmp/text.po" | grep -A1 '^msgid' | head -20)" ;;
  esac
  if [ -n "$missing" ]; then
    echo "$po does not translate these paragraphs of help/C:"
    echo "$missing" | head -20
    status=1
  fi
  stats=$(msgfmt --check --statistics -o /dev/null "$po" 2>&1) || { echo "$po: $stats"; status=1; }
done
exit $status
