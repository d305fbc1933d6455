//go:build systemtools

package main_test

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
)

// The batch crash drill (issue 8): a 5,000-row batch job survives a kill
// -9 at a random point and a SIGTERM drain, and its bundle holds exactly
// 5,000 result rows, each once, identical to an uninterrupted run. (Issue
// 8 killed it three times; since issue 20 a second death while a job runs
// quarantines it: TestIssue20_JobQuarantinedAfterTwoDeaths.)

// drillRows is the deterministic 5,000-row batch: receivers on a jittered
// grid over Rio de Janeiro (the embedded terrain), a few rows deliberately
// bad (outside the terrain, an impossible frequency) so that per-row errors
// travel through the restarts too.
func drillRows(n int) string {
	rng := rand.New(rand.NewPCG(20261125, 8))
	var b strings.Builder
	b.WriteString(`{"options":{"pdfs":false},"rows":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		lat := -22.99 + 0.19*rng.Float64()
		lon := -43.70 + 0.60*rng.Float64()
		freq := []float64{700, 1800, 2600, 3500, 5800}[rng.IntN(5)]
		switch {
		case i%997 == 3: // no terrain there
			lat, lon = -10.5, -55.5
		case i%1499 == 7: // out of range: reported in its row
			freq = 1e9
		}
		fmt.Fprintf(&b, `{"id":"site-%05d","receiver":{"lat":%.6f,"lon":%.6f,"height":%d},"frequency_mhz":%g,"max_distance_km":%d}`,
			i+1, lat, lon, 6+rng.IntN(20), freq, 5+rng.IntN(25))
	}
	b.WriteString(`]}`)
	return b.String()
}

// issueKey issues a tenant key of tier through the admin route of s, with
// the TOTP code of now.
func issueKey(t testing.TB, s *server, dataDir, tier string) string {
	t.Helper()
	return issueKeyAt(t, s, dataDir, tier, time.Now())
}

// issueKeyAt is issueKey with the TOTP code of at: a second key within
// the same 30 s takes the next period's code (time.Now() plus 30 s; the
// appliance accepts one period of skew and refuses a replayed code).
func issueKeyAt(t testing.TB, s *server, dataDir, tier string, at time.Time) string {
	t.Helper()
	credBytes, err := os.ReadFile(filepath.Join(dataDir, "admin-credentials.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cred struct {
		APIKey     string `json:"api_key"`
		TOTPSecret string `json:"totp_secret"`
	}
	if err := json.Unmarshal(credBytes, &cred); err != nil {
		t.Fatal(err)
	}
	code, err := totp.GenerateCode(cred.TOTPSecret, at)
	if err != nil {
		t.Fatal(err)
	}
	r := s.call(t, "POST", "/admin/keys", map[string]string{"X-API-Key": cred.APIKey, "X-Admin-Totp": code},
		`{"tier":"`+tier+`","email":"drill@example.com","owner":"Batch drill","justification":"crash drill of the job queue"}`)
	if r.status != http.StatusCreated {
		t.Fatalf("issue key: %d %s", r.status, r.body)
	}
	var issued struct {
		APIKey string `json:"api_key"`
	}
	if err := json.Unmarshal(r.body, &issued); err != nil {
		t.Fatal(err)
	}
	return issued.APIKey
}

type drillJob struct {
	ID            string `json:"id"`
	State         string `json:"state"`
	Interruptions int    `json:"interruptions"`
	Attempts      int    `json:"attempts"`
	Error         *string
	Progress      struct {
		Done  int64 `json:"done"`
		Total int64 `json:"total"`
	} `json:"progress"`
	Result *struct {
		Bytes  int64  `json:"bytes"`
		SHA256 string `json:"sha256"`
	} `json:"result"`
}

func submitBatch(t testing.TB, s *server, key, body string) string {
	t.Helper()
	r := s.call(t, "POST", "/batch_reports", map[string]string{"X-API-Key": key, "Content-Type": "application/json"}, body)
	if r.status != http.StatusAccepted {
		t.Fatalf("batch_reports: %d %s", r.status, r.body)
	}
	var j drillJob // the 202 is the job object of GET /jobs/{id}
	if err := json.Unmarshal(r.body, &j); err != nil || j.ID == "" {
		t.Fatalf("batch_reports answer %s: %v", r.body, err)
	}
	if loc := r.header.Get("Location"); loc != "/jobs/"+j.ID {
		t.Errorf("Location %q, want /jobs/%s", loc, j.ID)
	}
	return j.ID
}

func getJob(t testing.TB, s *server, key, id string) drillJob {
	t.Helper()
	r := s.call(t, "GET", "/jobs/"+id, map[string]string{"X-API-Key": key}, "")
	for r.status == http.StatusTooManyRequests {
		// A polling client meets the read rate (appliance/quota) and
		// waits as the answer says.
		wait, err := strconv.Atoi(r.header.Get("Retry-After"))
		if err != nil || wait < 1 || wait > 60 {
			t.Fatalf("GET /jobs/%s: 429 with Retry-After %q: %s", id, r.header.Get("Retry-After"), r.body)
		}
		time.Sleep(time.Duration(wait) * time.Second)
		r = s.call(t, "GET", "/jobs/"+id, map[string]string{"X-API-Key": key}, "")
	}
	if r.status != http.StatusOK {
		t.Fatalf("GET /jobs/%s: %d %s", id, r.status, r.body)
	}
	var j drillJob
	if err := json.Unmarshal(r.body, &j); err != nil {
		t.Fatal(err)
	}
	return j
}

// waitJob polls until the job is terminal or until stop says so.
func waitJob(t testing.TB, s *server, key, id string, stop func(drillJob) bool) drillJob {
	t.Helper()
	deadline := time.Now().Add(20 * time.Minute)
	for {
		j := getJob(t, s, key, id)
		if j.State == "succeeded" || j.State == "failed" || j.State == "canceled" || stop != nil && stop(j) {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s not done within 20 min: %+v\n%s", id, j, s.stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// download fetches the bundle and checks its length and checksum headers.
func download(t testing.TB, s *server, key, id string) map[string][]byte {
	t.Helper()
	r := s.call(t, "GET", "/jobs/"+id+"/download", map[string]string{"X-API-Key": key}, "")
	for r.status == http.StatusTooManyRequests {
		// waitJob's polling can spend the read rate (appliance/quota):
		// a client waits as the answer says.
		wait, err := strconv.Atoi(r.header.Get("Retry-After"))
		if err != nil || wait < 1 || wait > 60 {
			t.Fatalf("download: 429 with Retry-After %q: %s", r.header.Get("Retry-After"), r.body)
		}
		time.Sleep(time.Duration(wait) * time.Second)
		r = s.call(t, "GET", "/jobs/"+id+"/download", map[string]string{"X-API-Key": key}, "")
	}
	if r.status != http.StatusOK {
		t.Fatalf("download: %d %s", r.status, r.body)
	}
	if cl, _ := strconv.Atoi(r.header.Get("Content-Length")); cl != len(r.body) || cl == 0 {
		t.Errorf("Content-Length %q, body %d bytes", r.header.Get("Content-Length"), len(r.body))
	}
	sum := sha256.Sum256(r.body)
	if got := r.header.Get("X-Checksum-SHA256"); got != hex.EncodeToString(sum[:]) {
		t.Errorf("X-Checksum-SHA256 %q, body hashes to %x", got, sum)
	}
	zr, err := zip.NewReader(bytes.NewReader(r.body), int64(len(r.body)))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		files[f.Name] = b
	}
	return files
}

// checkRows checks results.csv: one line per input row, rows 1..n each
// once.
func checkRows(t *testing.T, files map[string][]byte, n int) {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(files["results.csv"])).ReadAll()
	if err != nil {
		t.Fatalf("results.csv: %v", err)
	}
	if len(recs) != n+1 {
		t.Fatalf("results.csv has %d data lines, want %d", len(recs)-1, n)
	}
	col := slices.Index(recs[0], "row")
	if col < 0 {
		t.Fatalf("results.csv header %v has no row column", recs[0])
	}
	seen := make([]bool, n+1)
	for _, rec := range recs[1:] {
		i, err := strconv.Atoi(rec[col])
		if err != nil || i < 1 || i > n || seen[i] {
			t.Fatalf("row %q: missing, out of range or duplicated", rec[col])
		}
		seen[i] = true
	}
}

// sameOutputs compares the files of two bundles that carry no timestamp.
func sameOutputs(t *testing.T, want, got map[string][]byte) {
	t.Helper()
	for _, name := range []string{"results.csv", "results.geojson", "results.kml", "results.shp", "results.shx", "results.dbf", "results.prj", "results.cpg"} {
		if want[name] == nil {
			t.Errorf("reference bundle has no %s", name)
			continue
		}
		if !bytes.Equal(want[name], got[name]) {
			t.Errorf("%s differs from the uninterrupted run (%d vs %d bytes)", name, len(got[name]), len(want[name]))
		}
	}
}

func TestBatchCrashDrill(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	const n = 5000
	body := drillRows(n)

	// The uninterrupted reference run.
	refDir := t.TempDir()
	ref := startServe(t, bin, refDir)
	refKey := issueKey(t, ref, refDir, "Business")
	refID := submitBatch(t, ref, refKey, body)
	start := time.Now()
	if j := waitJob(t, ref, refKey, refID, nil); j.State != "succeeded" || j.Interruptions != 0 {
		t.Fatalf("reference job: %+v", j)
	}
	t.Logf("uninterrupted 5,000-row job: %v", time.Since(start).Round(time.Millisecond))
	want := download(t, ref, refKey, refID)
	checkRows(t, want, n)
	if err := ref.stop(t); err != nil {
		t.Fatalf("reference server exit: %v", err)
	}

	// One kill -9 at a random progress point, then a restart.
	seed := uint64(time.Now().UnixNano())
	t.Logf("kill point seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	targets := []int64{1 + rng.Int64N(n*9/10)}
	dir := t.TempDir()
	s := startServe(t, bin, dir)
	key := issueKey(t, s, dir, "Business")
	id := submitBatch(t, s, key, body)
	kills := 0
	for _, target := range targets {
		j := waitJob(t, s, key, id, func(j drillJob) bool { return j.Progress.Done >= target })
		if j.State == "succeeded" {
			break
		}
		s.Kill(t)
		kills++
		t.Logf("kill -9 at %d/%d rows (target %d)", j.Progress.Done, n, target)
		s = startServe(t, bin, dir)
	}
	if kills == 0 {
		t.Fatal("the job finished before the first kill point: the drill proved nothing")
	}
	got := waitJob(t, s, key, id, nil)
	if got.State != "succeeded" {
		t.Fatalf("job after %d kills: %+v", kills, got)
	}
	if got.Interruptions != kills {
		t.Errorf("job interrupted %d times after %d kills", got.Interruptions, kills)
	}
	t.Logf("job finished after %d kill with %d interruption counted", kills, got.Interruptions)
	files := download(t, s, key, id)
	checkRows(t, files, n)
	sameOutputs(t, want, files)

	// SIGTERM drain: a second job is stopped mid-run; the server exits
	// cleanly, and the job finishes after the restart without counting an
	// interruption.
	id2 := submitBatch(t, s, key, body)
	waitJob(t, s, key, id2, func(j drillJob) bool { return j.Progress.Done >= n/3 })
	if err := s.stop(t); err != nil {
		t.Fatalf("SIGTERM exit: %v\n%s", err, s.stderr.String())
	}
	s = startServe(t, bin, dir)
	j2 := waitJob(t, s, key, id2, nil)
	if j2.State != "succeeded" || j2.Interruptions != 0 {
		t.Fatalf("drained job after restart: %+v", j2)
	}
	files2 := download(t, s, key, id2)
	checkRows(t, files2, n)
	sameOutputs(t, want, files2)
}
