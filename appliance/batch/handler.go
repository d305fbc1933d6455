package batch

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"time"

	"linkplan/appliance"
)

// ChunkRows and ChunkTime bound the work between two checkpoints of a
// job: at most ChunkRows rows, and no new row handed out after ChunkTime
// (at least one row per chunk). Chunk boundaries do not change the
// results or the bundle.
const (
	ChunkRows = 256
	ChunkTime = time.Second
)

// cursor is the checkpoint of a batch job (appliance.Job.Cursor, JSON).
type cursor struct {
	Next int `json:"next"` // index of the next row to analyse
}

// Handler returns the appliance.JobHandler of appliance.JobKindBatchReport
// jobs (doc.go, "Jobs").
func (s *Service) Handler() appliance.JobHandler { return handler{s} }

type handler struct{ s *Service }

// Run analyses the job's rows from its cursor in chunks of ChunkRows, one
// checkpoint each, then writes the bundle from the committed items.
func (h handler) Run(ctx context.Context, run appliance.JobRun) (appliance.JobResult, error) {
	s := h.s
	j := run.Job()
	var p Payload
	if err := json.Unmarshal(j.Payload, &p); err != nil {
		return appliance.JobResult{}, fmt.Errorf("batch job %s: payload: %v: %w", j.ID, err, appliance.ErrInvalid)
	}
	if p.Version != PayloadVersion || int64(len(p.Rows)) != j.Total {
		return appliance.JobResult{}, fmt.Errorf("batch job %s: payload version %d with %d rows (job total %d): %w", j.ID, p.Version, len(p.Rows), j.Total, appliance.ErrInvalid)
	}
	next := int(j.Done)
	if len(j.Cursor) > 0 {
		var c cursor
		if err := json.Unmarshal(j.Cursor, &c); err == nil && c.Next >= 0 && c.Next <= len(p.Rows) {
			next = c.Next
		}
	}
	next = max(0, min(next, len(p.Rows)))
	if s.d.Units != nil && next < len(p.Rows) {
		sent, err := h.runUnits(ctx, run, &p, next)
		if err != nil {
			if ctx.Err() != nil {
				return appliance.JobResult{}, ctx.Err()
			}
			return appliance.JobResult{}, fmt.Errorf("batch job %s: %w", j.ID, err)
		}
		if sent {
			next = len(p.Rows)
		}
	}
	res := make([]RowResult, ChunkRows)
	for next < len(p.Rows) {
		if err := ctx.Err(); err != nil {
			return appliance.JobResult{}, err
		}
		end, err := s.analyzeUntil(ctx, &p, next, min(next+ChunkRows, len(p.Rows)), res, time.Now().Add(ChunkTime))
		if err != nil {
			return appliance.JobResult{}, err
		}
		out := res[:end-next]
		items := make([]appliance.JobItem, len(out))
		for i := range out {
			data, err := json.Marshal(&out[i])
			if err != nil {
				// A figure JSON cannot hold (a NaN or an infinity that escaped
				// the rounding) fails its row, never the job (issue 20).
				out[i] = unrecordable(out[i])
				if data, err = json.Marshal(&out[i]); err != nil {
					return appliance.JobResult{}, fmt.Errorf("batch job %s: row %d: %w", j.ID, next+i, err)
				}
			}
			items[i] = appliance.JobItem{Index: int64(next + i), Data: data}
		}
		cur, _ := json.Marshal(cursor{Next: end})
		if err := run.Checkpoint(ctx, appliance.JobProgress{Done: int64(end), Cursor: cur}, items); err != nil {
			if ctx.Err() != nil {
				return appliance.JobResult{}, ctx.Err()
			}
			return appliance.JobResult{}, fmt.Errorf("batch job %s: checkpoint at row %d: %w", j.ID, end, err)
		}
		next = end
	}
	// The bundle comes from the committed items only, so that a resumed
	// job's bundle equals an uninterrupted run's.
	results := make([]RowResult, len(p.Rows))
	seen := make([]bool, len(p.Rows))
	err := run.Items(ctx, 0, func(it appliance.JobItem) error {
		if it.Index < 0 || it.Index >= int64(len(results)) {
			return fmt.Errorf("item index %d outside 0..%d: %w", it.Index, len(results)-1, appliance.ErrInvalid)
		}
		var r RowResult
		if err := json.Unmarshal(it.Data, &r); err != nil {
			return fmt.Errorf("item %d: %v: %w", it.Index, err, appliance.ErrInvalid)
		}
		results[it.Index], seen[it.Index] = r, true
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return appliance.JobResult{}, ctx.Err()
		}
		return appliance.JobResult{}, fmt.Errorf("batch job %s: read items: %w", j.ID, err)
	}
	for i, ok := range seen {
		if !ok {
			// A checkpoint that lost items cannot happen with a correct
			// queue; retrying re-analyses from the cursor only, so fail.
			return appliance.JobResult{}, fmt.Errorf("batch job %s: row %d has no committed result: %w", j.ID, i, appliance.ErrInvalid)
		}
	}
	b := &bundle{s: s, job: j, p: &p, results: results}
	if err := b.reservePDFs(ctx); err != nil {
		if ctx.Err() != nil {
			return appliance.JobResult{}, ctx.Err()
		}
		return appliance.JobResult{}, fmt.Errorf("batch job %s: %w", j.ID, err)
	}
	jr, err := run.WriteResult(".zip", func(w io.Writer) error { return b.write(ctx, w) })
	if err != nil {
		if ctx.Err() != nil {
			return appliance.JobResult{}, ctx.Err()
		}
		return appliance.JobResult{}, fmt.Errorf("batch job %s: bundle: %w", j.ID, err)
	}
	jr.Summary, err = json.Marshal(b.summaryJSON())
	if err != nil {
		return appliance.JobResult{}, fmt.Errorf("batch job %s: summary: %w", j.ID, err)
	}
	return jr, nil
}

// Summary is the JSON summary of a finished batch job
// (appliance.JobResult.Summary).
type Summary struct {
	Counts       Counts `json:"counts"`
	PDFsIncluded int    `json:"pdfs_included"`
	PDFsLeftOut  int    `json:"pdfs_left_out"`
	PDFsReason   string `json:"pdfs_left_out_reason,omitempty"`
}

// WriteBundle writes the bundle of a job whose rows were all analysed
// (results in row order) to w, without PDF quota (PDFs as asked, all of
// them when Quota is nil and opt.PDFs). Tests and benchmarks use it; jobs
// go through Handler.
func (s *Service) WriteBundle(ctx context.Context, w io.Writer, j *appliance.Job, results []RowResult) error {
	var p Payload
	if err := json.Unmarshal(j.Payload, &p); err != nil {
		return fmt.Errorf("bundle: payload: %v: %w", err, appliance.ErrInvalid)
	}
	if len(results) != len(p.Rows) {
		return fmt.Errorf("bundle: %d results for %d rows: %w", len(results), len(p.Rows), appliance.ErrInvalid)
	}
	b := &bundle{s: s, job: j, p: &p, results: results}
	if err := b.reservePDFs(ctx); err != nil {
		return err
	}
	return b.write(ctx, w)
}

// unrecordable is the error row that replaces a result JSON cannot encode:
// the row's identity and input echo, without figures.
func unrecordable(r RowResult) RowResult {
	out := RowResult{Index: r.Index, Row: r.Row, ReceiverID: r.ReceiverID, OperatorFilter: r.OperatorFilter, Engine: r.Engine,
		Lat: finite(r.Lat), Lon: finite(r.Lon), HeightM: finite(r.HeightM), FreqMHz: finite(r.FreqMHz), MaxDistanceKm: finite(r.MaxDistanceKm),
		RxGainDBi: finite(r.RxGainDBi), CableLossDB: finite(r.CableLossDB), RxThresholdDBm: finite(r.RxThresholdDBm), AssumedEIRPDBm: finite(r.AssumedEIRPDBm),
		Status: StatusError, Reason: "the row's result holds a number that is not finite (a bug of the appliance); its figures were not recorded"}
	return out
}

// finite returns x, or nil when it is NaN or infinite.
func finite(x *float64) *float64 {
	if x == nil || math.IsNaN(*x) || math.IsInf(*x, 0) {
		return nil
	}
	return x
}
