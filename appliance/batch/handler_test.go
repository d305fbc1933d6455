package batch_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/batch"
	"linkplan/appliance/tooltest"
)

// queuedJob submits n rows for key and returns the service and the queued
// job.
func queuedJob(t testing.TB, n int, quota batch.PDFQuota, opt batch.Options, workers int) (*batch.Service, *appliance.Job) {
	t.Helper()
	q := &fakeQueue{}
	s := batch.New(batch.Deps{Analyzer: &fakeAnalyzer{}, Queue: q, Quota: quota, Workers: workers, Terrain: "test terrain"})
	_, job, err := s.Submit(context.Background(), proKey(), rowsN(n), opt)
	if err != nil || job == nil {
		t.Fatalf("submit: %v", err)
	}
	return s, job
}

func unzip(t testing.TB, b []byte) map[string][]byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		out[f.Name] = data
	}
	return out
}

func TestHandlerResumeGivesIdenticalBundle(t *testing.T) {
	const n = 700 // 3 chunks of batch.ChunkRows
	opt := batch.DefaultOptions()
	// Uninterrupted reference, one worker.
	s1, job := queuedJob(t, n, &fakeQuota{used: 480}, opt, 1)
	ref := newFakeRun(job)
	res1, err := s1.Handler().Run(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	if len(ref.log) != 3 || ref.log[2].Done != n {
		t.Fatalf("checkpoints %+v", ref.log)
	}

	// Interrupted after chunk k, resumed by a new handler call, 8 workers.
	for k := 1; k <= 2; k++ {
		t.Run("interrupted after chunk "+strconv.Itoa(k), func(t *testing.T) {
			s2 := batch.New(batch.Deps{Analyzer: &fakeAnalyzer{}, Quota: &fakeQuota{used: 480}, Workers: 8, Terrain: "test terrain"})
			run := newFakeRun(job)
			ctx, cancel := context.WithCancel(context.Background())
			run.cancel, run.cancelAfter = cancel, k
			if _, err := s2.Handler().Run(ctx, run); !errors.Is(err, context.Canceled) {
				t.Fatalf("interrupted run: %v", err)
			}
			if int(run.job.Done) != k*batch.ChunkRows || len(run.items) != k*batch.ChunkRows {
				t.Fatalf("done %d items %d", run.job.Done, len(run.items))
			}
			run.cancelAfter = 0
			res2, err := s2.Handler().Run(context.Background(), run)
			if err != nil {
				t.Fatal(err)
			}
			if len(run.items) != n {
				t.Fatalf("%d items", len(run.items))
			}
			for i := range int64(n) {
				if run.writes[i] != 1 {
					t.Fatalf("item %d written %d times", i, run.writes[i])
				}
			}
			if !bytes.Equal(run.result.Bytes(), ref.result.Bytes()) || res2.SHA256 != res1.SHA256 || !bytes.Equal(res2.Summary, res1.Summary) {
				t.Fatal("the resumed bundle differs from the uninterrupted one")
			}
		})
	}

	// The bundle: entries, manifest checksums, CSV rows, PDFs within the quota.
	files := unzip(t, ref.result.Bytes())
	var m batch.Manifest
	if err := json.Unmarshal(files[batch.FileManifest], &m); err != nil {
		t.Fatal(err)
	}
	if m.JobID != job.ID || m.TenantID != "tn1" || m.Rows != n || m.Counts.Total != n || !m.Created.Equal(job.Created) {
		t.Fatalf("manifest %+v", m)
	}
	if len(m.Files) != len(files)-1 {
		t.Fatalf("manifest lists %d files, bundle has %d", len(m.Files), len(files))
	}
	for _, f := range m.Files {
		sum := sha256.Sum256(files[f.Name])
		if hex.EncodeToString(sum[:]) != f.SHA256 || int64(len(files[f.Name])) != f.Bytes {
			t.Fatalf("checksum of %s", f.Name)
		}
	}
	if m.PDFsIncluded != 20 || m.PDFQuota == nil || m.PDFQuota.Granted != 20 ||
		!regexp.MustCompile(`^monthly PDF quota of the Pro tier \(500\) reached: 480 used before this job$`).MatchString(m.PDFsLeftOutReason) {
		t.Fatalf("pdfs: included %d, quota %+v, reason %q", m.PDFsIncluded, m.PDFQuota, m.PDFsLeftOutReason)
	}
	pdfs := 0
	for name, b := range files {
		if strings.HasPrefix(name, batch.DirReports) {
			pdfs++
			if !bytes.HasPrefix(b, []byte("%PDF-")) {
				t.Fatalf("%s is not a PDF", name)
			}
		}
	}
	if pdfs != 20 || !bytes.HasPrefix(files[batch.FileSummaryPDF], []byte("%PDF-")) {
		t.Fatalf("%d PDFs", pdfs)
	}
	recs, err := csv.NewReader(bytes.NewReader(files[batch.FileResultsCSV])).ReadAll()
	if err != nil || len(recs) != n+1 || strings.Join(recs[0], ",") != strings.Join(batch.ResultColumns(), ",") {
		t.Fatalf("results.csv: %d records, %v", len(recs), err)
	}
	var sum batch.Summary
	if err := json.Unmarshal(res1.Summary, &sum); err != nil || sum.Counts != m.Counts || sum.PDFsIncluded != 20 {
		t.Fatalf("summary %s: %v", res1.Summary, err)
	}

	// GDAL reads the geo files with one feature per row with a position.
	withPos := 0
	for _, r := range recs[1:] {
		if r[2] != "" && r[3] != "" {
			withPos++
		}
	}
	dir := t.TempDir()
	for name, b := range files {
		if strings.HasPrefix(name, "results.") {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	ogr := requireOgrinfo(t)
	for _, name := range []string{"results.shp", "results.geojson", "results.kml"} {
		out, err := exec.Command(ogr, "-ro", "-al", "-so", filepath.Join(dir, name)).CombinedOutput()
		if err != nil {
			t.Fatalf("ogrinfo %s: %v\n%s", name, err, out)
		}
		mm := regexp.MustCompile(`Feature Count: (\d+)`).FindSubmatch(out)
		if mm == nil || string(mm[1]) != strconv.Itoa(withPos) {
			t.Fatalf("ogrinfo %s: want %d features\n%s", name, withPos, out)
		}
	}
}

// requireOgrinfo returns GDAL's ogrinfo; without it the test fails under CI
// and skips otherwise.
func requireOgrinfo(tb testing.TB) string {
	tb.Helper()
	p := tooltest.Need(tb, "ogrinfo", "gdal-bin")
	return p
}

func TestHandlerStops(t *testing.T) {
	cases := []struct {
		name string
		err  error
	}{
		{"canceled job", appliance.ErrJobCanceled},
		{"lease lost", appliance.ErrLeaseLost},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, job := queuedJob(t, 300, nil, batch.Options{}, 2)
			run := newFakeRun(job)
			run.refuse = c.err
			if _, err := s.Handler().Run(context.Background(), run); !errors.Is(err, c.err) {
				t.Fatalf("got %v", err)
			}
			if run.result.Len() != 0 {
				t.Fatal("a bundle was written")
			}
		})
	}
	t.Run("bad payload fails for good", func(t *testing.T) {
		s, job := queuedJob(t, 150, nil, batch.Options{}, 2)
		job.Payload = []byte("{")
		if _, err := s.Handler().Run(context.Background(), newFakeRun(job)); !errors.Is(err, appliance.ErrInvalid) {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("no PDFs asked", func(t *testing.T) {
		s, job := queuedJob(t, 150, &fakeQuota{}, batch.Options{}, 2)
		run := newFakeRun(job)
		if _, err := s.Handler().Run(context.Background(), run); err != nil {
			t.Fatal(err)
		}
		for name := range unzip(t, run.result.Bytes()) {
			if strings.HasPrefix(name, batch.DirReports) {
				t.Fatalf("%s in a bundle without PDFs", name)
			}
		}
	})
}

// slowAnalyzer takes 5 ms a row.
type slowAnalyzer struct{ fakeAnalyzer }

func (s *slowAnalyzer) AnalyzeLink(ctx context.Context, req appliance.LinkRequest) (*appliance.LinkAnalysis, error) {
	time.Sleep(5 * time.Millisecond)
	return s.fakeAnalyzer.AnalyzeLink(ctx, req)
}

func TestHandlerChunksByTime(t *testing.T) {
	fixedID := func() (string, error) { return "job-t", nil }
	_, job := queuedJob(t, 300, nil, batch.Options{}, 1)
	fast := batch.New(batch.Deps{Analyzer: &fakeAnalyzer{}, Workers: 1, NewID: fixedID, Terrain: "test terrain"})
	slow := batch.New(batch.Deps{Analyzer: &slowAnalyzer{}, Workers: 1, NewID: fixedID, Terrain: "test terrain"})
	a, b := newFakeRun(job), newFakeRun(job)
	if _, err := fast.Handler().Run(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	if _, err := slow.Handler().Run(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	// 300 rows at 5 ms a row: about 200 rows a second, so the first chunk
	// ends at the time bound, before ChunkRows.
	if len(a.log) != 2 || a.log[0].Done != batch.ChunkRows || b.log[0].Done >= batch.ChunkRows || b.log[len(b.log)-1].Done != 300 {
		t.Fatalf("checkpoints: fast %d, slow %+v", len(a.log), b.log)
	}
	if !bytes.Equal(a.result.Bytes(), b.result.Bytes()) {
		t.Fatal("chunking changed the bundle")
	}
}
