package jsq_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"linkplan/appliance"
	"linkplan/store/jsq"
)

// cluster is an embedded server set up for units, with the appliance's
// executor.
type cluster struct {
	s   *jsq.Server
	nc  *nats.Conn
	cfg jsq.Config
	ex  *jsq.Executor
}

var inputsA = appliance.Inputs{"terrain": "aaaa", "towers": "bbbb", "engines": "cccc"}

func newCluster(t testing.TB, ackWait time.Duration) *cluster {
	t.Helper()
	s, err := jsq.StartEmbedded(jsq.EmbeddedOptions{Dir: filepath.Join(t.TempDir(), "nats"), Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Shutdown)
	nc, err := s.Connect("appliance")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	cfg := jsq.Config{UnitAckWait: ackWait, UnitBackOff: []time.Duration{ackWait, ackWait}}
	ctx := context.Background()
	if err := jsq.Setup(ctx, nc, cfg); err != nil {
		t.Fatal(err)
	}
	ex, err := jsq.NewExecutor(ctx, nc, cfg, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ex.Close)
	if err := jsq.Announce(ctx, nc, cfg, inputsA); err != nil {
		t.Fatal(err)
	}
	return &cluster{s: s, nc: nc, cfg: cfg, ex: ex}
}

// worker starts a worker connected over TCP as the worker user; stop
// ends it gracefully, kill closes its connection at once (its process
// died).
func (c *cluster) worker(t testing.TB, id string, in appliance.Inputs, run func(ctx context.Context, u *appliance.WorkUnit) ([]byte, error)) (nc *nats.Conn, stop func()) {
	t.Helper()
	nc, err := jsq.Connect(c.s.WorkerURL(), jsq.ConnectOptions{Name: id})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		err := jsq.RunWorker(ctx, nc, c.cfg, jsq.WorkerOptions{ID: id, Slots: 2, Inputs: func() appliance.Inputs { return in }, Run: run, Grace: time.Second})
		if err != nil && ctx.Err() == nil && !nc.IsClosed() {
			t.Errorf("worker %s: %v", id, err)
		}
	}()
	return nc, func() { cancel(); <-done; nc.Close() }
}

// square is the test's unit: its body is a number, its result the square.
func square(ctx context.Context, u *appliance.WorkUnit) ([]byte, error) {
	v := binary.LittleEndian.Uint64(u.Body)
	return binary.LittleEndian.AppendUint64(nil, v*v), nil
}

func makeUnits(job string, n int) []appliance.WorkUnit {
	us := make([]appliance.WorkUnit, n)
	for i := range us {
		us[i] = appliance.WorkUnit{JobID: job, Run: "1", Index: i, Kind: appliance.UnitBatchRows, TenantID: "ta", Inputs: inputsA,
			Body: binary.LittleEndian.AppendUint64(nil, uint64(i+1))}
	}
	return us
}

// execute runs units and checks every result merged exactly once.
func execute(t *testing.T, ex *jsq.Executor, us []appliance.WorkUnit) error {
	t.Helper()
	merged := make([]int, len(us))
	err := ex.Execute(context.Background(), us, func(i int, res []byte) error {
		merged[i]++
		if got, want := binary.LittleEndian.Uint64(res), uint64((i+1)*(i+1)); got != want {
			return fmt.Errorf("unit %d: %d, want %d", i, got, want)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i, n := range merged {
		if n != 1 {
			t.Fatalf("unit %d merged %d times", i, n)
		}
	}
	return nil
}

// TestUnitsOverJetStream: units run on two workers connected as the
// worker user; each is merged once.
func TestUnitsOverJetStream(t *testing.T) {
	c := newCluster(t, 5*time.Second)
	var ran sync.Map
	count := func(id string) func(ctx context.Context, u *appliance.WorkUnit) ([]byte, error) {
		return func(ctx context.Context, u *appliance.WorkUnit) ([]byte, error) {
			ran.Store(id, true)
			time.Sleep(5 * time.Millisecond)
			return square(ctx, u)
		}
	}
	_, stop1 := c.worker(t, "w1", inputsA, count("w1"))
	defer stop1()
	_, stop2 := c.worker(t, "w2", inputsA, count("w2"))
	defer stop2()
	if err := execute(t, c.ex, makeUnits("job1", 200)); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"w1", "w2"} {
		if _, ok := ran.Load(id); !ok {
			t.Errorf("worker %s computed nothing", id)
		}
	}
	st := c.ex.Stats()
	t.Logf("published %d merged %d duplicates %d stale %d", st.Published.Load(), st.Merged.Load(), st.Duplicates.Load(), st.Stale.Load())
}

// TestWorkerDeathRedelivers: a worker that dies holding units (its
// connection gone, no acknowledgement) loses nothing: after the ack wait
// the units go to the other worker, and every unit is merged once.
func TestWorkerDeathRedelivers(t *testing.T) {
	c := newCluster(t, time.Second)
	var once sync.Once
	hang := make(chan struct{})
	var victim *nats.Conn
	victim, stopV := c.worker(t, "victim", inputsA, func(ctx context.Context, u *appliance.WorkUnit) ([]byte, error) {
		once.Do(func() { victim.Close() }) // dies in the middle of its first unit
		<-hang
		return nil, ctx.Err()
	})
	defer func() { close(hang); stopV() }()
	time.Sleep(300 * time.Millisecond) // the victim takes the first units
	_, stop := c.worker(t, "survivor", inputsA, square)
	defer stop()
	if err := execute(t, c.ex, makeUnits("job2", 20)); err != nil {
		t.Fatal(err)
	}
}

// TestUnitQuarantine: a unit that takes its worker down at every delivery
// is quarantined at the JobCrashLimit-th and fails its run with
// appliance.ErrUnitQuarantined; the other units were not lost.
func TestUnitQuarantine(t *testing.T) {
	c := newCluster(t, 700*time.Millisecond)
	var deaths atomic.Int64
	var spawn func(n int)
	var mu sync.Mutex
	var stops []func()
	spawn = func(n int) {
		var nc *nats.Conn
		nc, stop := c.worker(t, fmt.Sprint("w", n), inputsA, func(ctx context.Context, u *appliance.WorkUnit) ([]byte, error) {
			if u.Index == 3 {
				deaths.Add(1)
				nc.Close()
				go spawn(n + 1) // its supervisor starts a new worker
				<-ctx.Done()
				return nil, ctx.Err()
			}
			return square(ctx, u)
		})
		mu.Lock()
		stops = append(stops, stop)
		mu.Unlock()
	}
	spawn(0)
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, s := range stops {
			s()
		}
	}()
	err := execute(t, c.ex, makeUnits("job3", 8))
	if !errors.Is(err, appliance.ErrUnitQuarantined) {
		t.Fatalf("execute: %v, want a quarantine", err)
	}
	if d := deaths.Load(); d != appliance.JobCrashLimit {
		t.Fatalf("%d worker deaths, want %d", d, appliance.JobCrashLimit)
	}
}

// TestWorkerWithOtherInputsRefuses: a worker whose inputs differ from the
// announcement takes no unit and says why in its status.
func TestWorkerWithOtherInputsRefuses(t *testing.T) {
	c := newCluster(t, 5*time.Second)
	other := appliance.Inputs{"terrain": "ffff", "towers": "bbbb", "engines": "cccc"}
	var took atomic.Int64
	_, stop := c.worker(t, "stale", other, func(ctx context.Context, u *appliance.WorkUnit) ([]byte, error) {
		took.Add(1)
		return square(ctx, u)
	})
	defer stop()
	var st []jsq.WorkerStatus
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		var err error
		if st, err = jsq.Workers(context.Background(), c.nc, c.cfg); err != nil {
			t.Fatal(err)
		}
		if len(st) == 1 && st[0].State == jsq.WorkerRefusing {
			break
		}
	}
	if len(st) != 1 || st[0].State != jsq.WorkerRefusing || st[0].Reason == "" {
		t.Fatalf("status %+v", st)
	}
	t.Logf("reason: %s", st[0].Reason)
	_, stopGood := c.worker(t, "good", inputsA, square)
	defer stopGood()
	if err := execute(t, c.ex, makeUnits("job4", 30)); err != nil {
		t.Fatal(err)
	}
	if took.Load() != 0 {
		t.Fatalf("the refusing worker computed %d units", took.Load())
	}
}
