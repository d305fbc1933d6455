package api_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"linkplan/appliance"
	"linkplan/appliance/backup"
	"linkplan/store"
	"linkplan/web/api"
)

// TestReadinessBackupDetails: with scheduled backups, GET /health/ready
// carries their freshness in checks.backup and details.backup (documented
// by the OpenAPI contract), and a stale or failed backup never makes the
// appliance not ready (the check is advisory).
func TestReadinessBackupDetails(t *testing.T) {
	d := loadOpenAPI(t)
	dir := t.TempDir()
	db, err := store.Open(dir, store.Options{LockTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Date(2030, 1, 2, 3, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	backups := filepath.Join(dir, "backups")
	set := metrics.NewSet()
	svc, err := backup.New(&backup.Writer{DB: db, Version: "test", Now: clock,
		Check: func(_ context.Context, p string) (appliance.DBCheck, error) { return store.CheckFile(p) }},
		backup.Options{Dir: backups, Every: time.Hour, Keep: 2, Now: clock, Metrics: set})
	if err != nil {
		t.Fatal(err)
	}
	a := api.New(api.Deps{PlatformDeps: api.PlatformDeps{Version: "test", Metrics: set, Checks: []api.Check{
		{Name: "database", Fn: func(context.Context) error { return db.Ping() }},
		api.BackupCheck(svc.Status, clock),
	}}})
	a.SetState(api.StateReady)
	srv := httptest.NewServer(a)
	defer srv.Close()
	h := &harness{srv: srv}
	ready := func(wantStatus, wantCheck string) map[string]any {
		t.Helper()
		res := h.do(t, "GET", "/health/ready", "", nil, "")
		contract(t, d, "GET", "/health/ready", res)
		if res.status != http.StatusOK {
			t.Fatalf("status %d: %s (a backup state must not make the appliance not ready)", res.status, res.body)
		}
		m := res.json(t)
		b := m["details"].(map[string]any)["backup"].(map[string]any)
		check := m["checks"].(map[string]any)["backup"].(string)
		if b["status"] != wantStatus || !strings.HasPrefix(check, wantCheck) {
			t.Errorf("details.backup %v, checks.backup %q; want %s, %q", b, check, wantStatus, wantCheck)
		}
		return b
	}
	b := ready("pending", "pending: no scheduled backup yet")
	if b["last_result"] != "none" || b["last_success_at"] != nil || b["every_s"] != 3600.0 || b["keep"] != 2.0 {
		t.Errorf("before the first backup: %v", b)
	}
	if _, err := svc.RunScheduled(context.Background()); err != nil {
		t.Fatal(err)
	}
	now = now.Add(10 * time.Minute)
	b = ready("ok", "ok")
	if b["last_result"] != "ok" || b["last_success_at"] != "2030-01-02T03:00:00Z" || b["last_success_age_s"] != 600.0 || b["last_bytes"].(float64) <= 0 {
		t.Errorf("after a backup: %v", b)
	}
	// Every backup family, gauges included, passes promtool.
	if promtool, err := exec.LookPath("promtool"); err == nil {
		body := h.do(t, "GET", "/metrics", "", nil, "").body
		if !bytes.Contains(body, []byte("linkplan_backup_age_seconds 600.000\n")) {
			t.Errorf("no backup age in /metrics:\n%s", body)
		}
		cmd := exec.Command(promtool, "check", "metrics")
		cmd.Stdin = bytes.NewReader(body)
		if out, err := cmd.CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) > 0 {
			t.Errorf("promtool check metrics: %v\n%s", err, out)
		}
	} else if os.Getenv("CI") == "true" {
		t.Error("promtool is not installed: make test-deps installs the Debian package prometheus")
	}
	now = now.Add(3 * time.Hour)
	ready("stale", "stale: the newest backup is 3h10m0s old")
	// A failure: a directory stands where the next backup's scratch copy goes.
	blocker := filepath.Join(backups, ".linkplan-"+now.Format("20060102T150405.000Z")+".lpbackup.db.partial")
	if err := os.Mkdir(blocker, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.RunScheduled(context.Background()); err == nil {
		t.Fatal("the blocked backup succeeded")
	}
	b = ready("failed", "failed: the latest scheduled backup failed")
	if b["last_result"] != "failed" || b["last_success_at"] != "2030-01-02T03:00:00Z" {
		t.Errorf("after a failure: %v", b)
	}
}
