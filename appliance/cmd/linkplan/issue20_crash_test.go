//go:build systemtools

package main_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"linkplan/appliance/tooltest"
)

// Issue 20, crash safety, on the real binary: nothing a tenant sends stops
// the appliance, and a job that stops it twice is quarantined.

// emojiRows is a batch of n rows around central Rio whose ids are
// "site 😀 <i>", with per-row PDFs on.
func emojiRows(n int) string {
	var b strings.Builder
	b.WriteString(`{"options":{"pdfs":true},"rows":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		lat := -22.97 + 0.002*float64(i%40)
		lon := -43.25 + 0.002*float64(i/40)
		fmt.Fprintf(&b, `{"id":"site 😀 %d","receiver":{"lat":%.5f,"lon":%.5f,"height":10},"frequency_mhz":1800,"max_distance_km":15}`, i+1, lat, lon)
	}
	b.WriteString(`]}`)
	return b.String()
}

// pdfText extracts a PDF's text with pdftotext (poppler-utils); without
// it the test fails under CI and skips otherwise.
func pdfText(t *testing.T, pdf []byte) string {
	t.Helper()
	tool := tooltest.Need(t, "pdftotext", "poppler-utils")
	path := filepath.Join(t.TempDir(), "r.pdf")
	if err := os.WriteFile(path, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(tool, "-enc", "UTF-8", path, "-").CombinedOutput()
	if err != nil {
		t.Fatalf("pdftotext: %v\n%s", err, out)
	}
	return strings.Join(strings.Fields(string(out)), " ")
}

// alive checks that s is the same process, still serving.
func alive(t *testing.T, s *server) {
	t.Helper()
	if gone, err := s.Exited(); gone {
		t.Fatalf("the server exited: %v\n%s", err, s.stderr.String())
	}
	if r := s.call(t, "GET", "/health", nil, ""); r.status != http.StatusOK {
		t.Fatalf("/health: %d", r.status)
	}
}

// TestIssue20_EmojiBatchWithPDFs: a 101-row asynchronous batch whose row
// ids hold an emoji, with per-row PDFs in the tenant's branding whose name
// holds one too, completes, and the server never restarts. Before: the
// per-row PDF goroutines panicked in fpdf and the process exited, then
// crash-looped on the re-leased job; the summary PDF's panic (on the
// handler's goroutine) failed the job after 3 attempts.
func TestIssue20_EmojiBatchWithPDFs(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	dir := t.TempDir()
	s := startServe(t, bin, dir)
	key := issueKey(t, s, dir, "Pro")
	if r := s.call(t, "PUT", "/tenant/branding", map[string]string{"X-API-Key": key, "Content-Type": "application/json"},
		`{"display_name":"Rede 😀 Sul"}`); r.status != http.StatusOK {
		t.Fatalf("PUT /tenant/branding: %d %s", r.status, r.body)
	}
	id := submitBatch(t, s, key, emojiRows(101))
	j := waitJob(t, s, key, id, nil)
	alive(t, s)
	if j.State != "succeeded" || j.Interruptions != 0 || j.Attempts != 0 {
		t.Fatalf("job %+v\n%s", j, s.stderr.String())
	}
	files := download(t, s, key, id)
	checkRows(t, files, 101)
	if !strings.Contains(string(files["results.csv"]), "site 😀 101") {
		t.Error("results.csv lost the row ids")
	}
	pdfs := 0
	for name := range files {
		if strings.HasPrefix(name, "reports/") {
			pdfs++
		}
	}
	var m struct {
		PDFsIncluded int    `json:"pdfs_included"`
		PDFsLeftOut  int    `json:"pdfs_left_out"`
		Reason       string `json:"pdfs_left_out_reason"`
	}
	if err := json.Unmarshal(files["manifest.json"], &m); err != nil {
		t.Fatal(err)
	}
	if pdfs == 0 || pdfs != m.PDFsIncluded || strings.Contains(m.Reason, "could not be drawn") {
		t.Fatalf("%d PDFs in the bundle, manifest %+v", pdfs, m)
	}
	// The summary lists receiver ids, and every PDF carries the brand:
	// each emoji is shown as U+FFFD and the document says so.
	txt := pdfText(t, files["summary.pdf"])
	if !strings.Contains(txt, "site \uFFFD ") || !strings.Contains(txt, "Rede \uFFFD Sul") ||
		!strings.Contains(txt, "could not be drawn with its fonts") || !strings.Contains(txt, "U+1F600") {
		t.Errorf("summary.pdf text: %.600s", txt)
	}
	txt = pdfText(t, files["reports/row-00001.pdf"])
	if !strings.Contains(txt, "Rede \uFFFD Sul") || !strings.Contains(txt, "U+1F600") {
		t.Errorf("reports/row-00001.pdf text: %.600s", txt)
	}
	if strings.Contains(s.stderr.String(), "panic") {
		t.Errorf("the server logged a panic:\n%s", s.stderr.String())
	}
}

// TestIssue20_EmojiTowerOperatorReport: a tower registered with an emoji
// in its operator name gets a PDF link report (200), with U+FFFD in
// place of the emoji and the note (before: 500, fpdf panicked).
func TestIssue20_EmojiTowerOperatorReport(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	dir := t.TempDir()
	s := startServe(t, bin, dir)
	key := issueKey(t, s, dir, "Pro")
	hdr := map[string]string{"X-API-Key": key, "Content-Type": "application/json"}
	r := s.call(t, "POST", "/towers", hdr, `{"operator":"Provedor 📡 Norte","lat":-22.9500,"lon":-43.2100,"height":40,"power":50}`)
	if r.status != http.StatusCreated {
		t.Fatalf("POST /towers: %d %s", r.status, r.body)
	}
	var tw struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(r.body, &tw); err != nil || tw.ID == "" {
		t.Fatalf("tower answer %s: %v", r.body, err)
	}
	r = s.call(t, "POST", "/reports/link", hdr,
		`{"receiver":{"lat":-22.9560,"lon":-43.2000,"height":10},"frequency_mhz":1800,"max_distance_km":5,"operator":"Provedor 📡 Norte","tower_id":"`+tw.ID+`"}`)
	if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/pdf" {
		t.Fatalf("POST /reports/link: %d %s", r.status, r.body)
	}
	alive(t, s)
	txt := pdfText(t, r.body)
	if !strings.Contains(txt, "Provedor \uFFFD Norte") || !strings.Contains(txt, "U+1F4E1") {
		t.Errorf("report text: %.800s", txt)
	}
}

// TestIssue20_EmojiBrandingLinkReport: a tenant whose branding name holds
// an emoji gets its PDF link report (200; before: 500).
func TestIssue20_EmojiBrandingLinkReport(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	dir := t.TempDir()
	s := startServe(t, bin, dir)
	key := issueKey(t, s, dir, "Pro")
	hdr := map[string]string{"X-API-Key": key, "Content-Type": "application/json"}
	if r := s.call(t, "PUT", "/tenant/branding", hdr, `{"display_name":"Rede Sol ☀️🌞 Ltda","primary_color":"#7a1f5c"}`); r.status != http.StatusOK {
		t.Fatalf("PUT /tenant/branding: %d %s", r.status, r.body)
	}
	r := s.call(t, "POST", "/reports/link", hdr, `{"receiver":{"lat":-22.95,"lon":-43.2,"height":10},"frequency_mhz":1800,"max_distance_km":20}`)
	if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/pdf" {
		t.Fatalf("POST /reports/link: %d %s", r.status, r.body)
	}
	alive(t, s)
	txt := pdfText(t, r.body)
	// ☀ (U+2600) and the variation selector U+FE0F are in the fonts; the
	// sun with face (U+1F31E) is not.
	if !strings.Contains(txt, "Rede Sol ☀") || !strings.Contains(txt, "\uFFFD Ltda") || !strings.Contains(txt, "U+1F31E") {
		t.Errorf("report text: %.800s", txt)
	}
}

// TestIssue20_JobQuarantinedAfterTwoDeaths: a job that is running each
// time the process dies (kill -9 the binary while it runs, restart, kill
// -9 again while it runs again) is failed with the quarantine reason at
// the next start and never runs again, while another tenant's job
// submitted alongside finishes (before: it was re-leased at every start,
// up to 10 times).
func TestIssue20_JobQuarantinedAfterTwoDeaths(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	s := startServe(t, bin, dir)
	keyA := issueKey(t, s, dir, "Business")
	keyB := issueKeyAt(t, s, dir, "Business", time.Now().Add(30*time.Second))
	const n = 5000
	poison := submitBatch(t, s, keyA, drillRows(n))
	other := submitBatch(t, s, keyB, drillRows(400))
	seed := uint64(time.Now().UnixNano())
	t.Logf("kill points seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 20))
	kill := func(at int64) drillJob {
		t.Helper()
		j := waitJob(t, s, keyA, poison, func(j drillJob) bool { return j.State == "running" && j.Progress.Done >= at })
		if j.State != "running" {
			t.Fatalf("the job ended before the kill point %d: %+v", at, j)
		}
		s.Kill(t)
		t.Logf("kill -9 at %d/%d rows", j.Progress.Done, n)
		return j
	}
	first := kill(1 + rng.Int64N(n/3))
	s = startServe(t, bin, dir)
	if j := getJob(t, s, keyA, poison); j.State == "failed" {
		t.Fatalf("quarantined after one death: %+v", j)
	}
	// It runs again from its checkpoint (on probation), and dies again.
	second := kill(first.Progress.Done + 1 + rng.Int64N(n/3))
	s = startServe(t, bin, dir)
	j := getJob(t, s, keyA, poison)
	if j.State != "failed" || j.Error == nil || *j.Error != "stopped the appliance twice; quarantined" {
		t.Fatalf("after the second death: %+v", j)
	}
	// The other tenant's job finishes; the quarantined one never runs.
	if o := waitJob(t, s, keyB, other, nil); o.State != "succeeded" {
		t.Fatalf("the other tenant's job: %+v\n%s", o, s.stderr.String())
	}
	checkRows(t, download(t, s, keyB, other), 400)
	time.Sleep(2 * time.Second) // more than a poll interval of every worker
	if again := getJob(t, s, keyA, poison); again.State != "failed" || again.Progress.Done != j.Progress.Done || again.Attempts != 0 {
		t.Fatalf("the quarantined job changed: %+v, then %+v", j, again)
	}
	t.Logf("quarantined at %d/%d rows (killed at %d and %d)", j.Progress.Done, n, first.Progress.Done, second.Progress.Done)
	if r := s.call(t, "GET", "/jobs/"+poison+"/download", map[string]string{"X-API-Key": keyA}, ""); r.status != http.StatusConflict {
		t.Errorf("download of the quarantined job: %d %s", r.status, r.body)
	}
	if !strings.Contains(s.stderr.String(), "jobs: quarantined") {
		t.Errorf("no ERROR line for the quarantine in the log:\n%s", s.stderr.String())
	}
	// A restart leaves it alone.
	if err := s.stop(t); err != nil {
		t.Fatalf("SIGTERM exit: %v", err)
	}
	s = startServe(t, bin, dir)
	if again := getJob(t, s, keyA, poison); again.State != "failed" {
		t.Fatalf("after a clean restart: %+v", again)
	}
}
