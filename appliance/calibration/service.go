package calibration

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"time"

	"linkplan/appliance"
)

// Store is what the service keeps in the appliance's database (store.DB).
type Store interface {
	Observations(tenant string, kind appliance.ObservationKind, fn func(appliance.Observation) bool) error
	CalibrationSettings(tenantID string) (appliance.CalibrationSettings, error)
	PutCalibrationSettings(s appliance.CalibrationSettings, audit ...appliance.AuditEntry) error
	PutCalibration(c *appliance.TenantCalibration, audit ...appliance.AuditEntry) (bool, error)
	Calibration(tenantID string) (*appliance.TenantCalibration, error)
	Calibrations(fn func(*appliance.TenantCalibration) bool) error
}

// Queue is the durable job queue (appliance/jobs).
type Queue interface {
	Enqueue(ctx context.Context, j *appliance.Job) error
	Get(ctx context.Context, tenantID, id string) (*appliance.Job, error)
}

// Deps are the service's dependencies.
type Deps struct {
	Store     Store
	Queue     Queue
	Predictor *Predictor // on the appliance's terrain (never flat ground)
	NewID     func() (string, error)
	// TerrainDescription names the terrain in reports.
	TerrainDescription string
	Now                func() time.Time // nil: time.Now
	Log                *slog.Logger     // nil: discarded
	// Workers bounds the goroutines of a job when the scheduler's grant
	// does not say (appliance.WorkersFrom); 0: 1.
	Workers int
	// Params are the fit's settings; the zero value: DefaultParams.
	Params *Params
	// OnFit is called after a fit job stored a tenant's calibration, with
	// each engine's figures (metrics); nil: nothing.
	OnFit func(c *appliance.TenantCalibration)
}

// Service runs residual reports and calibration fits as jobs, keeps each
// opted-in tenant's calibration in memory and answers
// appliance.Calibrations for the planner and the coverage maps.
type Service struct {
	d Deps

	mu    sync.RWMutex
	cache map[string]*appliance.TenantCalibration // prepared, by tenant
	// lastFit and lastReport are the tenant's last queued job of each
	// kind (in this process): a new one is not queued while it waits.
	lastFit, lastReport map[string]string
}

var _ appliance.Calibrations = (*Service)(nil)

// New returns the service; Open loads the stored calibrations.
func New(d Deps) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.Workers <= 0 {
		d.Workers = 1
	}
	return &Service{d: d, cache: map[string]*appliance.TenantCalibration{}, lastFit: map[string]string{}, lastReport: map[string]string{}}
}

func (s *Service) params() Params {
	if s.d.Params != nil {
		return *s.d.Params
	}
	return DefaultParams()
}

// Open loads every stored calibration into memory.
func (s *Service) Open(_ context.Context) error {
	cache := map[string]*appliance.TenantCalibration{}
	err := s.d.Store.Calibrations(func(c *appliance.TenantCalibration) bool {
		c.Prepare()
		cache[c.TenantID] = c
		return true
	})
	if err != nil {
		return fmt.Errorf("open calibrations: %w", err)
	}
	s.mu.Lock()
	s.cache = cache
	s.mu.Unlock()
	return nil
}

// Calibration returns the tenant's calibration, nil when it has none
// (appliance.Calibrations). Only this tenant's answers ever ask for it.
func (s *Service) Calibration(tenantID string) *appliance.TenantCalibration {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.cache[tenantID]
}

// Tenants returns how many tenants have a calibration held in memory.
func (s *Service) Tenants() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.cache)
}

// MaxRows returns the most consented observations one job of tier t reads
// (doc.go, "Caps"): Pro 20,000, Business 50,000, Enterprise 100,000, Ultra
// 200,000; below Pro (and an unknown tier) 0.
func MaxRows(t appliance.Tier) int {
	switch t {
	case appliance.TierPro:
		return 20000
	case appliance.TierBusiness:
		return 50000
	case appliance.TierEnterprise:
		return 100000
	case appliance.TierUltra:
		return 200000
	}
	return 0
}

// checkTier refuses keys below Pro (the observation routes' tier).
func checkTier(k *appliance.APIKey) error {
	if k == nil {
		return fmt.Errorf("calibration: no API key: %w", appliance.ErrUnauthenticated)
	}
	if MaxRows(k.Tier) == 0 {
		return fmt.Errorf("measured-versus-predicted reports and calibration need tier Pro or higher, as observations do (this key is %s): %w", k.Tier, appliance.ErrForbidden)
	}
	return nil
}

// Status is a tenant's calibration as GET /coverage/calibration answers
// it: the settings, the last fit job queued in this process, and the
// fitted calibration without its areas (their sizes instead).
type Status struct {
	Settings appliance.CalibrationSettings
	// FitJobID is the last fit job queued for the tenant ("" none since
	// the appliance started).
	FitJobID    string
	Calibration *appliance.TenantCalibration // areas left out; nil: none fitted
}

// Get returns the tenant's status.
func (s *Service) Get(_ context.Context, k *appliance.APIKey) (*Status, error) {
	if err := checkTier(k); err != nil {
		return nil, err
	}
	set, err := s.d.Store.CalibrationSettings(k.TenantID)
	if err != nil {
		return nil, err
	}
	st := &Status{Settings: set}
	s.mu.RLock()
	st.FitJobID = s.lastFit[k.TenantID]
	c := s.cache[k.TenantID]
	s.mu.RUnlock()
	if c != nil {
		st.Calibration = withoutAreas(c)
	}
	return st, nil
}

// withoutAreas copies c for an answer: every cell's Area left out
// (AreaSquares says how many squares it has), dB rounded to 0.001 and
// degrees to 1e-6.
func withoutAreas(c *appliance.TenantCalibration) *appliance.TenantCalibration {
	out := &appliance.TenantCalibration{TenantID: c.TenantID, FittedAtUnix: c.FittedAtUnix, Engines: []appliance.EngineCalibration{}}
	for _, e := range c.Engines {
		cells := make([]appliance.CellCalibration, len(e.Cells))
		for i, cc := range e.Cells {
			var sectors []float64
			for _, x := range cc.SectorsDB {
				sectors = append(sectors, r3(x))
			}
			cells[i] = appliance.CellCalibration{SectorsDB: sectors, Key: cc.Key, TowerID: cc.TowerID, Tx: appliance.CalibrationPosition{Lat: r6(cc.Tx.Lat), Lon: r6(cc.Tx.Lon)},
				BandMHz: cc.BandMHz, OffsetDB: r3(cc.OffsetDB), SlopeDB: r3(cc.SlopeDB), N: cc.N, NValidated: cc.NValidated,
				CVRMSEBeforeDB: r3(cc.CVRMSEBeforeDB), CVRMSEAfterDB: r3(cc.CVRMSEAfterDB), Applied: cc.Applied, Reason: cc.Reason, GridM: cc.GridM,
				AreaSquares: len(cc.Area)}
		}
		bands := make([]appliance.BandCalibration, len(e.Bands))
		for i, b := range e.Bands {
			b.OffsetDB, b.SlopeDB, b.CVRMSEBeforeDB, b.CVRMSEAfterDB = r3(b.OffsetDB), r3(b.SlopeDB), r3(b.CVRMSEBeforeDB), r3(b.CVRMSEAfterDB)
			b.Region = appliance.CalibrationRegion{MinLat: r6(b.Region.MinLat), MinLon: r6(b.Region.MinLon), MaxLat: r6(b.Region.MaxLat), MaxLon: r6(b.Region.MaxLon)}
			bands[i] = b
		}
		e.Cells, e.Bands = cells, bands
		e.CVRMSEBeforeDB, e.CVRMSEAfterDB = r3(e.CVRMSEBeforeDB), r3(e.CVRMSEAfterDB)
		out.Engines = append(out.Engines, e)
	}
	return out
}

// SetEnabled turns the tenant's calibration on or off (audited). Turning
// it on queues a fit job (returned); turning it off deletes the fitted
// calibration at once: no answer carries it from then on.
func (s *Service) SetEnabled(ctx context.Context, k *appliance.APIKey, enabled bool) (*Status, *appliance.Job, error) {
	if err := checkTier(k); err != nil {
		return nil, nil, err
	}
	set, err := s.d.Store.CalibrationSettings(k.TenantID)
	if err != nil {
		return nil, nil, err
	}
	if set.Enabled != enabled {
		set.Enabled, set.ChangedAtUnix, set.ChangedBy, set.Tier = enabled, float64(s.d.Now().Unix()), k.ID, k.Tier
		action := appliance.ActionCalibrationDisable
		if enabled {
			action = appliance.ActionCalibrationEnable
		}
		e := appliance.ActorFrom(ctx).Entry(action, k.TenantID, nil)
		e.ActorKey = k.ID
		if err := s.d.Store.PutCalibrationSettings(set, e); err != nil {
			return nil, nil, err
		}
		if !enabled {
			s.mu.Lock()
			delete(s.cache, k.TenantID)
			s.mu.Unlock()
		}
	}
	var job *appliance.Job
	if enabled {
		if job, err = s.queueFit(ctx, k.TenantID, k.ID, k.Tier); err != nil {
			return nil, nil, err
		}
	}
	st, err := s.Get(ctx, k)
	return st, job, err
}

// SubmitFit queues a fit of the tenant's calibration now (it must be
// opted in: appliance.ErrConflict otherwise). A fit already waiting in the
// queue is returned instead of a second one.
func (s *Service) SubmitFit(ctx context.Context, k *appliance.APIKey) (*appliance.Job, error) {
	if err := checkTier(k); err != nil {
		return nil, err
	}
	set, err := s.d.Store.CalibrationSettings(k.TenantID)
	if err != nil {
		return nil, err
	}
	if !set.Enabled {
		return nil, fmt.Errorf("calibration is off for this tenant: turn it on first (PUT /coverage/calibration with enabled true): %w", appliance.ErrConflict)
	}
	return s.queueFit(ctx, k.TenantID, k.ID, k.Tier)
}

// ObservationsStored is called after a submission stored consented rows
// of a tenant: when the tenant is opted in, a refit is queued (unless one
// already waits), as the key that turned calibration on.
func (s *Service) ObservationsStored(ctx context.Context, tenantID string, consented int) {
	if consented <= 0 {
		return
	}
	set, err := s.d.Store.CalibrationSettings(tenantID)
	if err != nil || !set.Enabled {
		return
	}
	if _, err := s.queueFit(ctx, tenantID, set.ChangedBy, set.Tier); err != nil {
		s.d.Log.Warn("calibration refit not queued", "tenant", tenantID, "err", err)
	}
}

// payloadVersion is the version of the jobs' payloads.
const payloadVersion = 1

// payload is a report or fit job's input.
type payload struct {
	Version int            `json:"version"`
	Tier    appliance.Tier `json:"tier"` // its caps and fair share
	// Engines of a report ("" all of ReportEngines).
	Engines []appliance.EngineID `json:"engines,omitempty"`
}

// ReportRequest asks for a residual report.
type ReportRequest struct {
	// Engines are the engines to report, a subset of ReportEngines; empty:
	// all of them.
	Engines []appliance.EngineID
}

// SubmitReport queues a measured-versus-predicted report of the tenant's
// consented observations. A report of the tenant already waiting in the
// queue is a conflict (appliance.ErrConflict naming it).
func (s *Service) SubmitReport(ctx context.Context, k *appliance.APIKey, req ReportRequest) (*appliance.Job, error) {
	if err := checkTier(k); err != nil {
		return nil, err
	}
	v := &appliance.ValidationError{}
	seen := map[appliance.EngineID]bool{}
	for i, e := range req.Engines {
		switch {
		case !slices.Contains(ReportEngines(), e):
			v.Add(fmt.Sprintf("engines[%d]", i), "must be one of %v, got %q", ReportEngines(), truncate(string(e), 40))
		case seen[e]:
			v.Add(fmt.Sprintf("engines[%d]", i), "%s is listed twice", e)
		}
		seen[e] = true
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	last := s.lastReport[k.TenantID]
	s.mu.RUnlock()
	if last != "" {
		if j, err := s.d.Queue.Get(ctx, k.TenantID, last); err == nil && j.State == appliance.JobQueued {
			return nil, fmt.Errorf("a report of this tenant (job %s) is still queued: wait for it or cancel it: %w", j.ID, appliance.ErrConflict)
		}
	}
	engines := req.Engines
	if len(engines) == 0 {
		engines = nil
	}
	j, err := s.enqueue(ctx, appliance.JobKindObservationResiduals, k.TenantID, k.ID, k.Tier, engines)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.lastReport[k.TenantID] = j.ID
	s.mu.Unlock()
	return j, nil
}

// queueFit queues a fit of the tenant, or returns its fit already queued.
func (s *Service) queueFit(ctx context.Context, tenantID, keyID string, tier appliance.Tier) (*appliance.Job, error) {
	s.mu.RLock()
	last := s.lastFit[tenantID]
	s.mu.RUnlock()
	if last != "" {
		if j, err := s.d.Queue.Get(ctx, tenantID, last); err == nil && j.State == appliance.JobQueued {
			return j, nil
		}
	}
	j, err := s.enqueue(ctx, appliance.JobKindCalibrationFit, tenantID, keyID, tier, nil)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.lastFit[tenantID] = j.ID
	s.mu.Unlock()
	return j, nil
}

func (s *Service) enqueue(ctx context.Context, kind appliance.JobKind, tenantID, keyID string, tier appliance.Tier, engines []appliance.EngineID) (*appliance.Job, error) {
	if s.d.Queue == nil {
		return nil, fmt.Errorf("the job queue refused the job: no queue configured: %w", appliance.ErrUnavailable)
	}
	body, err := json.Marshal(payload{Version: payloadVersion, Tier: tier, Engines: engines})
	if err != nil {
		return nil, fmt.Errorf("calibration job: payload: %w", err)
	}
	id, err := s.d.NewID()
	if err != nil {
		return nil, fmt.Errorf("the job queue refused the job: %w: %w", appliance.ErrUnavailable, err)
	}
	j := &appliance.Job{ID: id, TenantID: tenantID, KeyID: keyID, Kind: kind, Lane: appliance.LaneOf(tier), Payload: body,
		Total: 1, MaxAttempts: 3, MaxInterruptions: 10}
	if err := s.d.Queue.Enqueue(ctx, j); err != nil {
		return nil, fmt.Errorf("the job queue refused the job: %w: %w", appliance.ErrUnavailable, err)
	}
	return j, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Terms of Cost's memory estimate, bytes (doc.go, "Caps").
const (
	costBase   = 32 << 20 // the engines' scratch, the zip writer, the fit's kernel
	costPerRow = 4 << 10  // an observation, its predictions, residuals, squares and features
)

// Cost sizes a report or fit job for the heavy-work scheduler
// (appliance/admission): the payload's tier, Deps.Workers workers and
// costBase + costPerRow·(the tier's row cap). ok is false for another
// kind of job.
func (s *Service) Cost(j *appliance.Job) (w appliance.HeavyWork, ok bool) {
	if j.Kind != appliance.JobKindObservationResiduals && j.Kind != appliance.JobKindCalibrationFit {
		return w, false
	}
	var p payload
	_ = json.Unmarshal(j.Payload, &p) // an unreadable payload fails in the handler
	return appliance.HeavyWork{Tier: p.Tier, Workers: s.d.Workers, MemBytes: costBase + costPerRow*int64(MaxRows(p.Tier))}, true
}

// consented reads the tenant's consented observations of both kinds, the
// newest max first (by ts, then id), and how many there are.
func (s *Service) consented(tenantID string, max int) ([]appliance.Observation, int, error) {
	var out []appliance.Observation
	for _, kind := range []appliance.ObservationKind{appliance.KindLinkObservation, appliance.KindCellSignalSample} {
		err := s.d.Store.Observations(tenantID, kind, func(o appliance.Observation) bool {
			if o.Consent == appliance.ConsentConsented {
				out = append(out, o)
			}
			return true
		})
		if err != nil {
			return nil, 0, err
		}
	}
	slices.SortFunc(out, func(a, b appliance.Observation) int {
		if c := cmp.Compare(b.TsUnix, a.TsUnix); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	total := len(out)
	if len(out) > max {
		out = out[:max]
	}
	return out, total, nil
}

// ReportHandler returns the handler of appliance.JobKindObservationResiduals.
func (s *Service) ReportHandler() appliance.JobHandler { return reportHandler{s} }

// FitHandler returns the handler of appliance.JobKindCalibrationFit.
func (s *Service) FitHandler() appliance.JobHandler { return fitHandler{s} }

type reportHandler struct{ s *Service }

type fitHandler struct{ s *Service }

// ReportSummary is the summary of a finished report job (GET /jobs/{id}).
type ReportSummary struct {
	Rows    int                `json:"rows"`
	Engines []EngineSummaryRow `json:"engines"`
}

// EngineSummaryRow is one engine's overall figures.
type EngineSummaryRow struct {
	Engine appliance.EngineID `json:"engine"`
	Stats
}

// predictFor reads and predicts a job's observations.
func (s *Service) predictFor(ctx context.Context, j *appliance.Job, ids []appliance.EngineID) ([]appliance.Observation, []Prediction, []map[string]int, payload, int, error) {
	var p payload
	if err := json.Unmarshal(j.Payload, &p); err != nil || p.Version != payloadVersion {
		return nil, nil, nil, p, 0, fmt.Errorf("job %s: payload (version %d): %v: %w", j.ID, p.Version, err, appliance.ErrInvalid)
	}
	max := MaxRows(p.Tier)
	if max == 0 {
		return nil, nil, nil, p, 0, fmt.Errorf("job %s: tier %s has no calibration: %w", j.ID, p.Tier, appliance.ErrInvalid)
	}
	obs, total, err := s.consented(j.TenantID, max)
	if err != nil {
		return nil, nil, nil, p, 0, fmt.Errorf("job %s: %w", j.ID, err)
	}
	if len(p.Engines) > 0 {
		ids = p.Engines
	}
	preds, errs, err := s.d.Predictor.Predict(ctx, obs, ids, appliance.WorkersFrom(ctx, s.d.Workers))
	if err != nil {
		return nil, nil, nil, p, 0, fmt.Errorf("job %s: %w", j.ID, err)
	}
	return obs, preds, errs, p, total, nil
}

func (h reportHandler) Run(ctx context.Context, run appliance.JobRun) (appliance.JobResult, error) {
	j := run.Job()
	obs, preds, errs, p, total, err := h.s.predictFor(ctx, j, ReportEngines())
	if err != nil {
		return appliance.JobResult{}, err
	}
	ids := ReportEngines()
	if len(p.Engines) > 0 {
		ids = p.Engines
	}
	rep, err := BuildReport(obs, preds, ids, errs)
	if err != nil {
		return appliance.JobResult{}, fmt.Errorf("job %s: %w", j.ID, err)
	}
	now := h.s.d.Now().UTC()
	rep.GeneratedAtUnix, rep.Terrain = float64(now.Unix()), h.s.d.TerrainDescription
	rep.RowsAvailable, rep.MaxRows, rep.Truncated = total, MaxRows(p.Tier), total > len(obs)
	res, err := run.WriteResult(".zip", func(w io.Writer) error { return WriteBundle(w, rep, obs, preds, ids, now) })
	if err != nil {
		return appliance.JobResult{}, fmt.Errorf("job %s: result: %w", j.ID, err)
	}
	if err := run.Checkpoint(ctx, appliance.JobProgress{Done: 1}, nil); err != nil {
		return appliance.JobResult{}, fmt.Errorf("job %s: checkpoint: %w", j.ID, err)
	}
	sum := ReportSummary{Rows: rep.Rows, Engines: []EngineSummaryRow{}}
	for _, e := range rep.Engines {
		sum.Engines = append(sum.Engines, EngineSummaryRow{Engine: e.Engine, Stats: e.Stats})
	}
	if res.Summary, err = json.Marshal(sum); err != nil {
		return appliance.JobResult{}, fmt.Errorf("job %s: summary: %w", j.ID, err)
	}
	return res, nil
}

// FitSummary is the summary of a finished fit job.
type FitSummary struct {
	Rows int `json:"rows"`
	// Stored is false when the tenant opted out while the fit ran (the
	// calibration was dropped).
	Stored  bool             `json:"stored"`
	Engines []FitSummaryLine `json:"engines"`
}

// FitSummaryLine is one engine's verdict.
type FitSummaryLine struct {
	Engine         appliance.EngineID `json:"engine"`
	N              int                `json:"n"`
	CVRMSEBeforeDB float64            `json:"cv_rmse_before_db"`
	CVRMSEAfterDB  float64            `json:"cv_rmse_after_db"`
	Applied        bool               `json:"applied"`
	Reason         string             `json:"reason,omitempty"`
}

// FitEngines fits a tenant calibration to observations and their predictions by
// the engines ids (appliance/calibration's procedure for each engine). An
// engine with too few residuals (or blocks) gets a calibration that is not
// applied, with the reason.
func FitEngines(obs []appliance.Observation, preds []Prediction, ids []appliance.EngineID, p Params) ([]appliance.EngineCalibration, error) {
	var out []appliance.EngineCalibration
	for k, id := range ids {
		rs, err := ResidualsOf(obs, preds, k)
		if err != nil {
			return nil, err
		}
		fit, err := Fit(id, rs, p)
		if errors.Is(err, ErrTooFewBlocks) {
			out = append(out, appliance.EngineCalibration{Engine: id, N: len(rs), Reason: fmt.Sprintf(
				"not fitted: %d residuals need measurements in at least %d blocks (H3 resolution %d) with transmitters in more than one, for the spatially blocked folds", len(rs), p.Folds, BlockResolution),
				Cells: []appliance.CellCalibration{}, Bands: []appliance.BandCalibration{}})
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, fit.Calibration)
	}
	return out, nil
}

func (h fitHandler) Run(ctx context.Context, run appliance.JobRun) (appliance.JobResult, error) {
	j := run.Job()
	ids := ReportEngines()
	obs, preds, _, _, _, err := h.s.predictFor(ctx, j, ids)
	if err != nil {
		return appliance.JobResult{}, err
	}
	engines, err := FitEngines(obs, preds, ids, h.s.params())
	if err != nil {
		return appliance.JobResult{}, fmt.Errorf("job %s: fit: %w", j.ID, err)
	}
	if err := ctx.Err(); err != nil {
		return appliance.JobResult{}, err
	}
	tc := &appliance.TenantCalibration{TenantID: j.TenantID, FittedAtUnix: float64(h.s.d.Now().Unix()), Engines: engines}
	e := appliance.AuditEntry{Action: appliance.ActionCalibrationFit, ActorKey: j.KeyID, TenantID: j.TenantID,
		Params: map[string]string{"job_id": j.ID, "rows": fmt.Sprint(len(obs))}}
	stored, err := h.s.d.Store.PutCalibration(tc, e)
	if err != nil {
		return appliance.JobResult{}, fmt.Errorf("job %s: %w", j.ID, err)
	}
	if stored {
		tc.Prepare()
		h.s.mu.Lock()
		h.s.cache[j.TenantID] = tc
		h.s.mu.Unlock()
		if h.s.d.OnFit != nil {
			h.s.d.OnFit(tc)
		}
	}
	sum := FitSummary{Rows: len(obs), Stored: stored, Engines: []FitSummaryLine{}}
	for _, e := range engines {
		sum.Engines = append(sum.Engines, FitSummaryLine{Engine: e.Engine, N: e.N, CVRMSEBeforeDB: r3(e.CVRMSEBeforeDB),
			CVRMSEAfterDB: r3(e.CVRMSEAfterDB), Applied: e.Applied, Reason: e.Reason})
	}
	res, err := run.WriteResult(".json", func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", " ")
		return enc.Encode(withoutAreas(tc))
	})
	if err != nil {
		return appliance.JobResult{}, fmt.Errorf("job %s: result: %w", j.ID, err)
	}
	if err := run.Checkpoint(ctx, appliance.JobProgress{Done: 1}, nil); err != nil {
		return appliance.JobResult{}, fmt.Errorf("job %s: checkpoint: %w", j.ID, err)
	}
	if res.Summary, err = json.Marshal(sum); err != nil {
		return appliance.JobResult{}, fmt.Errorf("job %s: summary: %w", j.ID, err)
	}
	return res, nil
}
