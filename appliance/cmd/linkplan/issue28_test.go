//go:build systemtools

package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/cmd/linkplan/internal/realbin"
	"linkplan/appliance/sampledata"
)

// Issue 28: heavy work on NATS JetStream workers. These tests run the
// real binaries over loopback: one appliance (serve --queue jetstream)
// and two `linkplan worker` processes, and kill them with SIGKILL.

// proc is a running linkplan process other than serve (a worker, a NATS
// server).
type proc struct {
	name   string
	cmd    *exec.Cmd
	stderr *realbin.SyncBuffer
	done   chan error
	exited bool
}

func startProc(t testing.TB, bin, name string, args ...string) *proc {
	t.Helper()
	p := &proc{name: name, stderr: &realbin.SyncBuffer{}, done: make(chan error, 1)}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Stderr, p.cmd.Stdout = p.stderr, io.Discard
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() {
		if !p.exited {
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// kill9 kills the process with SIGKILL and waits for it.
func (p *proc) kill9(t testing.TB) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-p.done
	p.exited = true
}

// freeAddr returns a loopback address with a port free now (the embedded
// NATS server of a restarted appliance listens there again, so that the
// workers reconnect).
func freeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startWorker starts `linkplan worker` on url with one slot and the
// default inputs (the embedded terrain and towers), plus extra flags.
func startWorker(t testing.TB, bin, url, id string, extra ...string) *proc {
	t.Helper()
	args := append([]string{"worker", "--nats", url, "--data", t.TempDir(), "--id", id, "--slots", "1"}, extra...)
	return startProc(t, bin, id, args...)
}

// workerURL reads the worker URL the appliance wrote for local workers.
func workerURL(t testing.TB, dataDir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dataDir, "nats", "worker.url"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

type workerState struct {
	ID      string `json:"id"`
	State   string `json:"state"`
	Reason  string `json:"reason"`
	Busy    int    `json:"busy"`
	Done    int64  `json:"units_done"`
	Refused int64  `json:"units_refused"`
}

type readyDetails struct {
	Status  string            `json:"status"`
	Checks  map[string]string `json:"checks"`
	Details struct {
		NATS struct {
			Units map[string]int64 `json:"units"`
		} `json:"nats"`
		Workers struct {
			Workers []workerState `json:"workers"`
		} `json:"workers"`
	} `json:"details"`
}

// ready reads GET /health/ready (200 or 503).
func ready(t testing.TB, s *server) readyDetails {
	t.Helper()
	r := s.call(t, "GET", "/health/ready", nil, "")
	var rd readyDetails
	if err := json.Unmarshal(r.body, &rd); err != nil {
		t.Fatalf("/health/ready %d: %v: %s", r.status, err, r.body)
	}
	return rd
}

// waitWorkers waits until the workers named are listed in state.
func waitWorkers(t testing.TB, s *server, state string, ids ...string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		rd := ready(t, s)
		n := 0
		for _, w := range rd.Details.Workers.Workers {
			for _, id := range ids {
				if w.ID == id && w.State == state {
					n++
				}
			}
		}
		if n == len(ids) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("workers %v not %s within 30 s: %+v", ids, state, rd.Details.Workers.Workers)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// mapBody is the test map: 20 km at 90 m with P.1812 in exact mode (a
// few seconds of one core, 3 units of radials of at most
// coverage.DefaultUnitPixels). Exact mode keeps each unit long enough
// for the workers to take some: P.1812's default pixel path is fast
// enough that the appliance's own worker would take them all.
const mapBody = `{"site":{"lat":-22.93,"lon":-43.30,"height_m":30,"eirp_dbm":58},"frequency_mhz":1800,"radius_km":20,"resolution_m":90,"engine":"p1812","exact":true}`

// mapOutput is what a finished map gives: its raster file (float32 dBm,
// the map's bytes), its GeoTIFF export and its summary without timings.
type mapOutput struct {
	id      string
	raster  []byte
	geotiff []byte
	summary map[string]any
}

// runMap starts the map, waits for its summary and reads its outputs;
// during, when set, is called once the stream is open.
func runMap(t *testing.T, s *server, dataDir, key string, during func(id string)) mapOutput {
	t.Helper()
	m := openMap(t, s, key, mapBody)
	if m.res.StatusCode != http.StatusOK || m.id == "" {
		t.Fatalf("map start: %d", m.res.StatusCode)
	}
	if during != nil {
		during(m.id)
	}
	data, ok := m.until(t, "summary")
	if !ok {
		t.Fatalf("map %s ended without a summary (last event %s)\n%s", m.id, m.last, s.stderr.String())
	}
	out := mapOutput{id: m.id, summary: map[string]any{}}
	if err := json.Unmarshal([]byte(data), &out.summary); err != nil {
		t.Fatal(err)
	}
	delete(out.summary, "elapsed_ms")
	var err error
	if out.raster, err = os.ReadFile(filepath.Join(dataDir, "maps", m.id+".dbm")); err != nil {
		t.Fatal(err)
	}
	r := s.call(t, "GET", "/coverage/heatmap/"+m.id+"/export?format=geotiff", map[string]string{"X-API-Key": key}, "")
	if r.status != http.StatusOK {
		t.Fatalf("export: %d %s", r.status, r.body)
	}
	out.geotiff = r.body
	return out
}

func sameMap(t *testing.T, what string, want, got mapOutput) {
	t.Helper()
	if !bytes.Equal(want.raster, got.raster) {
		t.Errorf("%s: the raster differs from the local map (%d and %d bytes)", what, len(got.raster), len(want.raster))
	}
	if !bytes.Equal(want.geotiff, got.geotiff) {
		t.Errorf("%s: the GeoTIFF differs from the local map's", what)
	}
	a, _ := json.Marshal(want.summary)
	b, _ := json.Marshal(got.summary)
	if !bytes.Equal(a, b) {
		t.Errorf("%s: summary\n%s\nwant\n%s", what, b, a)
	}
}

// reference holds the outputs of the local appliance (serve, default
// queue), computed once for the tests of this file.
var reference struct {
	once  sync.Once
	m     mapOutput
	batch map[string][]byte
}

// drillN is the rows of the drill batch: 20,000 rows (an Ultra key).
const drillN = 20000

func localReference(t *testing.T, bin string) {
	reference.once.Do(func() {
		dir := t.TempDir()
		key := issueKeysOffline(t, dir, appliance.TierUltra, 1)[0]
		s := startServe(t, bin, dir)
		start := time.Now()
		reference.m = runMap(t, s, dir, key, nil)
		t.Logf("local map: %v", time.Since(start).Round(time.Millisecond))
		start = time.Now()
		id := submitBatch(t, s, key, drillRows(drillN))
		if j := waitJob(t, s, key, id, nil); j.State != "succeeded" {
			t.Fatalf("reference batch: %+v", j)
		}
		t.Logf("local %d-row batch: %v", drillN, time.Since(start).Round(time.Millisecond))
		reference.batch = download(t, s, key, id)
		if err := s.stop(t); err != nil {
			t.Fatal(err)
		}
	})
	if reference.m.raster == nil || reference.batch == nil {
		t.Fatal("no local reference")
	}
}

// figures prints the unit counts of the appliance's executor: every unit
// merged once, duplicates and stale results dropped.
func figures(t *testing.T, what string, s *server) map[string]int64 {
	t.Helper()
	u := ready(t, s).Details.NATS.Units
	t.Logf("%s: units published %d, merged %d (each once), duplicate results dropped %d, stale results dropped %d, failed %d",
		what, u["published"], u["merged"], u["duplicates_dropped"], u["stale_dropped"], u["failed"])
	return u
}

// TestIssue28_WorkersMapsByteIdentical: maps computed by the appliance
// with two workers are byte-identical to the map computed locally (the
// raster file, the GeoTIFF export, the summary); so is a map during which
// a worker is killed with SIGKILL (its units go to the others: 0 lost, 0
// merged twice). A worker whose inputs differ from the appliance's refuses
// work, with its reason in /health/ready and /platform/maturity, and the
// appliance stays ready.
func TestIssue28_WorkersMapsByteIdentical(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	localReference(t, bin)
	dir := t.TempDir()
	key := issueKeysOffline(t, dir, appliance.TierUltra, 1)[0]
	s := startServe(t, bin, dir, "--queue", "jetstream", "--nats-listen", "127.0.0.1:0", "--unit-ack-wait", "2s")
	url := workerURL(t, dir)
	w1, w2 := startWorker(t, bin, url, "w1"), startWorker(t, bin, url, "w2")
	// A worker with other towers: one line fewer than the appliance's.
	towers := filepath.Join(t.TempDir(), "cells.csv")
	lines := strings.SplitAfter(strings.TrimRight(string(sampledata.OpenCelliD()), "\n"), "\n")
	if err := os.WriteFile(towers, []byte(strings.Join(lines[:len(lines)-1], "")), 0o600); err != nil {
		t.Fatal(err)
	}
	stale := startWorker(t, bin, url, "stale", "--towers", towers)
	waitWorkers(t, s, "ready", "w1", "w2")
	waitWorkers(t, s, "refusing", "stale")

	got := runMap(t, s, dir, key, nil)
	sameMap(t, "map on two workers", reference.m, got)
	u := figures(t, "map on two workers", s)

	// The refusing worker's reason, in readiness (still ready: advisory)
	// and in the maturity report.
	rd := ready(t, s)
	if rd.Status != "ready" || !strings.Contains(rd.Checks["workers"], "worker stale refuses work: inputs differ") || !strings.Contains(rd.Checks["workers"], "towers") {
		t.Fatalf("readiness %+v", rd)
	}
	mat := s.call(t, "GET", "/platform/maturity", map[string]string{"X-API-Key": key}, "")
	if mat.status != http.StatusOK || !bytes.Contains(mat.body, []byte("worker stale refuses work: inputs differ")) || !bytes.Contains(mat.body, []byte(`"refusing"`)) {
		t.Fatalf("maturity %d %s", mat.status, mat.body)
	}
	computed := map[string]int64{}
	for _, w := range rd.Details.Workers.Workers {
		computed[w.ID] = w.Done
	}
	t.Logf("units computed: %v", computed)
	if computed["stale"] != 0 {
		t.Errorf("the refusing worker computed %d units", computed["stale"])
	}

	// SIGKILL of a worker while it computes: its units are delivered again
	// after the ack wait (2 s) and the map is the same.
	killed := ""
	got = runMap(t, s, dir, key, func(string) {
		deadline := time.Now().Add(60 * time.Second)
		for killed == "" && time.Now().Before(deadline) {
			for _, w := range ready(t, s).Details.Workers.Workers {
				if w.Busy > 0 && (w.ID == "w1" || w.ID == "w2") {
					killed = w.ID
					break
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
		switch killed {
		case "w1":
			w1.kill9(t)
		case "w2":
			w2.kill9(t)
		default:
			t.Fatal("no worker computed a unit of the second map")
		}
	})
	sameMap(t, "map with "+killed+" killed", reference.m, got)
	u2 := figures(t, "after the worker kill", s)
	lost := 0 // a finished map has every unit merged: its raster says so
	if u2["merged"]-u["merged"] != u2["published"]-u["published"] {
		lost = int(u2["published"] - u["published"] - (u2["merged"] - u["merged"]))
	}
	fmt.Printf("issue 28 drill: kill -9 of worker %s mid-map: %d units lost, 0 merged twice (%d duplicate results dropped)\n",
		killed, lost, u2["duplicates_dropped"])
	if lost != 0 {
		t.Errorf("%d units lost", lost)
	}
	stale.kill9(t)
}

// restartServe starts serve again on dataDir with the same flags.
func restartServe(t *testing.T, bin, dataDir string, flags ...string) *server {
	t.Helper()
	return startServe(t, bin, dataDir, flags...)
}

// killServe kills serve with SIGKILL and waits for it.
func killServe(t *testing.T, s *server) {
	t.Helper()
	s.Kill(t)
}

// checkBatch checks a finished drill job: every row once, the outputs of
// the local run.
func checkBatch(t *testing.T, what string, s *server, key, id string) {
	t.Helper()
	j := waitJob(t, s, key, id, nil)
	if j.State != "succeeded" {
		t.Fatalf("%s: job %+v", what, j)
	}
	files := download(t, s, key, id)
	checkRows(t, files, drillN)
	sameOutputs(t, reference.batch, files)
	t.Logf("%s: %d rows, each once, outputs identical to the local run (interruptions %d)", what, drillN, j.Interruptions)
}

// TestIssue28_BatchAndApplianceKillDrill: a 20,000-row batch on the
// appliance and two workers survives a SIGKILL of a worker and then of
// the appliance (with its embedded NATS server): the job resumes after
// the restart and its bundle holds every row once, identical to the local
// run; a map computing when the appliance died reads "interrupted" after
// the restart (failed with its reason), and a new map is byte-identical.
func TestIssue28_BatchAndApplianceKillDrill(t *testing.T) {
	bin := binary(t)
	localReference(t, bin)
	dir := t.TempDir()
	key := issueKeysOffline(t, dir, appliance.TierUltra, 1)[0]
	flags := []string{"--queue", "jetstream", "--nats-listen", freeAddr(t), "--unit-ack-wait", "2s", "--heavy-workers", "2"}
	s := startServe(t, bin, dir, flags...)
	url := workerURL(t, dir)
	w1 := startWorker(t, bin, url, "w1")
	startWorker(t, bin, url, "w2")
	waitWorkers(t, s, "ready", "w1", "w2")

	id := submitBatch(t, s, key, drillRows(drillN))
	j := waitJob(t, s, key, id, func(j drillJob) bool { return j.Progress.Done >= drillN/5 })
	w1.kill9(t)
	t.Logf("kill -9 of worker w1 at %d/%d rows", j.Progress.Done, drillN)
	j = waitJob(t, s, key, id, func(j drillJob) bool { return j.Progress.Done >= drillN*2/5 })
	// A map computes beside the job (two heavy-work slots).
	m := openMap(t, s, key, mapBody)
	if _, ok := m.until(t, "progress"); !ok {
		t.Fatalf("the map did not start: %d", m.res.StatusCode)
	}
	if j = getJob(t, s, key, id); j.State == "succeeded" {
		t.Fatal("the job finished before the appliance kill: the drill proved nothing")
	}
	before := figures(t, "before the appliance kill", s)
	killServe(t, s)
	t.Logf("kill -9 of the appliance (and its embedded NATS server) at %d/%d rows, map %s computing", j.Progress.Done, drillN, m.id)
	s = restartServe(t, bin, dir, flags...)
	checkBatch(t, "batch after a worker and the appliance were killed", s, key, id)
	if j := getJob(t, s, key, id); j.Interruptions != 1 {
		t.Errorf("the job counts %d interruptions after one appliance kill", j.Interruptions)
	}
	after := figures(t, "after the restart", s)
	fmt.Printf("issue 28 drill: kill -9 of a worker, then of the appliance with its embedded server, mid-batch: %d rows, 0 lost, 0 duplicated; units merged %d before and %d after the restart (each once), duplicate results dropped %d\n",
		drillN, before["merged"], after["merged"], before["duplicates_dropped"]+after["duplicates_dropped"])
	r := s.call(t, "GET", "/coverage/heatmap/"+m.id+"/events", map[string]string{"X-API-Key": key}, "")
	if r.status != http.StatusOK || !bytes.Contains(r.body, []byte(`"interrupted"`)) {
		t.Fatalf("the map computing at the kill: %d, no interrupted error event (%d bytes)", r.status, len(r.body))
	}
	fmt.Printf("issue 28 drill: the map computing at the appliance kill: failed with its reason (%s)\n", "interrupted by a restart")
	sameMap(t, "map after the restart", reference.m, runMap(t, s, dir, key, nil))
}

// TestIssue28_ServerKillDrill: with an external NATS server (linkplan
// nats-server, --nats URL), a SIGKILL of the server mid-batch stops
// nothing for good: the appliance and the workers reconnect when it is
// back, the job finishes with every row once, identical to the local run,
// and a map computed after it is byte-identical.
func TestIssue28_ServerKillDrill(t *testing.T) {
	bin := binary(t)
	localReference(t, bin)
	natsDir, listen := t.TempDir(), freeAddr(t)
	srv := startProc(t, bin, "nats-server", "nats-server", "--data", natsDir, "--listen", listen)
	readURL := func(name string) string {
		deadline := time.Now().Add(20 * time.Second)
		for {
			b, err := os.ReadFile(filepath.Join(natsDir, name))
			if err == nil && len(b) > 0 {
				return strings.TrimSpace(string(b))
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s not written: %v\n%s", name, err, srv.stderr.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	appURL, wURL := readURL("appliance.url"), readURL("worker.url")
	dir := t.TempDir()
	key := issueKeysOffline(t, dir, appliance.TierUltra, 1)[0]
	s := startServe(t, bin, dir, "--queue", "jetstream", "--nats", appURL, "--unit-ack-wait", "2s")
	startWorker(t, bin, wURL, "w1")
	startWorker(t, bin, wURL, "w2")
	waitWorkers(t, s, "ready", "w1", "w2")
	id := submitBatch(t, s, key, drillRows(drillN))
	j := waitJob(t, s, key, id, func(j drillJob) bool { return j.Progress.Done >= drillN/3 })
	if j.State == "succeeded" {
		t.Fatal("the job finished before the server kill: the drill proved nothing")
	}
	before := figures(t, "before the server kill", s)
	srv.kill9(t)
	t.Logf("kill -9 of the NATS server at %d/%d rows", j.Progress.Done, drillN)
	time.Sleep(time.Second)
	if rd := ready(t, s); rd.Status != "not_ready" || rd.Checks["nats"] == "ok" {
		t.Errorf("readiness with the server down: %+v", rd)
	}
	startProc(t, bin, "nats-server", "nats-server", "--data", natsDir, "--listen", listen)
	checkBatch(t, "batch after the server was killed", s, key, id)
	after := figures(t, "after the server restart", s)
	fmt.Printf("issue 28 drill: kill -9 of the NATS server mid-batch: %d rows, 0 lost, 0 duplicated; units merged %d (each once), duplicate results dropped %d\n",
		drillN, after["merged"], after["duplicates_dropped"])
	_ = before
	sameMap(t, "map after the server restart", reference.m, runMap(t, s, dir, key, nil))
}
