package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/engines/raytrace"
)

// evalOrigin is the centre of the crafted scene of raytrace eval's tests.
var evalOrigin = appliance.LatLon{Lat: 51.4925, Lon: 7.4137}

// evalBlockGeoJSON is a 3×3 block of 15 m buildings, 30 m × 25 m on a
// 60 m pitch, around evalOrigin: footprints x (east, m) in [-50,-20],
// [10,40], [70,100] and y (north) in [-50,-25], [10,35], [70,95];
// streets run along x = -5 and y = 50.
func evalBlockGeoJSON() string {
	f := raytrace.NewFrame(evalOrigin)
	var feats []string
	for i := range 3 {
		for j := range 3 {
			x0, y0 := float64(i-1)*60+10, float64(j-1)*60+10
			var coords []string
			for _, p := range [][2]float64{{x0, y0}, {x0 + 30, y0}, {x0 + 30, y0 + 25}, {x0, y0 + 25}, {x0, y0}} {
				ll := f.ToLatLon(p[0], p[1])
				coords = append(coords, fmt.Sprintf("[%.7f,%.7f]", ll.Lon, ll.Lat))
			}
			feats = append(feats, fmt.Sprintf(`{"type":"Feature","properties":{"building":"yes","height":"15"},"geometry":{"type":"Polygon","coordinates":[[%s]]}}`,
				strings.Join(coords, ",")))
		}
	}
	return `{"type":"FeatureCollection","features":[` + strings.Join(feats, ",") + `]}`
}

// evalCSV is a drive test in the crafted scene: a header and one row per
// receiver (x, y in metres from evalOrigin) served by a 1800 MHz cell at
// (200, 200), RSRP falling with the distance; extra rows are appended
// as they are.
func evalCSV(rx [][2]float64, extra ...string) string {
	f := raytrace.NewFrame(evalOrigin)
	cell := f.ToLatLon(200, 200)
	var b strings.Builder
	b.WriteString("lat,lon,alt,rsrp,cellLat,cellLon,cellFreq\n")
	for i, p := range rx {
		ll := f.ToLatLon(p[0], p[1])
		d := math.Hypot(200-p[0], 200-p[1])
		fmt.Fprintf(&b, "%.7f,%.7f,110,%.1f,%.7f,%.7f,1800\n", ll.Lat, ll.Lon, -60-0.1*d-float64(i%3), cell.Lat, cell.Lon)
	}
	for _, e := range extra {
		b.WriteString(e + "\n")
	}
	return b.String()
}

// evalStreetRx are receivers in the crafted scene's streets.
var evalStreetRx = [][2]float64{{-5, -40}, {-5, -10}, {-5, 20}, {-5, 50}, {-5, 80}, {-35, 50}, {25, 50}, {55, 50}, {85, 50}}

// evalRowAt is one row of evalCSV's layout at (x, y) with the signal given.
func evalRowAt(x, y float64, rsrp string) string {
	f := raytrace.NewFrame(evalOrigin)
	ll, cell := f.ToLatLon(x, y), f.ToLatLon(200, 200)
	return fmt.Sprintf("%.7f,%.7f,110,%s,%.7f,%.7f,1800", ll.Lat, ll.Lon, rsrp, cell.Lat, cell.Lon)
}

// TestReadEvalRows: raytrace eval reads files of any reasonable length
// (not the upload's 10,000 rows per request), skips and counts by cause
// the rows whose signal is no measurement, keeps the rows whose ts or
// altitude it cannot read (it scores neither), and when no row is usable
// says why.
func TestReadEvalRows(t *testing.T) {
	long := make([][2]float64, 10_001)
	for i := range long {
		long[i] = [2]float64{-5, float64(i%100) - 40}
	}
	gz := func(s string) string {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write([]byte("\ufeff" + s))
		zw.Close()
		return b.String()
	}
	withTs := func(s, ts string) string {
		ls := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
		for i := range ls {
			if i == 0 {
				ls[i] += ",Timestamp"
			} else {
				ls[i] += "," + ts
			}
		}
		return strings.Join(ls, "\n") + "\n"
	}
	street := evalCSV(evalStreetRx)
	for _, c := range []struct {
		name, file, csv string
		rows            int
		bad             string // the causes, counts()
		alt             bool   // the rows have their altitude
		wantErr         string
	}{
		{name: "10,001 rows, gzip with BOM", file: "long.csv.gz", csv: gz(evalCSV(long)), rows: 10_001, alt: true},
		{name: "RSRP placeholders and an index skipped", file: "s.csv",
			csv:  evalCSV(evalStreetRx, evalRowAt(-5, 0, "2147483647"), evalRowAt(-5, 0, "0"), evalRowAt(-5, 0, "52"), evalRowAt(-5, 0, "north")),
			rows: len(evalStreetRx), bad: "not_a_number[rsrp]=1 signal_out_of_range=3", alt: true},
		{name: "local time without UTC offset kept", file: "t.csv", csv: withTs(street, "2019-05-14 10:47:04"), rows: len(evalStreetRx), alt: true},
		{name: "unreadable altitude kept", file: "a.csv", csv: strings.ReplaceAll(street, ",110,", ",n/a,"), rows: len(evalStreetRx)},
		{name: "every signal a placeholder", file: "p.csv", csv: evalCSV(nil, evalRowAt(-5, 0, "2147483647"), evalRowAt(-5, 0, "0")),
			wantErr: "no usable row: 2 rows unusable (signal_out_of_range=2)"},
		{name: "no serving cell", file: "c.csv", csv: "lat,lon,rsrp\n51.49,7.41,-90\n", wantErr: "(no_serving_cell=1)"},
		{name: "file name with '='", file: "run=2.csv", csv: street, rows: len(evalStreetRx), alt: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, c.file), []byte(c.csv), 0o600); err != nil {
				t.Fatal(err)
			}
			t.Chdir(dir) // the file by its bare name, as a shell passes it
			rows, bad, err := readEvalRows([]string{c.file}, "--observations")
			if c.wantErr != "" {
				if !errors.Is(err, appliance.ErrInvalid) || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, c.wantErr)
				}
				return
			}
			if err != nil || len(rows) != c.rows || counts(bad) != c.bad {
				t.Fatalf("%d rows, unusable %q, %v; want %d rows, unusable %q", len(rows), counts(bad), err, c.rows, c.bad)
			}
			for _, r := range rows {
				if r.HasAlt != c.alt || r.File != c.file || r.Operator != "" {
					t.Fatalf("row %+v: want altitude %v, file %s, no operator", r, c.alt, c.file)
				}
			}
		})
	}
}

// TestSplitOperator: OPERATOR=FILE only where OPERATOR is a label and the
// whole value is no existing file.
func TestSplitOperator(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"run=2.csv", "2.csv"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	for _, c := range []struct{ in, op, file string }{
		{"o2=o2_campus.csv.gz", "o2", "o2_campus.csv.gz"},
		{"t-mobile=x.csv", "t-mobile", "x.csv"},
		{"run=2.csv", "", "run=2.csv"}, // exists: the file, though 2.csv exists too
		{"./run=2.csv", "", "./run=2.csv"},
		{"dir/run=2.csv", "", "dir/run=2.csv"},
		{"a b=x.csv", "", "a b=x.csv"},
		{"=x.csv", "", "=x.csv"},
		{"plain.csv", "", "plain.csv"},
	} {
		if op, f := splitOperator(c.in); op != c.op || f != c.file {
			t.Errorf("splitOperator(%q) = %q, %q; want %q, %q", c.in, op, f, c.op, c.file)
		}
	}
}

// TestRaytraceEvalCounts: on a crafted 3×3 block, a row whose RSRP is a
// logger's placeholder is counted unusable and leaves every score as it
// was; a receiver inside a building is left out of every score and its
// warning (raytrace_rx_inside_building) is counted and named; P.1411's
// warnings (1800 MHz is below the 2.2 GHz its model is stated for) are
// counted for every row and on the p1411 line; the engine lines keep their
// format.
func TestRaytraceEvalCounts(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bld := write("b.geojson", evalBlockGeoJSON())
	clean := write("clean.csv", evalCSV(evalStreetRx))
	dirty := write("dirty.csv", evalCSV(evalStreetRx, evalRowAt(-5, 5, "2147483647"), evalRowAt(25, 20, "-95")))
	run := func(obs string) (*evalResult, string) {
		res, err := raytraceEval(context.Background(), evalConfig{Buildings: bld, Observations: []string{obs}, OffsetFrom: []string{clean},
			TxHeightM: 30, RxHeightM: 1.5, DefaultHeightM: 9})
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		res.print(&out)
		return res, out.String()
	}
	want, wantOut := run(clean)
	got, out := run(dirty)
	t.Logf("clean:\n%s\ndirty:\n%s", wantOut, out)
	line := regexp.MustCompile(`(?m)^engine=(raytrace|fspl|p1411) n=\d+ rmse_db=[-\d.]+ bias_db=[-\d.]+ offset_dbm=[-\d.]+$`)
	if n := len(line.FindAllString(out, -1)); n != 3 {
		t.Fatalf("%d engine lines of the format, want 3:\n%s", n, out)
	}
	if strings.Join(line.FindAllString(out, -1), "\n") != strings.Join(line.FindAllString(wantOut, -1), "\n") {
		t.Errorf("the unusable and unpredicted rows changed the scores")
	}
	if got.Bad != 1 || got.BadBy["signal_out_of_range"] != 1 || !strings.Contains(out, "# skipped_unusable by cause: observations signal_out_of_range=1; offset none\n") {
		t.Errorf("the placeholder RSRP is not counted unusable: %d, %v", got.Bad, got.BadBy)
	}
	if got.Unpredicted != 1 || got.UnpredictedWarnings[raytrace.WarnRxInsideBuilding] != 1 || got.Warnings[raytrace.WarnRxInsideBuilding] != 1 ||
		!strings.Contains(out, "# skipped_not_predicted_by_every_engine: observations=1 offset=0; their warnings: ") ||
		!regexp.MustCompile(`(?m)^# warnings: .*raytrace_rx_inside_building=1`).MatchString(out) {
		t.Errorf("the receiver inside a building: %d unpredicted, warnings %v, of those unpredicted %v", got.Unpredicted, got.Warnings, got.UnpredictedWarnings)
	}
	// every row traced (evaluated and offset) warns of P.1411's frequency range
	traced := 2 * len(evalStreetRx)
	if got.Warnings["p1411_frequency_out_of_range"] != traced+1 || want.Warnings["p1411_frequency_out_of_range"] != traced {
		t.Errorf("P.1411's frequency warning counted %d and %d times, want %d and %d (every row traced)",
			got.Warnings["p1411_frequency_out_of_range"], want.Warnings["p1411_frequency_out_of_range"], traced+1, traced)
	}
	p := got.Scores[2]
	if p.Engine != "p1411" || p.Warnings["p1411_frequency_out_of_range"] != p.N ||
		!strings.Contains(out, fmt.Sprintf("warnings over the %d scored rows: p1411_", p.N)) {
		t.Errorf("the p1411 line's warnings: %+v", p)
	}
}
