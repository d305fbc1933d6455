#!/bin/sh
# Rebuilds the 8-bit subsets of the report fonts (fonts/*-simple8.ttf) from
# the full DejaVu files and the encoding simple8.map, with fontTools
# (Debian python3-fonttools, 4.38): only the glyphs the encoding names, no
# hinting instructions and no layout tables (fpdf uses neither), glyph names
# kept. Then regenerate the fpdf font definitions (*.json, *.z):
#
#	go test ./appliance/report/ -run TestSimpleFonts -update
set -eu
cd "$(dirname "$0")"
unicodes=$(awk '$3 != ".notdef" { sub(/^U\+/, "", $2); printf "%s%s", sep, $2; sep = "," }' simple8.map)
for face in DejaVuSans DejaVuSans-Bold; do
	python3 -m fontTools.subset "$face.ttf" --unicodes="$unicodes" --no-hinting \
		--layout-features='' --glyph-names --notdef-outline --name-IDs='*' \
		--output-file="$face-simple8.ttf"
done
