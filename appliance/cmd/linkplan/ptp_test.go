//go:build systemtools

package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// antDir holds the real antenna pattern files of the parsers' tests (see
// its PROVENANCE.md); they are read in place.
const antDir = "../../../engines/antfile/testdata"

// ptpRio is the clear 6.1 km Sumaré → Pedra Bonita link at 18.7 GHz with
// the built-in licensed radio and 38 dBi dishes.
var ptpRio = []string{"ptp", "--from", "-22.9517,-43.2371,30", "--to", "-22.9877,-43.2826,20",
	"--frequency-mhz", "18700", "--channel-mhz", "28", "--radio", "builtin:microwave-11-23ghz", "--antenna", "builtin:dish-38dbi",
	"--from-name", "Sumaré", "--to-name", "Pedra Bonita", "--from-station", "694201357", "--to-cable-loss-db", "0.5"}

var modeRow = regexp.MustCompile(`(?m)^\s*(\* )?(QPSK|\d+-QAM)\s+(\d+\.\d)\s+(-?\d+\.\d\d)\s+(-?\d+\.\d\d)\s+`)

// TestIssue25_PTPCLI: `linkplan ptp --from … --to …` on the real binary
// answers the table of the modes and its recommendation, the same figures
// as --json (the body POST /links/ptp answers), writes the PDF report
// (read back by pdftotext, pt-BR, with the Anatel station and the ART)
// and the geo export; takes a radio JSON file and a real pattern file
// (Galtronics, Planet format) as equipment; and refuses bad input with
// exit 2 naming the flag.
func TestIssue25_PTPCLI(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	dir := t.TempDir()
	pdf, geo := filepath.Join(dir, "ptp.pdf"), filepath.Join(dir, "ptp.geojson")
	out, errOut, code := runCLI(t, bin, append(append([]string{}, ptpRio...), "--report", pdf, "--language", "pt-BR",
		"--art", "28027230212345678", "--engineer-name", "Maria Souza", "--export", geo)...)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	rows := modeRow.FindAllStringSubmatch(out, -1)
	rec := regexp.MustCompile(`recommended \(\*\): (\S+), `).FindStringSubmatch(out)
	if len(rows) != 8 || rec == nil || !strings.Contains(out, "fade margin for 99.999 %") || !strings.Contains(out, "rain_r001_annex1_method") ||
		!strings.Contains(out, "ITU-R P.530-17") {
		t.Fatalf("table:\n%s", out)
	}
	starred := ""
	for _, r := range rows {
		if r[1] != "" {
			starred = r[2]
		}
	}
	if starred != rec[1] {
		t.Errorf("the starred mode %q is not the recommended %q", starred, rec[1])
	}

	// --json: the API's body, the same figures.
	jout, errOut, code := runCLI(t, bin, append(append([]string{}, ptpRio...), "--json")...)
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, errOut)
	}
	var a struct {
		Modes []struct {
			Name string `json:"name"`
			AtoB struct {
				RxLevelDBm float64 `json:"rx_level_dbm"`
			} `json:"a_to_b"`
			BtoA struct {
				RxLevelDBm float64 `json:"rx_level_dbm"`
			} `json:"b_to_a"`
		} `json:"modes"`
		RecommendedMode *string `json:"recommended_mode"`
		A               struct {
			AnatelStation *string `json:"anatel_station"`
		} `json:"a"`
	}
	if err := json.Unmarshal([]byte(jout), &a); err != nil || len(a.Modes) != 8 || a.RecommendedMode == nil || *a.RecommendedMode != rec[1] ||
		a.A.AnatelStation == nil || *a.A.AnatelStation != "694201357" {
		t.Fatalf("--json: %v\n%.800s", err, jout)
	}
	for i, r := range rows {
		if m := a.Modes[i]; m.Name != r[2] || fmt.Sprintf("%.2f", m.AtoB.RxLevelDBm) != r[4] || fmt.Sprintf("%.2f", m.BtoA.RxLevelDBm) != r[5] {
			t.Errorf("mode %d: table %q, JSON %+v", i, r[0], m)
		}
	}
	// The same radios both ways over a reciprocal path, both cables in
	// each direction: the two received levels are equal.
	if d := a.Modes[0].AtoB.RxLevelDBm - a.Modes[0].BtoA.RxLevelDBm; d != 0 {
		t.Errorf("Rx A→B − Rx B→A = %.3f dB, want 0", d)
	}

	body, err := os.ReadFile(pdf)
	if err != nil {
		t.Fatal(err)
	}
	text := pdfText(t, body)
	for _, w := range []string{"Relatório de enlace ponto a ponto", "Sumaré", "Pedra Bonita", "Nº da estação Anatel", "694201357",
		"28027230212345678", "Maria Souza", "Disponibilidade", "ITU-R P.530-17", *a.RecommendedMode} {
		if !strings.Contains(text, w) {
			t.Errorf("the report lacks %q", w)
		}
	}
	var fc struct {
		Features []struct {
			Properties map[string]any `json:"properties"`
		} `json:"features"`
	}
	if b, err := os.ReadFile(geo); err != nil || json.Unmarshal(b, &fc) != nil || len(fc.Features) != 3 || fc.Features[2].Properties["mode"] != *a.RecommendedMode {
		t.Errorf("export: %v %+v", err, fc)
	}

	// A radio of one's own (a JSON file as POST /equipment/radios takes)
	// and a real pattern file on both ends, at 1960 MHz.
	radio := filepath.Join(dir, "radio.json")
	if err := os.WriteFile(radio, []byte(`{"name":"LTE backhaul 1.9 GHz","bands":[{"min_mhz":1900,"max_mhz":2000}],"channels":[{"width_mhz":10,"modes":[`+
		`{"name":"QPSK 1/2","tx_power_dbm":30,"sensitivity_dbm":-98,"throughput_mbps":8},{"name":"64-QAM 5/6","tx_power_dbm":27,"sensitivity_dbm":-80,"throughput_mbps":40}]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	ant := filepath.Join(antDir, "LTE-L_1960MHz_P1.txt")
	out, errOut, code = runCLI(t, bin, "ptp", "--from", "-22.9517,-43.2371,30", "--to", "-22.9877,-43.2826,20", "--frequency-mhz", "1960",
		"--channel-mhz", "10", "--radio", radio, "--antenna", ant)
	if code != 0 || len(modeRow.FindAllString(out, -1)) != 0 || !strings.Contains(out, "QPSK 1/2") || !strings.Contains(out, "64-QAM 5/6") ||
		!strings.Contains(out, "LTE backhaul 1.9 GHz") || !strings.Contains(out, "Galtronics") {
		t.Errorf("own radio and pattern file: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}

	bad := filepath.Join(dir, "bad.msi")
	if err := os.WriteFile(bad, []byte("NAME x\nGAIN 10 dBi\nHORIZONTAL 360\n0 0\n1 zz\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		edit func([]string) []string
		want string
	}{
		{"no --from", func(a []string) []string { return append([]string{"ptp"}, a[3:]...) }, "--from"},
		{"bad --to", func(a []string) []string { return set(a, "--to", "-22.9,-43.2") }, "--to"},
		{"no such width", func(a []string) []string { return set(a, "--channel-mhz", "30") }, "--channel-mhz"},
		{"azimuth", func(a []string) []string { return append(a, "--from-azimuth-deg", "400") }, "--from-azimuth-deg"},
		{"unknown radio", func(a []string) []string { return set(a, "--radio", "builtin:nope") }, "--radio"},
		{"missing file", func(a []string) []string { return set(a, "--antenna", filepath.Join(dir, "none.msi")) }, "--antenna"},
		{"malformed file", func(a []string) []string { return set(a, "--antenna", bad) }, "line 5"},
		{"language", func(a []string) []string { return append(a, "--language", "fr") }, "--language"},
		{"export name", func(a []string) []string { return append(a, "--export", "x.shp") }, "--export"},
		{"same point", func(a []string) []string { return set(a, "--to", "-22.9517,-43.2371,20") }, "--to"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, bin, c.edit(append([]string{}, ptpRio...))...)
			if code != 2 || out != "" || !strings.Contains(errOut, c.want) {
				t.Errorf("exit %d, want 2 naming %s\nstdout %s\nstderr %s", code, c.want, out, errOut)
			}
		})
	}
}

// set returns args with the value of flag replaced.
func set(args []string, flag, value string) []string {
	for i := range args[:len(args)-1] {
		if args[i] == flag {
			args[i+1] = value
			return args
		}
	}
	return append(args, flag, value)
}
