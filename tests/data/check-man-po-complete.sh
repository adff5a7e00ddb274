#!/bin/sh
# check-man-po-complete.sh HELP_MAN_DIR — fails when help/man/po/LANG.po leaves a paragraph of
# the manual pages untranslated or fuzzy: a copy of help/man is brought up to date with po4a (as
# `ninja man-update-po` does), so a page changed without its catalogue fails too.
set -eu
mandir=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -R "$mandir"/. "$tmp"
po4a --no-translations --srcdir "$tmp" --destdir "$tmp" "$tmp/po4a.cfg" >/dev/null
status=0
for po in "$tmp"/po/*.po; do
  name=help/man/po/$(basename "$po")
  stats=$(msgfmt --check --statistics -o /dev/null "$po" 2>&1) || { echo "$name: $stats"; status=1; continue; }
  case "$stats" in
    *untranslated*|*fuzzy*)
      echo "$name does not translate every paragraph of the manual pages ($stats):"
      { msgattrib --untranslated "$po"; msgattrib --only-fuzzy "$po"; } | grep -A2 '^msgid' | head -30
      echo "Run ninja -C build man-update-po and translate these in $name."
      status=1 ;;
  esac
done
exit $status
