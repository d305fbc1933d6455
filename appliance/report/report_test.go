package report

import (
	"bytes"
	"errors"
	"flag"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/tooltest"
)

// update rewrites the golden files and the sample page PNG:
//
//	go test ./appliance/report/ -run 'TestGolden|TestSamplePNG' -update
var update = flag.Bool("update", false, "rewrite testdata golden PDFs and docs/sample-link-report.png")

// requireTool returns the path of a poppler-utils tool. Without it the
// test fails when CI is set (make test installs poppler-utils) and skips
// otherwise.
func requireTool(tb testing.TB, name string) string {
	tb.Helper()
	return tooltest.Need(tb, name, "poppler-utils")
}

// render renders a link report or fails the test.
func render(tb testing.TB, in Input, opt Options) []byte {
	tb.Helper()
	var b bytes.Buffer
	if err := Write(&b, in, opt); err != nil {
		tb.Fatalf("Write: %v", err)
	}
	return b.Bytes()
}

// renderSummary renders a batch summary or fails the test.
func renderSummary(tb testing.TB, in SummaryInput, opt Options) []byte {
	tb.Helper()
	var b bytes.Buffer
	if err := WriteSummary(&b, in, opt); err != nil {
		tb.Fatalf("WriteSummary: %v", err)
	}
	return b.Bytes()
}

// writeTemp writes a PDF to a temporary file and returns its path.
func writeTemp(tb testing.TB, name string, pdf []byte) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), name)
	if err := os.WriteFile(path, pdf, 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

// pdfText extracts the text of a PDF with pdftotext, whitespace runs
// folded to one space (table cells and wrapped lines).
func pdfText(tb testing.TB, pdf []byte) string {
	tb.Helper()
	tool := requireTool(tb, "pdftotext")
	path := writeTemp(tb, "r.pdf", pdf)
	out, err := exec.Command(tool, "-enc", "UTF-8", path, "-").CombinedOutput()
	if err != nil {
		tb.Fatalf("pdftotext: %v\n%s", err, out)
	}
	return strings.Join(strings.Fields(string(out)), " ")
}

// pdfPages is the page count pdfinfo reads.
func pdfPages(tb testing.TB, path string) int {
	tb.Helper()
	out, err := exec.Command(requireTool(tb, "pdfinfo"), path).CombinedOutput()
	if err != nil {
		tb.Fatalf("pdfinfo: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`(?m)^Pages:\s+(\d+)$`).FindSubmatch(out)
	if m == nil {
		tb.Fatalf("pdfinfo printed no page count:\n%s", out)
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// testLogo is a 160×48 PNG logo, of the given bit depth (8 or 16).
func testLogo(tb testing.TB, depth int) []byte {
	tb.Helper()
	var img image.Image
	r := image.Rect(0, 0, 160, 48)
	if depth == 16 {
		m := image.NewNRGBA64(r)
		for y := range 48 {
			for x := range 160 {
				m.Set(x, y, color.NRGBA64{R: uint16(x * 400), G: 0x4000, B: 0x9000, A: 0xffff})
			}
		}
		img = m
	} else {
		m := image.NewNRGBA(r)
		for y := range 48 {
			for x := range 160 {
				a := uint8(255)
				if (x/16+y/16)%2 == 0 {
					a = 60
				}
				m.Set(x, y, color.NRGBA{R: 0, G: 120, B: uint8(x), A: a})
			}
		}
		img = m
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

func TestNumber(t *testing.T) {
	cases := []struct {
		name string
		lang Language
		v    float64
		dec  int
		want string
	}{
		{"en thousands", English, 1234567.891, 2, "1,234,567.89"},
		{"pt thousands", Portuguese, 1234567.891, 2, "1.234.567,89"},
		{"en negative", English, -65.94, 1, "-65.9"},
		{"pt negative", Portuguese, -1065.96, 1, "-1.066,0"},
		{"negative rounds to zero", English, -0.04, 1, "0.0"},
		{"no decimals", Portuguese, 999.6, 0, "1.000"},
		{"NaN", Portuguese, math.NaN(), 1, "—"},
		{"Inf", English, math.Inf(-1), 1, "—"},
		{"small", English, 0.5, 3, "0.500"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.lang.Number(c.v, c.dec); got != c.want {
				t.Errorf("Number(%v, %d) = %q, want %q", c.v, c.dec, got, c.want)
			}
		})
	}
}

func TestValidation(t *testing.T) {
	good := sampleInput(t)
	noTower := good
	c := *good.Candidate
	c.Tower = nil
	noTower.Candidate = &c
	badProfile := good
	c2 := *good.Candidate
	pc := *c2.Path
	pc.Profile = append([]appliance.ProfilePoint(nil), pc.Profile...)
	pc.Profile[3].GroundM = math.NaN()
	c2.Path = &pc
	badProfile.Candidate = &c2
	backwards := good
	c3 := *good.Candidate
	pc3 := *c3.Path
	pc3.Profile = append([]appliance.ProfilePoint(nil), pc.Profile...)
	pc3.Profile[3].GroundM = 800
	pc3.Profile[5].DistanceM = pc3.Profile[4].DistanceM
	c3.Path = &pc3
	backwards.Candidate = &c3
	hugeHeight := withPath(good, func(pc *appliance.PathCheck) { pc.Profile[7].LOSM = 1e300 })
	nanObstacle := withPath(good, func(pc *appliance.PathCheck) { o := *pc.Obstacle; o.ClearanceF1 = math.NaN(); pc.Obstacle = &o })
	farObstacle := withPath(good, func(pc *appliance.PathCheck) { o := *pc.Obstacle; o.DistanceFromTxM = 1e6; pc.Obstacle = &o })
	huge := testLogo(t, 8)
	huge = append(huge, make([]byte, MaxLogoBytes)...)
	var bigPx bytes.Buffer
	if err := png.Encode(&bigPx, image.NewGray(image.Rect(0, 0, MaxLogoPx+1, 1))); err != nil {
		t.Fatal(err)
	}
	opt := Options{Created: created}
	cases := []struct {
		name  string
		in    Input
		opt   Options
		field string
	}{
		{"nil candidate", Input{}, opt, "candidate"},
		{"nil tower", noTower, opt, "candidate.tower"},
		{"NaN in profile", badProfile, opt, "candidate.path.profile[3]"},
		{"distances not increasing", backwards, opt, "candidate.path.profile[5]"},
		{"height out of range", hugeHeight, opt, "candidate.path.profile[7]"},
		{"NaN in obstacle", nanObstacle, opt, "candidate.path.obstacle"},
		{"obstacle off the profile", farObstacle, opt, "candidate.path.obstacle"},
		{"unknown language", good, Options{Created: created, Language: "fr"}, "language"},
		{"colour without hash", good, Options{Created: created, Branding: Branding{Color: "2F3E4E"}}, "branding.color"},
		{"colour not hex", good, Options{Created: created, Branding: Branding{Color: "#12345G"}}, "branding.color"},
		{"colour with sign", good, Options{Created: created, Branding: Branding{Color: "#+12345"}}, "branding.color"},
		{"colour short", good, Options{Created: created, Branding: Branding{Color: "#fff"}}, "branding.color"},
		{"logo not PNG", good, Options{Created: created, Branding: Branding{LogoPNG: []byte("GIF89a....")}}, "branding.logo"},
		{"logo truncated", good, Options{Created: created, Branding: Branding{LogoPNG: testLogo(t, 8)[:60]}}, "branding.logo"},
		{"logo too many bytes", good, Options{Created: created, Branding: Branding{LogoPNG: huge}}, "branding.logo"},
		{"logo too wide", good, Options{Created: created, Branding: Branding{LogoPNG: bigPx.Bytes()}}, "branding.logo"},
		{"zero created", good, Options{}, "created"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			err := Write(&b, c.in, c.opt)
			if !errors.Is(err, appliance.ErrInvalid) {
				t.Fatalf("Write error = %v, want one matching appliance.ErrInvalid", err)
			}
			var ve *appliance.ValidationError
			if !errors.As(err, &ve) || len(ve.Fields) == 0 || ve.Fields[0].Field != c.field {
				t.Errorf("Write error = %v, want its first field %q", err, c.field)
			}
			if b.Len() != 0 {
				t.Errorf("Write wrote %d bytes with an invalid input", b.Len())
			}
		})
	}
}

// withPath returns a copy of in whose path check (profile copied) edit
// changed.
func withPath(in Input, edit func(pc *appliance.PathCheck)) Input {
	c := *in.Candidate
	pc := *c.Path
	pc.Profile = append([]appliance.ProfilePoint(nil), pc.Profile...)
	edit(&pc)
	c.Path = &pc
	in.Candidate = &c
	return in
}

func TestSummaryValidation(t *testing.T) {
	badStatus := sampleSummary()
	badStatus.Rows[4].Status = "maybe"
	cases := []struct {
		name  string
		in    SummaryInput
		opt   Options
		field string
	}{
		{"no job id", SummaryInput{}, Options{Created: created}, "job_id"},
		{"unknown status", badStatus, Options{Created: created}, "rows[4].status"},
		{"negative included", SummaryInput{JobID: "j", PDFsIncluded: -1}, Options{Created: created}, "pdfs_included"},
		{"negative left out", SummaryInput{JobID: "j", PDFsLeftOut: -1}, Options{Created: created}, "pdfs_left_out"},
		{"bad colour", SummaryInput{JobID: "j"}, Options{Created: created, Branding: Branding{Color: "red"}}, "branding.color"},
		{"bad logo", SummaryInput{JobID: "j"}, Options{Created: created, Branding: Branding{LogoPNG: []byte{0x89, 'P', 'N', 'G'}}}, "branding.logo"},
		{"zero created", SummaryInput{JobID: "j"}, Options{}, "created"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := WriteSummary(io.Discard, c.in, c.opt)
			if !errors.Is(err, appliance.ErrInvalid) {
				t.Fatalf("WriteSummary error = %v, want one matching appliance.ErrInvalid", err)
			}
			var ve *appliance.ValidationError
			if !errors.As(err, &ve) || len(ve.Fields) == 0 || ve.Fields[0].Field != c.field {
				t.Errorf("WriteSummary error = %v, want its first field %q", err, c.field)
			}
		})
	}
}

// failWriter fails every write.
type failWriter struct{}

var errDiskFull = errors.New("disk full")

func (failWriter) Write([]byte) (int, error) { return 0, errDiskFull }

func TestWriteErrorWrapped(t *testing.T) {
	if err := Write(failWriter{}, sampleInput(t), Options{Created: created}); !errors.Is(err, errDiskFull) {
		t.Errorf("Write error = %v, want it to wrap the writer's error", err)
	}
	if err := WriteSummary(failWriter{}, sampleSummary(), Options{Created: created}); !errors.Is(err, errDiskFull) {
		t.Errorf("WriteSummary error = %v, want it to wrap the writer's error", err)
	}
}

// brandedOptions is a fully branded option set.
func brandedOptions(tb testing.TB, lang Language) Options {
	return Options{Language: lang, Created: created, Branding: Branding{Name: "Acme Radio Engenharia", LogoPNG: testLogo(tb, 8), Color: "#0B6E4F"}}
}

func TestDeterministic(t *testing.T) {
	cases := []struct {
		name   string
		render func(tb testing.TB, opt Options) []byte
		opt    Options
	}{
		{"link en neutral", func(tb testing.TB, o Options) []byte { return render(tb, sampleInput(tb), o) }, Options{Created: created}},
		{"link pt-BR branded", func(tb testing.TB, o Options) []byte { return render(tb, sampleInput(tb), o) }, brandedOptions(t, Portuguese)},
		{"summary en branded", func(tb testing.TB, o Options) []byte { return renderSummary(tb, sampleSummary(), o) }, brandedOptions(t, English)},
		{"summary pt-BR neutral", func(tb testing.TB, o Options) []byte { return renderSummary(tb, sampleSummary(), o) }, Options{Language: Portuguese, Created: created}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, b := c.render(t, c.opt), c.render(t, c.opt)
			if !bytes.Equal(a, b) {
				t.Fatalf("two renders differ (%d and %d bytes)", len(a), len(b))
			}
			// The creation time is the only clock: another one changes
			// the bytes, the same instant in another zone does not.
			later := c.opt
			later.Created = created.Add(time.Hour)
			if bytes.Equal(a, c.render(t, later)) {
				t.Error("another Created gave the same bytes")
			}
			zoned := c.opt
			zoned.Created = created.In(time.FixedZone("BRT", -3*3600))
			if !bytes.Equal(a, c.render(t, zoned)) {
				t.Error("the same instant in another time zone gave other bytes")
			}
		})
	}
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./appliance/report/ -run TestGolden -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (%d bytes, golden %d); if the change is meant, rerun with -update and look at the PDF", name, len(got), len(want))
	}
}

func TestGolden(t *testing.T) {
	golden(t, "link-report-en.pdf", render(t, sampleInput(t), Options{Created: created}))
	golden(t, "batch-summary-pt-BR.pdf", renderSummary(t, sampleSummary(), brandedOptions(t, Portuguese)))
}

func TestTextEnglish(t *testing.T) {
	txt := pdfText(t, render(t, sampleInput(t), Options{Created: created}))
	for _, want := range []string{
		Disclaimer,
		"anatel:1234567-ERB-Serra",
		"Link margin 34.1 dB",
		"Received power = -65.9 dBm",
		"Distance 12.400 km",
		"Azimuth receiver → tower 301.7°",
		"Azimuth tower → receiver 121.6°",
		"Engine p1812", "Version p1812-8/1",
		"Position uncertainty ± 30 m",
		"Anatel SMP licensing export 2026-10",
		"void_filled_terrain",
		"Dominant obstacle",
		"Line of sight", "1st Fresnel zone", "60 % of F1",
		"Terrain with earth curvature (k = 4/3)",
		"Responsible engineer",
		"Page 1 of 2",
	} {
		if !strings.Contains(txt, want) {
			t.Errorf("extracted text lacks %q", want)
		}
	}
}

func TestTextPortuguese(t *testing.T) {
	txt := pdfText(t, render(t, sampleInput(t), brandedOptions(t, Portuguese)))
	for _, want := range []string{
		"A explicação automática não substitui o parecer técnico do engenheiro responsável.",
		Disclaimer,
		"anatel:1234567-ERB-Serra",
		"Margem do enlace 34,1 dB",
		"Potência recebida = -65,9 dBm",
		"Distância 12,400 km",
		"Frequência 850,0 MHz",
		"-22,912345°",
		"Acme Radio Engenharia",
		"Página 1 de 2",
	} {
		if !strings.Contains(txt, want) {
			t.Errorf("extracted text lacks %q", want)
		}
	}
	if strings.Contains(txt, "34.1 dB") {
		t.Error("pt-BR report shows the margin with a decimal point")
	}
}

func TestSummaryText(t *testing.T) {
	in := sampleSummary()
	cases := []struct {
		name string
		lang Language
		want []string
	}{
		{"en", English, []string{
			Disclaimer, "job_01JD7M8Q2X5K9", "Acme Telecom (tn_acme)", "p1812 p1812-8/1",
			"240 100.0 %", "no_tower 8 3.3 %", "error 5 2.1 %",
			"Included in the bundle 150", "Left out 62", "monthly PDF quota of the tier reached",
			"Anatel SMP licensing export 2026-10", "The 20 rows with the lowest margin",
			"1 rx-0001 -22.90000 -47.06000 anatel:1000000 1.50 -12.0",
			"terrain tile S23W048 not installed",
		}},
		{"pt-BR", Portuguese, []string{
			"A explicação automática não substitui o parecer técnico do engenheiro responsável.", Disclaimer,
			"240 100,0 %", "no_tower 8 3,3 %", "1 rx-0001 -22,90000 -47,06000 anatel:1000000 1,50 -12,0",
			"Incluídos no pacote 150",
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			txt := pdfText(t, renderSummary(t, in, Options{Language: c.lang, Created: created}))
			for _, w := range c.want {
				if !strings.Contains(txt, w) {
					t.Errorf("extracted text lacks %q", w)
				}
			}
		})
	}
}

func TestSummaryStats(t *testing.T) {
	nan := math.NaN()
	in := SummaryInput{JobID: "j", Rows: []SummaryRow{
		{Row: 1, MarginDB: 5, Status: StatusLowMargin},
		{Row: 2, MarginDB: nan, Status: StatusNoTower, Reason: "none in range"},
		{Row: 3, MarginDB: -1, Status: StatusLowMargin},
		{Row: 4, MarginDB: 5, Status: StatusOK},
		{Row: 5, MarginDB: nan, Status: StatusError, Reason: "bad"},
		{Row: 6, MarginDB: nan, Status: StatusNoTower, Reason: "none in range"},
		{Row: 7, MarginDB: math.Inf(1), Status: StatusOK},
	}}
	for i := range 30 {
		in.Rows = append(in.Rows, SummaryRow{Row: int64(100 + i), MarginDB: float64(40 - i), Status: StatusOK})
	}
	s := &summary{in: in}
	s.stats()
	if got := s.counts[StatusOK]; got != 32 {
		t.Errorf("ok count = %d, want 32", got)
	}
	if len(s.worst) != WorstRows {
		t.Fatalf("worst rows = %d, want %d", len(s.worst), WorstRows)
	}
	var order []int64
	for _, r := range s.worst[:4] {
		order = append(order, r.Row)
	}
	if want := []int64{3, 1, 4, 129}; !slicesEqual(order, want) {
		t.Errorf("worst rows start %v, want %v (margin ascending, ties by row)", order, want)
	}
	// Rows without a finite margin (an infinite one included) are grouped
	// by status and reason, most frequent first, then by first row.
	if len(s.reasons) != 3 || s.reasons[0].n != 2 || s.reasons[0].first != 2 || s.reasons[1].reason != "bad" || s.reasons[2].first != 7 {
		t.Errorf("reasons = %+v, want none in range ×2 (first row 2), bad, then ok without a reason", s.reasons)
	}
	if q := quantile([]float64{1, 2, 3, 4}, 0.5); q != 2.5 {
		t.Errorf("median of 1..4 = %v, want 2.5", q)
	}
	if q := quantile(nil, 0.5); !math.IsNaN(q) {
		t.Errorf("quantile of nothing = %v, want NaN", q)
	}
}

func slicesEqual(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestEveryPageRenders rasterises every page of a range of reports with
// pdftoppm and checks the page count against pdfinfo.
func TestEveryPageRenders(t *testing.T) {
	noPath := sampleInput(t)
	c := *noPath.Candidate
	c.Path, c.Warnings = nil, nil
	c.Tower = &appliance.Tower{ID: "ocid:724-10-" + strings.Repeat("9", 120), Source: appliance.SourceSynthetic, Synthetic: true,
		HeightM: 30, Placement: appliance.PlacementCentroid, UncertaintyM: 1500, ERPDBm: math.NaN()}
	c.EIRPAssumed = true
	noPath.Candidate = &c
	noPath.ReceiverGroundM = 612.5
	manyWarnings := sampleInput(t)
	c2 := *manyWarnings.Candidate
	for i := range 40 {
		c2.Warnings = append(c2.Warnings, appliance.Warning{Code: "warning_" + strconv.Itoa(i), Message: strings.Repeat("A long sentence\nwith a line break and words. ", 1+i%4)})
	}
	manyWarnings.Candidate = &c2
	bigBatch := sampleSummary()
	bigBatch.Title = "Lote de homologação — região de Campinas (SP)"
	for i := range 30 {
		bigBatch.Rows = append(bigBatch.Rows, SummaryRow{Row: int64(1000 + i), Lat: nan(), Lon: nan(), DistanceKm: nan(), MarginDB: nan(), Status: StatusError, Reason: "reason " + strconv.Itoa(i)})
	}
	twoSamples := withPath(sampleInput(t), func(pc *appliance.PathCheck) {
		pc.Profile = []appliance.ProfilePoint{pc.Profile[0], pc.Profile[len(pc.Profile)-1]}
		pc.Obstacle = nil
	})
	flat := withPath(sampleInput(t), func(pc *appliance.PathCheck) {
		for i := range pc.Profile {
			pc.Profile[i].GroundM, pc.Profile[i].EffectiveGroundM, pc.Profile[i].LOSM, pc.Profile[i].F1RadiusM = 0, 0, 0, 0
		}
	})
	extremes := SummaryInput{JobID: "job_x", Rows: []SummaryRow{
		{Row: 1, MarginDB: -1e300, Status: StatusLowMargin}, {Row: 2, MarginDB: 1e300, Status: StatusOK},
		{Row: 3, MarginDB: 4, Status: StatusOK}, {Row: 4, MarginDB: math.Inf(-1), Status: StatusError},
	}}
	cases := []struct {
		name  string
		pdf   []byte
		pages int
	}{
		{"link with a two-sample profile", render(t, twoSamples, Options{Created: created}), 0},
		{"link over flat zero terrain", render(t, flat, Options{Created: created}), 0},
		{"summary with extreme margins", renderSummary(t, extremes, Options{Created: created}), 0},
		{"link en", render(t, sampleInput(t), Options{Created: created}), 2},
		{"link pt-BR 16-bit logo", render(t, sampleInput(t), Options{Language: Portuguese, Created: created, Branding: Branding{LogoPNG: testLogo(t, 16), Name: strings.Repeat("Marca muito longa ", 10)}}), 2},
		{"link without profile, synthetic tower", render(t, noPath, Options{Created: created}), 0},
		{"link with 40 warnings", render(t, manyWarnings, brandedOptions(t, English)), 0},
		{"summary en", renderSummary(t, sampleSummary(), Options{Created: created}), 2},
		{"summary empty", renderSummary(t, SummaryInput{JobID: "job_empty"}, Options{Created: created}), 0},
		{"summary one row", renderSummary(t, SummaryInput{JobID: "job_1", Rows: []SummaryRow{{Row: 1, MarginDB: 3, Status: StatusLowMargin}}}, Options{Created: created}), 0},
		{"summary many reasons", renderSummary(t, bigBatch, brandedOptions(t, Portuguese)), 0},
	}
	tool := requireTool(t, "pdftoppm")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeTemp(t, "r.pdf", c.pdf)
			n := pdfPages(t, path)
			if c.pages > 0 && n != c.pages {
				t.Errorf("pdfinfo counts %d pages, want %d", n, c.pages)
			}
			dir := t.TempDir()
			out, err := exec.Command(tool, "-r", "20", "-png", path, filepath.Join(dir, "p")).CombinedOutput()
			if err != nil || len(bytes.TrimSpace(out)) > 0 {
				t.Fatalf("pdftoppm: %v\n%s", err, out)
			}
			pngs, _ := filepath.Glob(filepath.Join(dir, "p-*.png"))
			if len(pngs) != n {
				t.Errorf("pdftoppm rendered %d pages, pdfinfo counts %d", len(pngs), n)
			}
		})
	}
}

func nan() float64 { return math.NaN() }

// TestSamplePNG keeps docs/sample-link-report.png, the first page of the
// sample report at 60 dpi. Regenerate it with
//
//	go test ./appliance/report/ -run TestSamplePNG -update
//
// Without -update it only checks that the file is there and small: the
// rasteriser's pixels vary between poppler versions.
func TestSamplePNG(t *testing.T) {
	const path = "docs/sample-link-report.png"
	if *update {
		tool := requireTool(t, "pdftoppm")
		pdf := writeTemp(t, "sample.pdf", render(t, sampleInput(t), Options{Created: created}))
		out, err := exec.Command(tool, "-r", "60", "-f", "1", "-l", "1", "-singlefile", "-png", pdf, strings.TrimSuffix(path, ".png")).CombinedOutput()
		if err != nil {
			t.Fatalf("pdftoppm: %v\n%s", err, out)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if len(b) > 200<<10 {
		t.Errorf("%s is %d bytes, want at most 200 KiB", path, len(b))
	}
	if _, err := png.DecodeConfig(bytes.NewReader(b)); err != nil {
		t.Errorf("%s: %v", path, err)
	}
}

func BenchmarkLinkReport(b *testing.B) {
	in := sampleInput(b)
	opt := brandedOptions(b, Portuguese)
	b.ReportAllocs()
	for b.Loop() {
		if err := Write(io.Discard, in, opt); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSummaryReport(b *testing.B) {
	in := sampleSummary()
	opt := brandedOptions(b, English)
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteSummary(io.Discard, in, opt); err != nil {
			b.Fatal(err)
		}
	}
}

// TestBrandingFooter checks that a tenant's footer line and support
// contact are printed on every page, and that the neutral default prints
// neither.
func TestBrandingFooter(t *testing.T) {
	opt := Options{Created: created, Branding: Branding{Name: "ACME Telecom", Color: "#0A7F3C",
		Footer: "ACME Telecom Ltda · CNPJ 00.000.000/0001-00", Support: "noc@acme.example"}}
	txt := pdfText(t, render(t, sampleInput(t), opt))
	if n := strings.Count(txt, "Support: noc@acme.example"); n != 2 {
		t.Errorf("support contact printed %d times, want once a page (2)", n)
	}
	if n := strings.Count(txt, "CNPJ 00.000.000/0001-00"); n != 2 {
		t.Errorf("footer printed %d times, want 2", n)
	}
	if !strings.Contains(txt, "ACME Telecom") {
		t.Error("brand name missing")
	}
	opt.Language = Portuguese
	if txt := pdfText(t, render(t, sampleInput(t), opt)); !strings.Contains(txt, "Suporte: noc@acme.example") {
		t.Error("pt-BR support label missing")
	}
	if txt := pdfText(t, render(t, sampleInput(t), Options{Created: created})); strings.Contains(txt, "Support:") {
		t.Error("neutral report prints a support line")
	}
}
