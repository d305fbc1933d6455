//go:build systemtools

package main_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"linkplan/appliance/tooltest"
)

// Issue 20, scope 4: spreadsheet formulas from JSON row ids, CSV uploads
// and operator names landed unchanged in results.csv and results.dbf. The
// test reads both files back with real readers: Gnumeric's ssconvert (a
// spreadsheet: it evaluates what it takes for a formula), GDAL's ogrinfo
// and Go's encoding/csv.

// formulas are the texts of the finding (and their relatives).
var formulas = []string{
	`=cmd|' /C calc'!A0`,
	`+1+1`,
	`-2+3`,
	`@SUM(1+1)`,
	`=HYPERLINK("http://example.com/x","click")`,
	"'=1+1",
	"＝1+1",
	"a;=1+1", // a new cell where a spreadsheet splits on ';'
}

// neutral is a text cell as results.csv and results.dbf must hold it
// (geoexport.SpreadsheetSafe, written independently).
func neutral(s string) string {
	for _, p := range []string{"=", "+", "-", "@", "\t", "\r", "'", "＝", "＋", "－", "＠"} {
		if strings.HasPrefix(s, p) {
			return "'" + s
		}
	}
	return s
}

// requireTool returns the path of a reader the test needs: a failure under
// CI (make test installs it), a skip elsewhere.
func requireTool(tb testing.TB, name, deb string) string {
	tb.Helper()
	return tooltest.Need(tb, name, deb)
}

// gnmCell is a cell as Gnumeric read it.
type gnmCell struct {
	Row       int    `xml:"Row,attr"`
	Col       int    `xml:"Col,attr"`
	ValueType int    `xml:"ValueType,attr"` // 40 number, 60 string; 0 (absent) for a formula
	Text      string `xml:",chardata"`
}

// Gnumeric value types (gnumeric's value.h).
const (
	gnmFloat  = 40
	gnmString = 60
)

// ssconvertCells opens path with Gnumeric (importer chosen by extension:
// CSV, or Xbase for .dbf), saves it as a Gnumeric workbook and returns its
// cells by [row, col].
func ssconvertCells(t *testing.T, path string) map[[2]int]gnmCell {
	t.Helper()
	bin := requireTool(t, "ssconvert", "gnumeric")
	out := path + ".gnumeric"
	cmd := exec.Command(bin, path, out)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir()) // no user settings
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ssconvert %s: %v\n%s", path, err, b)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Sheets []struct {
			Cells []gnmCell `xml:"Cells>Cell"`
		} `xml:"Sheets>Sheet"`
	}
	if err := xml.NewDecoder(zr).Decode(&doc); err != nil || len(doc.Sheets) != 1 {
		t.Fatalf("ssconvert %s: %v (%d sheets)", path, err, len(doc.Sheets))
	}
	cells := map[[2]int]gnmCell{}
	for _, c := range doc.Sheets[0].Cells {
		cells[[2]int{c.Row, c.Col}] = c
	}
	return cells
}

// ogrValues reads the string values of field of every feature of a .dbf
// with ogrinfo, in file order, and the OGR type of the numeric field num.
func ogrValues(t *testing.T, path, field, num string) ([]string, string) {
	t.Helper()
	out, err := exec.Command(requireTool(t, "ogrinfo", "gdal-bin"), "-ro", "-al", path).CombinedOutput()
	if err != nil {
		t.Fatalf("ogrinfo %s: %v\n%s", path, err, out)
	}
	val := regexp.MustCompile(`^  ` + regexp.QuoteMeta(field) + ` \(String\) = (.*)$`)
	typ := regexp.MustCompile(`^` + regexp.QuoteMeta(num) + `: ([A-Za-z0-9]+)`)
	var vals []string
	numType := ""
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if m := val.FindStringSubmatch(sc.Text()); m != nil {
			vals = append(vals, m[1])
		}
		if m := typ.FindStringSubmatch(sc.Text()); m != nil {
			numType = m[1]
		}
	}
	return vals, numType
}

// spreadsheetBatch returns a JSON batch of n rows over Rio whose ids, and
// the CSV form of the same rows, cycle through formulas.
func spreadsheetBatch(n int) (string, string) {
	var js []string
	var c bytes.Buffer
	cw := csv.NewWriter(&c)
	cw.Comma = ';'
	cw.Write([]string{"nome", "latitude", "longitude", "altura", "frequencia_mhz", "raio_km"})
	for i := range n {
		id := formulas[i%len(formulas)]
		lat, lon := -22.90+float64(i%10)*0.002, -43.20+float64(i/10)*0.002
		b, _ := json.Marshal(id)
		js = append(js, fmt.Sprintf(`{"id":%s,"receiver":{"lat":%.4f,"lon":%.4f,"height_m":10},"frequency_mhz":1800,"max_distance_km":5}`, b, lat, lon))
		cw.Write([]string{id, strconv.FormatFloat(lat, 'f', 4, 64), strconv.FormatFloat(lon, 'f', 4, 64), "10", "1800", "5"})
	}
	cw.Flush()
	return `{"options":{"pdfs":false},"rows":[` + strings.Join(js, ",") + `]}`, c.String()
}

func TestIssue20_SpreadsheetFormulas(t *testing.T) {
	t.Parallel()
	requireTool(t, "ssconvert", "gnumeric")
	bin := binary(t)
	dir := t.TempDir()
	s := startServe(t, bin, dir)
	key := issueKey(t, s, dir, "ultra")
	// A tower of the key's own, close to every receiver and loud, so that
	// it is their best tower: its operator name is a formula too.
	op := `=HYPERLINK("http://example.com/op","operator")`
	opJSON, _ := json.Marshal(op)
	r := s.call(t, "POST", "/towers", map[string]string{"X-API-Key": key, "Content-Type": "application/json"},
		`{"operator":`+string(opJSON)+`,"lat":-22.89,"lon":-43.19,"height":60,"power":70}`)
	if r.status != http.StatusCreated {
		t.Fatalf("register tower: %d %s", r.status, r.body)
	}
	const n = 120 // more than the synchronous limit: a job with a bundle
	jsonBatch, csvBatch := spreadsheetBatch(n)

	ct, csvBody := multipartBody(t, "file", "sites.csv", []byte(csvBatch), map[string]string{"pdfs": "false"})
	res, err := http.NewRequest(http.MethodPost, s.base+"/batch_reports", bytes.NewReader(csvBody))
	if err != nil {
		t.Fatal(err)
	}
	res.Header.Set("Content-Type", ct)
	res.Header.Set("X-API-Key", key)
	up, err := http.DefaultClient.Do(res)
	if err != nil {
		t.Fatal(err)
	}
	upBody, _ := io.ReadAll(up.Body)
	up.Body.Close()
	var accepted struct{ Job drillJob }
	if up.StatusCode != http.StatusAccepted || json.Unmarshal(upBody, &accepted) != nil {
		t.Fatalf("CSV upload: %d %s", up.StatusCode, upBody)
	}
	jobs := map[string]string{"JSON ids": submitBatch(t, s, key, jsonBatch), "CSV upload": accepted.Job.ID}
	for name, id := range jobs {
		t.Run(name, func(t *testing.T) {
			if j := waitJob(t, s, key, id, nil); j.State != "succeeded" {
				t.Fatalf("job %s: %s %v", id, j.State, j.Error)
			}
			files := download(t, s, key, id)
			out := t.TempDir()
			for _, f := range []string{"results.csv", "results.dbf"} {
				if err := os.WriteFile(filepath.Join(out, f), files[f], 0o600); err != nil {
					t.Fatal(err)
				}
			}
			checkResultsCSV(t, filepath.Join(out, "results.csv"), op, n)
			checkResultsDBF(t, filepath.Join(out, "results.dbf"), op, n)
		})
	}
}

// checkResultsCSV reads results.csv with Go's encoding/csv and with
// Gnumeric: every text is the client's, no cell is a formula, and the
// numeric columns are numbers.
func checkResultsCSV(t *testing.T, path, op string, n int) {
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(raw)).ReadAll()
	if err != nil || len(recs) != n+1 {
		t.Fatalf("encoding/csv: %d records, %v", len(recs), err)
	}
	head := recs[0]
	col := func(name string) int {
		i := slices.Index(head, name)
		if i < 0 {
			t.Fatalf("results.csv has no column %s: %v", name, head)
		}
		return i
	}
	idCol, opCol, latCol, marginCol := col("receiver_id"), col("operator"), col("lat"), col("margin_db")
	numeric := map[string]bool{"lat": true, "lon": true, "height_m": true, "frequency_mhz": true, "max_distance_km": true, "rx_gain_dbi": true,
		"cable_loss_db": true, "rx_threshold_dbm": true, "assumed_eirp_dbm": true, "distance_km": true, "azimuth_deg": true,
		"rx_power_dbm": true, "margin_db": true}
	ours := 0
	for i, rec := range recs[1:] {
		id := formulas[i%len(formulas)]
		if want := neutral(id); rec[idCol] != want {
			t.Errorf("encoding/csv row %d: receiver_id %q, want %q", i+1, rec[idCol], want)
		}
		if rec[opCol] == neutral(op) {
			ours++
		}
		for c, v := range rec {
			if v != neutral(v) && !strings.HasPrefix(v, "'") && !numeric[head[c]] {
				t.Errorf("encoding/csv row %d: %s %q is not neutralised", i+1, head[c], v)
			}
		}
	}
	if ours < n/2 {
		t.Errorf("only %d of %d rows have the formula-named tower as best: the operator column is barely tested", ours, n)
	}
	cells := ssconvertCells(t, path)
	formulasSeen, numbers := 0, 0
	for _, c := range cells {
		if c.ValueType == 0 {
			formulasSeen++
			t.Errorf("Gnumeric read cell R%dC%d as a formula: %q", c.Row+1, c.Col+1, c.Text)
		}
	}
	for row := 1; row <= n; row++ {
		id := formulas[(row-1)%len(formulas)]
		got := cells[[2]int{row, idCol}]
		if got.ValueType != gnmString || got.Text != id {
			t.Errorf("Gnumeric row %d receiver_id: %q (type %d), want the text %q", row, got.Text, got.ValueType, id)
		}
		for _, c := range []int{latCol, marginCol} {
			if g := cells[[2]int{row, c}]; g.Text != "" {
				if g.ValueType != gnmFloat {
					t.Errorf("Gnumeric row %d %s: %q is type %d, want a number", row, head[c], g.Text, g.ValueType)
				}
				numbers++
			}
		}
		if g := cells[[2]int{row, opCol}]; strings.Contains(g.Text, "HYPERLINK") && (g.Text != op || g.ValueType != gnmString) {
			t.Errorf("Gnumeric row %d operator: %q (type %d), want the text %q", row, g.Text, g.ValueType, op)
		}
	}
	if numbers < n {
		t.Errorf("only %d numeric cells in lat and margin_db over %d rows", numbers, n)
	}
	t.Logf("results.csv: %d cells, %d formulas, %d numbers checked", len(cells), formulasSeen, numbers)
}

// checkResultsDBF reads results.dbf with ogrinfo and with Gnumeric's Xbase
// importer: every text is neutralised, the numbers are numbers.
func checkResultsDBF(t *testing.T, path, op string, n int) {
	ids, marginType := ogrValues(t, path, "receiver_i", "margin_db")
	if len(ids) != n {
		t.Fatalf("ogrinfo: %d receiver_i values, want %d", len(ids), n)
	}
	for i, got := range ids {
		if want := neutral(formulas[i%len(formulas)]); got != want {
			t.Errorf("ogrinfo row %d: receiver_i %q, want %q", i+1, got, want)
		}
	}
	if marginType != "Real" {
		t.Errorf("ogrinfo: margin_db is %q, want Real", marginType)
	}
	ops, _ := ogrValues(t, path, "operator", "margin_db")
	ours := 0
	for i, got := range ops {
		// the .dbf field is narrower than the name: cut, but neutralised
		mine := len(got) >= 16 && strings.HasPrefix(neutral(op), got)
		if strings.Contains(got, "HYPERLINK") && !mine {
			t.Errorf("ogrinfo row %d: operator %q, want a prefix of %q", i+1, got, neutral(op))
		}
		if mine {
			ours++
		}
	}
	if ours < n/2 {
		t.Errorf("ogrinfo: only %d of %d rows name the formula-named operator", ours, n)
	}
	cells := ssconvertCells(t, path)
	for _, c := range cells {
		if c.ValueType == 0 {
			t.Errorf("Gnumeric read .dbf cell R%dC%d as a formula: %q", c.Row+1, c.Col+1, c.Text)
		}
		if strings.HasPrefix(c.Text, "=") || strings.HasPrefix(c.Text, "+") || strings.HasPrefix(c.Text, "@") {
			t.Errorf("Gnumeric .dbf cell R%dC%d starts a formula: %q", c.Row+1, c.Col+1, c.Text)
		}
	}
}
