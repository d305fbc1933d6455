// Command bench-scaleout measures heavy work with 0, 1 and 2 extra workers
// (issue 28, scope 4). It is driven by `make bench-scaleout`; see
// build/bench-scaleout/README.md.
//
//	go run ./build/bench-scaleout -linkplan bin/linkplan
//
// It runs the real binaries on loopback. First the start-up cost of the
// queue backends: serve with --queue bbolt and with --queue jetstream
// (the embedded NATS server), -starts times each on a fresh data
// directory, time to /health/ready 200 and resident memory once ready.
// Then the same work in five set-ups: "local" (serve --queue bbolt, the
// in-process path), and "js+N" for N = 0, 1, 2 (serve --queue jetstream
// and N `linkplan worker` processes of one slot). The appliance has one
// heavy-work slot in every set-up. Where taskset exists and the machine
// has the cores, each process is pinned to CPUs of its own (-cpus, the
// appliance first); otherwise they share the machine, and the
// per-process CPU seconds (from /proc) say who computed. The work: the
// heatmaps of -maps, one after the other, then one batch of -rows rows.
// It prints one line per set-up:
//
//	setup=js+1 maps_s=... map_s=a,b,c batch_s=... rows_per_s=... units=... cpu_s=appliance:x,w1:y
//
// and, per map, the coordination overhead of js+0 against local: the
// extra wall time of the same map on the same single core, per unit and
// as a share of the unit's compute.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/tenancy"
	"linkplan/store"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench-scaleout: FAIL:", err)
		os.Exit(1)
	}
}

type config struct {
	bin     string
	maps    string
	rows    int
	starts  int
	cpus    string
	setups  string
	work    string
	timeout time.Duration
	noPin   bool
	ackWait time.Duration
}

// A map of the bench: a name and its request body.
type benchMap struct {
	name, body string
}

// defaultMaps are the heatmaps of the bench: the 50 km Sumaré map of
// issue 9 (ITM, 90 m), the same with fspl, and a 20 km P.1812 map.
const defaultMaps = `itm50:{"site":{"lat":-22.9516,"lon":-43.2372,"height_m":50,"eirp_dbm":58},"frequency_mhz":900,"radius_km":50,"resolution_m":90,"engine":"itm"};` +
	`fspl50:{"site":{"lat":-22.9516,"lon":-43.2372,"height_m":50,"eirp_dbm":58},"frequency_mhz":900,"radius_km":50,"resolution_m":90,"engine":"fspl"};` +
	`p1812_20:{"site":{"lat":-22.93,"lon":-43.30,"height_m":30,"eirp_dbm":58},"frequency_mhz":1800,"radius_km":20,"resolution_m":90,"engine":"p1812"}`

func run() error {
	var c config
	flag.StringVar(&c.bin, "linkplan", "bin/linkplan", "linkplan binary")
	flag.StringVar(&c.maps, "maps", defaultMaps, "heatmaps, name:body separated by ';'")
	flag.IntVar(&c.rows, "rows", 20000, "rows of the batch (an Ultra key: at most 50,000)")
	flag.IntVar(&c.starts, "starts", 3, "start-ups measured per queue backend (0: none)")
	flag.StringVar(&c.cpus, "cpus", "", "CPU sets of the processes, ';'-separated, the appliance first (default: one CPU each from CPU 0 when the machine has them)")
	flag.StringVar(&c.setups, "setups", "local,js+0,js+1,js+2", "set-ups to run")
	flag.StringVar(&c.work, "work", "", "work directory (default: a temporary one, removed)")
	flag.DurationVar(&c.timeout, "timeout", time.Hour, "give up after this long")
	flag.BoolVar(&c.noPin, "no-pin", false, "never pin processes to CPUs")
	flag.DurationVar(&c.ackWait, "unit-ack-wait", 30*time.Second, "serve --unit-ack-wait")
	flag.Parse()
	if c.work == "" {
		d, err := os.MkdirTemp("", "bench-scaleout-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		c.work = d
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	var maps []benchMap
	for _, m := range strings.Split(c.maps, ";") {
		name, body, ok := strings.Cut(strings.TrimSpace(m), ":")
		if !ok {
			return fmt.Errorf("-maps: %q is not name:body", m)
		}
		maps = append(maps, benchMap{name, body})
	}
	cpuSets := pinning(c)
	fmt.Fprintf(os.Stderr, "bench-scaleout: %d CPUs; CPU sets (appliance first): %v\n", runtime.NumCPU(), cpuSets)

	if c.starts > 0 {
		for _, q := range []string{"bbolt", "jetstream"} {
			var ms, rss []float64
			for i := range c.starts {
				t, r, err := startCost(ctx, c, q, filepath.Join(c.work, fmt.Sprintf("start-%s-%d", q, i)))
				if err != nil {
					return err
				}
				ms, rss = append(ms, t), append(rss, r)
			}
			fmt.Printf("startup queue=%s ready_ms=%s median_ready_ms=%.0f rss_mib=%s median_rss_mib=%.1f\n", q, join(ms, "%.0f"), median(ms), join(rss, "%.1f"), median(rss))
		}
	}

	results := map[string]*setupResult{}
	for _, setup := range strings.Split(c.setups, ",") {
		r, err := runSetup(ctx, c, strings.TrimSpace(setup), maps, cpuSets)
		if err != nil {
			return fmt.Errorf("%s: %w", setup, err)
		}
		results[r.name] = r
		var mapS []string
		total := 0.0
		for _, m := range r.maps {
			mapS = append(mapS, fmt.Sprintf("%s=%.2f", m.name, m.wall.Seconds()))
			total += m.wall.Seconds()
		}
		var cpu []string
		for _, p := range r.cpu {
			cpu = append(cpu, fmt.Sprintf("%s:%.1f", p.name, p.seconds))
		}
		fmt.Printf("setup=%s maps_s=%.2f map_s=%s batch_s=%.2f rows_per_s=%.0f units=%d merged=%d duplicates_dropped=%d cpu_s=%s\n",
			r.name, total, strings.Join(mapS, ","), r.batch.Seconds(), float64(c.rows)/r.batch.Seconds(), r.units["published"], r.units["merged"],
			r.units["duplicates_dropped"], strings.Join(cpu, ","))
	}
	// Coordination overhead: js+0 against local, the same map on the same
	// one core; the difference is what units add (publish, transport,
	// encode and decode, merge, the server). In wall time, and in CPU
	// seconds of all the set-up's processes (steadier on a busy machine).
	local, js0 := results["local"], results["js+0"]
	if local != nil && js0 != nil {
		for i, m := range local.maps {
			j := js0.maps[i]
			units := float64(max(j.units, 1))
			fmt.Printf("overhead map=%s units=%d local_s=%.2f js0_s=%.2f wall_per_unit_ms=%.2f wall_pct=%.1f local_cpu_s=%.2f js0_cpu_s=%.2f cpu_per_unit_ms=%.2f unit_compute_cpu_ms=%.1f cpu_pct=%.1f\n",
				m.name, j.units, m.wall.Seconds(), j.wall.Seconds(), 1000*(j.wall-m.wall).Seconds()/units, 100*(j.wall-m.wall).Seconds()/m.wall.Seconds(),
				m.cpu, j.cpu, 1000*(j.cpu-m.cpu)/units, 1000*m.cpu/units, 100*(j.cpu-m.cpu)/m.cpu)
		}
		units := float64((c.rows + 255) / 256)
		fmt.Printf("overhead batch rows=%d units=%.0f local_s=%.2f js0_s=%.2f wall_pct=%.1f local_cpu_s=%.2f js0_cpu_s=%.2f cpu_per_unit_ms=%.2f cpu_pct=%.1f\n",
			c.rows, units, local.batch.Seconds(), js0.batch.Seconds(), 100*(js0.batch-local.batch).Seconds()/local.batch.Seconds(),
			local.batchCPU, js0.batchCPU, 1000*(js0.batchCPU-local.batchCPU)/units, 100*(js0.batchCPU-local.batchCPU)/local.batchCPU)
	}
	return nil
}

// pinning returns the CPU sets of the processes (appliance, worker 1,
// worker 2), or nil when they are not pinned.
func pinning(c config) []string {
	if c.noPin {
		return nil
	}
	if _, err := exec.LookPath("taskset"); err != nil {
		return nil
	}
	if c.cpus != "" {
		return strings.Split(c.cpus, ";")
	}
	if runtime.NumCPU() < 3 {
		// Two cores: the appliance on CPU 0, the workers share CPU 1.
		if runtime.NumCPU() == 2 {
			return []string{"0", "1", "1"}
		}
		return nil
	}
	return []string{"0", "1", "2"}
}

func join(v []float64, f string) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf(f, x)
	}
	return strings.Join(s, ",")
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// proc is a started process.
type proc struct {
	name string
	cmd  *exec.Cmd
	done chan error
	log  *os.File
}

func start(name string, cpus string, logPath string, bin string, args ...string) (*proc, error) {
	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	var cmd *exec.Cmd
	if cpus != "" {
		cmd = exec.Command("taskset", append([]string{"-c", cpus, bin}, args...)...)
	} else {
		cmd = exec.Command(bin, args...)
	}
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, err
	}
	p := &proc{name: name, cmd: cmd, done: make(chan error, 1), log: f}
	go func() { p.done <- cmd.Wait(); f.Close() }()
	return p, nil
}

// stop sends SIGTERM and waits (SIGKILL after 30 s).
func (p *proc) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// cpuSeconds reads the process's user+system CPU time from /proc.
func (p *proc) cpuSeconds() float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+2:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (u + st) / 100 // USER_HZ
}

func rssMiB(pid int) float64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

var servingAddr = regexp.MustCompile(`msg="linkplan serving" addr=(127\.0\.0\.1:[0-9]+)`)

// serve starts serve on dataDir and returns it with its address once
// ready, and the time that took.
func serve(ctx context.Context, c config, dataDir, cpus string, args ...string) (*proc, string, time.Duration, error) {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, "", 0, err
	}
	logPath := filepath.Join(dataDir, "serve.log")
	t0 := time.Now()
	p, err := start("appliance", cpus, logPath, c.bin, append([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", dataDir}, args...)...)
	if err != nil {
		return nil, "", 0, err
	}
	for {
		b, _ := os.ReadFile(logPath)
		if m := servingAddr.FindSubmatch(b); m != nil {
			base := "http://" + string(m[1])
			res, err := http.Get(base + "/health/ready")
			if err == nil {
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode == http.StatusOK {
					return p, base, time.Since(t0), nil
				}
			}
		}
		select {
		case err := <-p.done:
			return nil, "", 0, fmt.Errorf("serve exited: %v\n%s", err, b)
		case <-ctx.Done():
			p.stop()
			return nil, "", 0, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// startCost measures one start of serve with queue q: milliseconds to
// ready, and the resident set 2 s after.
func startCost(ctx context.Context, c config, q, dataDir string) (float64, float64, error) {
	p, _, took, err := serve(ctx, c, dataDir, "", "--queue", q, "--nats-listen", "127.0.0.1:0")
	if err != nil {
		return 0, 0, err
	}
	time.Sleep(2 * time.Second)
	rss := rssMiB(p.cmd.Process.Pid)
	p.stop()
	return float64(took.Milliseconds()), rss, nil
}

type mapResult struct {
	name  string
	wall  time.Duration
	units int64
	cpu   float64 // CPU seconds of every process of the set-up during the map
	delta map[string]int64
}

// unitDelta is the change of the appliance's unit counters between two
// readings.
func unitDelta(before, after map[string]int64) map[string]int64 {
	d := map[string]int64{}
	for k, v := range after {
		d[k] = v - before[k]
	}
	return d
}

// perUnit formats the per-unit figures of a counter delta: KiB of unit
// and result messages, ms of compute (the workers' own measure) and of
// round trip (publication to merge).
func perUnit(d map[string]int64) string {
	n := float64(max(d["merged"], 1))
	return fmt.Sprintf("unit_kib=%.1f result_kib=%.1f compute_ms=%.1f round_trip_ms=%.1f",
		float64(d["unit_bytes"])/1024/float64(max(d["published"], 1)), float64(d["result_bytes"])/1024/n,
		float64(d["compute_us"])/1000/n, float64(d["round_trip_us"])/1000/n)
}

type cpuUse struct {
	name    string
	seconds float64
}

type setupResult struct {
	name     string
	maps     []mapResult
	batch    time.Duration
	batchCPU float64
	units    map[string]int64
	cpu      []cpuUse
}

// runSetup runs the maps and the batch on one set-up.
func runSetup(ctx context.Context, c config, name string, maps []benchMap, cpuSets []string) (*setupResult, error) {
	dataDir := filepath.Join(c.work, name)
	key, err := issueKey(dataDir)
	if err != nil {
		return nil, err
	}
	cpu := func(i int) string {
		if i < len(cpuSets) {
			return cpuSets[i]
		}
		return ""
	}
	args := []string{"--heavy-workers", "1"}
	workers := 0
	if name != "local" {
		n, err := strconv.Atoi(strings.TrimPrefix(name, "js+"))
		if err != nil {
			return nil, fmt.Errorf("unknown set-up %q (local, js+N)", name)
		}
		workers = n
		args = append(args, "--queue", "jetstream", "--nats-listen", "127.0.0.1:0", "--unit-ack-wait", c.ackWait.String())
	}
	app, base, _, err := serve(ctx, c, dataDir, cpu(0), args...)
	if err != nil {
		return nil, err
	}
	defer app.stop()
	procs := []*proc{app}
	if workers > 0 {
		url, err := os.ReadFile(filepath.Join(dataDir, "nats", "worker.url"))
		if err != nil {
			return nil, err
		}
		for i := 1; i <= workers; i++ {
			id := "w" + strconv.Itoa(i)
			wd := filepath.Join(dataDir, id)
			_ = os.MkdirAll(wd, 0o700)
			w, err := start(id, cpu(i), filepath.Join(dataDir, id+".log"), c.bin, "worker", "--nats", strings.TrimSpace(string(url)),
				"--data", wd, "--id", id, "--slots", "1")
			if err != nil {
				return nil, err
			}
			defer w.stop()
			procs = append(procs, w)
		}
		if err := waitWorkers(ctx, base, workers); err != nil {
			return nil, err
		}
	}
	cpu0 := make([]float64, len(procs))
	for i, p := range procs {
		cpu0[i] = p.cpuSeconds()
	}
	allCPU := func() float64 {
		s := 0.0
		for _, p := range procs {
			s += p.cpuSeconds()
		}
		return s
	}
	r := &setupResult{name: name}
	prev := unitCounts(base)
	for _, m := range maps {
		t0, c0 := time.Now(), allCPU()
		if err := runMap(ctx, base, key, m.body); err != nil {
			return nil, fmt.Errorf("map %s: %w", m.name, err)
		}
		wall := time.Since(t0)
		u := unitCounts(base)
		d := unitDelta(prev, u)
		r.maps = append(r.maps, mapResult{name: m.name, wall: wall, units: d["merged"], cpu: allCPU() - c0, delta: d})
		prev = u
		fmt.Fprintf(os.Stderr, "bench-scaleout: %s: map %s %.2f s, %.2f CPU s, %d units\n", name, m.name, wall.Seconds(), r.maps[len(r.maps)-1].cpu, r.maps[len(r.maps)-1].units)
		if d["merged"] > 0 {
			fmt.Printf("units setup=%s work=%s units=%d %s\n", name, m.name, d["merged"], perUnit(d))
		}
	}
	t0, c0 := time.Now(), allCPU()
	if err := runBatch(ctx, base, key, c.rows); err != nil {
		return nil, fmt.Errorf("batch: %w", err)
	}
	r.batch, r.batchCPU = time.Since(t0), allCPU()-c0
	r.units = unitCounts(base)
	if d := unitDelta(prev, r.units); d["merged"] > 0 {
		fmt.Printf("units setup=%s work=batch%d units=%d %s\n", name, c.rows, d["merged"], perUnit(d))
	}
	for i, p := range procs {
		r.cpu = append(r.cpu, cpuUse{p.name, p.cpuSeconds() - cpu0[i]})
	}
	return r, nil
}

// issueKey creates the data directory and issues one Ultra key.
func issueKey(dataDir string) (string, error) {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return "", err
	}
	db, err := store.Open(dataDir, store.Options{})
	if err != nil {
		return "", err
	}
	defer db.Close()
	plain, _, err := tenancy.New(db, nil).Issue(tenancy.IssueRequest{Tier: appliance.TierUltra, Role: appliance.RoleTenant, Owner: "bench", Email: "bench@example.com"})
	return plain, err
}

type readiness struct {
	Details struct {
		NATS struct {
			Units map[string]int64 `json:"units"`
		} `json:"nats"`
		Workers struct {
			Workers []struct {
				ID    string `json:"id"`
				State string `json:"state"`
			} `json:"workers"`
		} `json:"workers"`
	} `json:"details"`
}

func ready(base string) (readiness, error) {
	var r readiness
	res, err := http.Get(base + "/health/ready")
	if err != nil {
		return r, err
	}
	defer res.Body.Close()
	return r, json.NewDecoder(res.Body).Decode(&r)
}

func unitCounts(base string) map[string]int64 {
	r, err := ready(base)
	if err != nil || r.Details.NATS.Units == nil {
		return map[string]int64{}
	}
	return r.Details.NATS.Units
}

// waitWorkers waits for n ready workers besides the appliance's own.
func waitWorkers(ctx context.Context, base string, n int) error {
	for {
		r, err := ready(base)
		if err == nil {
			k := 0
			for _, w := range r.Details.Workers.Workers {
				if w.State == "ready" && strings.HasPrefix(w.ID, "w") {
					k++
				}
			}
			if k >= n {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return errors.New("workers not ready")
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// runMap posts a heatmap and reads its stream to the summary.
func runMap(ctx context.Context, base, key, body string) error {
	req, err := http.NewRequestWithContext(ctx, "POST", base+"/coverage/heatmap", strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("X-API-Key", key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(res.Body)
		return fmt.Errorf("status %d: %s", res.StatusCode, b)
	}
	rd := bufio.NewReader(res.Body)
	typ := ""
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			return fmt.Errorf("stream ended without a summary: %w", err)
		}
		if v, ok := strings.CutPrefix(line, "event: "); ok {
			typ = strings.TrimSpace(v)
		}
		if strings.HasPrefix(line, "data: ") {
			switch typ {
			case "summary":
				return nil
			case "error":
				return errors.New(strings.TrimSpace(line))
			}
		}
	}
}

// runBatch submits a batch of n rows over Rio and waits for it.
func runBatch(ctx context.Context, base, key string, n int) error {
	rng := rand.New(rand.NewPCG(28, 4))
	var b strings.Builder
	b.WriteString(`{"options":{"pdfs":false},"rows":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"r%05d","receiver":{"lat":%.6f,"lon":%.6f,"height":10},"frequency_mhz":%g,"max_distance_km":%d}`,
			i, -22.99+0.19*rng.Float64(), -43.70+0.60*rng.Float64(), []float64{700, 1800, 2600}[rng.IntN(3)], 5+rng.IntN(25))
	}
	b.WriteString(`]}`)
	req, err := http.NewRequestWithContext(ctx, "POST", base+"/batch_reports", strings.NewReader(b.String()))
	if err != nil {
		return err
	}
	req.Header.Set("X-API-Key", key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	var job struct {
		ID string `json:"id"`
	}
	err = json.NewDecoder(res.Body).Decode(&job)
	res.Body.Close()
	if err != nil || res.StatusCode != http.StatusAccepted {
		return fmt.Errorf("submit: %d %v", res.StatusCode, err)
	}
	for {
		req, _ := http.NewRequestWithContext(ctx, "GET", base+"/jobs/"+job.ID, nil)
		req.Header.Set("X-API-Key", key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		var j struct {
			State string  `json:"state"`
			Error *string `json:"error"`
		}
		_ = json.NewDecoder(res.Body).Decode(&j)
		res.Body.Close()
		if res.StatusCode == http.StatusTooManyRequests {
			time.Sleep(time.Second) // the read rate of the key
			continue
		}
		switch j.State {
		case "succeeded":
			return nil
		case "failed", "canceled":
			return fmt.Errorf("job %s: %v", j.State, j.Error)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
