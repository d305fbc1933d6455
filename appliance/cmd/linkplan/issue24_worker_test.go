//go:build systemtools

package main_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/cmd/linkplan/internal/realbin"
	"linkplan/engines/raytrace"
)

// The local raytrace worker on the real binary (issue 24, scope 4): serve
// starts `linkplan raytrace-worker`, engine raytrace on the analysis
// routes answers 202 with a raytrace_link job, and the worker's death
// never touches the appliance.

const i24Lat, i24Lon = realbin.BlockLat, realbin.BlockLon // Rio, on the embedded terrain

// i24Pair is an /analyze body over layer: a 30 m transmitter north-west
// of the block and a street-level receiver inside it; order reflections.
func i24Pair(layer string, order int) string {
	f := raytrace.NewFrame(appliance.LatLon{Lat: i24Lat, Lon: i24Lon})
	tx, rx := f.ToLatLon(-150, 140), f.ToLatLon(5, -5)
	return fmt.Sprintf(`{"tower":{"lat":%.7f,"lon":%.7f,"height_m":30,"power":40},"receiver":{"lat":%.7f,"lon":%.7f,"height_m":1.5},"frequency_mhz":3500,`+
		`"engine":"raytrace","raytrace":{"layer_id":%q,"max_reflections":%d,"diffraction_range_m":2000}}`, tx.Lat, tx.Lon, rx.Lat, rx.Lon, layer, order)
}

// workerPID is the pid of serve's raytrace worker (a child of s running
// `linkplan raytrace-worker`), waiting up to 60 s for one that differs
// from not (0: any).
func workerPID(t *testing.T, s *server, not int) int {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if pid := childWorker(s.cmd.Process.Pid); pid != 0 && pid != not {
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("no raytrace worker child of serve (pid %d) other than %d\n%s", s.cmd.Process.Pid, not, s.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// childWorker scans /proc for a child of ppid whose command line is
// `... raytrace-worker ...`; 0 if none.
func childWorker(ppid int) int {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if procPPid(pid) != ppid {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if strings.Contains(string(cmdline), "raytrace-worker\x00") {
			return pid
		}
	}
	return 0
}

// procPPid is the parent pid of pid from /proc/PID/stat (-1 if gone).
func procPPid(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	// pid (comm) state ppid ...: comm may hold spaces, so cut at the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return -1
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return -1
	}
	p, _ := strconv.Atoi(f[1])
	return p
}

// procAlive says whether pid exists and is not a zombie.
func procAlive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && len(s) > i+2 && s[i+2] != 'Z'
}

// i24Result is the downloaded result of a raytrace_link job.
type i24Result struct {
	EngineVersion string         `json:"engine_version"`
	Options       map[string]any `json:"options"`
	Links         []struct {
		Reachable  bool              `json:"reachable"`
		PathLossDB *float64          `json:"path_loss_db"`
		Paths      []json.RawMessage `json:"paths"`
	} `json:"links"`
}

// i24Options checks the options an answer states against want.
func i24Options(t *testing.T, what string, got, want map[string]any) {
	t.Helper()
	for k, w := range want {
		if g, ok := got[k]; !ok || g != w {
			t.Errorf("%s: options[%s] = %v (stated: %v), want %v; options %v", what, k, g, ok, w, got)
		}
	}
}

func i24Download(t *testing.T, s *server, key, id string) i24Result {
	t.Helper()
	r := s.call(t, "GET", "/jobs/"+id+"/download", map[string]string{"X-API-Key": key}, "")
	if r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
		t.Fatalf("download %s: %d %s %.300s", id, r.status, r.header.Get("Content-Type"), r.body)
	}
	var out i24Result
	if err := json.Unmarshal(r.body, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Links) != 1 || !out.Links[0].Reachable || out.Links[0].PathLossDB == nil || len(out.Links[0].Paths) == 0 || out.EngineVersion != raytrace.Version {
		t.Fatalf("result of %s: %s", id, r.body)
	}
	return out
}

// killWorkerMidUnit waits until job id runs, then until the worker has
// spent cpu of CPU time on it (it spends none while idle), kill -9s the
// worker and returns its pid.
func killWorkerMidUnit(t *testing.T, s *server, key, id string, cpu time.Duration) int {
	t.Helper()
	j := waitJob(t, s, key, id, func(j drillJob) bool { return j.State == "running" })
	if j.State != "running" {
		t.Fatalf("job ended before the kill: %+v", j)
	}
	pid := workerPID(t, s, 0)
	c0 := procCPU(pid)
	for deadline := time.Now().Add(60 * time.Second); procCPU(pid)-c0 < cpu; time.Sleep(2 * time.Millisecond) {
		if j := getJob(t, s, key, id); j.State != "running" || time.Now().After(deadline) {
			t.Fatalf("the unit ended before the kill point (%v of the worker's CPU): %+v; the test's unit is too short", cpu, j)
		}
	}
	used := procCPU(pid) - c0
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	t.Logf("kill -9 of raytrace worker %d after %v of its CPU on job %s", pid, used, id)
	return pid
}

// procCPU is the CPU time process pid has used (user and system, all
// threads; /proc/PID/stat in clock ticks of 10 ms, Linux's USER_HZ);
// 0 when it is gone.
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.Atoi(f[11]) // utime: field 14 of stat, 12th after the name
	k, _ := strconv.Atoi(f[12]) // stime
	return time.Duration(u+k) * 10 * time.Millisecond
}

// TestIssue24_WorkerKillMidJob: kill -9 of the raytrace worker while it
// traces a job's unit → the job is queued again (interruption counted,
// error saying the raytrace worker stopped) and succeeds on the worker
// serve restarted, with the answer of an uninterrupted run; a second
// job's worker killed twice is quarantined with its reason; serve stays
// the same process and ready throughout, its other routes answering. A
// job running when serve itself is killed (-9: its worker dies with it)
// survives the restart and succeeds.
func TestIssue24_WorkerKillMidJob(t *testing.T) {
	top := t // serve's lifetime is the test's, not a subtest's
	bin := binary(t)
	dir := t.TempDir()
	s := startServe(t, bin, dir)
	key := issueKey(t, s, dir, "Enterprise")
	s.WaitRaytraceWorkerOK(t) // ready does not wait for the worker: it is optional
	layer := s.UploadBlock(t, key, 10)
	body := i24Pair(layer, 3) // order 3 over 100 buildings: a unit of a few seconds

	// The reference: an uninterrupted run, measured by the CPU time the
	// worker spends on it (it uses none while idle), which a loaded
	// machine does not stretch as it does the wall time.
	pid := workerPID(t, s, 0)
	c0 := procCPU(pid)
	ref := s.SubmitJob(t, key, "/analyze", body)
	if j := waitJob(t, s, key, ref, nil); j.State != "succeeded" || j.Interruptions != 0 {
		t.Fatalf("reference job %+v\n%s", j, s.stderr.String())
	}
	cold := procCPU(pid) - c0
	want := i24Download(t, s, key, ref)
	// The first run builds the layer's scene in the worker's cache; the
	// kill point comes from a second run on the warm worker, the shortest.
	c0 = procCPU(pid)
	ref2 := s.SubmitJob(t, key, "/analyze", body)
	if j := waitJob(t, s, key, ref2, nil); j.State != "succeeded" || j.Interruptions != 0 {
		t.Fatalf("second reference job %+v\n%s", j, s.stderr.String())
	}
	warm := procCPU(pid) - c0
	t.Logf("reference: one unit takes the worker %v of CPU cold, %v warm; path loss %.3f dB over %d paths", cold, warm, *want.Links[0].PathLossDB, len(want.Links[0].Paths))
	if warm < 200*time.Millisecond || cold < 200*time.Millisecond {
		t.Fatalf("the unit took %v of CPU cold, %v warm: too short to kill the worker inside it", cold, warm)
	}
	// Kill points inside the unit, by the worker's CPU time since the job
	// went running: on a worker that traced this layer before (after), and
	// on a worker just restarted, whose cache is empty (afterCold). A
	// wall-clock point missed the unit once it took 0.45 s: after a
	// restart the job waits for the new worker while it reads running.
	after, afterCold := warm/4, cold/4

	t.Run("retried after one death", func(t *testing.T) {
		id := s.SubmitJob(t, key, "/analyze", body)
		killed := killWorkerMidUnit(t, s, key, id, after)
		// While the worker is down or restarting the appliance is ready
		// and answers its other routes.
		c := s.RaytraceWorker(t)
		alive(t, s)
		if r := s.call(t, "GET", "/coverage/engines", map[string]string{"X-API-Key": key}, ""); r.status != http.StatusOK {
			t.Fatalf("/coverage/engines while the worker restarts: %d", r.status)
		}
		t.Logf("raytrace_worker check right after the kill: %q", c)
		j := waitJob(t, s, key, id, nil)
		// The retry's success clears the job's error; the interruption
		// stays counted and the log says what stopped.
		if j.State != "succeeded" || j.Interruptions != 1 {
			t.Fatalf("after one death: %+v\n%s", j, s.stderr.String())
		}
		if !logHas(s, id, "jobs: executor stopped while the job ran; queued again on probation", `executor="raytrace worker"`, "killed") {
			t.Errorf("no WARN line for the worker's death under job %s:\n%s", id, logLines(s, id))
		}
		got := i24Download(t, s, key, id)
		if *got.Links[0].PathLossDB != *want.Links[0].PathLossDB || len(got.Links[0].Paths) != len(want.Links[0].Paths) {
			t.Errorf("retried answer %.3f dB, %d paths; uninterrupted %.3f dB, %d paths",
				*got.Links[0].PathLossDB, len(got.Links[0].Paths), *want.Links[0].PathLossDB, len(want.Links[0].Paths))
		}
		if procAlive(killed) {
			t.Errorf("the killed worker %d still runs", killed)
		}
		if now := workerPID(t, s, killed); now == killed {
			t.Fatal("no new worker")
		}
		s.WaitRaytraceWorkerOK(t)
		// /health/ready says the worker restarted and how the killed one ended.
		var rep struct {
			Details struct {
				RaytraceWorker struct {
					Status, State string
					LastExit      string `json:"last_exit"`
					PID, Restarts int
				} `json:"raytrace_worker"`
			} `json:"details"`
		}
		if r := s.call(t, "GET", "/health/ready", nil, ""); json.Unmarshal(r.body, &rep) != nil {
			t.Fatalf("/health/ready %d %s", r.status, r.body)
		}
		if w := rep.Details.RaytraceWorker; w.Status != "ok" || w.State != "ready" || w.Restarts < 1 || w.PID == 0 || w.PID == killed || !strings.Contains(w.LastExit, "kill") {
			t.Errorf("details.raytrace_worker after the worker's death: %+v", w)
		} else {
			t.Logf("details.raytrace_worker: %+v", w)
		}
		t.Logf("job %s: succeeded after one worker death", id)
	})

	t.Run("quarantined after two deaths", func(t *testing.T) {
		id := s.SubmitJob(t, key, "/analyze", body)
		first := killWorkerMidUnit(t, s, key, id, after)
		s.WaitRaytraceWorkerOK(t)
		second := killWorkerMidUnit(t, s, key, id, afterCold)
		j := waitJob(t, s, key, id, nil)
		if j.State != "failed" || j.Error == nil || *j.Error != appliance.QuarantineReason("raytrace worker") {
			t.Fatalf("after two deaths (workers %d, %d): %+v\n%s", first, second, j, s.stderr.String())
		}
		alive(t, s)
		s.RaytraceWorker(t)
		if r := s.call(t, "GET", "/jobs/"+id+"/download", map[string]string{"X-API-Key": key}, ""); r.status != http.StatusConflict {
			t.Errorf("download of the quarantined job: %d %s", r.status, r.body)
		}
		// The job's state is committed before its log line is written:
		// under load the line can trail the state by a moment.
		logged := logHas(s, id, "level=ERROR", "jobs: quarantined")
		for deadline := time.Now().Add(15 * time.Second); !logged && time.Now().Before(deadline); {
			time.Sleep(50 * time.Millisecond)
			logged = logHas(s, id, "level=ERROR", "jobs: quarantined")
		}
		if !logged {
			t.Errorf("no ERROR line for the quarantine of %s in the log:\n%s", id, logLines(s, id))
		}
		// The worker serves the next job.
		s.WaitRaytraceWorkerOK(t)
		next := s.SubmitJob(t, key, "/analyze", i24Pair(layer, 1))
		if j := waitJob(t, s, key, next, nil); j.State != "succeeded" {
			t.Fatalf("the next job after a quarantine: %+v", j)
		}
		t.Logf("job %s quarantined: %q", id, *j.Error)
	})

	t.Run("survives an appliance restart", func(t *testing.T) {
		s.WaitRaytraceWorkerOK(t)
		id := s.SubmitJob(t, key, "/analyze", body)
		waitJob(t, s, key, id, func(j drillJob) bool { return j.State == "running" })
		w := workerPID(t, s, 0)
		for c0, deadline := procCPU(w), time.Now().Add(60*time.Second); procCPU(w)-c0 < after && time.Now().Before(deadline); {
			time.Sleep(2 * time.Millisecond) // mid-unit, as killWorkerMidUnit
		}
		s.Kill(t)
		// Pdeathsig: the worker dies with serve (no orphan holds the unit).
		deadline := time.Now().Add(10 * time.Second)
		for procAlive(w) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if procAlive(w) {
			t.Errorf("the worker %d outlived serve's kill -9", w)
		}
		s = startServe(top, bin, dir)
		j := waitJob(t, s, key, id, nil)
		if j.State != "succeeded" || j.Interruptions != 1 {
			t.Fatalf("after the appliance's restart: %+v\n%s", j, s.stderr.String())
		}
		got := i24Download(t, s, key, id)
		if *got.Links[0].PathLossDB != *want.Links[0].PathLossDB {
			t.Errorf("answer after the restart %.3f dB, uninterrupted %.3f dB", *got.Links[0].PathLossDB, *want.Links[0].PathLossDB)
		}
		t.Logf("job %s: succeeded after serve's kill -9 and restart", id)
	})
	if err := s.stop(t); err != nil {
		t.Fatalf("SIGTERM exit: %v", err)
	}
}

// logLines is serve's log lines that name job id.
func logLines(s *server, id string) string {
	var out []string
	for _, l := range strings.Split(s.stderr.String(), "\n") {
		if strings.Contains(l, id) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// logHas says whether one of serve's log lines naming job id holds every
// part.
func logHas(s *server, id string, parts ...string) bool {
	for _, l := range strings.Split(logLines(s, id), "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(l, p)
		}
		if all {
			return true
		}
	}
	return false
}

// streamEvents posts body to path (a map stream) and reads it to its last
// event: the map id and the data of each event type (the last of each),
// with the count of each type.
func streamEvents(t *testing.T, s *server, key, path, body string) (string, map[string]json.RawMessage, map[string]int) {
	t.Helper()
	req, err := http.NewRequest("POST", s.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-API-Key", key)
	req.Header.Set("Content-Type", "application/json")
	res, err := (&http.Client{Timeout: 5 * time.Minute}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("POST %s: %d %s", path, res.StatusCode, b)
	}
	evs, counts := map[string]json.RawMessage{}, map[string]int{}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	typ := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			typ = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			evs[typ] = json.RawMessage(strings.TrimPrefix(line, "data: "))
			counts[typ]++
			if typ == "summary" || typ == "error" {
				return res.Header.Get("X-Map-Id"), evs, counts
			}
		}
	}
	t.Fatalf("the stream ended without a summary: %v", sc.Err())
	return "", nil, nil
}

// TestIssue24_RaytraceEndToEnd: the raytrace engine through the real
// binary, no console: serve reports its worker (ready check, platform
// maturity as a local process, metrics), lists the engine as
// asynchronous, answers engine raytrace on /coverage/engines/predict with
// a job whose JSON result holds the paths, streams POST /coverage/raytrace
// and serves the map's state and exports, the GeoTIFF read by gdalinfo
// with the map's size, engine, warnings and maximum; a Pro key is refused
// (403); serve --raytrace-worker=false answers the engine 503 and runs no
// worker.
func TestIssue24_RaytraceEndToEnd(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	s := startServe(t, bin, dir)
	ent := issueKey(t, s, dir, "Enterprise")
	pro := issueKeyAt(t, s, dir, "Pro", time.Now().Add(30*time.Second))
	s.WaitRaytraceWorkerOK(t)
	hdr := map[string]string{"X-API-Key": ent}

	var mat struct {
		Dependencies []struct {
			Name, Kind, Status string
			Required           bool
			Details            map[string]any
		} `json:"dependencies"`
	}
	if r := s.call(t, "GET", "/platform/maturity", hdr, ""); r.status != http.StatusOK || json.Unmarshal(r.body, &mat) != nil {
		t.Fatalf("/platform/maturity %d %s", r.status, r.body)
	}
	found := false
	for _, d := range mat.Dependencies {
		if d.Name == "raytrace_worker" {
			found = true
			if d.Kind != "local_process" || d.Status != "ok" || d.Required || d.Details["state"] != "ready" || d.Details["pid"] == nil {
				t.Errorf("raytrace_worker dependency %+v", d)
			}
		}
	}
	if !found {
		t.Errorf("/platform/maturity lists no raytrace_worker: %+v", mat)
	}
	if r := s.call(t, "GET", "/coverage/engines", hdr, ""); !strings.Contains(string(r.body), `"id":"raytrace"`) {
		t.Errorf("/coverage/engines: %s", r.body)
	}

	layer := s.UploadBlock(t, ent, 6)
	f := raytrace.NewFrame(appliance.LatLon{Lat: i24Lat, Lon: i24Lon})
	tx, rx := f.ToLatLon(-150, 140), f.ToLatLon(5, -5)
	caseBody := fmt.Sprintf(`{"tx":{"lat":%.7f,"lon":%.7f,"height_m":30},"rx":{"lat":%.7f,"lon":%.7f,"height_m":1.5},"frequency_mhz":3500,"engine":"raytrace","raytrace":{"layer_id":%q}}`,
		tx.Lat, tx.Lon, rx.Lat, rx.Lon, layer)
	id := s.SubmitJob(t, ent, "/coverage/engines/predict", caseBody)
	if j := waitJob(t, s, ent, id, nil); j.State != "succeeded" {
		t.Fatalf("case job %+v\n%s", j, s.stderr.String())
	}
	res := i24Download(t, s, ent, id)
	t.Logf("case job %s: path loss %.3f dB over %d paths", id, *res.Links[0].PathLossDB, len(res.Links[0].Paths))
	// The options: the case job names none and is traced with the
	// service's defaults for a link (the Dortmund-validated set); a link
	// job on /analyze names the four options of that set and is traced
	// with them; each result states what it was traced with.
	i24Options(t, "case job", res.Options, map[string]any{"diffuse_scattering": 0.4, "scattering_reflections": true, "reflection_diffraction": true, "clutter_beyond_extent": true, "sum": "coherent"})
	pairBody := strings.Replace(i24Pair(layer, 1), `"diffraction_range_m":2000`,
		`"diffraction_range_m":2000,"diffuse_scattering":0.25,"scattering_reflections":false,"reflection_diffraction":true,"clutter_beyond_extent":false`, 1)
	pid := s.SubmitJob(t, ent, "/analyze", pairBody)
	if j := waitJob(t, s, ent, pid, nil); j.State != "succeeded" {
		t.Fatalf("link job %+v\n%s", j, s.stderr.String())
	}
	pres := i24Download(t, s, ent, pid)
	i24Options(t, "link job", pres.Options, map[string]any{"diffuse_scattering": 0.25, "scattering_reflections": false, "reflection_diffraction": true, "clutter_beyond_extent": false,
		"max_reflections": 1.0, "diffraction_range_m": 2000.0, "sum": "coherent"})
	kinds := map[string]int{}
	for _, raw := range pres.Links[0].Paths {
		var p struct {
			Kind string `json:"kind"`
		}
		_ = json.Unmarshal(raw, &p)
		kinds[p.Kind]++
	}
	if kinds["scattering"] == 0 {
		t.Errorf("link job with diffuse_scattering 0.25: no scattering path among %v", kinds)
	}
	t.Logf("link job %s with the three options: path loss %.3f dB, paths by kind %v", pid, *pres.Links[0].PathLossDB, kinds)

	site := f.ToLatLon(-35, 20)
	mapBody := fmt.Sprintf(`{"layer_id":%q,"site":{"lat":%.7f,"lon":%.7f,"height_m":30,"eirp_dbm":55},"frequency_mhz":3500,"radius_m":100,"resolution_m":5}`, layer, site.Lat, site.Lon)
	mapID, evs, counts := streamEvents(t, s, ent, "/coverage/raytrace", mapBody)
	var started struct {
		Kind          string `json:"kind"`
		Width, Height int
	}
	var sum struct {
		ValidPixels   int                 `json:"valid_pixels"`
		MaxDBm        *float64            `json:"max_dbm"`
		EngineVersion string              `json:"engine_version"`
		Warnings      []appliance.Warning `json:"warnings"`
		Detail        struct {
			Options map[string]any `json:"options"`
		} `json:"detail"`
	}
	if json.Unmarshal(evs["started"], &started) != nil || started.Kind != "raytrace" || started.Width != 40 || started.Height != 40 {
		t.Fatalf("started %s", evs["started"])
	}
	if json.Unmarshal(evs["summary"], &sum) != nil || sum.ValidPixels == 0 || sum.MaxDBm == nil || sum.EngineVersion != raytrace.Version {
		t.Fatalf("summary %s (events %v)", evs["summary"], counts)
	}
	t.Logf("raytrace map %s: events %v, %d valid of 1600 pixels, max %.2f dBm, warnings %v", mapID, counts, sum.ValidPixels, *sum.MaxDBm, appliance.WarningCodes(sum.Warnings))
	i24Options(t, "map", sum.Detail.Options, map[string]any{"diffuse_scattering": 0.4, "scattering_reflections": false, "reflection_diffraction": false, "clutter_beyond_extent": true, "sum": "power"})
	if r := s.call(t, "GET", "/coverage/heatmap/"+mapID, hdr, ""); r.status != http.StatusOK || !strings.Contains(string(r.body), `"kind":"raytrace"`) {
		t.Fatalf("map state %d %s", r.status, r.body)
	}
	for _, format := range []string{"kmz", "geojson"} {
		if r := s.call(t, "GET", "/coverage/heatmap/"+mapID+"/export?format="+format, hdr, ""); r.status != http.StatusOK || len(r.body) == 0 {
			t.Errorf("export %s: %d", format, r.status)
		}
	}
	tif := s.call(t, "GET", "/coverage/heatmap/"+mapID+"/export?format=geotiff", hdr, "")
	if tif.status != http.StatusOK {
		t.Fatalf("GeoTIFF export %d %s", tif.status, tif.body)
	}
	p := filepath.Join(t.TempDir(), "raytrace.tif")
	if err := os.WriteFile(p, tif.body, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(lookTool(t, "gdalinfo"), "-json", "-stats", p).CombinedOutput()
	if err != nil {
		t.Fatalf("gdalinfo: %v\n%s", err, out)
	}
	var gi struct {
		Driver   string                       `json:"driverShortName"`
		Size     []int                        `json:"size"`
		Metadata map[string]map[string]string `json:"metadata"`
		Bands    []struct {
			Maximum *float64 `json:"maximum"`
		} `json:"bands"`
	}
	if err := json.Unmarshal(out, &gi); err != nil {
		t.Fatalf("gdalinfo json: %v\n%s", err, out)
	}
	md := gi.Metadata[""]
	if gi.Driver != "GTiff" || len(gi.Size) != 2 || gi.Size[0] != 40 || gi.Size[1] != 40 || md["ENGINE"] != "raytrace" || md["ENGINE_VERSION"] != raytrace.Version {
		t.Fatalf("gdalinfo: driver %s size %v metadata %v", gi.Driver, gi.Size, md)
	}
	if want := strings.Join(appliance.WarningCodes(sum.Warnings), ";"); md["WARNINGS"] != want {
		t.Errorf("GeoTIFF WARNINGS %q, summary %q", md["WARNINGS"], want)
	}
	if len(gi.Bands) != 1 || gi.Bands[0].Maximum == nil || math.Abs(*gi.Bands[0].Maximum-*sum.MaxDBm) > 1e-3 {
		t.Errorf("GeoTIFF band maximum %v, summary %.3f dBm", gi.Bands, *sum.MaxDBm)
	}

	// Metrics: the worker up, the units counted.
	m := string(s.call(t, "GET", "/metrics", nil, "").body)
	for _, want := range []string{"linkplan_raytrace_worker_up 1", `linkplan_raytrace_units_total{kind="point",outcome="ok"} 2`} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}

	// Below Enterprise.
	if r := s.call(t, "POST", "/coverage/raytrace", map[string]string{"X-API-Key": pro, "Content-Type": "application/json"}, mapBody); r.status != http.StatusForbidden {
		t.Errorf("Pro map: %d %s", r.status, r.body)
	}
	if r := s.call(t, "POST", "/coverage/engines/predict", map[string]string{"X-API-Key": pro, "Content-Type": "application/json"}, caseBody); r.status != http.StatusForbidden {
		t.Errorf("Pro case: %d %s", r.status, r.body)
	}
	if err := s.stop(t); err != nil {
		t.Fatalf("SIGTERM exit: %v", err)
	}

	// Without the worker: no child, the engine answers 503.
	s = startServe(t, bin, dir, "--raytrace-worker=false")
	time.Sleep(500 * time.Millisecond)
	if pid := childWorker(s.cmd.Process.Pid); pid != 0 {
		t.Errorf("serve --raytrace-worker=false started worker %d", pid)
	}
	if r := s.call(t, "POST", "/coverage/engines/predict", map[string]string{"X-API-Key": ent, "Content-Type": "application/json"}, caseBody); r.status != http.StatusServiceUnavailable {
		t.Errorf("engine raytrace without the worker: %d %s", r.status, r.body)
	}
	if r := s.call(t, "GET", "/health/ready", nil, ""); r.status != http.StatusOK || strings.Contains(string(r.body), "raytrace_worker") {
		t.Errorf("/health/ready without the worker: %d %s", r.status, r.body)
	}
	if err := s.stop(t); err != nil {
		t.Fatalf("SIGTERM exit: %v", err)
	}
}

// TestIssue24_WorkerKillMidMap: kill -9 of the raytrace worker while it
// computes a band of POST /coverage/raytrace → the band is computed again
// on the restarted worker and the stream ends with the summary of an
// uninterrupted map (same valid pixels, minimum and maximum); serve stays
// ready.
func TestIssue24_WorkerKillMidMap(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	s := startServe(t, bin, dir)
	key := issueKey(t, s, dir, "Enterprise")
	s.WaitRaytraceWorkerOK(t)
	layer := s.UploadBlock(t, key, 10)
	site := raytrace.NewFrame(appliance.LatLon{Lat: i24Lat, Lon: i24Lon}).ToLatLon(-35, 20)
	body := fmt.Sprintf(`{"layer_id":%q,"site":{"lat":%.7f,"lon":%.7f,"height_m":30,"eirp_dbm":55},"frequency_mhz":3500,"radius_m":120,"resolution_m":5,"diffraction_range_m":500}`,
		layer, site.Lat, site.Lon)
	type summary struct {
		ValidPixels int      `json:"valid_pixels"`
		MinDBm      *float64 `json:"min_dbm"`
		MaxDBm      *float64 `json:"max_dbm"`
	}
	start := time.Now()
	_, evs, counts := streamEvents(t, s, key, "/coverage/raytrace", body)
	var want summary
	if json.Unmarshal(evs["summary"], &want) != nil || want.ValidPixels == 0 || want.MaxDBm == nil {
		t.Fatalf("reference map: %v %s %s", counts, evs["summary"], evs["error"])
	}
	t.Logf("reference map: %v in %v, %d valid pixels", counts, time.Since(start).Round(time.Millisecond), want.ValidPixels)

	// The same map; the worker is killed at its first progress event
	// (a band done, the next ones held by the worker).
	req, err := http.NewRequest("POST", s.base+"/coverage/raytrace", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-API-Key", key)
	req.Header.Set("Content-Type", "application/json")
	res, err := (&http.Client{Timeout: 5 * time.Minute}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("map: %d", res.StatusCode)
	}
	mapID := res.Header.Get("X-Map-Id")
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	typ, killed, last := "", 0, json.RawMessage(nil)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "event: "); ok {
			typ = v
			continue
		}
		v, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		if typ == "progress" && killed == 0 {
			// the event comes as band 1 is merged; the next band's unit is
			// sent just after and takes about 1.4 s: kill once it is surely
			// in flight (killed at once, the worker sometimes died before
			// the unit was sent, which then waited for the restart without
			// a crash to report)
			time.Sleep(300 * time.Millisecond)
			killed = workerPID(t, s, 0)
			if err := syscall.Kill(killed, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			t.Logf("kill -9 of raytrace worker %d 300 ms after the first progress event: %s", killed, v)
			s.RaytraceWorker(t)
		}
		if typ == "summary" || typ == "error" {
			last = json.RawMessage(v)
			break
		}
	}
	if typ != "summary" {
		t.Fatalf("the killed map ended with %s %s\n%s", typ, last, logLines(s, mapID))
	}
	var got summary
	if err := json.Unmarshal(last, &got); err != nil {
		t.Fatal(err)
	}
	if got.ValidPixels != want.ValidPixels || *got.MaxDBm != *want.MaxDBm || *got.MinDBm != *want.MinDBm {
		t.Errorf("after the kill %+v, uninterrupted %+v", got, want)
	}
	if !strings.Contains(s.stderr.String(), "raytrace map: the worker died holding a band; computing it again") {
		t.Errorf("no WARN line for the band computed again (the kill fell between bands?)")
	}
	alive(t, s)
	s.WaitRaytraceWorkerOK(t)
	t.Logf("map %s: summary equal to the uninterrupted map after worker %d was killed", mapID, killed)
}
