package report

import _ "embed"

// dejaVuSans is DejaVu Sans 2.37 (fonts/PROVENANCE.md), the regular face of
// every text of the report.
//
//go:embed fonts/DejaVuSans.ttf
var dejaVuSans []byte

// dejaVuSansBold is DejaVu Sans Bold 2.37, for headings and key figures.
//
//go:embed fonts/DejaVuSans-Bold.ttf
var dejaVuSansBold []byte
