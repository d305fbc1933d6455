// Command bench-admission measures how the appliance holds up while many of
// the largest coverage maps are asked for at once (issue 20, scope 2). It is
// driven by `make bench-admission`; see build/bench-admission/README.md.
//
//	go run ./build/bench-admission -linkplan bin/linkplan
//
// It runs the real binary: it issues the tenant keys straight into a fresh
// data directory (store and tenancy, before the server opens it: the admin
// route spends one TOTP step per key), starts `linkplan serve` on it, probes
// GET /health and POST /analyze_link at a steady rate, samples the server's
// resident memory from /proc, submits -maps heatmaps at once (two per
// Enterprise tenant, the per-tenant limit) and follows every stream to its
// last event. It prints one line:
//
//	health_p99_ms=H analyze_p99_ms=A rss_mb=R admitted=N queued=Q refused=F done=D failed=X wall_s=W
//
// admitted counts the maps that started computing without waiting, queued
// those that waited in the admission queue first (a queued event), refused
// those answered with an error status (reasons on standard error). rss_mb is
// the server's peak resident set (VmHWM), MiB. The latencies are client-side
// wall times over the whole map phase, nearest-rank p99; the figures at rest
// (before the maps) go to standard error.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/tenancy"
	"linkplan/store"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench-admission: FAIL:", err)
		os.Exit(1)
	}
}

type config struct {
	bin          string
	maps         int
	radiusKm     float64
	resolutionM  float64
	engine       string
	healthEvery  time.Duration
	analyzeEvery time.Duration
	timeout      time.Duration
	work         string
	serveArgs    string
}

func run() error {
	var c config
	flag.StringVar(&c.bin, "linkplan", "bin/linkplan", "linkplan binary")
	flag.IntVar(&c.maps, "maps", 20, "heatmaps submitted at once")
	flag.Float64Var(&c.radiusKm, "radius-km", 100, "map radius, km (100: the largest any tier allows)")
	flag.Float64Var(&c.resolutionM, "resolution-m", 50, "map resolution, metres (50 m: the finest whose 100 km map fits coverage.MaxMapPixels)")
	flag.StringVar(&c.engine, "engine", "itm", "propagation engine of the maps")
	flag.DurationVar(&c.healthEvery, "health-every", 50*time.Millisecond, "interval of the GET /health probe")
	flag.DurationVar(&c.analyzeEvery, "analyze-every", 100*time.Millisecond, "interval of the POST /analyze_link probe")
	flag.DurationVar(&c.timeout, "timeout", time.Hour, "give up after this long")
	flag.StringVar(&c.work, "work", "", "work directory (default: a temporary one, removed)")
	flag.StringVar(&c.serveArgs, "serve-args", "", "extra arguments of linkplan serve, space-separated")
	flag.Parse()
	if c.work == "" {
		d, err := os.MkdirTemp("", "bench-admission-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		c.work = d
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()

	dataDir := filepath.Join(c.work, "data")
	tenants := (c.maps + 1) / 2
	mapKeys, probeKey, err := issueKeys(dataDir, tenants)
	if err != nil {
		return fmt.Errorf("issue keys: %w", err)
	}
	srv, err := startServe(ctx, c, dataDir)
	if err != nil {
		return err
	}
	defer srv.stop()

	// At rest first: the figures the map phase is compared with.
	rest := newProbes(srv.base, probeKey)
	restCtx, restCancel := context.WithTimeout(ctx, 5*time.Second)
	rest.run(restCtx, c)
	restCancel()
	fmt.Fprintf(os.Stderr, "bench-admission: at rest: health_p99_ms=%.1f analyze_p99_ms=%.1f (%d, %d samples, %d errors)\n",
		p99(rest.health), p99(rest.analyze), len(rest.health), len(rest.analyze), rest.errors)

	probes := newProbes(srv.base, probeKey)
	probeCtx, probeCancel := context.WithCancel(ctx)
	var pwg sync.WaitGroup
	pwg.Add(1)
	go func() { defer pwg.Done(); probes.run(probeCtx, c) }()
	var rssMax int64
	pwg.Add(1)
	go func() {
		defer pwg.Done()
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			if kb, ok := procStatus(srv.pid(), "VmRSS"); ok {
				rssMax = max(rssMax, kb)
			}
			select {
			case <-probeCtx.Done():
				return
			case <-t.C:
			}
		}
	}()

	start := time.Now()
	outcomes := make([]outcome, c.maps)
	var wg sync.WaitGroup
	for i := range c.maps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outcomes[i] = submitMap(ctx, c, srv.base, mapKeys[i/2], i)
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	probeCancel()
	pwg.Wait()
	hwm, _ := procStatus(srv.pid(), "VmHWM")

	var admitted, queued, refused, done, failed int
	for i, o := range outcomes {
		switch {
		case o.status != http.StatusOK:
			refused++
			fmt.Fprintf(os.Stderr, "bench-admission: map %d refused: %d %s retry_after=%q\n", i, o.status, o.reason, o.retryAfter)
			continue
		case o.queuedEvents > 0:
			queued++
		default:
			admitted++
		}
		switch o.last {
		case "summary":
			done++
		default:
			failed++
			fmt.Fprintf(os.Stderr, "bench-admission: map %d ended with %q: %s\n", i, o.last, o.reason)
		}
		fmt.Fprintf(os.Stderr, "bench-admission: map %d: %s after %.1f s (queued events %d, first position %d, computing after %.1f s)\n",
			i, o.last, o.took.Seconds(), o.queuedEvents, o.firstPosition, o.waited.Seconds())
	}
	fmt.Fprintf(os.Stderr, "bench-admission: %d health and %d analyze samples, %d probe errors; rss max sampled %d MiB\n",
		len(probes.health), len(probes.analyze), probes.errors, rssMax/1024)
	fmt.Printf("health_p99_ms=%.1f analyze_p99_ms=%.1f rss_mb=%d admitted=%d queued=%d refused=%d done=%d failed=%d wall_s=%.1f\n",
		p99(probes.health), p99(probes.analyze), max(hwm, rssMax)/1024, admitted, queued, refused, done, failed, wall.Seconds())
	return nil
}

// issueKeys creates the data directory and issues n Enterprise keys (one
// tenant each) for the maps and one Ultra key for the probes, through the
// store, before the server holds the database.
func issueKeys(dataDir string, n int) ([]string, string, error) {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, "", err
	}
	db, err := store.Open(dataDir, store.Options{})
	if err != nil {
		return nil, "", err
	}
	defer db.Close()
	auth := tenancy.New(db, nil)
	issue := func(tier appliance.Tier, owner string) (string, error) {
		plain, _, err := auth.Issue(tenancy.IssueRequest{Tier: tier, Role: appliance.RoleTenant, Owner: owner, Email: "bench@example.com"})
		return plain, err
	}
	keys := make([]string, n)
	for i := range keys {
		if keys[i], err = issue(appliance.TierEnterprise, fmt.Sprintf("bench tenant %d", i)); err != nil {
			return nil, "", err
		}
	}
	probe, err := issue(appliance.TierUltra, "bench probe")
	return keys, probe, err
}

// server is a running linkplan serve.
type server struct {
	cmd  *exec.Cmd
	base string
	done chan struct{}
}

func (s *server) pid() int { return s.cmd.Process.Pid }

func (s *server) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

var servingAddr = regexp.MustCompile(`msg="linkplan serving" addr=(127\.0\.0\.1:[0-9]+)`)

// startServe starts the binary on dataDir (log in <work>/serve.log) and
// waits for /health/ready.
func startServe(ctx context.Context, c config, dataDir string) (*server, error) {
	args := []string{"serve", "--addr", "127.0.0.1:0", "--data-dir", dataDir}
	if c.serveArgs != "" {
		args = append(args, strings.Fields(c.serveArgs)...)
	}
	logf, err := os.Create(filepath.Join(c.work, "serve.log"))
	if err != nil {
		return nil, err
	}
	s := &server{cmd: exec.Command(c.bin, args...), done: make(chan struct{})}
	pr, pw := io.Pipe()
	s.cmd.Stderr, s.cmd.Stdout = pw, io.Discard
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", c.bin, err)
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			fmt.Fprintln(logf, sc.Text())
			if m := servingAddr.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
		}
		logf.Close()
	}()
	go func() { _ = s.cmd.Wait(); _ = pw.Close(); close(s.done) }()
	select {
	case a := <-addr:
		s.base = "http://" + a
	case <-s.done:
		return nil, fmt.Errorf("serve exited before serving (log: %s)", logf.Name())
	case <-time.After(2 * time.Minute):
		s.stop()
		return nil, errors.New("serve did not log its address within 2 min")
	case <-ctx.Done():
		s.stop()
		return nil, ctx.Err()
	}
	for deadline := time.Now().Add(time.Minute); ; {
		res, err := http.Get(s.base + "/health/ready")
		if err == nil {
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("not ready within 1 min: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// probes measures the cheap routes.
type probes struct {
	base, key       string
	client          *http.Client
	mu              sync.Mutex
	health, analyze []float64 // milliseconds
	errors          int
}

func newProbes(base, key string) *probes {
	return &probes{base: base, key: key, client: &http.Client{Timeout: 30 * time.Second}}
}

// analyzeBody is an /analyze_link inside the embedded Rio sample.
const analyzeBody = `{"receiver":{"lat":-22.95,"lon":-43.20,"height":10},"frequency_mhz":1800,"max_distance_km":20}`

func (p *probes) run(ctx context.Context, c config) {
	var wg sync.WaitGroup
	loop := func(every time.Duration, call func() (float64, error), into *[]float64) {
		defer wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			ms, err := call()
			p.mu.Lock()
			if err != nil {
				p.errors++
				fmt.Fprintln(os.Stderr, "bench-admission: probe:", err)
			} else {
				*into = append(*into, ms)
			}
			p.mu.Unlock()
		}
	}
	wg.Add(2)
	go loop(c.healthEvery, func() (float64, error) { return p.call("GET", "/health", "") }, &p.health)
	go loop(c.analyzeEvery, func() (float64, error) { return p.call("POST", "/analyze_link", analyzeBody) }, &p.analyze)
	wg.Wait()
}

func (p *probes) call(method, path, body string) (float64, error) {
	req, err := http.NewRequest(method, p.base+path, strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("X-API-Key", p.key)
	req.Header.Set("Content-Type", "application/json")
	t0 := time.Now()
	res, err := p.client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("%s %s: %w", method, path, err)
	}
	_, err = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	ms := float64(time.Since(t0).Microseconds()) / 1000
	if err != nil {
		return 0, err
	}
	if res.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("%s %s: status %d", method, path, res.StatusCode)
	}
	return ms, nil
}

// outcome is how one map ended.
type outcome struct {
	status        int
	reason        string // error message of a refusal or an error event
	retryAfter    string
	queuedEvents  int
	firstPosition int
	last          string        // type of the last event
	waited        time.Duration // until the first progress event
	took          time.Duration
}

// submitMap posts one heatmap and reads its stream to the end.
func submitMap(ctx context.Context, c config, base, key string, i int) outcome {
	// Transmitters a few hundred metres apart on the Sumaré ridge (Rio):
	// no two maps are the same.
	lat := -22.9516 + 0.002*float64(i%5)
	lon := -43.2372 + 0.002*float64(i/5)
	body := fmt.Sprintf(`{"site":{"lat":%.6f,"lon":%.6f,"height_m":50,"eirp_dbm":60},"frequency_mhz":700,"radius_km":%g,"resolution_m":%g,"engine":%q}`,
		lat, lon, c.radiusKm, c.resolutionM, c.engine)
	req, err := http.NewRequestWithContext(ctx, "POST", base+"/coverage/heatmap", strings.NewReader(body))
	if err != nil {
		return outcome{reason: err.Error()}
	}
	req.Header.Set("X-API-Key", key)
	req.Header.Set("Content-Type", "application/json")
	t0 := time.Now()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return outcome{reason: err.Error()}
	}
	defer res.Body.Close()
	o := outcome{status: res.StatusCode, retryAfter: res.Header.Get("Retry-After")}
	if res.StatusCode != http.StatusOK {
		var eb struct {
			Error struct {
				Code, Message string
			} `json:"error"`
		}
		b, _ := io.ReadAll(res.Body)
		if json.Unmarshal(b, &eb) == nil && eb.Error.Code != "" {
			o.reason = eb.Error.Code + ": " + eb.Error.Message
		} else {
			o.reason = strings.TrimSpace(string(b))
		}
		return o
	}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 4<<20), 4<<20)
	var typ string
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case bytes.HasPrefix(line, []byte("event: ")):
			typ = string(line[len("event: "):])
		case bytes.HasPrefix(line, []byte("data: ")):
			data := line[len("data: "):]
			o.last = typ
			switch typ {
			case "queued":
				o.queuedEvents++
				if o.firstPosition == 0 {
					var q struct {
						Position int `json:"queue_position"`
					}
					_ = json.Unmarshal(data, &q)
					o.firstPosition = q.Position
				}
			case "progress", "tile":
				if o.waited == 0 {
					o.waited = time.Since(t0)
				}
			case "error":
				var e struct{ Code, Message string }
				_ = json.Unmarshal(data, &e)
				o.reason = e.Code + ": " + e.Message
			}
			if typ == "summary" || typ == "error" {
				o.took = time.Since(t0)
				return o
			}
		}
	}
	o.took = time.Since(t0)
	if err := sc.Err(); err != nil {
		o.reason = "stream: " + err.Error()
	} else {
		o.reason = "stream ended without a summary or error event"
	}
	o.last = "eof"
	return o
}

// procStatus reads one "Key: N kB" line of /proc/PID/status, kB.
func procStatus(pid int, key string) (int64, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// p99 is the nearest-rank 99th percentile; NaN without samples.
func p99(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[int(math.Ceil(0.99*float64(len(s))))-1]
}
