package training

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/periodic"
	"linkplan/engines/ml"
)

// Store is what the training side needs from storage (store.DB).
type Store interface {
	// ConsentedObservations calls fn with every tenant's consented rows
	// and returns how many rows are stored in all.
	ConsentedObservations(fn func(appliance.ObservationKind, appliance.Observation) bool) (int, error)
	ConsentGrants() (uint64, error)
	RetrainState() (appliance.RetrainState, error)
	UpdateRetrainState(change func(*appliance.RetrainState) bool) (appliance.RetrainState, error)
	PutModelDecision(d *appliance.ModelDecision, grants, nextSeq uint64, audit ...appliance.AuditEntry) (bool, *appliance.ModelDecision, error)
	ModelDecision(jobID string) (*appliance.ModelDecision, error)
	// SourceAttestations returns every source attestation (withdrawn
	// ones included): only rows they cover count as real data.
	SourceAttestations() ([]appliance.SourceAttestation, error)
}

// Queue is the durable job queue (appliance/jobs.Service).
type Queue interface {
	Enqueue(ctx context.Context, j *appliance.Job) error
	Get(ctx context.Context, tenantID, id string) (*appliance.Job, error)
}

// RetrainEvery is the number of new consent grants that queues a retrain
// (issue 11: "≥ 1,000 new consented observations").
const RetrainEvery = 1000

// Options configure a Service.
type Options struct {
	// Models is the models root (<state dir>/models).
	Models string
	// Shipped holds the models the serving side uses while Models has no
	// current directory (engines/ml/shipped.FS()); nil: none, and the
	// first candidate is promoted.
	Shipped fs.FS
	// Clutter is true when the terrain has a land-cover layer: the corpus
	// then uses feature schema 2 (27 features) when every row has a class.
	Clutter bool
	// RegionAt gives a receiver's macro-region (N, NE, CO, SE, S; "" none)
	// for the Mondrian bands; nil: marginal bands only.
	RegionAt func(appliance.LatLon) string
	// BaselineValidity is the validity range of the baseline engine
	// (p1812-p1411-hybrid, from the engine registry); the residual
	// engine's envelope carries it. nil: none stated.
	BaselineValidity *ml.EngineValidity
	// Reload tells the serving side to load the models again after a
	// swap; nil does nothing.
	Reload func(ctx context.Context) error
	// CheckInterval is how often Start's loop checks the count trigger
	// (default 1 min).
	CheckInterval time.Duration
	// Workers bounds the goroutines of featurisation and training
	// (default GOMAXPROCS); the models do not depend on it.
	Workers int
	// Clock is the time source (default time.Now).
	Clock func() time.Time
	Log   *slog.Logger
	// Recover recovers the panics of featurisation workers (a row error)
	// and of the trigger loop; nil logs them to slog.Default.
	Recover *appliance.Recoverer
}

// Service trains, replays and promotes the learned models (package doc).
type Service struct {
	store    Store
	queue    Queue
	feat     Featurizer
	baseline BaselineFunc
	learners Learners
	opts     Options
	log      *slog.Logger

	mu   sync.Mutex    // serialises triggers (one enqueue decision at a time)
	loop periodic.Loop // the trigger loop of Start
}

// New returns a Service. queue may be nil (offline use: Retrain only);
// learners are the learning algorithms it fits with (assemble.Learners).
func New(store Store, queue Queue, feat Featurizer, baseline BaselineFunc, learners Learners, opts Options) *Service {
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.CheckInterval <= 0 {
		opts.CheckInterval = time.Minute
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{store: store, queue: queue, feat: feat, baseline: baseline, learners: learners, opts: opts, log: log.With("component", "training")}
}

func (s *Service) dir() ModelDir { return ModelDir{Root: s.opts.Models, Now: s.opts.Clock} }

// RetrainJobID is the id of the seq-th retrain job.
func RetrainJobID(seq uint64) string { return fmt.Sprintf("job_model_retrain_%08d", seq) }

func seqOf(jobID string) (uint64, bool) {
	rest, ok := strings.CutPrefix(jobID, "job_model_retrain_")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(rest, 10, 64)
	return n, err == nil
}

// payload is a retrain job's input.
type payload struct {
	Trigger string `json:"trigger"`
	Reason  string `json:"reason,omitempty"`
}

// Trigger queues a retrain unless one is queued or running; it returns the
// job id of the retrain in flight and whether this call queued it. The id
// is job_model_retrain_<Seq>: a job of that id that is still queued or
// running is the one in flight; a finished one moves Seq on. As the id is
// a function of the stored state, a crash between the enqueue and anything
// after it cannot queue a second retrain.
func (s *Service) Trigger(ctx context.Context, trigger, reason string) (string, bool, error) {
	if s.queue == nil {
		return "", false, fmt.Errorf("trigger retrain: no job queue: %w", appliance.ErrUnavailable)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.store.RetrainState()
	if err != nil {
		return "", false, fmt.Errorf("trigger retrain: %w", err)
	}
	// Each pass either answers or moves Seq past a finished job; the bound
	// only guards against a store that never settles.
	for range 100 {
		id := RetrainJobID(st.Seq)
		j, err := s.queue.Get(ctx, appliance.SystemTenantID, id)
		switch {
		case err == nil && !j.State.Terminal():
			return id, false, nil
		case err == nil:
			seq := st.Seq
			if st, err = s.store.UpdateRetrainState(func(r *appliance.RetrainState) bool {
				if r.Seq != seq {
					return false
				}
				r.Seq++
				return true
			}); err != nil {
				return "", false, fmt.Errorf("trigger retrain: %w", err)
			}
			continue
		case !errors.Is(err, appliance.ErrNotFound):
			return "", false, fmt.Errorf("trigger retrain: %w", err)
		}
		raw, err := json.Marshal(payload{Trigger: trigger, Reason: reason})
		if err != nil {
			return "", false, err
		}
		j = &appliance.Job{ID: id, TenantID: appliance.SystemTenantID, Kind: appliance.JobKindModelRetrain,
			Lane: appliance.LaneStandard, Payload: raw, Total: 1, MaxAttempts: 3}
		if err := s.queue.Enqueue(ctx, j); err != nil {
			if errors.Is(err, appliance.ErrConflict) {
				return id, false, nil
			}
			return "", false, fmt.Errorf("trigger retrain: %w", err)
		}
		s.log.Info("retrain queued", "job_id", id, "trigger", trigger, "reason", reason)
		return id, true, nil
	}
	return "", false, fmt.Errorf("trigger retrain: 100 finished retrain jobs in a row at sequence %d: %w", st.Seq, appliance.ErrConflict)
}

// MonitorFired queues a retrain because the serving side's effective-band
// monitor fired (reason says why); idempotent as Trigger.
func (s *Service) MonitorFired(ctx context.Context, reason string) (string, error) {
	id, _, err := s.Trigger(ctx, "monitor", reason)
	return id, err
}

// Check applies the count trigger: when at least RetrainEvery consent
// grants happened since the last decided retrain and since the count
// trigger last fired, it queues a retrain. It returns the job id queued
// or in flight ("" when the trigger did not fire).
func (s *Service) Check(ctx context.Context) (string, error) {
	grants, err := s.store.ConsentGrants()
	if err != nil {
		return "", fmt.Errorf("check retrain trigger: %w", err)
	}
	st, err := s.store.RetrainState()
	if err != nil {
		return "", fmt.Errorf("check retrain trigger: %w", err)
	}
	if grants < st.GrantsAtLastTraining+RetrainEvery || grants < st.TriggeredAtGrants+RetrainEvery {
		return "", nil
	}
	id, _, err := s.Trigger(ctx, "observations", fmt.Sprintf("%d new consented observations", grants-st.GrantsAtLastTraining))
	if err != nil {
		return "", err
	}
	if _, err := s.store.UpdateRetrainState(func(r *appliance.RetrainState) bool {
		r.TriggeredAtGrants = max(r.TriggeredAtGrants, grants)
		return true
	}); err != nil {
		return "", fmt.Errorf("check retrain trigger: %w", err)
	}
	return id, nil
}

// Start checks the count trigger at once and then every CheckInterval
// until Close. A second Start is appliance.ErrConflict.
func (s *Service) Start(ctx context.Context) error {
	if s.loop.Started() {
		return fmt.Errorf("training: start: already started: %w", appliance.ErrConflict)
	}
	if _, err := s.Check(ctx); err != nil {
		s.log.Error("training: check the retrain trigger", "err", err)
	}
	s.loop.Recover = s.opts.Recover
	return s.loop.Start("training", s.opts.CheckInterval, func(run context.Context) {
		if _, err := s.Check(run); err != nil && run.Err() == nil {
			s.log.Error("training: check the retrain trigger", "err", err)
		}
	})
}

// Close stops Start's loop and waits for it (bounded by ctx).
func (s *Service) Close(ctx context.Context) error {
	if err := s.loop.Close(ctx); err != nil {
		return fmt.Errorf("training: %w", err)
	}
	return nil
}

// Outcome is what one retrain did.
type Outcome struct {
	Decision appliance.ModelDecision
	// Repeated is true when the job's decision was recorded by an earlier
	// run (nothing trained or recorded again).
	Repeated bool
	Corpus   CorpusCounts
	Summary  *Summary
}

// CorpusCounts are the corpus figures of a retrain.
type CorpusCounts struct {
	Stored, Consented, Kept                       int
	SkippedTerrain, SkippedMetric, SkippedInvalid int
	SchemaVersion                                 int
}

// Retrain runs one retrain as job jobID (state table in the package doc):
// read the consented corpus, train the candidate on the rows outside the
// holdout, replay candidate and served models on the holdout, record the
// decision with its audit entry, and on promotion swap the candidate in
// and reload. A job whose decision is recorded already trains nothing: it
// finishes a promotion a crash interrupted (swap, reload) and returns the
// recorded decision.
func (s *Service) Retrain(ctx context.Context, jobID, trigger string) (*Outcome, error) {
	if d, err := s.store.ModelDecision(jobID); err == nil {
		if err := s.finishPromotion(ctx, d); err != nil {
			return nil, err
		}
		return &Outcome{Decision: *d, Repeated: true}, nil
	} else if !errors.Is(err, appliance.ErrNotFound) {
		return nil, fmt.Errorf("retrain %s: %w", jobID, err)
	}
	grants, err := s.store.ConsentGrants()
	if err != nil {
		return nil, fmt.Errorf("retrain %s: %w", jobID, err)
	}
	var rows []appliance.Observation
	stored, err := s.store.ConsentedObservations(func(_ appliance.ObservationKind, o appliance.Observation) bool {
		rows = append(rows, o)
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("retrain %s: %w", jobID, err)
	}
	c, err := buildCorpus(ctx, s.opts.Recover, s.feat, s.baseline, s.opts.RegionAt, rows, stored, s.opts.Clutter, s.opts.Workers)
	if err != nil {
		return nil, fmt.Errorf("retrain %s: %w", jobID, err)
	}
	atts, err := s.store.SourceAttestations()
	if err != nil {
		return nil, fmt.Errorf("retrain %s: %w", jobID, err)
	}
	c.ApplyAttestations(atts)
	c.BaselineValidity = s.opts.BaselineValidity
	out := &Outcome{Corpus: CorpusCounts{Stored: c.Stored, Consented: c.Consented, Kept: c.N(), SkippedTerrain: c.SkippedTerrain,
		SkippedMetric: c.SkippedMetric, SkippedInvalid: c.SkippedInvalid, SchemaVersion: c.Schema.Version}}
	now := s.opts.Clock().UTC()
	cand, err := s.learners.TrainCandidate(c, now, s.opts.Workers)
	if err != nil {
		return nil, fmt.Errorf("retrain %s: %w", jobID, err)
	}
	out.Summary = &cand.Summary
	dir := s.dir()
	if _, err := dir.WriteStaging(jobID, cand.Artifacts); err != nil {
		return nil, fmt.Errorf("retrain %s: %w", jobID, err)
	}
	servedFS := s.opts.Shipped
	if _, err := os.Stat(dir.Current()); err == nil {
		servedFS = os.DirFS(dir.Current())
	}
	served, err := Served(servedFS)
	if err != nil {
		return nil, fmt.Errorf("retrain %s: %w", jobID, err)
	}
	cr, err := replay(ctx, s.feat, c, cand.Holdout, setOf(cand.Artifacts, s.feat))
	if err != nil {
		return nil, fmt.Errorf("retrain %s: candidate %w", jobID, err)
	}
	servedSet := setOf(served, s.feat)
	sr, err := replay(ctx, s.feat, c, cand.Holdout, servedSet)
	if err != nil {
		return nil, fmt.Errorf("retrain %s: served %w", jobID, err)
	}
	cr.Provenance, sr.Provenance = cand.Provenance, servedSet.provenance()
	promoted, reason := Decide(cr, sr)
	d := appliance.ModelDecision{JobID: jobID, DecidedAtUnix: now.Unix(), Trigger: trigger, Promoted: promoted, Reason: reason,
		NTrain: len(cand.Train), NHoldout: len(cand.Holdout), CandidateRMSEDB: *cr.RMSEDB, ServedRMSEDB: sr.RMSEDB,
		CandidateResidualRMSEDB: cr.ResidualDB, ServedResidualRMSEDB: sr.ResidualDB, DataProvenance: cand.Provenance}
	action := appliance.ActionModelKept
	if promoted {
		action, d.ModelDir = appliance.ActionModelPromoted, stagingPrefix+jobID
	}
	params := map[string]string{"job_id": jobID, "trigger": trigger, "n_train": strconv.Itoa(d.NTrain), "n_holdout": strconv.Itoa(d.NHoldout),
		"candidate_rmse_db": strconv.FormatFloat(d.CandidateRMSEDB, 'f', 3, 64), "data_provenance": d.DataProvenance, "reason": reason}
	if d.ServedRMSEDB != nil {
		params["served_rmse_db"] = strconv.FormatFloat(*d.ServedRMSEDB, 'f', 3, 64)
	}
	entry := appliance.ActorFrom(ctx).Entry(action, appliance.SystemTenantID, params)
	next := uint64(0)
	if seq, ok := seqOf(jobID); ok {
		next = seq + 1
	}
	fresh, rec, err := s.store.PutModelDecision(&d, grants, next, entry)
	if err != nil {
		return nil, fmt.Errorf("retrain %s: %w", jobID, err)
	}
	out.Decision, out.Repeated = *rec, !fresh
	if !rec.Promoted {
		if err := dir.RemoveStaging(jobID); err != nil {
			return nil, fmt.Errorf("retrain %s: %w", jobID, err)
		}
		return out, nil
	}
	if err := s.finishPromotion(ctx, rec); err != nil {
		return nil, err
	}
	return out, nil
}

// finishPromotion swaps a promoted decision's staging directory in (when
// it is still there and no later retrain was decided) and reloads.
func (s *Service) finishPromotion(ctx context.Context, d *appliance.ModelDecision) error {
	if !d.Promoted {
		return nil
	}
	dir := s.dir()
	if dir.CurrentJob() != d.JobID {
		st, err := s.store.RetrainState()
		if err != nil {
			return fmt.Errorf("promote %s: %w", d.JobID, err)
		}
		if _, err := os.Stat(dir.Staging(d.JobID)); st.LastJobID != d.JobID || err != nil {
			return nil // superseded, or swapped and replaced since
		}
		if err := dir.Swap(d.JobID); err != nil {
			return fmt.Errorf("promote %s: %w", d.JobID, err)
		}
		s.log.Info("models promoted", "job_id", d.JobID, "reason", d.Reason)
	}
	if s.opts.Reload != nil {
		if err := s.opts.Reload(ctx); err != nil {
			return fmt.Errorf("promote %s: reload the served models: %w", d.JobID, err)
		}
	}
	return nil
}

// Handler returns the job handler of appliance.JobKindModelRetrain.
func (s *Service) Handler() appliance.JobHandler { return handler{s} }

type handler struct{ s *Service }

// Run retrains (Retrain with the job's id) and writes the decision as the
// job's JSON result. A consent refusal or a corpus too small fails the job
// for good (appliance.ErrInvalid); a re-leased job returns the decision an
// earlier run recorded.
func (h handler) Run(ctx context.Context, run appliance.JobRun) (appliance.JobResult, error) {
	var p payload
	if len(run.Job().Payload) > 0 {
		if err := json.Unmarshal(run.Job().Payload, &p); err != nil {
			return appliance.JobResult{}, fmt.Errorf("retrain payload: %v: %w", err, appliance.ErrInvalid)
		}
	}
	out, err := h.s.Retrain(ctx, run.Job().ID, p.Trigger)
	if err != nil {
		return appliance.JobResult{}, err
	}
	sum, err := json.Marshal(out.Decision)
	if err != nil {
		return appliance.JobResult{}, err
	}
	if err := run.Checkpoint(ctx, appliance.JobProgress{Done: 1}, nil); err != nil {
		return appliance.JobResult{}, err
	}
	res, err := run.WriteResult(".json", func(w io.Writer) error { _, err := w.Write(sum); return err })
	if err != nil {
		return appliance.JobResult{}, err
	}
	res.Summary = sum
	return res, nil
}
