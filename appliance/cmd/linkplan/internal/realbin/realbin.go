// Package realbin runs the real linkplan binary for the black-box tests of
// appliance/cmd/linkplan and of the test packages below it (browsertest):
// it builds the binary once per source state and starts `linkplan serve`
// on a data directory of the test's own, on a port the kernel picks.
//
// The build is shared by every test package of a `go test` run (and by
// later runs while the sources do not change): the binary is cached
// under os.TempDir()/linkplan-realbin-<uid>/<key>/linkplan, where the key
// hashes the build-cache outputs of every package the binary links (go
// list -deps -export: content-addressed), the Go version and the linker
// flags (the build is the static one, CGO_ENABLED=0 and -trimpath, as make
// build makes it); a lock file serialises the packages that ask for it at once, so
// one builds and the others wait and reuse it. Binaries unused for 6 hours
// are removed when a new one is built. Only tests import this package.
package realbin

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/engines/raytrace"
)

// Version is the version stamped into the test binary (-X main.Version).
const Version = "v0.0.0-e2e"

// mainPkg is the import path of the binary's main package.
const mainPkg = "linkplan/appliance/cmd/linkplan"

// staleAfter: cached binaries not used for this long are removed when a
// new one is built.
const staleAfter = 6 * time.Hour

var built struct {
	once sync.Once
	path string
	err  error
}

// Binary returns the path of the linkplan binary of the current sources,
// building it when no test package of this or an earlier run did. It skips
// the test with -short.
func Binary(tb testing.TB) string {
	tb.Helper()
	if testing.Short() {
		tb.Skip("builds and runs the linkplan binary; skipped with -short")
	}
	built.once.Do(func() { built.path, built.err = build() })
	if built.err != nil {
		tb.Fatal(built.err)
	}
	return built.path
}

func build() (string, error) {
	ldflags := "-X main.Version=" + Version
	key, err := sourceKey(ldflags)
	if err != nil {
		return "", err
	}
	root := filepath.Join(os.TempDir(), fmt.Sprintf("linkplan-realbin-%d", os.Getuid()))
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", err
	}
	lock, err := os.OpenFile(filepath.Join(root, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", fmt.Errorf("lock %s: %w", lock.Name(), err)
	}
	// lock.Close releases the lock.
	dir := filepath.Join(root, key)
	path := filepath.Join(dir, "linkplan")
	now := time.Now()
	if _, err := os.Stat(path); err == nil {
		_ = os.Chtimes(dir, now, now) // in use: not stale
		return path, nil
	}
	removeStale(root, now)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp := path + ".tmp"
	cmd := exec.Command("go", "build", "-trimpath", "-o", tmp, "-ldflags", ldflags, mainPkg)
	cmd.Env = staticEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", err
	}
	return path, nil
}

// sourceKey hashes what the binary is made of: the build-cache output of
// every package it links (content-addressed: a changed source or embedded
// file changes its package's output), the Go version and the linker flags.
func sourceKey(ldflags string) (string, error) {
	cmd := exec.Command("go", "list", "-trimpath", "-deps", "-export", "-f", "{{.ImportPath}} {{.Export}}", mainPkg)
	cmd.Env = staticEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go list -export %s: %v\n%s", mainPkg, err, stderr.String())
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%s/%s\n", runtime.Version(), ldflags, runtime.GOOS, runtime.GOARCH)
	h.Write(out)
	return hex.EncodeToString(h.Sum(nil))[:24], nil
}

// staticEnv is the environment of the binary's build: the shipped kind,
// static (CGO_ENABLED=0) and -trimpath as make build makes it, whatever
// the go test that runs the tests was given (make test gives the same, so
// the build reuses the test build's compiled packages).
func staticEnv() []string {
	return append(os.Environ(), "CGO_ENABLED=0")
}

// removeStale removes the cached binaries not used for staleAfter.
func removeStale(root string, now time.Time) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > staleAfter {
			_ = os.RemoveAll(filepath.Join(root, e.Name()))
		}
	}
}

// RunFor runs the binary with a time limit and returns its output and
// exit status (-1 when it had to be killed).
func RunFor(tb testing.TB, limit time.Duration, bin string, args ...string) (stdout, stderr string, code int) {
	tb.Helper()
	return RunForEnv(tb, limit, nil, bin, args...)
}

// RunForEnv is RunFor with env (KEY=value) added to the test's environment.
func RunForEnv(tb testing.TB, limit time.Duration, env []string, bin string, args ...string) (stdout, stderr string, code int) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	var o, e bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return o.String(), e.String(), -1
	case errors.As(err, &ee):
		return o.String(), e.String(), ee.ExitCode()
	case err != nil:
		tb.Fatalf("run %v: %v", args, err)
	}
	return o.String(), e.String(), 0
}

// SyncBuffer is a bytes.Buffer safe for one writer and many readers.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Server is a running `linkplan serve`.
type Server struct {
	Cmd    *exec.Cmd
	Base   string // http://127.0.0.1:port
	Stderr *SyncBuffer
	done   chan error // receives the exit status once
	exited bool
}

var servingAddr = regexp.MustCompile(`msg="linkplan serving" addr=(127\.0\.0\.1:[0-9]+)`)

// StartServe starts `linkplan serve` on dataDir and waits until
// /health/ready answers 200. The port is chosen by the kernel (--addr
// 127.0.0.1:0) and read from the start-up log, so that concurrent tests
// cannot race for a port. The process is killed when the test ends.
func StartServe(tb testing.TB, bin, dataDir string, extra ...string) *Server {
	tb.Helper()
	return StartServeUntil(tb, bin, dataDir, "/health/ready", extra...)
}

// StartServeUntil is StartServe waiting for path to answer 200 (a warm
// standby answers /health/ready with 503: it waits for /health).
func StartServeUntil(tb testing.TB, bin, dataDir, path string, extra ...string) *Server {
	tb.Helper()
	s := &Server{Stderr: &SyncBuffer{}, done: make(chan error, 1)}
	s.Cmd = exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", dataDir}, extra...)...)
	pr, pw := io.Pipe()
	s.Cmd.Stderr = pw
	s.Cmd.Stdout = io.Discard
	if err := s.Cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			_, _ = s.Stderr.Write([]byte(line + "\n"))
			if m := servingAddr.FindStringSubmatch(line); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
		}
	}()
	go func() {
		err := s.Cmd.Wait()
		_ = pw.Close()
		s.done <- err
	}()
	tb.Cleanup(func() {
		if !s.exited {
			_ = s.Cmd.Process.Kill()
			<-s.done
		}
	})
	select {
	case a := <-addr:
		s.Base = "http://" + a
	case err := <-s.done:
		s.exited = true
		tb.Fatalf("serve exited before serving: %v\n%s", err, s.Stderr.String())
	case <-time.After(60 * time.Second):
		tb.Fatalf("serve did not log its address within 60 s\n%s", s.Stderr.String())
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := http.Get(s.Base + path)
		if err == nil {
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return s
			}
		}
		if time.Now().After(deadline) {
			tb.Fatalf("not ready within 30 s (last: %v)\n%s", err, s.Stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop sends SIGTERM and returns the exit error (nil for status 0).
func (s *Server) Stop(tb testing.TB) error {
	tb.Helper()
	if err := s.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		tb.Fatal(err)
	}
	select {
	case err := <-s.done:
		s.exited = true
		return err
	case <-time.After(30 * time.Second):
		tb.Fatalf("serve did not stop within 30 s of SIGTERM\n%s", s.Stderr.String())
	}
	return nil
}

// Kill kills serve with SIGKILL and waits for it to be gone.
func (s *Server) Kill(tb testing.TB) {
	tb.Helper()
	if err := s.Cmd.Process.Signal(syscall.SIGKILL); err != nil {
		tb.Fatal(err)
	}
	_ = s.Wait()
}

// Wait waits for serve to exit and returns its exit error.
func (s *Server) Wait() error {
	err := <-s.done
	s.exited = true
	return err
}

// Exited reports, without waiting, whether serve has exited, with its
// exit error.
func (s *Server) Exited() (bool, error) {
	if s.exited {
		return true, nil
	}
	select {
	case err := <-s.done:
		s.exited = true
		return true, err
	default:
		return false, nil
	}
}

// Reply is one HTTP answer.
type Reply struct {
	Status int
	Header http.Header
	Body   []byte
}

// Call sends one request and checks that the response carries
// X-Request-Id.
func (s *Server) Call(tb testing.TB, method, path string, header map[string]string, body string) Reply {
	tb.Helper()
	req, err := http.NewRequest(method, s.Base+path, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		tb.Fatal(err)
	}
	if res.Header.Get("X-Request-Id") == "" {
		tb.Errorf("%s %s (%d): no X-Request-Id", method, path, res.StatusCode)
	}
	return Reply{Status: res.StatusCode, Header: res.Header, Body: b}
}

// RaytraceWorker fetches /health/ready: it must answer 200 ready whatever
// the worker's state; it returns the raytrace_worker check.
func (s *Server) RaytraceWorker(tb testing.TB) string {
	tb.Helper()
	r := s.Call(tb, "GET", "/health/ready", nil, "")
	var rep struct {
		Status string            `json:"status"`
		Checks map[string]string `json:"checks"`
	}
	if err := json.Unmarshal(r.Body, &rep); err != nil {
		tb.Fatal(err)
	}
	if r.Status != http.StatusOK || rep.Status != "ready" {
		tb.Fatalf("/health/ready %d %s", r.Status, r.Body)
	}
	c, ok := rep.Checks["raytrace_worker"]
	if !ok {
		tb.Fatalf("/health/ready has no raytrace_worker check: %s", r.Body)
	}
	return c
}

// WaitRaytraceWorkerOK waits until the raytrace_worker check is ok (a
// restarted worker answers its health route), for at most a minute.
func (s *Server) WaitRaytraceWorkerOK(tb testing.TB) {
	tb.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		c := s.RaytraceWorker(tb)
		if c == "ok" {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("raytrace_worker not ok within a minute: %q", c)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// BlockLat, BlockLon: the centre of BuildingBlock, in Rio on the embedded
// terrain (WGS84 degrees).
const BlockLat, BlockLon = -22.9519, -43.2105

// BuildingBlock is a GeoJSON layer of n×n buildings, 30 m × 25 m on a 60 m
// pitch around (BlockLat, BlockLon), 10 to 28 m tall.
func BuildingBlock(n int) string {
	f := raytrace.NewFrame(appliance.LatLon{Lat: BlockLat, Lon: BlockLon})
	var b strings.Builder
	b.WriteString(`{"type":"FeatureCollection","features":[`)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			x0, y0 := float64(i-n/2)*60+10, float64(j-n/2)*60+10
			var coords []string
			for _, p := range []appliance.LatLon{f.ToLatLon(x0, y0), f.ToLatLon(x0+30, y0), f.ToLatLon(x0+30, y0+25), f.ToLatLon(x0, y0+25), f.ToLatLon(x0, y0)} {
				coords = append(coords, fmt.Sprintf("[%.7f,%.7f]", p.Lon, p.Lat))
			}
			if i+j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"type":"Feature","id":"b%d_%d","properties":{"height":"%d"},"geometry":{"type":"Polygon","coordinates":[[%s]]}}`,
				i, j, 10+((i*5+j*3)%4)*6, strings.Join(coords, ","))
		}
	}
	b.WriteString(`]}`)
	return b.String()
}

// UploadBlock uploads an n×n BuildingBlock as key's building layer; its id.
func (s *Server) UploadBlock(tb testing.TB, key string, n int) string {
	tb.Helper()
	r := s.Call(tb, "POST", "/buildings/layers?name=block", map[string]string{"X-API-Key": key, "Content-Type": "application/geo+json"}, BuildingBlock(n))
	if r.Status != http.StatusCreated {
		tb.Fatalf("upload layer: %d %s", r.Status, r.Body)
	}
	var v struct {
		Layer struct {
			ID string `json:"id"`
		} `json:"layer"`
	}
	if err := json.Unmarshal(r.Body, &v); err != nil || v.Layer.ID == "" {
		tb.Fatalf("layer answer %s: %v", r.Body, err)
	}
	return v.Layer.ID
}

// SubmitJob POSTs body to path as key, expects 202 with the job's Location
// (an asynchronous raytrace or batch), and returns the job id.
func (s *Server) SubmitJob(tb testing.TB, key, path, body string) string {
	tb.Helper()
	r := s.Call(tb, "POST", path, map[string]string{"X-API-Key": key, "Content-Type": "application/json"}, body)
	if r.Status != http.StatusAccepted {
		tb.Fatalf("POST %s: %d %s", path, r.Status, r.Body)
	}
	var j struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(r.Body, &j); err != nil || j.ID == "" || r.Header.Get("Location") != "/jobs/"+j.ID {
		tb.Fatalf("202 %s (Location %q): %v", r.Body, r.Header.Get("Location"), err)
	}
	return j.ID
}
