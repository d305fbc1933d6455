package coverage

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"linkplan/appliance"
	"linkplan/appliance/admission"
)

// gateEngine is the real fspl engine behind a gate: its Predict waits until
// the gate opens (or the computation is canceled), so that a test can hold
// a map in the computing state. It changes no figure.
type gateEngine struct {
	appliance.Engine
	gate chan struct{}
}

func (e *gateEngine) Predict(ctx context.Context, in appliance.LinkInput) (appliance.LinkPrediction, error) {
	select {
	case <-e.gate:
	case <-ctx.Done():
		return appliance.LinkPrediction{}, ctx.Err()
	}
	return e.Engine.Predict(ctx, in)
}

// panicEngine panics in Predict: the fault a map must survive (a forced
// panic in a worker goroutine, not a model of any real engine).
type panicEngine struct{ appliance.Engine }

func (panicEngine) Predict(context.Context, appliance.LinkInput) (appliance.LinkPrediction, error) {
	panic("forced panic in a coverage worker")
}

// testEngines serves the real registry plus "gate" and "panic" (workers)
// and "lookup-panic" (a panic on the computation's own goroutine, where the
// engine is looked up).
func testEngines(t testing.TB, gate chan struct{}) EngineLookup {
	reg := registry(t)
	return func(id appliance.EngineID) (appliance.Engine, error) {
		fspl, err := reg.Get(appliance.EngineFSPL)
		if err != nil {
			return nil, err
		}
		switch id {
		case "gate":
			return &gateEngine{Engine: fspl, gate: gate}, nil
		case "panic":
			return panicEngine{fspl}, nil
		case "lookup-panic":
			panic("forced panic on the map's goroutine")
		}
		return reg.Get(id)
	}
}

// syncLog is a log buffer safe for concurrent writers.
type syncLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func newAdmittedMaps(t *testing.T, gate chan struct{}, sched *admission.Scheduler, o MapsOptions) (*Maps, *syncLog) {
	t.Helper()
	lg := &syncLog{}
	var n atomic.Int64
	o.Admitter = sched
	o.Log = slog.New(slog.NewTextHandler(lg, nil))
	o.NewID = func() (string, error) { return "map" + string(rune('A'+n.Add(1)-1)), nil }
	m := NewMaps(New(rioTerrain(t), testEngines(t, gate)), o)
	if err := m.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m, lg
}

func small(engine appliance.EngineID) Request {
	r := tijuca()
	r.RadiusM, r.ResolutionM, r.Engine = 1500, 90, engine
	return r
}

// settled returns the scheduler's stats once nothing runs (a map returns
// its grant just after its stream ends), or after 5 s.
func settled(s *admission.Scheduler) admission.Stats {
	for deadline := time.Now().Add(5 * time.Second); s.Stats().Running > 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	return s.Stats()
}

// waitState waits until mp is in state st.
func waitState(t *testing.T, mp *Map, st MapState) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); mp.State() != st; {
		if time.Now().After(deadline) {
			t.Fatalf("map %s is %s, want %s", mp.ID, mp.State(), st)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestIssue20_HeavyMapsQueueAndRefuse: over the budget a map waits with a
// visible queue position (a queued event, Map.QueuePosition) and computes
// once the work ahead finishes; past the wait queue's bound it is refused
// with 503 + Retry-After (appliance.RetryAfterError, ErrUnavailable); a
// map larger than the whole budget is refused naming resolution_m.
func TestIssue20_HeavyMapsQueueAndRefuse(t *testing.T) {
	gate := make(chan struct{})
	sched := admission.New(admission.Options{Workers: 1, MemBytes: 256 << 20, MaxQueue: 1, MaxQueuePerTenant: 1})
	m, _ := newAdmittedMaps(t, gate, sched, MapsOptions{})
	a, err := m.StartFor(Owner{TenantID: "t1", Tier: appliance.TierPro}, []Request{small("gate")}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Attach()()
	b, err := m.StartFor(Owner{TenantID: "t2", Tier: appliance.TierPro}, []Request{small(appliance.EngineFSPL)}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Attach()()
	if a.State() != MapComputing || b.State() != MapQueued {
		t.Fatalf("states %s, %s: want computing, queued", a.State(), b.State())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var queued *EventQueuedData
	for after := 0; queued == nil; {
		evs, _, err := b.Next(ctx, after, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			after = e.Seq
			if e.Type == EventQueued {
				d := e.Data.(EventQueuedData)
				queued = &d
			}
		}
	}
	if queued.Position != 1 || b.QueuePosition() != 1 || !strings.Contains(queued.Message, "position 1") {
		t.Errorf("queued event %+v, QueuePosition %d: want position 1", queued, b.QueuePosition())
	}
	_, err = m.StartFor(Owner{TenantID: "t3", Tier: appliance.TierUltra}, []Request{small(appliance.EngineFSPL)}, false)
	var ra *appliance.RetryAfterError
	if !errors.As(err, &ra) || !errors.Is(err, appliance.ErrUnavailable) || ra.After <= 0 {
		t.Fatalf("third map with a full queue: %v", err)
	}
	huge := tijuca()
	huge.RadiusM, huge.ResolutionM = 60000, 30 // about 13 million pixels: over a 256 MiB budget
	_, err = m.StartFor(Owner{TenantID: "t4"}, []Request{huge}, false)
	var ve *appliance.ValidationError
	if !errors.As(err, &ve) || ve.Fields[0].Field != "resolution_m" || !strings.Contains(err.Error(), "heavy-work budget") {
		t.Fatalf("map over the whole budget: %v", err)
	}
	close(gate)
	for _, mp := range []*Map{a, b} {
		evs := drain(t, mp, 0)
		if mp.State() != MapDone || evs[len(evs)-1].Type != EventSummary {
			t.Errorf("map %s ended %s", mp.ID, mp.State())
		}
	}
	if st := settled(sched); st.Running != 0 || st.Waiting != 0 || st.BusyWorkers != 0 || st.ReservedMemBytes != 0 {
		t.Errorf("budget not returned: %+v", st)
	}
}

// TestIssue20_QueuedMapCanceledWhenStreamLeaves: a queued map whose last
// stream leaves is canceled and leaves the queue.
func TestIssue20_QueuedMapCanceledWhenStreamLeaves(t *testing.T) {
	gate := make(chan struct{})
	defer close(gate)
	sched := admission.New(admission.Options{Workers: 1})
	m, _ := newAdmittedMaps(t, gate, sched, MapsOptions{})
	a, err := m.StartFor(Owner{TenantID: "t1"}, []Request{small("gate")}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Attach()()
	b, err := m.StartFor(Owner{TenantID: "t2"}, []Request{small(appliance.EngineFSPL)}, false)
	if err != nil {
		t.Fatal(err)
	}
	b.Attach()()
	waitState(t, b, MapCanceled)
	if sched.Position(b.ID) != 0 || sched.Stats().Waiting != 0 {
		t.Errorf("canceled map still queued: %+v", sched.Stats())
	}
}

// TestIssue20_PanicInMapFailsOnlyThatMap: a panic in a worker goroutine or
// on the map's own goroutine fails that map (error code failed), is logged
// once at ERROR with the map and request ids and the stack, is counted in
// linkplan_recovered_panics_total{component="coverage"}, returns the
// budget, and the next map computes.
func TestIssue20_PanicInMapFailsOnlyThatMap(t *testing.T) {
	set := metrics.NewSet()
	sched := admission.New(admission.Options{Workers: 2})
	m, lg := newAdmittedMaps(t, nil, sched, MapsOptions{Metrics: set})
	for i, engine := range []appliance.EngineID{"panic", "lookup-panic"} {
		t.Run(string(engine), func(t *testing.T) {
			mp, err := m.StartFor(Owner{TenantID: "t1", RequestID: "req-" + string(engine)}, []Request{small(engine)}, false)
			if err != nil {
				t.Fatal(err)
			}
			detach := mp.Attach()
			evs := drain(t, mp, 0)
			detach()
			last := evs[len(evs)-1]
			if mp.State() != MapFailed || last.Type != EventError || last.Data.(EventErrorData).Code != "failed" {
				t.Fatalf("state %s, last event %+v", mp.State(), last)
			}
			if n := strings.Count(lg.String(), "map_id="+mp.ID); n != 1 {
				t.Errorf("%d log lines name the map, want 1:\n%s", n, lg.String())
			}
			for _, want := range []string{"level=ERROR", "request_id=req-" + string(engine), "forced panic", "goroutine "} {
				if !strings.Contains(lg.String(), want) {
					t.Errorf("log lacks %q:\n%s", want, lg.String())
				}
			}
			if got := set.GetOrCreateCounter(MetricRecoveredPanics).Get(); got != uint64(i+1) {
				t.Errorf("recovered panics %d, want %d", got, i+1)
			}
		})
	}
	if st := settled(sched); st.Running != 0 || st.BusyWorkers != 0 {
		t.Errorf("budget not returned after panics: %+v", st)
	}
	ok, err := m.StartFor(Owner{TenantID: "t1"}, []Request{small(appliance.EngineFSPL)}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer ok.Attach()()
	drain(t, ok, 0)
	if ok.State() != MapDone {
		t.Errorf("a map after the panics ended %s", ok.State())
	}
}

// eventJSON renders events as a stream does.
func eventJSON(t *testing.T, evs []Event) []string {
	t.Helper()
	out := make([]string, len(evs))
	for i, e := range evs {
		b, err := json.Marshal(e.Data)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = e.Type + " " + string(b)
	}
	return out
}

// TestIssue20_MapsSurviveRestart: with a Dir, finished maps come back after
// a restart byte for byte (stream, raster, best-server index) within their
// retention and are removed after it; a map queued or computing when the
// appliance stopped (gracefully, or killed) answers "interrupted by a
// restart", not unknown.
func TestIssue20_MapsSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	gate := make(chan struct{})
	sched := admission.New(admission.Options{Workers: 1})
	m1, _ := newAdmittedMaps(t, gate, sched, MapsOptions{Dir: dir, Now: clock})
	one, err := m1.StartFor(Owner{TenantID: "t1"}, []Request{small(appliance.EngineFSPL)}, false)
	if err != nil {
		t.Fatal(err)
	}
	d := one.Attach()
	before := eventJSON(t, drain(t, one, 0))
	d()
	a, b := small(appliance.EngineFSPL), small(appliance.EngineFSPL)
	b.Tx.Lat += 0.01
	b.AzimuthDeg = math.NaN()
	best, err := m1.StartFor(Owner{TenantID: "t1"}, []Request{a, b}, true)
	if err != nil {
		t.Fatal(err)
	}
	d = best.Attach()
	beforeBest := eventJSON(t, drain(t, best, 0))
	d()
	r1, _, _, err := one.Result()
	if err != nil {
		t.Fatal(err)
	}
	_, srv1, _, err := best.Result()
	if err != nil {
		t.Fatal(err)
	}
	// A computing map (behind the gate) and a queued one at a graceful stop.
	computing, err := m1.StartFor(Owner{TenantID: "t2"}, []Request{small("gate")}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer computing.Attach()()
	queued, err := m1.StartFor(Owner{TenantID: "t3"}, []Request{small(appliance.EngineFSPL)}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer queued.Attach()()
	waitState(t, queued, MapQueued)
	// A "killed" appliance: a second registry opens the directory while
	// the first still computes (its records say computing and queued).
	killed, _ := newAdmittedMaps(t, gate, admission.New(admission.Options{}), MapsOptions{Dir: dir, Now: clock})
	for _, id := range []string{computing.ID, queued.ID} {
		mp, err := killed.Get(map[string]string{computing.ID: "t2", queued.ID: "t3"}[id], id)
		if err != nil {
			t.Fatalf("map %s after a kill: %v", id, err)
		}
		evs := drain(t, mp, 0)
		if last := evs[len(evs)-1].Data.(EventErrorData); mp.State() != MapFailed || last.Code != "interrupted" || !strings.Contains(last.Message, "interrupted by a restart") {
			t.Errorf("map %s after a kill: %s %+v", id, mp.State(), last)
		}
	}
	m1.Close() // the graceful stop
	for _, mp := range []*Map{computing, queued} {
		if evs := drain(t, mp, 0); mp.State() != MapFailed || evs[len(evs)-1].Data.(EventErrorData).Code != "interrupted" {
			t.Errorf("map %s at the stop: %s", mp.ID, mp.State())
		}
	}
	close(gate)

	now = now.Add(30 * time.Minute)
	m2, _ := newAdmittedMaps(t, nil, admission.New(admission.Options{}), MapsOptions{Dir: dir, Now: clock})
	got, err := m2.Get("t1", one.ID)
	if err != nil {
		t.Fatal(err)
	}
	if after := eventJSON(t, drain(t, got, 0)); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Errorf("stream after the restart differs:\n%d events\n%d before", len(after), len(before))
	}
	if resumed := eventJSON(t, drain(t, got, 3)); strings.Join(resumed, "\n") != strings.Join(before[3:], "\n") {
		t.Error("stream resumed after event 3 differs")
	}
	r2, _, sum, err := got.Result()
	if err != nil || sum.ValidPixels == 0 {
		t.Fatal(err)
	}
	for i := range r1.DBm {
		if math.Float32bits(r1.DBm[i]) != math.Float32bits(r2.DBm[i]) {
			t.Fatalf("pixel %d: %v before, %v after the restart", i, r1.DBm[i], r2.DBm[i])
		}
	}
	gotBest, err := m2.Get("t1", best.ID)
	if err != nil {
		t.Fatal(err)
	}
	if after := eventJSON(t, drain(t, gotBest, 0)); strings.Join(after, "\n") != strings.Join(beforeBest, "\n") {
		t.Error("best-server stream after the restart differs")
	}
	_, srv2, _, err := gotBest.Result()
	if err != nil || len(srv2) != len(srv1) {
		t.Fatalf("best-server index after the restart: %v", err)
	}
	for i := range srv1 {
		if srv1[i] != srv2[i] {
			t.Fatalf("server of pixel %d: %d before, %d after", i, srv1[i], srv2[i])
		}
	}
	if gotBest.Requests[1].AzimuthDeg == gotBest.Requests[1].AzimuthDeg {
		t.Error("an omni transmitter's NaN azimuth did not come back")
	}
	for id, tenant := range map[string]string{computing.ID: "t2", queued.ID: "t3"} {
		mp, err := m2.Get(tenant, id)
		if err != nil || mp.State() != MapFailed {
			t.Errorf("interrupted map %s after the restart: %v", id, err)
		}
	}
	if _, err := m2.Get("t2", one.ID); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("another tenant's map after the restart: %v", err)
	}
	now = now.Add(2 * time.Hour) // past the retention
	m3, _ := newAdmittedMaps(t, nil, admission.New(admission.Options{}), MapsOptions{Dir: dir, Now: clock})
	if _, err := m3.Get("t1", one.ID); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("map past its retention: %v", err)
	}
}
