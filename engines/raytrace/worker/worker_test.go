package worker_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/engines/raytrace"
	"linkplan/engines/raytrace/worker"
)

// The test binary is also the worker process of the supervisor tests:
// with RTW_TEST_WORKER set it runs worker.RunProcess, as `linkplan
// raytrace-worker` does.
func TestMain(m *testing.M) {
	if os.Getenv("RTW_TEST_WORKER") == "1" {
		// SIGTERM stops the worker as it stops `linkplan raytrace-worker`.
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
		defer stop()
		err := worker.RunProcess(ctx, worker.ProcessConfig{Socket: os.Getenv("RTW_SOCKET"), SecretFile: os.Getenv("RTW_SECRET"),
			Log: slog.New(slog.NewTextHandler(os.Stderr, nil))})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

var origin = appliance.LatLon{Lat: -22.95, Lon: -43.2}

// grid returns n×n buildings of 20 m × 20 m on a 50 m pitch around origin,
// 12 to 30 m tall, on flat ground.
func grid(n int) raytrace.SceneInput {
	f := raytrace.NewFrame(origin)
	var bs []appliance.Building
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			x0 := float64(i-n/2)*50 + 15
			y0 := float64(j-n/2)*50 + 15
			ring := []appliance.LatLon{f.ToLatLon(x0, y0), f.ToLatLon(x0+20, y0), f.ToLatLon(x0+20, y0+20), f.ToLatLon(x0, y0+20)}
			bs = append(bs, appliance.Building{ID: fmt.Sprintf("b%d_%d", i, j), Footprints: []appliance.Footprint{{Outer: ring}},
				HeightM: 12 + float64((i*7+j*3)%4)*6, HeightSource: appliance.HeightTagged})
		}
	}
	return raytrace.SceneInput{Buildings: bs, Origin: origin, GroundHeightM: 10}
}

// sceneOf builds in and names it; loads counts the input's loads.
func sceneOf(t testing.TB, in raytrace.SceneInput, loads *atomic.Int64) (worker.Scene, *raytrace.Scene) {
	t.Helper()
	sc, err := raytrace.NewScene(in)
	if err != nil {
		t.Fatal(err)
	}
	h := sc.Hash()
	return worker.Scene{Hash: hex.EncodeToString(h[:]), Input: func(context.Context) (*raytrace.SceneInput, error) {
		if loads != nil {
			loads.Add(1)
		}
		return &in, nil
	}}, sc
}

func pointReq() raytrace.PointRequest {
	f := raytrace.NewFrame(origin)
	return raytrace.PointRequest{Tx: raytrace.Antenna{Pos: f.ToLatLon(-140, -130), HeightM: 25}, Rx: raytrace.Antenna{Pos: f.ToLatLon(110, 95), HeightM: 1.5},
		FreqMHz: 3500, TxPowerDBm: 40, Options: raytrace.DefaultOptions()}
}

func mapReq(n int, step float64) raytrace.MapRequest {
	f := raytrace.NewFrame(origin)
	return raytrace.MapRequest{Tx: raytrace.Antenna{Pos: f.ToLatLon(-140, -130), HeightM: 25}, SouthWest: f.ToLatLon(-float64(n)*step/2, -float64(n)*step/2),
		StepM: step, NX: n, NY: n, RxHeightM: 1.5, FreqMHz: 3500, TxPowerDBm: 40, Options: raytrace.DefaultOptions(), Workers: 2}
}

// serve runs a worker server in this process on a real unix socket.
func serve(t *testing.T, secret []byte) (string, *worker.Server) {
	t.Helper()
	sock := filepath.Join(shortDir(t), "w.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := worker.NewServer(raytrace.CPU{}, secret, 4, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = worker.Serve(ctx, ln, srv, time.Second); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return sock, srv
}

// shortDir is a temporary directory with a path short enough for a unix
// socket.
func shortDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "rtw")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// TestClientEqualsBackend: a point and a map computed through the worker's
// socket equal the CPU backend's answers bit for bit; the scene travels
// once (its input is loaded on the worker's first miss only).
func TestClientEqualsBackend(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	sock, _ := serve(t, secret)
	c := worker.NewClient(sock, secret)
	var loads atomic.Int64
	s, sc := sceneOf(t, grid(6), &loads)
	ctx := context.Background()
	want, err := raytrace.CPU{}.Point(ctx, sc, pointReq())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		got, err := c.Point(ctx, s, pointReq())
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", want) {
			t.Fatalf("call %d: the worker's answer differs:\n%+v\n%+v", i, got, want)
		}
	}
	if n := loads.Load(); n != 1 {
		t.Errorf("the scene input was loaded %d times, want once", n)
	}
	wm, err := raytrace.CPU{}.Map(ctx, sc, mapReq(40, 5))
	if err != nil {
		t.Fatal(err)
	}
	gm, err := c.Map(ctx, s, mapReq(40, 5))
	if err != nil {
		t.Fatal(err)
	}
	for i := range wm.ReceivedPowerDBm {
		if math.Float32bits(wm.ReceivedPowerDBm[i]) != math.Float32bits(gm.ReceivedPowerDBm[i]) || wm.Flags[i] != gm.Flags[i] {
			t.Fatalf("pixel %d: %v/%d, want %v/%d", i, gm.ReceivedPowerDBm[i], gm.Flags[i], wm.ReceivedPowerDBm[i], wm.Flags[i])
		}
	}
	if fmt.Sprint(gm.Warnings) != fmt.Sprint(wm.Warnings) {
		t.Errorf("warnings %v, want %v", gm.Warnings, wm.Warnings)
	}
}

// TestClientErrors: the worker's refusals reach the caller with their
// meaning.
func TestClientErrors(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	sock, _ := serve(t, secret)
	s, _ := sceneOf(t, grid(3), nil)
	other, _ := sceneOf(t, grid(4), nil)
	unsent, _ := sceneOf(t, grid(5), nil)
	ctx := context.Background()
	bad := pointReq()
	bad.FreqMHz = -1
	far := pointReq()
	far.Rx.Pos = appliance.LatLon{Lat: -23.5, Lon: -43.2}
	cases := []struct {
		name  string
		c     *worker.Client
		scene worker.Scene
		req   raytrace.PointRequest
		is    error
		field string
	}{
		{"wrong secret", worker.NewClient(sock, []byte("another secret of 32 bytes!!!!!")), s, pointReq(), appliance.ErrUnavailable, ""},
		{"invalid request names the field", worker.NewClient(sock, secret), s, bad, appliance.ErrInvalid, "frequency_mhz"},
		{"receiver outside the frame", worker.NewClient(sock, secret), s, far, appliance.ErrInvalid, "rx.pos"},
		{"input of another scene", worker.NewClient(sock, secret), worker.Scene{Hash: unsent.Hash, Input: other.Input}, pointReq(), appliance.ErrInvalid, "scene.hash"},
		{"malformed hash", worker.NewClient(sock, secret), worker.Scene{Hash: "abc", Input: s.Input}, pointReq(), appliance.ErrInvalid, "scene.hash"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.c.Point(ctx, tc.scene, tc.req)
			if !errors.Is(err, tc.is) {
				t.Fatalf("error %v, want %v", err, tc.is)
			}
			var ve *appliance.ValidationError
			if tc.field != "" && (!errors.As(err, &ve) || !strings.Contains(fmt.Sprint(ve.Fields), tc.field)) {
				t.Fatalf("error %v does not name %s", err, tc.field)
			}
		})
	}
	t.Run("no worker listening", func(t *testing.T) {
		c := worker.NewClient(filepath.Join(shortDir(t), "none.sock"), secret)
		c.ReadyWait = 300 * time.Millisecond
		if _, err := c.Point(ctx, s, pointReq()); !errors.Is(err, appliance.ErrUnavailable) {
			t.Fatalf("error %v, want unavailable", err)
		}
	})
}

// TestSecretFile: the secret is written with mode 0600, and a worker
// refuses a secret file others can read.
func TestSecretFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s")
	secret, err := worker.WriteSecret(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, %v", fi.Mode(), err)
	}
	got, err := worker.ReadSecret(path)
	if err != nil || !bytes.Equal(got, secret) {
		t.Fatalf("read %x, %v; want %x", got, err, secret)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := worker.ReadSecret(path); err == nil || !strings.Contains(err.Error(), "0600") {
		t.Fatalf("a world-readable secret was accepted: %v", err)
	}
	// a new secret replaces the file whole, mode 0600 again
	secret2, err := worker.WriteSecret(path)
	if got, rerr := worker.ReadSecret(path); err != nil || rerr != nil || !bytes.Equal(got, secret2) || bytes.Equal(secret2, secret) {
		t.Fatalf("rewritten secret %x (%v, %v), want a new one %x", got, err, rerr, secret2)
	}
	// a write that fails (here its scratch name is taken by a directory;
	// on a full disk, the write) leaves the file as it was, not truncated
	if err := os.Mkdir(path+".new", 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(path+".new", "x"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := worker.WriteSecret(path); err == nil {
		t.Fatal("the failed write reported success")
	}
	if got, err := worker.ReadSecret(path); err != nil || !bytes.Equal(got, secret2) {
		t.Fatalf("after a failed write the file reads %x, %v; want the previous secret", got, err)
	}
	long := filepath.Join(dir, strings.Repeat("d", 120))
	if err := os.MkdirAll(long, 0o700); err != nil {
		t.Fatal(err)
	}
	p, cleanup, err := worker.SocketPath(long)
	if err != nil || len(p) > 100 {
		t.Fatalf("socket path %q (%d bytes), %v", p, len(p), err)
	}
	cleanup()
}

// supervised starts a supervisor whose worker is this test binary; opts,
// when given, adjust its configuration.
func supervised(t *testing.T, opts ...func(*worker.SupervisorConfig)) (*worker.Supervisor, *syncBuf) {
	t.Helper()
	dir := shortDir(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuf{}
	sock, secretFile := filepath.Join(dir, "w.sock"), filepath.Join(dir, "secret")
	cfg := worker.SupervisorConfig{
		Command: func() *exec.Cmd {
			cmd := exec.Command(exe, "-test.run=^$")
			cmd.Env = append(os.Environ(), "RTW_TEST_WORKER=1", "RTW_SOCKET="+sock, "RTW_SECRET="+secretFile)
			cmd.Stderr = logs
			return cmd
		},
		Socket: sock, SecretFile: secretFile, MinBackoff: 100 * time.Millisecond, MaxBackoff: time.Second,
		Log: slog.New(slog.NewTextHandler(logs, nil)),
	}
	for _, o := range opts {
		o(&cfg)
	}
	sup, err := worker.NewSupervisor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	sup.Start()
	t.Cleanup(func() { sup.Close(5 * time.Second) })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := sup.Ready(ctx); err != nil {
		t.Fatalf("worker not ready: %v\n%s", err, logs.String())
	}
	return sup, logs
}

// TestSupervisorKillMidUnit: kill -9 of the worker while it computes a
// map: the unit fails with an ExecutorCrashError (never hangs, never
// answers), the supervisor reports the worker down, restarts it, and the
// next unit succeeds on the new worker (the scene sent again).
func TestSupervisorKillMidUnit(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	sup, logs := supervised(t)
	c := sup.Client()
	var loads atomic.Int64
	s, _ := sceneOf(t, grid(12), &loads)
	ctx := context.Background()
	if err := sup.Check(ctx); err != nil {
		t.Fatalf("check of a ready worker: %v", err)
	}
	first := sup.Status()
	errc := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := c.Map(ctx, s, mapReq(400, 2))
		errc <- err
	}()
	// Wait until the worker holds the unit (it loaded the scene), then kill.
	for loads.Load() == 0 && time.Since(start) < 10*time.Second {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	if err := syscall.Kill(first.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var err error
	select {
	case err = <-errc:
	case <-time.After(30 * time.Second):
		t.Fatal("the unit did not end after the worker was killed")
	}
	var ce *appliance.ExecutorCrashError
	if !errors.As(err, &ce) || ce.Executor != worker.ExecutorName {
		t.Fatalf("error %v, want an ExecutorCrashError", err)
	}
	t.Logf("unit ended %v after its start: %v", time.Since(start).Round(time.Millisecond), err)
	for st := sup.Status(); st.PID == first.PID || st.State != worker.StateReady; st = sup.Status() {
		if time.Since(start) > time.Minute {
			t.Fatalf("no new worker: %+v", st)
		}
		time.Sleep(20 * time.Millisecond)
	}
	now := sup.Status()
	if now.PID == first.PID || now.Restarts != 1 || !strings.Contains(now.LastExit, "killed") {
		t.Fatalf("status after the restart %+v (first %+v)", now, first)
	}
	if _, err := c.Point(ctx, s, pointReq()); err != nil {
		t.Fatalf("point on the restarted worker: %v", err)
	}
	if n := loads.Load(); n != 2 {
		t.Errorf("scene input loaded %d times, want 2 (once per worker)", n)
	}
	if !strings.Contains(logs.String(), "raytrace worker exited") {
		t.Errorf("no exit in the log:\n%s", logs.String())
	}
}

// TestSupervisorBackoffAndCheck: a worker that dies at once is restarted
// with a doubling backoff, and Check says why it is not ready meanwhile.
func TestSupervisorBackoffAndCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	dir := shortDir(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var starts atomic.Int64
	sock, secretFile := filepath.Join(dir, "w.sock"), filepath.Join(dir, "secret")
	sup, err := worker.NewSupervisor(worker.SupervisorConfig{
		Command: func() *exec.Cmd {
			starts.Add(1)
			// A secret file that does not exist: the worker exits 1.
			cmd := exec.Command(exe, "-test.run=^$")
			cmd.Env = append(os.Environ(), "RTW_TEST_WORKER=1", "RTW_SOCKET="+sock, "RTW_SECRET="+secretFile+".missing")
			return cmd
		},
		Socket: sock, SecretFile: secretFile, MinBackoff: 50 * time.Millisecond, MaxBackoff: 400 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	sup.Start()
	defer sup.Close(time.Second)
	time.Sleep(1500 * time.Millisecond)
	n := starts.Load()
	// 0, +50, +100, +200, +400, +400 ms ... plus the starts themselves:
	// far fewer than a tight loop, at least three.
	if n < 3 || n > 10 {
		t.Fatalf("%d starts in %v", n, time.Since(t0))
	}
	err = sup.Check(context.Background())
	if err == nil || !strings.Contains(err.Error(), "exited with status 1") {
		t.Fatalf("check: %v", err)
	}
	t.Logf("%d starts in %v; check: %v", n, time.Since(t0).Round(time.Millisecond), err)
}

// syncBuf is a buffer safe for concurrent writers.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
