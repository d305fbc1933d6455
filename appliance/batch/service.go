package batch

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/planner"
)

// LinkAnalyzer runs one link analysis (the planner).
type LinkAnalyzer interface {
	AnalyzeLink(ctx context.Context, req appliance.LinkRequest) (*appliance.LinkAnalysis, error)
}

// Enqueuer stores a new job (appliance.JobQueue).
type Enqueuer interface {
	Enqueue(ctx context.Context, j *appliance.Job) error
}

// PDFQuota reserves PDF reports against a tenant's monthly quota. It is
// idempotent per jobID: a second call for the same job (a re-run after a
// crash) returns the first grant and counts nothing. granted is at most
// want; usedBefore is the month's count before this job. store.DB
// implements it (store/pdfquota.go).
type PDFQuota interface {
	ReservePDFs(ctx context.Context, tenantID, jobID string, want, monthlyLimit int, now time.Time, audit ...appliance.AuditEntry) (granted, usedBefore int, err error)
}

// EngineResolver resolves a row's engine for a key (web/api's tier rules:
// unknown engine, engine above the tier, "auto" below Pro). It returns the
// engine to run and, when it changed the request, a note.
type EngineResolver func(k *appliance.APIKey, id appliance.EngineID) (appliance.EngineID, string, error)

// Deps are the dependencies of a Service.
type Deps struct {
	Analyzer LinkAnalyzer // required
	Queue    Enqueuer     // required for batches over SyncMaxRows
	Quota    PDFQuota     // nil: no PDFs in bundles
	// Clock is the time source; nil is time.Now.
	Clock func() time.Time
	// NewID returns a new job id; nil is 16 random bytes in hex.
	NewID func() (string, error)
	// ResolveEngine applies the tier rules to engines; nil passes the
	// engine through (the planner refuses unknown ones, per row).
	ResolveEngine EngineResolver
	// Terrain describes the terrain data (manifest data provenance).
	Terrain string
	// Workers is the number of rows analysed at once; <= 0 is GOMAXPROCS.
	Workers int
	// MaxAttempts and MaxInterruptions of queued jobs; 0 is 3.
	MaxAttempts, MaxInterruptions int
	// Recover recovers the panics of the row and report goroutines (a row
	// error, a report left out); nil logs them to slog.Default.
	Recover *appliance.Recoverer
	// Units, when set, analyses the rows of jobs as batch.rows units of
	// this executor (units.go: in the process or on workers, the same
	// items); nil analyses them here, chunk after chunk.
	Units appliance.UnitExecutor
	// Inputs returns the input digests units are planned on (Units).
	Inputs func() appliance.Inputs
	// TenantTowers returns a tenant's own towers, sent with its units
	// (a worker holds the public towers only).
	TenantTowers func(ctx context.Context, tenantID string) ([]*appliance.Tower, error)
	// Antennas resolves the catalogue antennas the tenant's towers name,
	// sent with its units (a worker holds no equipment catalogue); nil:
	// units are not used for a tenant whose towers name one.
	Antennas appliance.AntennaCatalogue
}

// Service runs batch reports.
type Service struct {
	d Deps
}

// UseUnits makes the service analyse the rows of jobs as units of ex
// (Deps.Units, Deps.Inputs, Deps.TenantTowers, Deps.Antennas); call it
// before jobs run.
func (s *Service) UseUnits(ex appliance.UnitExecutor, inputs func() appliance.Inputs, towers func(ctx context.Context, tenantID string) ([]*appliance.Tower, error),
	antennas appliance.AntennaCatalogue) {
	s.d.Units, s.d.Inputs, s.d.TenantTowers, s.d.Antennas = ex, inputs, towers, antennas
}

// New returns a batch service.
func New(d Deps) *Service {
	if d.Clock == nil {
		d.Clock = time.Now
	}
	if d.NewID == nil {
		d.NewID = randomID
	}
	if d.Workers <= 0 {
		d.Workers = runtime.GOMAXPROCS(0)
	}
	if d.MaxAttempts <= 0 {
		d.MaxAttempts = 3
	}
	if d.MaxInterruptions <= 0 {
		d.MaxInterruptions = 3
	}
	return &Service{d: d}
}

func randomID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("job id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// PayloadVersion is the version of the job payload this package writes.
const PayloadVersion = 1

// Payload is the input of a batch job (appliance.Job.Payload, JSON).
type Payload struct {
	Version   int            `json:"version"`
	Tier      appliance.Tier `json:"tier"`
	TenantID  string         `json:"tenant_id"`
	Submitted time.Time      `json:"submitted"`
	Options   Options        `json:"options"`
	// Rows have their engines resolved (Row.Engine) and the engine
	// resolution errors in Row.Errors.
	Rows []Row `json:"rows"`
	// Notes are the engine resolution notes per row index (omitted when
	// none).
	Notes map[int]string `json:"notes,omitempty"`
}

// Submit runs a batch for key: it checks the tier (CheckTier: Free
// forbidden, *LimitError over the limit); a batch of at most SyncMaxRows
// rows runs now and returns its SyncResult; a larger one is enqueued as a
// JobKindBatchReport job and returns the job (state queued). A queue
// refusal wraps appliance.ErrUnavailable (HTTP 503). A row's own failure
// (bad value, missing terrain, invalid range) is reported in its row,
// never as the error of Submit.
func (s *Service) Submit(ctx context.Context, key *appliance.APIKey, rows []Row, opt Options) (*SyncResult, *appliance.Job, error) {
	if key == nil {
		return nil, nil, fmt.Errorf("batch: no API key: %w", appliance.ErrUnauthenticated)
	}
	if err := CheckTier(key.Tier, len(rows)); err != nil {
		return nil, nil, err
	}
	switch opt.Language {
	case "":
		opt.Language = "en"
	case "en", "pt-BR":
	default:
		return nil, nil, appliance.Invalid("language", "must be \"en\" or \"pt-BR\", got %q", clip(string(opt.Language), 40))
	}
	p := &Payload{Version: PayloadVersion, Tier: key.Tier, TenantID: key.TenantID, Submitted: s.d.Clock().UTC(), Options: opt}
	p.Rows = make([]Row, len(rows))
	for i, r := range rows {
		r.Errors = append([]appliance.FieldError(nil), r.Errors...)
		id := appliance.EngineID(r.Engine)
		if id == "" {
			id = appliance.EngineID(opt.Engine)
		}
		if s.d.ResolveEngine != nil && id != "" {
			got, note, err := s.d.ResolveEngine(key, id)
			if err != nil {
				r.Errors = append(r.Errors, appliance.FieldError{Field: ColEngine, Reason: reasonOf(err)})
			} else {
				id = got
				if note != "" {
					if p.Notes == nil {
						p.Notes = map[int]string{}
					}
					p.Notes[i] = note
				}
			}
		}
		r.Engine = string(id)
		p.Rows[i] = r
	}
	if len(rows) <= SyncMaxRows {
		res, err := s.runSync(ctx, p)
		return res, nil, err
	}
	if s.d.Queue == nil {
		return nil, nil, fmt.Errorf("the job queue refused the batch: no queue configured: %w", appliance.ErrUnavailable)
	}
	body, err := json.Marshal(p)
	if err != nil {
		return nil, nil, fmt.Errorf("batch payload: %w", err)
	}
	id, err := s.d.NewID()
	if err != nil {
		return nil, nil, fmt.Errorf("the job queue refused the batch: %w: %w", appliance.ErrUnavailable, err)
	}
	j := &appliance.Job{ID: id, TenantID: key.TenantID, KeyID: key.ID, Kind: appliance.JobKindBatchReport,
		Lane: appliance.LaneOf(key.Tier), Payload: body, Total: int64(len(rows)),
		MaxAttempts: s.d.MaxAttempts, MaxInterruptions: s.d.MaxInterruptions}
	if err := s.d.Queue.Enqueue(ctx, j); err != nil {
		return nil, nil, fmt.Errorf("the job queue refused the batch: %w: %w", appliance.ErrUnavailable, err)
	}
	return nil, j, nil
}

func (s *Service) runSync(ctx context.Context, p *Payload) (*SyncResult, error) {
	res := make([]RowResult, len(p.Rows))
	if err := s.analyzeRange(ctx, p, 0, len(p.Rows), res); err != nil {
		return nil, err
	}
	out := &SyncResult{Rows: res}
	for _, r := range res {
		out.Counts.Add(r.Status)
	}
	return out, nil
}

// analyzeRange analyses rows [from, to) of p over Workers goroutines into
// out[i-from]. Only a context error stops it.
func (s *Service) analyzeRange(ctx context.Context, p *Payload, from, to int, out []RowResult) error {
	_, err := s.analyzeUntil(ctx, p, from, to, out, time.Time{})
	return err
}

// analyzeUntil analyses rows from from on, in order, over Workers
// goroutines into out[i-from]: all rows up to to, or, when deadline is not
// zero, those handed out before it passed (at least one). It returns the
// end of the rows analysed. Only a context error stops it early.
func (s *Service) analyzeUntil(ctx context.Context, p *Payload, from, to int, out []RowResult, deadline time.Time) (int, error) {
	var wg sync.WaitGroup
	next := make(chan int)
	workers := min(appliance.WorkersFrom(ctx, s.d.Workers), to-from)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i-from], _ = s.safeRow(ctx, p, i, false)
			}
		}()
	}
	var err error
	end := from
feed:
	for end < to {
		if end > from && !deadline.IsZero() && time.Now().After(deadline) {
			break
		}
		select {
		case next <- end:
			end++
		case <-ctx.Done():
			err = ctx.Err()
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err == nil {
		err = ctx.Err()
	}
	return end, err
}

// request builds the LinkRequest of a row like /analyze_link: the given
// optional fields are marked set, planner.Defaults fills the others.
func request(r Row, tenantID string) (appliance.LinkRequest, *appliance.ValidationError) {
	v := &appliance.ValidationError{}
	for _, f := range r.Errors {
		v.Add(f.Field, "%s", f.Reason)
	}
	var req appliance.LinkRequest
	set := map[string]bool{}
	req1 := func(p *float64, name string, dst *float64) {
		if p == nil {
			if !hasField(r.Errors, name) {
				v.Add(name, "is required")
			}
			return
		}
		*dst = *p
	}
	req1(r.Lat, ColLat, &req.Receiver.Lat)
	req1(r.Lon, ColLon, &req.Receiver.Lon)
	req1(r.FreqMHz, ColFreq, &req.FreqMHz)
	opt := func(p *float64, name string, dst *float64) {
		if p != nil {
			*dst, set[name] = *p, true
		}
	}
	opt(r.HeightM, "receiver.height_m", &req.RxHeightM)
	opt(r.MaxDistanceKm, ColMaxDistance, &req.MaxDistanceKm)
	opt(r.RxGainDBi, ColRxGain, &req.RxGainDBi)
	opt(r.CableLossDB, ColCableLoss, &req.CableLossDB)
	opt(r.RxThresholdDBm, ColRxThreshold, &req.RxThresholdDBm)
	opt(r.AssumedEIRPDBm, ColAssumedEIRP, &req.AssumedEIRPDBm)
	req.Operator = r.Operator
	req.Engine = appliance.EngineID(r.Engine)
	req.TenantID = tenantID
	// A batch result carries only the best tower.
	req.MaxAlternatives, set["max_alternatives"] = 0, true
	planner.Defaults(&req, set)
	if v.Len() == 0 {
		if err := planner.Validate(&req); err != nil {
			var ve *appliance.ValidationError
			if errors.As(err, &ve) {
				for _, f := range ve.Fields {
					if f.Field == "receiver.height_m" {
						f.Field = ColHeight
					}
					v.Add(f.Field, "%s", f.Reason)
				}
			} else {
				v.Add("row", "%s", err.Error())
			}
		}
	}
	return req, v
}

func hasField(fs []appliance.FieldError, name string) bool {
	for _, f := range fs {
		if f.Field == name {
			return true
		}
	}
	return false
}

// safeRow is analyzeRow on a goroutine of its own: a panic makes row i an
// error row whose reason names the reference (the job or request id)
// under which the panic is logged, and the other rows go on.
func (s *Service) safeRow(ctx context.Context, p *Payload, i int, profile bool) (out RowResult, a *appliance.LinkAnalysis) {
	var err error
	defer func() {
		if err != nil {
			out, a = panicRow(p, i, err), nil
		}
	}()
	defer s.d.Recover.Recover(ctx, "batch.row", &err)
	return s.analyzeRow(ctx, p, i, profile)
}

// panicRow is the result of row i when its analysis panicked.
func panicRow(p *Payload, i int, err error) RowResult {
	r := p.Rows[i]
	out := RowResult{Index: i, Row: i + 1, ReceiverID: r.ReceiverID, OperatorFilter: r.Operator, Engine: r.Engine,
		Status: StatusError, Reason: err.Error()}
	if out.ReceiverID == "" {
		out.ReceiverID = fmt.Sprintf("row-%05d", i+1)
	}
	if r.Lat != nil {
		out.Lat = r6p(*r.Lat)
	}
	if r.Lon != nil {
		out.Lon = r6p(*r.Lon)
	}
	return out
}

// analyzeRow analyses row i of p. It returns the row result and, for a row
// that ran, the analysis. A context error gives an error row (the caller
// checks the context).
func (s *Service) analyzeRow(ctx context.Context, p *Payload, i int, profile bool) (RowResult, *appliance.LinkAnalysis) {
	r := p.Rows[i]
	req, v := request(r, p.TenantID)
	req.IncludeProfile = profile
	out := RowResult{Index: i, Row: i + 1, ReceiverID: r.ReceiverID, Lat: r.Lat, Lon: r.Lon, OperatorFilter: r.Operator, Engine: r.Engine}
	if out.ReceiverID == "" {
		out.ReceiverID = fmt.Sprintf("row-%05d", i+1)
	}
	if v.Len() > 0 {
		out.Status, out.Errors, out.Reason = StatusError, v.Fields, v.Error()
		// The input is echoed only where it is a coordinate at all: an
		// error row names the bad value in Errors, and its lat or lon is
		// null (RowResult: "null when the row did not give a valid
		// number"), so that ±1e308 reaches neither JSON nor a CSV cell.
		out.Lat, out.Lon = coordinate(out.Lat, 90), coordinate(out.Lon, 180)
		return out, nil
	}
	out.Lat, out.Lon = r6p(req.Receiver.Lat), r6p(req.Receiver.Lon)
	out.HeightM, out.FreqMHz, out.MaxDistanceKm = r3p(req.RxHeightM), r3p(req.FreqMHz), r3p(req.MaxDistanceKm)
	out.RxGainDBi, out.CableLossDB = r3p(req.RxGainDBi), r3p(req.CableLossDB)
	out.RxThresholdDBm, out.AssumedEIRPDBm = r3p(req.RxThresholdDBm), r3p(req.AssumedEIRPDBm)
	a, err := s.d.Analyzer.AnalyzeLink(ctx, req)
	if err != nil {
		out.Status, out.Reason = StatusError, reasonOf(err)
		var ve *appliance.ValidationError
		if errors.As(err, &ve) {
			out.Errors = ve.Fields
		}
		return out, nil
	}
	out.Engine, out.EngineVersion = string(a.Engine), a.EngineVersion
	out.Warnings = append(out.Warnings, a.Warnings...)
	if note := p.Notes[i]; note != "" {
		out.Warnings = append(out.Warnings, appliance.Warning{Code: appliance.WarnEngineResolved, Message: note})
	}
	b := a.Best
	if b == nil {
		out.Status, out.Reason = StatusNoTower, a.Reason
		if out.Reason == "" {
			out.Reason = "no tower can serve this receiver"
		}
		return out, a
	}
	if b.Tower != nil {
		out.TowerID, out.Operator, out.Synthetic = b.Tower.ID, b.Tower.Operator, b.Tower.Synthetic
		if u := b.Tower.UncertaintyM; u > 0 {
			out.PositionUncertaintyM = r3p(u)
		}
	}
	out.DistanceKm, out.AzimuthDeg = r3p(b.DistanceKm), r3p(b.AzimuthDeg)
	out.RxPowerDBm, out.MarginDB, out.EIRPAssumed = r3p(b.RxPowerDBm), r3p(b.LinkMarginDB), b.EIRPAssumed
	if b.Prediction.Engine != "" {
		out.Engine = string(b.Prediction.Engine)
	}
	if b.Prediction.EngineVersion != "" {
		out.EngineVersion = b.Prediction.EngineVersion
	}
	out.Status = StatusOK
	if b.LinkMarginDB < 0 {
		out.Status = StatusLowMargin
	}
	return out, a
}

// reasonOf is the user-facing reason of a row error: the message without
// the planner's operation prefixes.
func reasonOf(err error) string {
	var tm *appliance.TileMissingError
	if errors.As(err, &tm) {
		return tm.Error() + ": no result (there is no sea-level fallback)"
	}
	var ve *appliance.ValidationError
	if errors.As(err, &ve) {
		return ve.Error()
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return "the analysis was interrupted"
	}
	return err.Error()
}

// coordinate rounds a latitude or longitude to 6 decimals, or returns nil
// when it is absent or outside [-limit, limit] degrees.
func coordinate(x *float64, limit float64) *float64 {
	if x == nil || !(math.Abs(*x) <= limit) {
		return nil
	}
	return r6p(*x)
}

func r3p(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	v := appliance.Round(x, 3) // never -0, never an overflow to +Inf
	return &v
}

func r6p(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	v := appliance.Round(x, 6)
	return &v
}
