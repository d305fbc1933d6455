package batch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/batch"
)

// panicAnalyzer is the fake planner that panics for one receiver id: on
// every analysis (rows), or only on the re-run with the profile that a
// PDF report makes (profileOnly).
type panicAnalyzer struct {
	fakeAnalyzer
	lat         float64 // the poisoned receiver's latitude
	profileOnly bool
}

func (p *panicAnalyzer) AnalyzeLink(ctx context.Context, req appliance.LinkRequest) (*appliance.LinkAnalysis, error) {
	if req.Receiver.Lat == p.lat && (!p.profileOnly || req.IncludeProfile) {
		var a []int
		_ = a[len(req.TenantID)] // index out of range
	}
	return p.fakeAnalyzer.AnalyzeLink(ctx, req)
}

// counter counts recovered panics by component.
type counter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *counter) inc(component string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[component]++
}

func (c *counter) get(component string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[component]
}

// TestIssue20_RowPanicIsARowError: a row whose analysis panics (on a
// worker goroutine) is an error row carrying the request id; the other
// rows are answered and the panic is counted once.
func TestIssue20_RowPanicIsARowError(t *testing.T) {
	rows := rowsN(batch.SyncMaxRows)
	poison := 3
	var c counter
	s := batch.New(batch.Deps{Analyzer: &panicAnalyzer{lat: *rows[poison].Lat}, Workers: 4,
		Recover: &appliance.Recoverer{Log: slog.New(slog.DiscardHandler), Count: c.inc}})
	ctx := appliance.WithActor(context.Background(), appliance.Actor{RequestID: "req-20"})
	res, _, err := s.Submit(ctx, proKey(), rows, batch.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res.Rows {
		switch {
		case i == poison && (r.Status != batch.StatusError || r.Reason != "internal error (reference req-20)" || r.ReceiverID != rows[i].ReceiverID):
			t.Fatalf("poisoned row: %+v", r)
		case i != poison && r.Reason == "internal error (reference req-20)":
			t.Fatalf("row %d caught the panic: %+v", i, r)
		}
	}
	if res.Counts.Total != len(rows) || res.Counts.OK == 0 || c.get("batch.row") != 1 {
		t.Fatalf("counts %+v, %d panics counted", res.Counts, c.get("batch.row"))
	}
}

// TestIssue20_ReportPanicLeavesOneReportOut: a per-row PDF whose
// rendering panics (on its own goroutine) is left out with the job's
// reference; the job completes with the other reports.
func TestIssue20_ReportPanicLeavesOneReportOut(t *testing.T) {
	rows := rowsN(150)
	const poison = 2 // an ok row
	var c counter
	q := &fakeQueue{}
	s := batch.New(batch.Deps{Analyzer: &panicAnalyzer{lat: *rows[poison].Lat, profileOnly: true}, Queue: q, Quota: &fakeQuota{}, Workers: 4,
		Recover: &appliance.Recoverer{Log: slog.New(slog.DiscardHandler), Count: c.inc}})
	_, job, err := s.Submit(context.Background(), proKey(), rows, batch.DefaultOptions())
	if err != nil || job == nil {
		t.Fatalf("submit: %v", err)
	}
	run := newFakeRun(job)
	if _, err := s.Handler().Run(appliance.WithJobID(context.Background(), job.ID), run); err != nil {
		t.Fatalf("job: %v", err)
	}
	files := unzip(t, run.result.Bytes())
	var m batch.Manifest
	if err := json.Unmarshal(files[batch.FileManifest], &m); err != nil {
		t.Fatal(err)
	}
	want := "the report of row 3 could not be drawn: internal error (reference " + job.ID + ")"
	if m.PDFsIncluded == 0 || m.PDFsLeftOut != 1 || m.PDFsLeftOutReason != want || files[batch.ReportName(poison)] != nil {
		t.Fatalf("included %d, left out %d (%q); want 1 left out: %q", m.PDFsIncluded, m.PDFsLeftOut, m.PDFsLeftOutReason, want)
	}
	if !bytes.Contains(files[batch.FileResultsCSV], []byte(`"`+rows[poison].ReceiverID+`",`)) || c.get("batch.pdf") != 1 {
		t.Fatalf("row %d missing from results.csv, or %d panics counted", poison, c.get("batch.pdf"))
	}
	if !strings.HasPrefix(string(files[batch.FileSummaryPDF]), "%PDF-") {
		t.Fatal("no summary PDF")
	}
}
