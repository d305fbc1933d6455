package admission_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"linkplan/appliance"
	"linkplan/appliance/admission"
	"linkplan/appliance/telemetry"
)

const mib = 1 << 20

func work(id, tenant string, tier appliance.Tier, workers int, mem int64) appliance.HeavyWork {
	return appliance.HeavyWork{ID: id, TenantID: tenant, Tier: tier, Kind: "heatmap", Workers: workers, MemBytes: mem}
}

// admitted reports whether a's Wait returns (within 50 ms); a Wait that
// does not is left waiting (a Wait whose context ends withdraws the work).
func admitted(t *testing.T, a appliance.Admission) (appliance.Grant, bool) {
	t.Helper()
	got := make(chan appliance.Grant, 1)
	go func() {
		if g, err := a.Wait(context.Background(), nil); err == nil {
			got <- g
		}
	}()
	select {
	case g := <-got:
		return g, true
	case <-time.After(50 * time.Millisecond):
		return appliance.Grant{}, false
	}
}

func submit(t *testing.T, s *admission.Scheduler, w appliance.HeavyWork) appliance.Admission {
	t.Helper()
	a, err := s.Submit(w)
	if err != nil {
		t.Fatalf("submit %s: %v", w.ID, err)
	}
	return a
}

// positions returns the queue position of each id.
func positions(s *admission.Scheduler, ids ...string) []int {
	out := make([]int, len(ids))
	for i, id := range ids {
		out[i] = s.Position(id)
	}
	return out
}

func TestDefaults(t *testing.T) {
	s := admission.New(admission.Options{})
	w, m := s.Budget()
	if want := max(1, runtime.GOMAXPROCS(0)-1); w != want || m != admission.DefaultMemBytes {
		t.Errorf("budget %d workers %d bytes, want %d and %d", w, m, want, admission.DefaultMemBytes)
	}
}

// TestBudget: memory and worker slots bound what runs; the order is strict
// (small work does not overtake the head); a release admits the next.
func TestBudget(t *testing.T) {
	s := admission.New(admission.Options{Workers: 3, MemBytes: 100 * mib})
	big := submit(t, s, work("big", "t1", appliance.TierPro, 8, 70*mib))
	g, ok := admitted(t, big)
	if !ok || g.Workers != 2 || g.MemBytes != 70*mib {
		t.Fatalf("first work: admitted %v with %+v, want 2 workers (ceil(3/2)) and 70 MiB", ok, g)
	}
	mid := submit(t, s, work("mid", "t2", appliance.TierPro, 8, 40*mib))
	small := submit(t, s, work("small", "t3", appliance.TierPro, 1, 1*mib))
	if got := positions(s, "big", "mid", "small"); got[0] != 0 || got[1] != 1 || got[2] != 2 {
		t.Fatalf("positions %v, want [0 1 2]: mid waits for memory, small waits behind it", got)
	}
	if _, ok := admitted(t, small); ok {
		t.Fatal("small work overtook the head of the queue")
	}
	big.Release()
	big.Release() // idempotent
	gm, ok := admitted(t, mid)
	if !ok || gm.Workers != 2 {
		t.Fatalf("mid after the release: %v %+v", ok, gm)
	}
	gs, ok := admitted(t, small)
	if !ok || gs.Workers != 1 {
		t.Fatalf("small after the release: %v %+v (one slot left)", ok, gs)
	}
	st := s.Stats()
	if st.Running != 2 || st.BusyWorkers != 3 || st.ReservedMemBytes != 41*mib || st.Waiting != 0 {
		t.Errorf("stats %+v", st)
	}
	// No free slot: the next waits although its memory fits.
	next := submit(t, s, work("next", "t4", appliance.TierPro, 1, 1*mib))
	if _, ok := admitted(t, next); ok {
		t.Error("admitted without a free worker slot")
	}
	small.Release()
	if _, ok := admitted(t, next); !ok {
		t.Error("not admitted once a slot freed")
	}
}

// TestFairShare: a tenant flooding the queue gets every other turn against
// a tenant of the same tier, and the tier weights (Free 1, Enterprise 4)
// decide between tiers.
func TestFairShare(t *testing.T) {
	cases := []struct {
		name   string
		submit []appliance.HeavyWork // after one running piece that holds the only slot
		want   []string              // order of admission
	}{
		{"same tier round robin",
			[]appliance.HeavyWork{work("a1", "a", appliance.TierPro, 1, 0), work("a2", "a", appliance.TierPro, 1, 0),
				work("a3", "a", appliance.TierPro, 1, 0), work("b1", "b", appliance.TierPro, 1, 0), work("b2", "b", appliance.TierPro, 1, 0)},
			[]string{"a1", "b1", "a2", "b2", "a3"}},
		{"enterprise weight 4 against free 1",
			[]appliance.HeavyWork{work("f1", "f", appliance.TierFree, 1, 0), work("f2", "f", appliance.TierFree, 1, 0),
				work("e1", "e", appliance.TierEnterprise, 1, 0), work("e2", "e", appliance.TierEnterprise, 1, 0),
				work("e3", "e", appliance.TierEnterprise, 1, 0), work("e4", "e", appliance.TierEnterprise, 1, 0),
				work("e5", "e", appliance.TierEnterprise, 1, 0)},
			// tags: f 1, 2; e 0.25, 0.5, 0.75, 1, 1.25 (ties by submission)
			[]string{"e1", "e2", "e3", "f1", "e4", "e5", "f2"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := admission.New(admission.Options{Workers: 1, MemBytes: 10 * mib, MaxQueue: 16, MaxQueuePerTenant: 8})
			hold := submit(t, s, work("hold", "x", appliance.TierPro, 1, 0))
			if _, ok := admitted(t, hold); !ok {
				t.Fatal("hold not admitted")
			}
			adm := map[string]appliance.Admission{}
			for _, w := range c.submit {
				adm[w.ID] = submit(t, s, w)
			}
			for i, id := range c.want {
				if p := s.Position(id); p != 1 {
					t.Fatalf("turn %d: %s at position %d, want 1 (positions %v)", i, id, p, positions(s, c.want...))
				}
				hold.Release()
				if _, ok := admitted(t, adm[id]); !ok {
					t.Fatalf("turn %d: %s not admitted", i, id)
				}
				hold = adm[id]
			}
		})
	}
}

// TestRefusals: a full queue or tenant share is a 503 with Retry-After
// (appliance.RetryAfterError matching ErrUnavailable); work larger than
// the whole budget is invalid; durable work (a job) is never refused.
func TestRefusals(t *testing.T) {
	s := admission.New(admission.Options{Workers: 1, MemBytes: 100 * mib, MaxQueue: 3, MaxQueuePerTenant: 2})
	run := submit(t, s, work("run", "t1", appliance.TierPro, 1, 10*mib))
	if _, ok := admitted(t, run); !ok {
		t.Fatal("not admitted")
	}
	submit(t, s, work("w1", "t1", appliance.TierPro, 1, 10*mib))
	submit(t, s, work("w2", "t1", appliance.TierPro, 1, 10*mib))
	_, err := s.Submit(work("w3", "t1", appliance.TierPro, 1, 10*mib))
	var ra *appliance.RetryAfterError
	if !errors.As(err, &ra) || !errors.Is(err, appliance.ErrUnavailable) || ra.After < time.Second || !strings.Contains(err.Error(), "this tenant") {
		t.Fatalf("over the tenant's share: %v", err)
	}
	submit(t, s, work("w4", "t2", appliance.TierPro, 1, 10*mib))
	_, err = s.Submit(work("w5", "t3", appliance.TierPro, 1, 10*mib))
	if !errors.As(err, &ra) || !errors.Is(err, appliance.ErrUnavailable) || !strings.Contains(err.Error(), "3 heavy computations are waiting") {
		t.Fatalf("full queue: %v", err)
	}
	if _, err := s.Submit(work("huge", "t4", appliance.TierPro, 1, 101*mib)); !errors.Is(err, appliance.ErrInvalid) || !strings.Contains(err.Error(), "101 MiB") {
		t.Fatalf("over the whole budget: %v", err)
	}
	job := work("job", "t3", appliance.TierPro, 1, 500*mib)
	job.Durable = true
	if _, err := s.Submit(job); err != nil {
		t.Fatalf("durable work refused: %v", err)
	}
	if st := s.Stats(); st.RefusedQueueFull != 2 || st.RefusedOverBudget != 1 || st.Waiting != 4 {
		t.Errorf("stats %+v", st)
	}
}

// TestWaitReportsPositions: Wait reports the first position and every
// change; a withdrawn piece (its context ended) moves those behind it up.
func TestWaitReportsPositions(t *testing.T) {
	s := admission.New(admission.Options{Workers: 1, MemBytes: 10 * mib})
	hold := submit(t, s, work("hold", "x", appliance.TierPro, 1, 0))
	if _, ok := admitted(t, hold); !ok {
		t.Fatal("hold not admitted")
	}
	first := submit(t, s, work("first", "a", appliance.TierPro, 1, 0))
	second := submit(t, s, work("second", "b", appliance.TierPro, 1, 0))
	var (
		mu   sync.Mutex
		seen []int
	)
	got := make(chan appliance.Grant, 1)
	go func() {
		g, err := second.Wait(context.Background(), func(p int) { mu.Lock(); seen = append(seen, p); mu.Unlock() })
		if err != nil {
			t.Error(err)
		}
		got <- g
	}()
	waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(seen) == 1 })
	ctx, cancel := context.WithCancel(context.Background())
	withdrawn := make(chan error, 1)
	go func() { _, err := first.Wait(ctx, nil); withdrawn <- err }()
	cancel()
	if err := <-withdrawn; !errors.Is(err, context.Canceled) {
		t.Fatalf("withdrawn wait: %v", err)
	}
	waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(seen) == 2 })
	if p := s.Position("first"); p != 0 {
		t.Errorf("withdrawn work at position %d", p)
	}
	hold.Release()
	select {
	case g := <-got:
		if g.Workers != 1 {
			t.Errorf("grant %+v", g)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("second not admitted after the release")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 || seen[0] != 2 || seen[1] != 1 {
		t.Errorf("reported positions %v, want [2 1]", seen)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5 s")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestMetrics: the series are written from the start, with HELP and TYPE
// as GET /metrics writes them (under the families of appliance/telemetry).
func TestMetrics(t *testing.T) {
	set := metrics.NewSet()
	s := admission.New(admission.Options{Workers: 2, MemBytes: 10 * mib, Metrics: set})
	a := submit(t, s, work("a", "t", appliance.TierPro, 1, 3*mib))
	defer a.Release()
	var b strings.Builder
	if err := telemetry.New(telemetry.Families()).Write(&b, set); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# HELP linkplan_admission_waiting ", "# TYPE linkplan_admission_waiting gauge", "linkplan_admission_running 1\n",
		`linkplan_admission_workers{state="total"} 2`, `linkplan_admission_memory_bytes{state="reserved"} 3145728`,
		"# TYPE linkplan_admission_refused_total counter", `linkplan_admission_refused_total{reason="queue_full"} 0`,
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("metrics lack %q:\n%s", want, b.String())
		}
	}
}
