package jsq

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"linkplan/appliance"
)

// inputsKey is the key of the announced inputs in the inputs bucket.
const inputsKey = "current"

// Worker states, as WorkerStatus.State.
const (
	WorkerReady    = "ready"    // its inputs match the appliance's: it pulls units
	WorkerRefusing = "refusing" // its inputs differ (Reason says how): it pulls nothing
	WorkerStarting = "starting" // no announcement read yet
)

// WorkerStatus is what a worker says of itself in the workers bucket,
// every StatusInterval; an entry not refreshed for 30 s expires.
type WorkerStatus struct {
	ID      string `json:"id"`
	Host    string `json:"host"`
	PID     int    `json:"pid"`
	Version string `json:"version"`
	Slots   int    `json:"slots"` // units computed at once
	State   string `json:"state"`
	// Reason says why a refusing worker refuses (its inputs against the
	// appliance's); "" otherwise.
	Reason string           `json:"reason,omitempty"`
	Inputs appliance.Inputs `json:"inputs"`
	Busy   int              `json:"busy"`   // units computing now
	Done   int64            `json:"done"`   // units computed since it started
	Failed int64            `json:"failed"` // units whose runner returned an error
	// Refused counts units handed back because the inputs they were
	// planned on differ from the worker's.
	Refused int64     `json:"refused"`
	Started time.Time `json:"started"`
	Updated time.Time `json:"updated"`
}

// StatusInterval is how often a worker writes its status.
const StatusInterval = 5 * time.Second

// WorkerOptions configure RunWorker.
type WorkerOptions struct {
	ID      string // unique among the workers; the status key
	Version string // the binary's version, shown in the status
	Slots   int    // units computed at once; <= 0 is 1
	// Inputs returns this worker's own input digests (its terrain,
	// towers, engines), checked against the appliance's announcement and
	// against each unit.
	Inputs func() appliance.Inputs
	// Run computes a unit (under recover: a panic is an error).
	Run func(ctx context.Context, u *appliance.WorkUnit) ([]byte, error)
	Log *slog.Logger
	// Grace is how long a stopping worker lets its units finish; 0 is
	// 30 s. Units still computing then are delivered again elsewhere.
	Grace time.Duration
}

// RunWorker pulls units from the server of nc and computes them until ctx
// ends (package doc, "Units"). It refuses work while its inputs differ
// from the appliance's announcement, saying why in its status.
func RunWorker(ctx context.Context, nc *nats.Conn, cfg Config, o WorkerOptions) error {
	cfg = cfg.withDefaults()
	if o.ID == "" || o.Run == nil || o.Inputs == nil {
		return fmt.Errorf("worker: id, runner and inputs are required: %w", appliance.ErrInvalid)
	}
	if o.Slots <= 0 {
		o.Slots = 1
	}
	if o.Grace <= 0 {
		o.Grace = 30 * time.Second
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	w := &worker{nc: nc, js: js, cfg: cfg, o: o}
	host, _ := os.Hostname()
	w.status = WorkerStatus{ID: o.ID, Host: host, PID: os.Getpid(), Version: o.Version, Slots: o.Slots, State: WorkerStarting,
		Inputs: o.Inputs(), Started: time.Now().UTC()}
	// The stream and its consumer exist once the appliance set them up;
	// a worker started first waits for it.
	for {
		if w.cons, err = js.Consumer(ctx, cfg.unitsStream(), UnitConsumer); err == nil {
			break
		}
		o.Log.Info("worker: waiting for the appliance's unit stream", "err", err)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(2 * time.Second):
		}
	}
	// Heartbeats follow the ack wait the appliance configured.
	if info := w.cons.CachedInfo(); info != nil && info.Config.AckWait > 0 {
		w.cfg.UnitAckWait = info.Config.AckWait
	}
	kvIn, err := js.KeyValue(ctx, cfg.inputsBucket())
	if err != nil {
		return fmt.Errorf("worker: inputs bucket: %w", err)
	}
	kvW, err := js.KeyValue(ctx, cfg.workersBucket())
	if err != nil {
		return fmt.Errorf("worker: workers bucket: %w", err)
	}
	w.kvW = kvW
	watch, err := kvIn.Watch(ctx, inputsKey)
	if err != nil {
		return fmt.Errorf("worker: watch inputs: %w", err)
	}
	defer func() { _ = watch.Stop() }()
	w.publishStatus()
	work, stop := context.WithCancel(context.Background()) // the units' context: outlives ctx by Grace
	defer stop()
	var wg sync.WaitGroup
	for range o.Slots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.slot(ctx, work)
		}()
	}
	tick := time.NewTicker(StatusInterval)
	defer tick.Stop()
	// A change of the busy count is told within half a second.
	fast := time.NewTicker(500 * time.Millisecond)
	defer fast.Stop()
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case e, ok := <-watch.Updates():
			if !ok {
				break loop
			}
			if e == nil {
				continue // the initial values are in
			}
			w.announced(e.Value())
		case <-tick.C:
			w.publishStatus()
		case <-fast.C:
			if w.dirty.Swap(false) {
				w.publishStatus()
			}
		}
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(o.Grace):
		o.Log.Warn("worker: units still computing at the end of the grace period; they go to other workers")
		stop()
		<-done
	}
	_ = kvW.Delete(context.Background(), statusKey(o.ID))
	return nil
}

type worker struct {
	nc   *nats.Conn
	js   jetstream.JetStream
	cfg  Config
	o    WorkerOptions
	cons jetstream.Consumer
	kvW  jetstream.KeyValue

	mu      sync.Mutex
	status  WorkerStatus
	want    appliance.Inputs // the appliance's announcement; nil until read
	refuse  string           // why the worker refuses, "" when it works
	busy    atomic.Int64
	dirty   atomic.Bool // busy changed since the last status
	done    atomic.Int64
	failed  atomic.Int64
	refused atomic.Int64
}

// announced reads the appliance's input digests and decides whether this
// worker may work.
func (w *worker) announced(raw []byte) {
	var in appliance.Inputs
	reason := ""
	if err := json.Unmarshal(raw, &in); err != nil {
		reason = "the appliance's input announcement is unreadable: " + err.Error()
	} else {
		reason = in.Mismatch(w.o.Inputs())
	}
	w.mu.Lock()
	changed := reason != w.refuse || w.want == nil
	w.want, w.refuse = in, reason
	w.mu.Unlock()
	if changed {
		if reason != "" {
			w.o.Log.Warn("worker: refusing work", "reason", reason)
		} else {
			w.o.Log.Info("worker: inputs match the appliance's; taking work")
		}
		w.publishStatus()
	}
}

// ready reports whether the worker may pull units.
func (w *worker) ready() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.want != nil && w.refuse == ""
}

func (w *worker) publishStatus() {
	w.mu.Lock()
	st := w.status
	switch {
	case w.want == nil:
		st.State = WorkerStarting
	case w.refuse != "":
		st.State, st.Reason = WorkerRefusing, w.refuse
	default:
		st.State = WorkerReady
	}
	w.mu.Unlock()
	st.Inputs = w.o.Inputs()
	st.Busy, st.Done, st.Failed, st.Refused = int(w.busy.Load()), w.done.Load(), w.failed.Load(), w.refused.Load()
	st.Updated = time.Now().UTC()
	raw, _ := json.Marshal(st)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, err := w.kvW.Put(ctx, statusKey(w.o.ID), raw); err != nil {
		w.o.Log.Debug("worker: status not written", "err", err)
	}
}

// slot pulls and computes units one at a time until ctx ends.
func (w *worker) slot(ctx, work context.Context) {
	for ctx.Err() == nil {
		if !w.ready() {
			select {
			case <-ctx.Done():
				return
			case <-time.After(500 * time.Millisecond):
			}
			continue
		}
		b, err := w.cons.Fetch(1, jetstream.FetchMaxWait(2*time.Second))
		if err != nil {
			if ctx.Err() == nil && !isTimeout(err) {
				w.o.Log.Debug("worker: fetch", "err", err)
				time.Sleep(500 * time.Millisecond)
			}
			continue
		}
		for m := range b.Messages() {
			w.handle(work, m)
		}
	}
}

// handle computes one unit message and publishes its result, then
// acknowledges the unit (at least once: a worker dying between the two
// leaves a result the appliance drops as a duplicate).
func (w *worker) handle(ctx context.Context, m jetstream.Msg) {
	u, err := decodeUnit(m.Headers(), m.Data())
	if err != nil {
		w.o.Log.Error("worker: malformed unit dropped", "err", err)
		_ = m.TermWithReason("malformed unit")
		return
	}
	if reason := u.Inputs.Mismatch(w.o.Inputs()); reason != "" {
		// Planned on other inputs (the announcement changed under us):
		// back to the queue for a worker that has them.
		w.refused.Add(1)
		_ = m.NakWithDelay(time.Second)
		return
	}
	w.busy.Add(1)
	w.dirty.Store(true)
	defer func() { w.busy.Add(-1); w.dirty.Store(true) }()
	hb, stopHB := context.WithCancel(ctx)
	go func() {
		t := time.NewTicker(w.cfg.UnitAckWait / 3)
		defer t.Stop()
		for {
			select {
			case <-hb.Done():
				return
			case <-t.C:
				_ = m.InProgress()
			}
		}
	}()
	uctx := ctx
	if !u.Deadline.IsZero() {
		var cancel context.CancelFunc
		uctx, cancel = context.WithDeadline(ctx, u.Deadline)
		defer cancel()
	}
	start := time.Now()
	body, runErr := w.o.Run(uctx, u)
	compute := time.Since(start)
	if runErr != nil && ctx.Err() != nil {
		stopHB()
		return // stopping: the unit goes to another worker after its ack wait
	}
	if runErr == nil && u.MaxResultBytes > 0 && len(body) > u.MaxResultBytes {
		runErr = fmt.Errorf("result of %d bytes exceeds the unit's limit of %d: %w", len(body), u.MaxResultBytes, appliance.ErrInvalid)
	}
	if runErr == nil && len(body) > MaxMessageBytes-4096 {
		runErr = fmt.Errorf("result of %d bytes exceeds the transport's %d: %w", len(body), MaxMessageBytes, appliance.ErrInvalid)
	}
	if runErr != nil {
		w.failed.Add(1)
	}
	rm := resultMsg(w.cfg.resultSubject(u.JobID), u, w.o.ID, body, runErr, compute)
	for wait := 100 * time.Millisecond; ; wait = min(2*wait, 5*time.Second) {
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, err := w.js.PublishMsg(pctx, rm)
		cancel()
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			stopHB()
			return
		}
		w.o.Log.Warn("worker: result not published; retrying", "unit", u.Key(), "err", err)
		time.Sleep(wait)
	}
	stopHB()
	actx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	if err := m.DoubleAck(actx); err != nil && !errors.Is(err, nats.ErrConnectionClosed) {
		w.o.Log.Warn("worker: unit not acknowledged; it may be computed again (merged once)", "unit", u.Key(), "err", err)
	}
	cancel()
	w.done.Add(1)
}

// statusKey is a worker id as a key of the workers bucket: the characters
// a key may not hold become '_'.
func statusKey(id string) string {
	b := []byte(id)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '=') {
			b[i] = '_'
		}
	}
	return string(b)
}

// Announce publishes the appliance's input digests: workers whose own
// differ refuse work.
func Announce(ctx context.Context, nc *nats.Conn, cfg Config, in appliance.Inputs) error {
	cfg = cfg.withDefaults()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	kv, err := js.KeyValue(ctx, cfg.inputsBucket())
	if err != nil {
		return fmt.Errorf("announce inputs: %w", err)
	}
	raw, _ := json.Marshal(in)
	if _, err := kv.Put(ctx, inputsKey, raw); err != nil {
		return fmt.Errorf("announce inputs: %w", err)
	}
	return nil
}

// Workers lists the workers whose status is fresh (written within 30 s),
// by id.
func Workers(ctx context.Context, nc *nats.Conn, cfg Config) ([]WorkerStatus, error) {
	cfg = cfg.withDefaults()
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	kv, err := js.KeyValue(ctx, cfg.workersBucket())
	if err != nil {
		return nil, fmt.Errorf("workers: %w", err)
	}
	keys, err := kv.Keys(ctx)
	if errors.Is(err, jetstream.ErrNoKeysFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("workers: %w", err)
	}
	var out []WorkerStatus
	for _, k := range keys {
		e, err := kv.Get(ctx, k)
		if err != nil {
			continue
		}
		var st WorkerStatus
		if json.Unmarshal(e.Value(), &st) == nil {
			out = append(out, st)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}
