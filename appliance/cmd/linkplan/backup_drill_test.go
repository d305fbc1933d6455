//go:build systemtools

package main_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"linkplan/appliance"
)

// The backup drill of issue 21's acceptance: backups taken while
// observation batches, key rotations and batch jobs write, alternately by
// the CLI (over the serving appliance's admin socket) and by POST
// /admin/backup; every one verifies, restores into a data directory that
// starts and answers ready, and holds every write acknowledged before the
// backup began. make test runs 6 backups; make backup-drill (part of make
// check) runs the 25 of the acceptance (LINKPLAN_BACKUP_DRILL=full).

// drillAck is one acknowledged write.
type drillAck struct {
	at   time.Time // when its answer arrived
	kind string    // obs (an observation row, by ts), key (a rotated key id), job (a batch job id)
	id   string
}

// drillLog collects acknowledgements from the writers.
type drillLog struct {
	mu   sync.Mutex
	acks []drillAck
}

func (l *drillLog) add(kind string, ids ...string) {
	at := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, id := range ids {
		l.acks = append(l.acks, drillAck{at: at, kind: kind, id: id})
	}
}

// before returns the acknowledgements that arrived before t, by kind.
func (l *drillLog) before(t time.Time) map[string][]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string][]string{}
	for _, a := range l.acks {
		if a.at.Before(t) {
			out[a.kind] = append(out[a.kind], a.id)
		}
	}
	return out
}

// post sends one JSON request from a writer goroutine (no t.Fatal there).
func post(base, path, key string, hdr map[string]string, body string) (int, []byte, error) {
	req, err := http.NewRequest(http.MethodPost, base+path, strings.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", key)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res.StatusCode, b, err
}

// totpSteps hands out admin TOTP codes: each 30 s step is accepted once,
// and a step one either side of now is accepted, so a code is available
// for the next unused step while it is at most one step ahead.
type totpSteps struct {
	secret string
	last   int64 // the last step used
}

func (s *totpSteps) next(now time.Time) (string, bool) {
	cur := now.Unix() / 30
	step := max(s.last+1, cur-1)
	if step > cur+1 {
		return "", false
	}
	code, err := totp.GenerateCodeCustom(s.secret, time.Unix(step*30, 0), totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		return "", false
	}
	s.last = step
	return code, true
}

func TestIssue21_BackupDrill(t *testing.T) {
	bin := binary(t)
	n := 6
	if os.Getenv("LINKPLAN_BACKUP_DRILL") == "full" {
		n = 25
	}
	dir := t.TempDir()
	sched := filepath.Join(t.TempDir(), "scheduled")
	s := startServe(t, bin, dir, "--backup-dir", sched, "--backup-every", "2s", "--backup-keep", "3")
	var cred struct {
		APIKey     string `json:"api_key"`
		TOTPSecret string `json:"totp_secret"`
	}
	raw, err := os.ReadFile(filepath.Join(dir, "admin-credentials.json"))
	noErr(t, err)
	noErr(t, json.Unmarshal(raw, &cred))
	steps := &totpSteps{secret: cred.TOTPSecret}
	code, _ := steps.next(time.Now())
	st, body, err := post(s.base, "/admin/keys", cred.APIKey, map[string]string{"X-Admin-Totp": code},
		`{"tier":"Ultra","email":"drill@example.com","owner":"Backup drill","justification":"issue 21 backup drill"}`)
	if err != nil || st != http.StatusCreated {
		t.Fatalf("issue key: %d %s %v", st, body, err)
	}
	var issued struct {
		APIKey string `json:"api_key"`
		KeyID  string `json:"key_id"`
	}
	noErr(t, json.Unmarshal(body, &issued))
	main := issued.APIKey
	st, body, err = post(s.base, "/tenant/keys", main, nil, `{"tenant_role":"member"}`)
	if err != nil || st != http.StatusCreated {
		t.Fatalf("create key: %d %s %v", st, body, err)
	}
	var nk struct {
		Key struct {
			KeyID string `json:"key_id"`
		} `json:"key"`
	}
	noErr(t, json.Unmarshal(body, &nk))
	acks := &drillLog{}
	acks.add("key", issued.KeyID, nk.Key.KeyID)

	// The writers.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	writer := func(name string, every time.Duration, fn func(i int) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				case <-time.After(every):
				}
				if err := fn(i); err != nil {
					t.Errorf("%s writer: %v", name, err)
					return
				}
			}
		}()
	}
	const obsPerBatch = 10
	writer("observation", 40*time.Millisecond, func(i int) error {
		rows := make([]string, obsPerBatch)
		ids := make([]string, obsPerBatch)
		for j := range rows {
			seq := i*obsPerBatch + j
			ts := 1772366340 + 120*seq // two minutes apart: never deduplicated
			rows[j] = fmt.Sprintf(`{"tx_lat":-22.95,"tx_lon":-43.23,"tx_height_m":40,"tx_power_dbm":43,"rx_lat":%.6f,"rx_lon":-43.2,"freq_hz":700000000,"observed_dbm":-80,"ts":%d}`,
				-22.90-float64(seq%500)*1e-4, ts)
			ids[j] = strconv.Itoa(ts)
		}
		st, b, err := post(s.base, "/coverage/observations/batch", main, nil, `{"observations":[`+strings.Join(rows, ",")+`]}`)
		if err != nil || st != http.StatusOK || !strings.Contains(string(b), fmt.Sprintf(`"ingested":%d`, obsPerBatch)) {
			return fmt.Errorf("batch %d: %d %s %v", i, st, b, err)
		}
		acks.add("obs", ids...)
		return nil
	})
	cur := nk.Key.KeyID
	// Rotations count against the tenant routes' rate limit (Ultra: 120 a
	// minute): one every 600 ms stays under it; a 429 all the same (the
	// other calls of the tenant share the window) is a write refused, not
	// acknowledged, and the writer goes on.
	writer("key rotation", 600*time.Millisecond, func(int) error {
		st, b, err := post(s.base, "/tenant/keys/"+cur+"/rotate", main, nil, "")
		if err == nil && st == http.StatusTooManyRequests {
			return nil
		}
		var r struct {
			Key struct {
				KeyID string `json:"key_id"`
			} `json:"key"`
		}
		if err != nil || st != http.StatusCreated || json.Unmarshal(b, &r) != nil || r.Key.KeyID == "" {
			return fmt.Errorf("rotate %s: %d %s %v", cur, st, b, err)
		}
		cur = r.Key.KeyID
		acks.add("key", cur)
		return nil
	})
	// 101 rows: one above the synchronous limit, so each is a queued job.
	jobRows := make([]string, 101)
	for j := range jobRows {
		jobRows[j] = fmt.Sprintf(`{"id":"r%d","receiver":{"lat":%.4f,"lon":-43.2,"height":10},"frequency_mhz":1800,"max_distance_km":5}`, j, -22.95+float64(j)*1e-4)
	}
	jobBody := `{"options":{"pdfs":false},"rows":[` + strings.Join(jobRows, ",") + `]}`
	writer("batch job", 500*time.Millisecond, func(i int) error {
		st, b, err := post(s.base, "/batch_reports", main, nil, jobBody)
		var j struct {
			Job struct {
				ID string `json:"id"`
			} `json:"job"`
		}
		if err != nil || st != http.StatusAccepted || json.Unmarshal(b, &j) != nil || j.Job.ID == "" {
			return fmt.Errorf("batch report %d: %d %s %v", i, st, b, err)
		}
		acks.add("job", j.Job.ID)
		return nil
	})

	// The backups, while the writers write.
	type taken struct {
		file  string
		begin time.Time
		via   string
		took  time.Duration
	}
	var backups []taken
	out := t.TempDir()
	time.Sleep(500 * time.Millisecond)
	gap := 200 // ms between backups, and as much again at most
	if n > 6 {
		gap = 800 // the full drill lasts over 30 s: more TOTP steps, so more route backups
	}
	for i := range n {
		time.Sleep(time.Duration(gap+rng64(i)%gap) * time.Millisecond)
		file := filepath.Join(out, fmt.Sprintf("b%02d.lpbackup", i))
		begin := time.Now()
		code, ok := "", i%2 == 1
		if ok {
			code, ok = steps.next(begin)
		}
		if ok {
			st, b, err := post(s.base, "/admin/backup", cred.APIKey, map[string]string{"X-Admin-Totp": code}, `{"justification":"issue 21 backup drill"}`)
			if err != nil || st != http.StatusOK {
				t.Fatalf("POST /admin/backup %d: %d %.300s %v", i, st, b, err)
			}
			noErr(t, os.WriteFile(file, b, 0o600))
			backups = append(backups, taken{file, begin, "route", time.Since(begin)})
			continue
		}
		o, e, code2 := runFor(t, 120*time.Second, bin, "backup", "--data-dir", dir, "--out", file)
		if code2 != 0 || !strings.Contains(o, "via: the admin socket of the appliance serving") {
			t.Fatalf("linkplan backup %d: exit %d\n%s%s", i, code2, o, e)
		}
		backups = append(backups, taken{file, begin, "cli", time.Since(begin)})
	}
	// A restore into the served data directory is refused.
	if _, e, code := runFor(t, 60*time.Second, bin, "restore", "--from", backups[0].file, "--data-dir", dir); code == 0 || !strings.Contains(e, "an appliance is serving") {
		t.Errorf("restore into a served data directory: exit %d %s", code, e)
	}
	close(stop)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}

	// The schedule ran beside them: fresh, rotated to 3 files, counted. A
	// loaded machine can delay a scheduled backup past two intervals (2 s
	// each: "stale") while the drill's own backups hold the backup lock;
	// the schedule then catches up within a few intervals.
	r := s.call(t, "GET", "/health/ready", nil, "")
	for deadline := time.Now().Add(20 * time.Second); strings.Contains(string(r.body), `"backup":"stale`) && time.Now().Before(deadline); {
		time.Sleep(250 * time.Millisecond)
		r = s.call(t, "GET", "/health/ready", nil, "")
	}
	var ready struct {
		Checks  map[string]string `json:"checks"`
		Details struct {
			Backup struct {
				Status     string `json:"status"`
				LastResult string `json:"last_result"`
			} `json:"backup"`
			// Issue 21, scope 3: the queue and the offline flag, each with
			// a status and a reason.
			Queue struct {
				Status       string `json:"status"`
				Workers      int    `json:"workers"`
				WorkersAlive int    `json:"workers_alive"`
			} `json:"queue"`
			Offline struct {
				Status string `json:"status"`
				Reason string `json:"reason"`
			} `json:"offline"`
		} `json:"details"`
	}
	if r.status != http.StatusOK || json.Unmarshal(r.body, &ready) != nil || ready.Details.Backup.Status != "ok" || ready.Checks["backup"] != "ok" ||
		ready.Checks["queue"] != "ok" || ready.Details.Queue.Status != "ok" || ready.Details.Queue.Workers < 1 || ready.Details.Queue.WorkersAlive != ready.Details.Queue.Workers ||
		ready.Details.Offline.Status != "offline" || ready.Details.Offline.Reason == "" {
		t.Errorf("/health/ready during the drill: %d %s", r.status, r.body)
	}
	metrics := string(s.call(t, "GET", "/metrics", nil, "").body)
	counts := map[string]int{}
	for _, b := range backups {
		counts[b.via]++
	}
	for _, want := range []string{
		fmt.Sprintf(`linkplan_backups_total{trigger="cli",result="ok"} %d`, counts["cli"]),
		fmt.Sprintf(`linkplan_backups_total{trigger="route",result="ok"} %d`, counts["route"]),
		`linkplan_backups_total{trigger="scheduled",result="failed"} 0`,
		`linkplan_backup_last_ok 1`,
	} {
		if !strings.Contains(metrics, want+"\n") {
			t.Errorf("metrics lack %q", want)
		}
	}
	scheduled, err := filepath.Glob(filepath.Join(sched, "linkplan-*.lpbackup"))
	noErr(t, err)
	if len(scheduled) == 0 || len(scheduled) > 3 {
		t.Errorf("scheduled backups kept: %v, want 1 to 3", scheduled)
	}
	scheduledOK := "?"
	if m := regexp.MustCompile(`linkplan_backups_total\{trigger="scheduled",result="ok"\} (\d+)`).FindStringSubmatch(metrics); m != nil {
		scheduledOK = m[1]
	}
	for _, f := range scheduled {
		if o, e, code := runFor(t, 60*time.Second, bin, "verify", f); code != 0 {
			t.Errorf("scheduled backup %s: %d %s%s", f, code, o, e)
		}
	}
	audit := s.call(t, "GET", "/admin/audit?action=admin.backup&limit=100", map[string]string{"X-API-Key": cred.APIKey}, "")
	if got := strings.Count(string(audit.body), `"action":"admin.backup"`); got != len(backups) {
		t.Errorf("%d admin.backup audit rows, want %d (one per CLI and route backup)", got, len(backups))
	}
	if err := s.stop(t); err != nil {
		t.Fatalf("stop: %v", err)
	}

	// Every backup verifies, restores, starts, answers ready and holds
	// every write acknowledged before it began.
	verified, restored := 0, 0
	var checkedWrites, laterWrites int
	for i, b := range backups {
		o, e, code := runFor(t, 120*time.Second, bin, "verify", "--json", b.file)
		var man appliance.BackupManifest
		if code != 0 || json.Unmarshal([]byte(o), &man) != nil {
			t.Errorf("backup %d (%s) does not verify: %d\n%s", i, b.via, code, e)
			continue
		}
		verified++
		rdir := filepath.Join(t.TempDir(), "restored")
		if o, e, code := runFor(t, 120*time.Second, bin, "restore", "--from", b.file, "--data-dir", rdir); code != 0 {
			t.Errorf("restore %d: %d\n%s%s", i, code, o, e)
			continue
		}
		rs := startServe(t, bin, rdir) // waits for /health/ready 200
		exp := rs.call(t, "GET", "/tenant/me/data/export", map[string]string{"X-API-Key": main}, "")
		var bundle struct {
			Bundle struct {
				Keys []struct {
					KeyID string `json:"key_id"`
				} `json:"keys"`
				BatchJobs []struct {
					ID string `json:"id"`
				} `json:"batch_jobs"`
				Observations []struct {
					Ts float64 `json:"ts"`
				} `json:"observations"`
			} `json:"bundle"`
		}
		if exp.status != http.StatusOK || json.Unmarshal(exp.body, &bundle) != nil {
			t.Errorf("restore %d: export %d %.300s", i, exp.status, exp.body)
			_ = rs.stop(t)
			continue
		}
		have := map[string]map[string]bool{"obs": {}, "key": {}, "job": {}}
		for _, k := range bundle.Bundle.Keys {
			have["key"][k.KeyID] = true
		}
		for _, j := range bundle.Bundle.BatchJobs {
			have["job"][j.ID] = true
		}
		for _, o := range bundle.Bundle.Observations {
			have["obs"][strconv.FormatInt(int64(o.Ts), 10)] = true
		}
		want := acks.before(b.begin)
		missing := 0
		for kind, ids := range want {
			for _, id := range ids {
				if !have[kind][id] {
					missing++
					if missing <= 5 {
						t.Errorf("backup %d (%s): the %s %s acknowledged before it began is missing", i, b.via, kind, id)
					}
				}
			}
			checkedWrites += len(ids)
		}
		later := len(have["obs"]) + len(have["key"]) + len(have["job"]) - len(want["obs"]) - len(want["key"]) - len(want["job"])
		laterWrites += later
		if err := rs.stop(t); err != nil {
			t.Errorf("restored appliance %d stop: %v", i, err)
		}
		if missing == 0 {
			restored++
		}
		t.Logf("backup %2d via %-5s %7d bytes, taken in %v: verified; restored, ready; holds the %d observation rows, %d rotated keys and %d jobs acknowledged before it began (and %d writes of its first moments)",
			i, b.via, man.DB.Bytes, b.took.Round(time.Millisecond), len(want["obs"]), len(want["key"]), len(want["job"]), later)
	}
	t.Logf("backup drill: backups=%d (cli %d, route %d) verified=%d restored_ready_complete=%d acked_writes_checked=%d missing=0 scheduled_kept=%d scheduled_ok=%s",
		len(backups), counts["cli"], counts["route"], verified, restored, checkedWrites, len(scheduled), scheduledOK)
	if counts["route"] == 0 || counts["cli"] == 0 {
		t.Errorf("the drill took %d CLI and %d route backups; both paths must be exercised", counts["cli"], counts["route"])
	}
	if verified != n || restored != n {
		t.Errorf("%d of %d verified, %d of %d restored complete", verified, n, restored, n)
	}
}

// rng64 spreads the backups' start times (deterministic).
func rng64(i int) int { return (i*7919 + 13) * 2654435761 % 1000003 }
