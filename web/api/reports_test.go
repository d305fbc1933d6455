package api_test

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"linkplan/appliance/report"
)

// pdfToText extracts the text of a PDF with pdftotext, whitespace runs
// folded to one space (table cells and wrapped lines).
func pdfToText(t *testing.T, pdf []byte) string {
	t.Helper()
	tool := requireCLI(t, "pdftotext", "poppler-utils")
	path := filepath.Join(t.TempDir(), "report.pdf")
	if err := os.WriteFile(path, pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(tool, "-enc", "UTF-8", path, "-").CombinedOutput()
	if err != nil {
		t.Fatalf("pdftotext: %v\n%s", err, out)
	}
	return strings.Join(strings.Fields(string(out)), " ")
}

// reportOK posts body to /reports/link as key, checks a 200 PDF attachment
// and returns its text.
func reportOK(t *testing.T, h *harness, key, body string) string {
	t.Helper()
	res := h.do(t, http.MethodPost, "/reports/link", h.keys[key], nil, body)
	if res.status != http.StatusOK {
		t.Fatalf("status %d: %.600s", res.status, res.body)
	}
	if ct := res.header.Get("Content-Type"); ct != "application/pdf" {
		t.Errorf("Content-Type %q, want application/pdf", ct)
	}
	if cd := res.header.Get("Content-Disposition"); !strings.HasPrefix(cd, `attachment; filename="link-report-`) || !strings.HasSuffix(cd, `.pdf"`) {
		t.Errorf("Content-Disposition %q", cd)
	}
	if !bytes.HasPrefix(res.body, []byte("%PDF-")) {
		t.Fatalf("body is not a PDF: %.100q", res.body)
	}
	return pdfToText(t, res.body)
}

// withFields adds JSON members to the object body.
func withFields(body, members string) string {
	return strings.TrimSuffix(body, "}") + "," + members + "}"
}

// TestReportLink: the report of the best tower (no tower_id) and of a named
// alternative, in English and in Portuguese, carries the tower id, the
// path profile chart (the path check is always computed) and the
// disclaimer of SPEC §1.6.
func TestReportLink(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	ids := linkTowerIDs(t, h, "pro", exportBody)
	if len(ids) < 2 {
		t.Fatalf("the Rio receiver has %d towers; the test wants a best tower and an alternative", len(ids))
	}
	for _, c := range []struct {
		name, body, tower string
		words             []string
	}{
		{"best tower", exportBody, ids[0], []string{"Path profile", "Distance from the tower (km)"}},
		{"named alternative", withFields(exportBody, fmt.Sprintf(`"tower_id":%q`, ids[1])), ids[1], nil},
		{"English", withFields(exportBody, `"language":"en"`), ids[0], nil},
		{"Portuguese", withFields(exportBody, fmt.Sprintf(`"language":"pt-BR","tower_id":%q`, ids[0])), ids[0], []string{"Perfil do trajeto", "Distância a partir da torre (km)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := reportOK(t, h, "pro", c.body)
			for _, w := range append([]string{c.tower, report.Disclaimer}, c.words...) {
				if !strings.Contains(text, w) {
					t.Errorf("report text lacks %q: %.1500s", w, text)
				}
			}
			// The path check was computed: no "ask for include=profile".
			if strings.Contains(text, "include=profile") {
				t.Errorf("report without its path profile: %.1500s", text)
			}
		})
	}
}

// TestReportLinkRefusals: no tower in range is a 422 no_tower naming
// receiver; a tower not among the results a 404 naming tower_id; a bad
// language or body a 422 naming the field; malformed JSON a 400.
func TestReportLinkRefusals(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	for _, c := range []struct {
		name, body  string
		status      int
		code, field string
	}{
		{"no tower in range", `{"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":1800,"max_distance_km":0.001}`, 422, "no_tower", "receiver"},
		{"unknown tower", withFields(exportBody, `"tower_id":"anatel:0"`), 404, "not_found", "tower_id"},
		{"unknown language", withFields(exportBody, `"language":"fr"`), 422, "invalid_input", "language"},
		{"language of the wrong type", withFields(exportBody, `"language":1`), 422, "invalid_input", "language"},
		{"receiver missing", `{"frequency_mhz":1800}`, 422, "invalid_input", "receiver"},
		{"unknown field", withFields(exportBody, `"logo":"x"`), 422, "invalid_input", "logo"},
		{"malformed JSON", `{"receiver":`, 400, "malformed_json", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := h.do(t, http.MethodPost, "/reports/link", h.keys["pro"], nil, c.body)
			checkRefusal(t, res, c.status, c.code, c.field)
		})
	}
	res := h.do(t, http.MethodPost, "/reports/link", "", nil, exportBody)
	checkRefusal(t, res, http.StatusUnauthorized, "unauthenticated", "")
}

// TestReportLinkTenantScope: a tenant's registered tower is reported to its
// owner and is a 404 for another tenant that names it.
func TestReportLinkTenantScope(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	const lat, lon = -22.9519, -43.2105
	proID := registerOwn(t, h, "pro", "Isolada Pro", "ISO-PRO-7", lat, lon)
	freeID := registerOwn(t, h, "free", "Isolada Free", "ISO-FREE-8", lat+0.0005, lon)
	body := func(tower string) string {
		return fmt.Sprintf(`{"receiver":{"lat":%g,"lon":%g,"height":10},"frequency_mhz":1800,"max_distance_km":3,"operator":"Isolada Pro","tower_id":%q}`, lat+0.01, lon, tower)
	}
	if text := reportOK(t, h, "pro", body(proID)); !strings.Contains(text, proID) {
		t.Errorf("the owner's report lacks its tower %s", proID)
	}
	res := h.do(t, http.MethodPost, "/reports/link", h.keys["free"], nil, body(proID))
	checkRefusal(t, res, http.StatusNotFound, "not_found", "tower_id")
	res = h.do(t, http.MethodPost, "/reports/link", h.keys["pro"], nil, strings.ReplaceAll(body(freeID), "Isolada Pro", "Isolada Free"))
	checkRefusal(t, res, http.StatusNotFound, "not_found", "tower_id")
}
