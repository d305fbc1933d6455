// Package report renders the PDF documents of the appliance (issue 8,
// item 5): the link report of one planner result, which an engineer prints,
// checks and signs, and the summary page of a batch bundle. It uses
// codeberg.org/go-pdf/fpdf and works offline: the DejaVu Sans fonts
// (fonts/, with their licence and provenance) are embedded in the binary and
// in every PDF (subsets), the logo comes in the options, nothing is fetched.
//
// # Fonts
//
// A document is first rendered with the simple fonts: fonts/*-simple8.ttf,
// DejaVu Sans and Sans Bold cut offline (fonts/make-simple8.sh, fontTools)
// to the 224 characters of the 8-bit encoding fonts/simple8.map (ASCII,
// Latin-1, the Windows-1252 punctuation, and → ← ↔ − ≤ ≥ ≈ ≠ Δ λ ∞ √ Ω π
// μ), embedded as TrueType fonts with that encoding from ready-made fpdf
// definitions (fonts/*-simple8.json, .z; TestSimpleFonts regenerates and
// checks them). A document then costs no font parsing, subsetting or
// compression, which were most of the time of a report: BenchmarkLinkReport,
// paired with the previous build on the 2-core development VM, went from
// 37 to 52 ms to 9.6 to 11.6 ms a report with the machine otherwise idle
// (load average about 1), from a median of 47 to 15 ms under other work
// (load average 6 to 10), and from 23.4 to 7.5 MB allocated a report. Every fixed text of both languages
// and every name of the shipped tower, operator and place data is in the
// encoding (TestSimpleFontCoverage renders them all and reads them back
// with pdftotext). When a text has a character outside it (a Cyrillic
// brand name, say), the document is rendered again with the full DejaVu
// files through fpdf's UTF-8 fonts (subset to the characters used). The
// glyph widths of both modes are the same numbers (TestSimpleFontWidths):
// the layout and the text do not depend on the mode.
//
// # Characters the fonts lack
//
// Any Unicode string renders. DejaVu Sans draws 5,366 characters
// (fonts/unicode-coverage.txt, the Basic Multilingual Plane characters
// both faces have): Latin, Greek, Cyrillic, Hebrew, Arabic, Georgian,
// Armenian, combining marks, many symbols, but no CJK and nothing above
// U+FFFF (emoji), on which fpdf panics (generateCIDFontMap indexes a
// 65,536-entry table). Every text drawn or measured goes through one
// function (doc.tr, encoder.encode), which in Unicode mode replaces each
// character the fonts lack by U+FFFD REPLACEMENT CHARACTER (drawn as a
// diamond with a question mark, read back as U+FFFD by pdftotext); the
// document then says so in one line, in the warnings section of a link
// report and under the data provenance of a batch summary: "N
// characters of this document could not be drawn with its fonts and are
// shown as the replacement character (U+FFFD): U+4E2D, U+1F600." (N
// counts distinct characters, up to 8 code points are listed). Invalid
// UTF-8 and unpaired surrogates (which a JSON decoder turns into U+FFFD)
// show as U+FFFD too, without a note: the font has that character. The
// document information (title, author) keeps every BMP character and
// replaces the others by U+FFFD (fpdf's UTF-16 encoder mangles them).
// Before issue 20 an emoji in a brand, operator or batch row id made the
// renderer panic (HTTP 500, or a crashed process from a batch goroutine),
// and a CJK name was drawn as blank glyphs with no word of it.
//
// Right-to-left text (Hebrew, Arabic) is reordered into visual order per
// line (bidi.go, a simplified UAX #9 for left-to-right lines), so that it
// reads right to left on the page and pdftotext gives it back in logical
// order. Arabic letters are drawn unjoined (no contextual shaping), and a
// right-to-left run that a multi-line cell wraps has its parts on
// swapped lines.
//
// The package imports appliance (domain types) and fpdf only; the batch and
// web layers call it, it calls none of them.
//
// # Link report (Write)
//
// A4 portrait, 15 mm side margins, usually two pages:
//
//   - Header: the brand colour strip, the logo and brand name (Branding; the
//     zero value is a neutral "linkplan" in slate #2F3E4E), the creation
//     time (UTC), the title and "tower → receiver (lat, lon)".
//   - Link ends: receiver and tower coordinates (6 decimals, WGS84), ground
//     heights (m AMSL), antenna heights (m above ground), tower id and
//     operator.
//   - Path: distance (km) and azimuths both ways (degrees from true north),
//     frequency.
//   - Path profile chart (when the candidate has a PathCheck): terrain with
//     the k = 4/3 earth bulge, line of sight, first Fresnel zone (shaded)
//     and its 60 % line, antenna masts, the dominant obstacle marked with
//     its clearance, axes in km and m AMSL, legend, sample count, k and the
//     effective earth radius.
//   - Clearance: line of sight and 60 % F1 verdicts, minimum clearance
//     ratio, the dominant obstacle (height, distances from both ends,
//     clearance in m and in F1, F1 radius), then the minimum antenna
//     heights for line of sight and 60 % F1 at either end.
//   - Link budget: EIRP (assumed or not), path loss, pattern loss, receiver
//     gain, cable loss, received power, threshold and the margin, coloured
//     by its sign.
//   - Propagation engine id and version, diffraction loss; warnings (code
//     and message); tower data provenance (source, placement, position
//     uncertainty, dataset, source date, a red notice for synthetic towers).
//   - The SPEC §1.6 disclaimer (Disclaimer, verbatim; in pt-BR its
//     translation first, then the English text), the screening statement of
//     SPEC §1.8, and a signature block (responsible engineer, professional
//     registration, signature, date).
//   - Footer on every page: brand, title, creation time, "Page n of N",
//     and under it the tenant's footer line and support contact when the
//     branding has them (Branding.Footer, Branding.Support).
//
// # Point-to-point report (WritePTP)
//
// The answer of appliance/ptp (issue 25 scope 5), A4 portrait, usually
// three pages, in the same header, footer, branding and languages:
//
//   - Link ends, A and B side by side: name, Anatel station number ("not
//     given" when the request had none), coordinates, ground and antenna
//     heights, bearing to the other end, azimuth and mechanical downtilt
//     used (marked "aligned" when the planner pointed the antenna).
//   - Equipment: radio and antenna of each end (catalogue id, or inline),
//     peak gain, pattern loss toward the other end, cable losses; a note
//     that built-in equipment are generic examples.
//   - Path: distance, frequency, channel width, polarisation, engine, path
//     and diffraction loss, gaseous absorption (P.676), line of sight and
//     60 % F1 verdicts; the profile chart as in the link report (terrain
//     at k = 4/3, line of sight, first Fresnel zone, obstacle).
//   - Clearance rules (P.530-17 §2.2.2) at k = 4/3 and 2/3 with the least
//     clearance and the minimum antenna heights at each end.
//   - Link budget per modulation: throughput, received level both ways,
//     sensitivity, fade margin of the weaker direction, availability %,
//     outage minutes a year and whether the target is met (the recommended
//     mode in bold; "≥"/"≤" marks a bound).
//   - Availability: the target, the recommended mode, the fade margins
//     99.9/99.99/99.999 % (and the target) need, with rain-only and
//     multipath-only margins; the climate (R0.01 and its source, rain
//     probability, γR, A0.01, dN1, s_a, K, inclination, gas); or, when it
//     was not computed, why.
//   - Warnings (code and message), the data and method sources (terrain,
//     engine, equipment, each ITU-R Recommendation and version, maps), the
//     SPEC §1.6 disclaimer and an engineering block: responsible engineer,
//     registration, the ART number (Anotação de Responsabilidade Técnica,
//     blank when not given), date and signature.
//
// # Batch summary (WriteSummary)
//
// Job id, tenant, brand, creation time and engines; counts by status (ok,
// low_margin, no_tower, error) with shares and a stacked bar; margin
// quantiles (min, P10, P25, median, P75, P90, max) and a histogram of
// about ten bins; the WorstRows (20) rows with the lowest margin; rows
// without a margin grouped by status and reason; per-row PDFs included and
// left out, and why; data provenance lines; the disclaimer.
//
// # Languages and numbers
//
// English (decimal point, thousands comma) and Brazilian Portuguese
// (decimal comma, thousands dot), see Language.Number. Warning messages
// stay in English, as the API returns them (a pt-BR report says so).
// Input strings are shown on one line (control characters become spaces)
// and cut with an ellipsis to their cell.
//
// # Determinism
//
// The same input and Options (Created included) give byte-identical PDFs:
// the creation and modification dates come from Options.Created (in UTC, so
// the zone of the time.Time does not matter), the catalogue is sorted
// (fpdf SetCatalogSort), the document id is fpdf's fixed empty one, streams
// are zlib-compressed (a function of their input), and iteration over maps
// never reaches the output (summary groups are sorted). The golden files in
// testdata pin the bytes for the fpdf version in go.mod; a change of fpdf
// or of the Go zlib writer shows up there.
//
// # Validation
//
// Errors from bad input or options (nil candidate or tower, a profile with
// non-finite values or distances not increasing, unknown language, colour
// not "#RRGGBB", a logo that is not a PNG or is over MaxLogoBytes or
// MaxLogoPx, a zero Created, a batch without job id, unknown row status,
// negative PDF counts) match appliance.ErrInvalid and carry the fields as
// an *appliance.ValidationError; nothing is written then. Write errors of
// the io.Writer are wrapped with %w.
//
// # Regenerating the test artefacts
//
//	go test ./appliance/report/ -run 'TestGolden|TestSamplePNG' -update
//
// rewrites testdata/*.pdf and docs/sample-link-report.png (page 1 of the
// sample report at 60 dpi, rendered with pdftoppm from poppler-utils).
package report
