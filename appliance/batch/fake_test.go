package batch_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"sync"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/batch"
)

// fakeAnalyzer is a deterministic stand-in for the planner: the best tower
// and margin are functions of the request; latitudes south of -30 have no
// terrain; frequencies above 5000 MHz find no tower.
type fakeAnalyzer struct {
	mu    sync.Mutex
	calls int
	reqs  []appliance.LinkRequest
}

func (f *fakeAnalyzer) AnalyzeLink(ctx context.Context, req appliance.LinkRequest) (*appliance.LinkAnalysis, error) {
	f.mu.Lock()
	f.calls++
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if req.Receiver.Lat < -30 {
		return nil, fmt.Errorf("analyze link: receiver terrain: %w", &appliance.TileMissingError{Tile: "S31W044"})
	}
	a := &appliance.LinkAnalysis{Request: req, ReceiverGroundM: 12, Engine: "fspl", EngineVersion: "fspl-1", Warnings: []appliance.Warning{}}
	if req.FreqMHz > 5000 {
		a.Reason = "no tower within 30 km"
		return a, nil
	}
	margin := math.Mod(math.Abs(req.Receiver.Lat*1000+req.Receiver.Lon*100), 40) - 10
	t := &appliance.Tower{ID: fmt.Sprintf("fake:%d", int(math.Abs(req.Receiver.Lat*1000))%97), Operator: "Vivo",
		Lat: req.Receiver.Lat + 0.01, Lon: req.Receiver.Lon, HeightM: 30, ERPDBm: 55, AzimuthDeg: math.NaN(), TiltDeg: math.NaN()}
	a.Best = &appliance.LinkCandidate{Tower: t, DistanceKm: 1.112, AzimuthDeg: 0, TowerToRxDeg: 180,
		Prediction: appliance.LinkPrediction{Engine: "fspl", EngineVersion: "fspl-1", PathLossDB: 100, LOSClear: true, FresnelOK: true},
		EIRPDBm:    55, RxPowerDBm: req.RxThresholdDBm + margin, LinkMarginDB: margin, Warnings: []appliance.Warning{}}
	return a, nil
}

type fakeQueue struct {
	jobs []*appliance.Job
	err  error
}

func (q *fakeQueue) Enqueue(ctx context.Context, j *appliance.Job) error {
	if q.err != nil {
		return q.err
	}
	j.State, j.Seq = appliance.JobQueued, uint64(len(q.jobs)+1)
	j.Created = time.Date(2026, 11, 20, 15, 4, 5, 0, time.UTC)
	j.Updated = j.Created
	q.jobs = append(q.jobs, j)
	return nil
}

// fakeQuota is an in-memory PDFQuota, idempotent per job.
type fakeQuota struct {
	mu     sync.Mutex
	used   int
	grants map[string][2]int
}

func (q *fakeQuota) ReservePDFs(ctx context.Context, tenantID, jobID string, want, limit int, now time.Time, _ ...appliance.AuditEntry) (int, int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.grants == nil {
		q.grants = map[string][2]int{}
	}
	if g, ok := q.grants[jobID]; ok {
		return g[0], g[1], nil
	}
	g := max(0, min(want, limit-q.used))
	q.grants[jobID] = [2]int{g, q.used}
	q.used += g
	return g, q.grants[jobID][1], nil
}

// fakeRun is an in-memory JobRun with a checkpoint log. cancelAfter > 0
// cancels the run's context after that many checkpoints (an interruption
// between chunks).
type fakeRun struct {
	job         *appliance.Job
	items       map[int64][]byte
	writes      map[int64]int
	log         []appliance.JobProgress
	cancelAfter int
	cancel      context.CancelFunc
	refuse      error // returned by Checkpoint when set
	result      bytes.Buffer
}

func newFakeRun(j *appliance.Job) *fakeRun {
	cp := *j
	return &fakeRun{job: &cp, items: map[int64][]byte{}, writes: map[int64]int{}}
}

func (r *fakeRun) Job() *appliance.Job { return r.job }

func (r *fakeRun) Checkpoint(ctx context.Context, p appliance.JobProgress, items []appliance.JobItem) error {
	if r.refuse != nil {
		return r.refuse
	}
	for _, it := range items {
		r.items[it.Index] = append([]byte(nil), it.Data...)
		r.writes[it.Index]++
	}
	r.job.Done, r.job.Cursor = p.Done, append([]byte(nil), p.Cursor...)
	r.log = append(r.log, p)
	if r.cancelAfter > 0 && len(r.log) == r.cancelAfter && r.cancel != nil {
		r.cancel()
	}
	return nil
}

func (r *fakeRun) Items(ctx context.Context, from int64, fn func(appliance.JobItem) error) error {
	keys := make([]int64, 0, len(r.items))
	for k := range r.items {
		if k >= from {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	for _, k := range keys {
		if err := fn(appliance.JobItem{Index: k, Data: r.items[k]}); err != nil {
			return err
		}
	}
	return nil
}

func (r *fakeRun) WriteResult(ext string, write func(w io.Writer) error) (appliance.JobResult, error) {
	r.result.Reset()
	if err := write(&r.result); err != nil {
		return appliance.JobResult{}, err
	}
	sum := sha256.Sum256(r.result.Bytes())
	return appliance.JobResult{Name: r.job.ID + ext, Bytes: int64(r.result.Len()), SHA256: hex.EncodeToString(sum[:])}, nil
}

func f64(x float64) *float64 { return &x }

// rowsN returns n rows around Rio with every status: every 7th row asks for
// 5800 MHz (no tower), every 11th has no terrain, every 13th a bad value.
func rowsN(n int) []batch.Row {
	rows := make([]batch.Row, n)
	for i := range rows {
		lat, lon := -22.9+0.0007*float64(i%300), -43.2-0.0011*float64(i%211)
		r := batch.Row{ReceiverID: fmt.Sprintf("rx-%d", i+1), Lat: f64(lat), Lon: f64(lon), FreqMHz: f64(1800)}
		switch {
		case i%13 == 12:
			r.Lat = nil
			r.Errors = []appliance.FieldError{{Field: "lat", Reason: `not a number: "abc"`}}
		case i%11 == 10:
			r.Lat = f64(-31)
		case i%7 == 6:
			r.FreqMHz = f64(5800)
		}
		rows[i] = r
	}
	return rows
}

type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }

func decodeItems(r *fakeRun) ([]batch.RowResult, error) {
	out := make([]batch.RowResult, len(r.items))
	for i := range out {
		if err := json.Unmarshal(r.items[int64(i)], &out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func strconvF(x float64) string { return strconv.FormatFloat(x, 'f', 6, 64) }

func roundTo3(x float64) float64 { return math.Round(x*1e3) / 1e3 }
