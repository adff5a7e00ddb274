#!/bin/sh
# translate-pages.sh PO4A SRCDIR OUTDIR LANG... - writes OUTDIR/LANG/man1/*.1: the manual pages
# of SRCDIR translated with po4a (SRCDIR/po4a.cfg, po/LANG.po), leaving the catalogues as they
# are. Each LANG folder is made anew, so that its time stamp tells ninja it is up to date.
set -eu
po4a=$1 src=$2 out=$3
shift 3
for lang in "$@"; do rm -rf "${out:?}/$lang"; done
# --keep 0: a page is written even when its catalogue lags behind (untranslated paragraphs stay
# English); the data suite's man-po-complete test is what fails then.
"$po4a" --no-update --force --keep 0 --srcdir "$src" --destdir "$out" "$src/po4a.cfg"
for lang in "$@"; do
  for page in "$src"/*.1; do
    test -s "$out/$lang/man1/$(basename "$page")" || { echo "po4a wrote no $lang/man1/$(basename "$page")" >&2; exit 1; }
  done
done
