package jsq

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"linkplan/appliance"
)

// DefaultWindow is how many units of one run are out (published, not yet
// merged) at once: enough to keep a few workers of several cores busy,
// few enough that two runs share the workers (a unit of each goes in
// turn as results come back).
const DefaultWindow = 32

// Executor is the appliance's appliance.UnitExecutor over JetStream
// (package doc, "Units"): it publishes the units of a run, merges each
// result once, and fails the run on a unit's error or quarantine.
type Executor struct {
	js      jetstream.JetStream
	nc      *nats.Conn
	cfg     Config
	log     *slog.Logger
	units   jetstream.Stream
	results jetstream.ConsumeContext
	adv     *nats.Subscription
	window  int

	mu    sync.Mutex
	runs  map[string]*execRun // by job/run
	bySeq map[uint64]unitRef  // unit messages out, by stream sequence

	stats ExecutorStats
}

// ExecutorStats are the executor's counts since it started.
type ExecutorStats struct {
	Published  atomic.Int64 // units published
	Merged     atomic.Int64 // results merged (once per unit)
	Duplicates atomic.Int64 // results of a unit already merged, dropped
	Stale      atomic.Int64 // results of a run no longer waiting, dropped
	Failed     atomic.Int64 // units that failed their run (their error or a quarantine)
	// ComputeUS adds up the runners' own time of the merged units, µs;
	// RoundTripUS the time from a unit's publication to its merge.
	ComputeUS, RoundTripUS atomic.Int64
	// UnitBytes adds up the published units' messages (body and
	// headers), ResultBytes the merged results' bodies, bytes.
	UnitBytes, ResultBytes atomic.Int64
}

type unitRef struct {
	run   string
	index int
}

// execRun is one Execute call: its results arrive on ch.
type execRun struct {
	ch chan delivery
}

// delivery is a result, or a quarantine, for a run.
type delivery struct {
	r   *result
	msg jetstream.Msg // acknowledged once handled; nil for a quarantine
}

// NewExecutor starts the executor on nc (Setup must have run): it purges
// the units and results a previous process left (their runs died with
// it), then consumes results and max-delivery advisories. window <= 0 is
// DefaultWindow; log nil discards.
func NewExecutor(ctx context.Context, nc *nats.Conn, cfg Config, window int, log *slog.Logger) (*Executor, error) {
	cfg = cfg.withDefaults()
	if window <= 0 {
		window = DefaultWindow
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("unit executor: %w", err)
	}
	e := &Executor{js: js, nc: nc, cfg: cfg, log: log, window: window, runs: map[string]*execRun{}, bySeq: map[uint64]unitRef{}}
	if e.units, err = js.Stream(ctx, cfg.unitsStream()); err != nil {
		return nil, fmt.Errorf("unit executor: %w", err)
	}
	// Single appliance per prefix: nothing waits for what is there.
	if err := e.units.Purge(ctx); err != nil {
		return nil, fmt.Errorf("unit executor: purge units: %w", err)
	}
	rs, err := js.Stream(ctx, cfg.resultsStream())
	if err != nil {
		return nil, fmt.Errorf("unit executor: %w", err)
	}
	if err := rs.Purge(ctx); err != nil {
		return nil, fmt.Errorf("unit executor: purge results: %w", err)
	}
	e.adv, err = nc.Subscribe(JSAdvisoryMaxDeliveries(cfg), e.maxDeliveries)
	if err != nil {
		return nil, fmt.Errorf("unit executor: advisories: %w", err)
	}
	cons, err := js.Consumer(ctx, cfg.resultsStream(), ResultConsumer)
	if err != nil {
		_ = e.adv.Unsubscribe()
		return nil, fmt.Errorf("unit executor: %w", err)
	}
	e.results, err = cons.Consume(e.onResult, jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
		if !errors.Is(err, nats.ErrConnectionClosed) {
			log.Debug("units: results consumer", "err", err)
		}
	}))
	if err != nil {
		_ = e.adv.Unsubscribe()
		return nil, fmt.Errorf("unit executor: consume results: %w", err)
	}
	return e, nil
}

// JSAdvisoryMaxDeliveries is the subject of the server's advisory for a
// unit delivered MaxDeliver times without an acknowledgement.
func JSAdvisoryMaxDeliveries(c Config) string {
	c = c.withDefaults()
	return "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES." + c.unitsStream() + "." + UnitConsumer
}

// Close stops consuming.
func (e *Executor) Close() {
	e.results.Stop()
	_ = e.adv.Unsubscribe()
}

// Stats returns the executor's counts.
func (e *Executor) Stats() *ExecutorStats { return &e.stats }

// onResult routes a result message to its run.
func (e *Executor) onResult(m jetstream.Msg) {
	r, err := decodeResult(m.Headers(), m.Data())
	if err != nil {
		e.log.Warn("units: malformed result dropped", "err", err)
		_ = m.Term()
		return
	}
	e.mu.Lock()
	run := e.runs[r.job+"/"+r.run]
	e.mu.Unlock()
	if run == nil {
		e.stats.Stale.Add(1)
		_ = m.Ack()
		return
	}
	select {
	case run.ch <- delivery{r: r, msg: m}:
	default:
		_ = m.NakWithDelay(100 * time.Millisecond) // the run is behind: later
	}
}

// maxDeliveries turns the server's advisory into a quarantine of the
// unit: its workers died (or went silent) MaxDeliver times with it.
func (e *Executor) maxDeliveries(m *nats.Msg) {
	var adv struct {
		StreamSeq  uint64 `json:"stream_seq"`
		Deliveries uint64 `json:"deliveries"`
	}
	if json.Unmarshal(m.Data, &adv) != nil {
		return
	}
	e.mu.Lock()
	ref, ok := e.bySeq[adv.StreamSeq]
	run := e.runs[ref.run]
	e.mu.Unlock()
	// It will never be delivered again; out of the work queue with it.
	_ = e.units.DeleteMsg(context.Background(), adv.StreamSeq)
	if !ok || run == nil {
		return
	}
	e.log.Error("units: quarantined: the unit stopped its workers at every delivery", "unit", ref.run+"/"+strconv.Itoa(ref.index), "deliveries", adv.Deliveries)
	job, r, _ := cutRun(ref.run)
	q := &result{job: job, run: r, index: ref.index, err: &appliance.UnitError{
		Msg: fmt.Sprintf("unit %d %s (delivered %d times)", ref.index, appliance.ErrUnitQuarantined.Error(), adv.Deliveries), Kind: appliance.ErrUnitQuarantined}}
	select {
	case run.ch <- delivery{r: q}:
	case <-time.After(time.Second):
	}
}

// cutRun splits a run key "job/run".
func cutRun(key string) (job, run string, ok bool) {
	for i := 0; i < len(key); i++ {
		if key[i] == '/' {
			return key[:i], key[i+1:], true
		}
	}
	return key, "", false
}

// publish publishes unit u, retrying while the server is away, and
// records its stream sequence.
func (e *Executor) publish(ctx context.Context, runKey string, u *appliance.WorkUnit) (uint64, error) {
	m, err := unitMsg(e.cfg.unitSubject(u.Kind), u)
	if err != nil {
		return 0, err
	}
	wait := 100 * time.Millisecond
	for {
		ack, err := e.js.PublishMsg(ctx, m)
		if err == nil {
			e.mu.Lock()
			e.bySeq[ack.Sequence] = unitRef{run: runKey, index: u.Index}
			e.mu.Unlock()
			e.stats.Published.Add(1)
			e.stats.UnitBytes.Add(int64(len(m.Data) + msgHeaderBytes(m)))
			return ack.Sequence, nil
		}
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		e.log.Warn("units: publish failed; retrying", "unit", u.Key(), "err", err)
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 5*time.Second)
	}
}

// Execute publishes the units (at most the window out at once) and
// merges each result once (appliance.UnitExecutor). On an error, and
// when ctx ends, the units still waiting are deleted from the stream.
func (e *Executor) Execute(ctx context.Context, units []appliance.WorkUnit, merge func(i int, result []byte) error) error {
	if len(units) == 0 {
		return nil
	}
	runKey := units[0].JobID + "/" + units[0].Run
	for i := range units {
		if units[i].JobID+"/"+units[i].Run != runKey || units[i].Index != i {
			return fmt.Errorf("unit executor: unit %d is %s/%s #%d: one run, indexes in order: %w", i, units[i].JobID, units[i].Run, units[i].Index, appliance.ErrInvalid)
		}
	}
	run := &execRun{ch: make(chan delivery, 2*len(units)+16)}
	e.mu.Lock()
	if e.runs[runKey] != nil {
		e.mu.Unlock()
		return fmt.Errorf("unit executor: run %s is already executing: %w", runKey, appliance.ErrConflict)
	}
	e.runs[runKey] = run
	e.mu.Unlock()
	seqs := make([]uint64, len(units))
	sent := make([]time.Time, len(units))
	merged := make([]bool, len(units))
	defer func() {
		var drop []uint64
		e.mu.Lock()
		delete(e.runs, runKey)
		for i, s := range seqs {
			if s != 0 {
				delete(e.bySeq, s)
				if !merged[i] {
					drop = append(drop, s)
				}
			}
		}
		e.mu.Unlock()
		// Not merged: a worker may hold it; out of the queue it cannot
		// be delivered again (its result, if any, is stale).
		for _, s := range drop {
			_ = e.units.DeleteMsg(context.Background(), s)
		}
	}()
	next := 0
	send := func() error {
		s, err := e.publish(ctx, runKey, &units[next])
		if err != nil {
			return err
		}
		seqs[next], sent[next] = s, time.Now()
		next++
		return nil
	}
	for next < len(units) && next < e.window {
		if err := send(); err != nil {
			return fmt.Errorf("unit executor: %w", err)
		}
	}
	left := len(units)
	for left > 0 {
		var d delivery
		select {
		case <-ctx.Done():
			return ctx.Err()
		case d = <-run.ch:
		}
		r := d.r
		if r.index < 0 || r.index >= len(units) {
			e.ack(d)
			continue
		}
		if merged[r.index] {
			e.stats.Duplicates.Add(1)
			e.ack(d)
			continue
		}
		if r.err != nil {
			e.stats.Failed.Add(1)
			e.ack(d)
			return fmt.Errorf("unit %d (worker %s): %w", r.index, r.worker, r.err)
		}
		if err := merge(r.index, r.body); err != nil {
			e.stats.Failed.Add(1)
			e.ack(d)
			return fmt.Errorf("merge unit %d (worker %s): %w", r.index, r.worker, err)
		}
		merged[r.index] = true
		e.stats.Merged.Add(1)
		e.stats.ComputeUS.Add(r.computeUS)
		e.stats.ResultBytes.Add(int64(len(r.body)))
		e.stats.RoundTripUS.Add(time.Since(sent[r.index]).Microseconds())
		e.ack(d)
		left--
		if next < len(units) {
			if err := send(); err != nil {
				return fmt.Errorf("unit executor: %w", err)
			}
		}
	}
	return nil
}

func (e *Executor) ack(d delivery) {
	if d.msg != nil {
		_ = d.msg.Ack()
	}
}
