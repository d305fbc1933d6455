package privacy_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"linkplan/appliance"
	"linkplan/appliance/jobs"
	"linkplan/appliance/privacy"
	"linkplan/appliance/tenancy"
	"linkplan/store"
)

// clock is the injected time of the store, the job queue and the privacy
// service.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(t time.Time) { c.mu.Lock(); defer c.mu.Unlock(); c.t = t }

var t0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

// tenantData is one tenant's fixture and the strings that identify its
// rows anywhere in the file.
type tenantData struct {
	admin, member *appliance.APIKey
	markers       []string
	resultFile    string
}

// seed gives tenant name two keys, audit rows, a user tower, a finished
// job with items and a result file, a queued job and a PDF counter.
func seed(t *testing.T, ctx context.Context, db *store.DB, auth *tenancy.Service, jobsDir, name string, clk *clock) *tenantData {
	t.Helper()
	_, admin, err := auth.Issue(tenancy.IssueRequest{Tier: appliance.TierEnterprise, Owner: "Owner " + name, Email: name + "@example.com",
		Audit: &appliance.AuditEntry{Action: "admin.key.issue", IP: "203.0.113." + name[len(name)-1:], UserAgent: "agent-" + name}})
	if err != nil {
		t.Fatal(err)
	}
	_, member, err := auth.CreateKey(admin, tenancy.KeyRequest{TenantRole: appliance.TenantMember,
		Client: tenancy.Client{IP: "198.51.100." + name[len(name)-1:], UserAgent: "agent-" + name}})
	if err != nil {
		t.Fatal(err)
	}
	tower := &appliance.Tower{ID: "user-tower-" + name, Source: appliance.SourceUser, Operator: "Op " + name, Lat: -22.9, Lon: -43.2,
		HeightM: 30, OwnerKeyID: member.ID, OwnerTenantID: member.TenantID}
	if err := db.PutUserTower(tower, -1, appliance.AuditEntry{Action: "tower.register", ActorKey: member.ID, TenantID: member.TenantID}); err != nil {
		t.Fatal(err)
	}
	done := &appliance.Job{ID: "job_done_" + name, TenantID: admin.TenantID, KeyID: admin.ID, Kind: appliance.JobKindBatchReport,
		Lane: appliance.LanePriority, Total: 2, Payload: []byte(`{"rows":"` + name + `"}`), NotBefore: t0}
	if err := db.Enqueue(ctx, done); err != nil {
		t.Fatal(err)
	}
	l, err := db.Lease(ctx, "seed", time.Minute, clk.Now())
	if err != nil || l.Job.ID != done.ID {
		t.Fatalf("lease %v %v", l, err)
	}
	if err := db.Checkpoint(ctx, l, appliance.JobProgress{Done: 2}, []appliance.JobItem{{Index: 0, Data: []byte("i0")}, {Index: 1, Data: []byte("i1")}}, clk.Now()); err != nil {
		t.Fatal(err)
	}
	res := "job_done_" + name + ".zip"
	if err := os.WriteFile(filepath.Join(jobsDir, res), []byte("zip of "+name), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := db.Ack(ctx, l, appliance.JobResult{Name: res, Bytes: 5, SHA256: "00"}, 365*24*time.Hour, clk.Now()); err != nil {
		t.Fatal(err)
	}
	queued := &appliance.Job{ID: "job_queued_" + name, TenantID: admin.TenantID, KeyID: admin.ID, Kind: appliance.JobKindBatchReport,
		Lane: appliance.LaneStandard, Total: 1, Payload: []byte("payload " + name), NotBefore: t0.Add(10 * 365 * 24 * time.Hour)}
	if err := db.Enqueue(ctx, queued); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.ReservePDFs(ctx, admin.TenantID, done.ID, 2, 500, clk.Now()); err != nil {
		t.Fatal(err)
	}
	obs := func(id string) appliance.Observation {
		return appliance.Observation{ID: id, TenantID: admin.TenantID, SubmittedBy: member.ID, TxLat: -22.95, TxLon: -43.23, TxHeightM: 40,
			TxPowerDBm: 43, RxLat: -22.9, RxLon: -43.2, RxHeightM: 1.5, FreqHz: 7e8, ObservedDBm: -80, Source: "api", TsUnix: 1772366340,
			Consent: appliance.ConsentRefused, Weight: 0.1, IngestedAt: 1772366340, Metric: "received_power"}
	}
	div := []*appliance.DividendEvent{{SubmittedBy: member.ID, SubmitterEmail: name + "@example.com", CreatedAt: 1772366340}}
	if _, err := db.PutObservations(admin.TenantID, appliance.KindLinkObservation, []appliance.Observation{obs("obs_link_" + name)}, []string{"dedup-link-" + name}, div); err != nil {
		t.Fatal(err)
	}
	if _, err := db.PutObservations(admin.TenantID, appliance.KindCellSignalSample, []appliance.Observation{obs("obs_cell_" + name)}, []string{"dedup-cell-" + name}, nil); err != nil {
		t.Fatal(err)
	}
	if err := db.PutBranding(&appliance.Branding{TenantID: admin.TenantID, DisplayName: "Brand " + name, SupportContact: name + "@example.com"}); err != nil {
		t.Fatal(err)
	}
	if err := db.PutSSOBinding(&appliance.SSOBinding{Issuer: "https://idp.example", Subject: "sub-" + name, KeyID: member.ID}, nil); err != nil {
		t.Fatal(err)
	}
	ch := &appliance.BillingChange{Event: appliance.BillingEvent{ID: "evt_" + name, Type: "checkout.session.completed", Outcome: "provisioned", TenantID: admin.TenantID},
		Account: &appliance.BillingAccount{TenantID: admin.TenantID, CustomerID: "cus_" + name, SubscriptionID: "sub_" + name, Tier: appliance.TierEnterprise,
			Status: appliance.BillingActive, Email: name + "@example.com"},
		Claim: &appliance.KeyClaim{ID: "claim-" + name, TenantID: admin.TenantID, KeyID: admin.ID, Tier: appliance.TierEnterprise, State: appliance.ClaimClaimed}}
	if ok, err := db.ApplyBillingEvent(ch); err != nil || !ok {
		t.Fatalf("billing: %v %v", ok, err)
	}
	return &tenantData{admin: admin, member: member, resultFile: filepath.Join(jobsDir, res), markers: []string{
		"Brand " + name, "sub-" + name, "cus_" + name, "sub_" + name, "claim-" + name,
		admin.TenantID, admin.ID, member.ID, admin.HashHex, member.HashHex, admin.Prefix, member.Prefix,
		name + "@example.com", "Owner " + name, "agent-" + name, tower.ID, done.ID, queued.ID, "payload " + name,
		"obs_link_" + name, "obs_cell_" + name, "dedup-link-" + name, "dedup-cell-" + name}}
}

// scan walks every bucket of the bbolt file (nested ones included) and
// returns every key and value as "bucket path / key = value" lines.
func scan(t *testing.T, path string) []string {
	t.Helper()
	b, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var rows []string
	var walk func(prefix string, bk *bolt.Bucket) error
	walk = func(prefix string, bk *bolt.Bucket) error {
		return bk.ForEach(func(k, v []byte) error {
			if v == nil {
				rows = append(rows, prefix+"/"+string(k)+" (bucket)")
				return walk(prefix+"/"+string(k), bk.Bucket(k))
			}
			rows = append(rows, prefix+"/"+string(k)+" = "+string(v))
			return nil
		})
	}
	err = b.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, bk *bolt.Bucket) error { return walk(string(name), bk) })
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(rows)
	return rows
}

func holding(rows []string, markers []string) []string {
	var out []string
	for _, r := range rows {
		for _, m := range markers {
			if strings.Contains(r, m) {
				out = append(out, r)
				break
			}
		}
	}
	return out
}

// TestHardDeleteEveryBucket erases tenant A through forget, runs the daily
// job on the real queue with an injected clock, and checks in the bbolt
// file itself (every bucket, nested ones too) that no row of A is left,
// that B's rows are exactly as before, that nothing is deleted before the
// 30-day mark and that the delete ran within 24 h of it.
func TestHardDeleteEveryBucket(t *testing.T) {
	ctx := context.Background()
	clk := &clock{t: t0}
	dir := t.TempDir()
	db, err := store.Open(dir, store.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			_ = db.Close()
		}
	})
	jobsDir := filepath.Join(dir, "jobs")
	if err := os.MkdirAll(jobsDir, 0o700); err != nil {
		t.Fatal(err)
	}
	auth := tenancy.New(db, clk.Now)
	a := seed(t, ctx, db, auth, jobsDir, "tenant-a1", clk)
	b := seed(t, ctx, db, auth, jobsDir, "tenant-b2", clk)

	before := holding(scanLive(t, db), b.markers)
	if len(before) < 10 {
		t.Fatalf("fixture of B too small: %v", before)
	}
	for _, want := range []string{"keys/", "key_ids/", "towers/", "towers_owner/", "audit/", "jobs/", "job_items/", "job_queue/", "job_payloads/", "pdf_usage/",
		"link_observations/", "cell_signal_samples/", "observation_dedup/", "observation_counts/", "data_dividend_events/",
		"branding/", "sso_bindings/", "billing_accounts/", "billing_customers/", "key_claims/", "billing_events/"} {
		if !containsPrefix(holding(scanLive(t, db), a.markers), want) {
			t.Fatalf("fixture of A has no row in %s", want)
		}
	}

	svc := privacy.New(db, nil, nil, privacy.Options{Clock: clk.Now,
		RemoveResult: func(name string) error { return os.Remove(filepath.Join(jobsDir, filepath.Base(name))) }})
	exp, err := svc.Export(ctx, a.member, privacy.Client{})
	if !errors.Is(err, appliance.ErrForbidden) || exp != nil {
		t.Fatalf("member export: %v", err)
	}
	if exp, err = svc.Export(ctx, a.admin, privacy.Client{IP: "203.0.113.98", RequestID: "rid-export"}); err != nil {
		t.Fatal(err)
	}
	if exp.Request.Status != appliance.DSARCompleted || len(exp.Bundle.Keys) != 2 || len(exp.Bundle.Towers) != 1 || len(exp.Bundle.Jobs) != 2 ||
		len(exp.Bundle.Observations) != 2 || exp.Bundle.ObservationCounts != (appliance.ObservationCounts{LinkObservations: 1, CellSignalSamples: 1}) ||
		len(exp.Bundle.DividendEvents) != 1 || exp.Bundle.DividendEvents[0].ObservationID != "obs_link_tenant-a1" ||
		len(exp.Bundle.Billing.PaymentCustomerIDs) != 1 || exp.Bundle.Billing.PaymentCustomerIDs[0] != "cus_tenant-a1" ||
		len(exp.Bundle.AuditLog) == 0 || exp.Bundle.Identity.ID != a.admin.ID {
		t.Fatalf("export bundle: %+v", exp.Bundle)
	}
	if _, err := svc.Forget(ctx, a.admin, "delete my data", privacy.Client{}); !errors.Is(err, appliance.ErrInvalid) {
		t.Fatalf("forget without the exact confirmation: %v", err)
	}
	ans, err := svc.Forget(ctx, a.admin, privacy.ForgetConfirmation, privacy.Client{IP: "203.0.113.99", UserAgent: "forgetter", RequestID: "rid-forget"})
	if err != nil {
		t.Fatal(err)
	}
	r := ans.Request
	if r.Status != appliance.DSARReceived || r.DueByUnix != t0.Add(15*24*time.Hour).Unix() || r.EraseScheduledUnix != t0.Add(30*24*time.Hour).Unix() {
		t.Fatalf("request %+v", r)
	}
	// Soft erase: every key erased, personal columns pseudonymised, audit
	// rows without e-mail, address or user agent.
	for _, k := range []*appliance.APIKey{a.admin, a.member} {
		got, err := db.KeyByHash(k.HashHex)
		if err != nil {
			t.Fatal(err)
		}
		if got.Tier != appliance.TierErased || got.Email != privacy.Pseudonym(k.TenantID) || got.Owner != privacy.Pseudonym(k.TenantID) {
			t.Errorf("soft erased key %+v", got)
		}
	}
	if j, err := db.Get(ctx, a.admin.TenantID, "job_queued_tenant-a1"); err != nil || j.State != appliance.JobCanceled {
		t.Errorf("A's queued job after the soft erase: %+v %v", j, err)
	}
	if j, err := db.Get(ctx, b.admin.TenantID, "job_queued_tenant-b2"); err != nil || j.State != appliance.JobQueued {
		t.Errorf("B's queued job after A's soft erase: %+v %v", j, err)
	}
	if leaks := holding(scanLive(t, db), []string{"tenant-a1@example.com", "Owner tenant-a1", "agent-tenant-a1", "203.0.113.1", "198.51.100.1", "forgetter"}); len(leaks) > 0 {
		t.Errorf("personal columns left after the soft erase: %v", leaks)
	}

	q := jobs.New(db, jobsDir, jobs.Options{Clock: clk.Now, PollInterval: 5 * time.Millisecond, Workers: 1, ResultRetention: 365 * 24 * time.Hour})
	svc = privacy.New(db, q, nil, privacy.Options{Clock: clk.Now,
		RemoveResult: func(name string) error { return os.Remove(filepath.Join(jobsDir, filepath.Base(name))) }})
	q.Register(appliance.JobKindDSARHardDelete, svc.Handler())
	if err := q.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if !closed {
			_ = q.Close(ctx)
		}
	}()

	// Day 29: the daily job runs and deletes nothing.
	clk.Set(t0.Add(29 * 24 * time.Hour))
	runDaily(t, ctx, db, svc, clk)
	if got := holding(scanLive(t, db), []string{a.admin.ID}); len(got) == 0 {
		t.Fatal("tenant A deleted before the 30-day mark")
	}
	// From the 30-day mark on, the hourly scheduler ticks; the job of the
	// next day deletes A within 24 h.
	mark := t0.Add(appliance.DSARHardDeleteAfter)
	var executed int64
	for h := 0; h <= 25 && executed == 0; h++ {
		clk.Set(mark.Add(time.Duration(h) * time.Hour))
		runDaily(t, ctx, db, svc, clk)
		reqs, err := db.DSARRequests()
		if err != nil {
			t.Fatal(err)
		}
		executed = byID(reqs, r.ID).EraseExecutedUnix
	}
	if executed == 0 || executed-mark.Unix() > int64(24*time.Hour/time.Second) {
		t.Fatalf("hard delete ran at %d, mark %d: later than 24 h", executed, mark.Unix())
	}
	reqs, _ := db.DSARRequests()
	if r := byID(reqs, r.ID); r.Status != appliance.DSARCompleted || r.TenantID != "" || r.KeyID != "" || r.Subject != privacy.Pseudonym(a.admin.TenantID) {
		t.Errorf("executed request %+v", r)
	}
	// Idempotent: another run deletes nothing more and writes no second
	// dsar.hard_delete.
	again, err := svc.HardDeleteDue(ctx, clk.Now().Add(48*time.Hour))
	if err != nil || len(again) != 0 {
		t.Fatalf("second run: %v %v", again, err)
	}
	audit, err := db.Audit("", 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range audit {
		if e.Action == privacy.ActionHardDelete {
			n++
			if e.Params["dsar_request_id"] != r.ID || e.Params["rows.keys"] != "2" || e.Params["rows.towers"] != "1" ||
				e.Params["rows.jobs"] != "2" || e.Params["rows_total"] == "0" {
				t.Errorf("dsar.hard_delete params %v", e.Params)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d dsar.hard_delete rows, want 1", n)
	}
	if _, err := os.Stat(a.resultFile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("A's job result file is still there: %v", err)
	}
	if _, err := os.Stat(b.resultFile); err != nil {
		t.Errorf("B's job result file: %v", err)
	}

	if err := q.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	closed = true
	rows := scan(t, filepath.Join(dir, store.FileName))
	if left := holding(rows, a.markers); len(left) > 0 {
		t.Errorf("rows of tenant A left in the file:\n%s", strings.Join(left, "\n"))
	}
	after := holding(rows, b.markers)
	if strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Errorf("tenant B's rows changed:\nbefore:\n%s\nafter:\n%s", strings.Join(before, "\n"), strings.Join(after, "\n"))
	}
}

func byID(rs []*appliance.DSARRequest, id string) *appliance.DSARRequest {
	for _, r := range rs {
		if r.ID == id {
			return r
		}
	}
	return &appliance.DSARRequest{}
}

func containsPrefix(rows []string, p string) bool {
	for _, r := range rows {
		if strings.HasPrefix(r, p) {
			return true
		}
	}
	return false
}

// scanLive scans the open database through a consistent copy of it.
func scanLive(t *testing.T, db *store.DB) []string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "copy.db")
	if err := db.CopyTo(p); err != nil {
		t.Fatal(err)
	}
	return scan(t, p)
}

// runDaily does what the hourly scheduler does at the clock's time and
// waits until today's job has finished, when it may run.
func runDaily(t *testing.T, ctx context.Context, db *store.DB, svc *privacy.Service, clk *clock) {
	t.Helper()
	if err := svc.Schedule(ctx); err != nil {
		t.Fatal(err)
	}
	id := privacy.DailyJobID(clk.Now())
	deadline := time.Now().Add(10 * time.Second)
	for {
		j, err := db.Get(ctx, appliance.SystemTenantID, id)
		if err != nil {
			t.Fatal(err)
		}
		if j.State.Terminal() {
			if j.State != appliance.JobSucceeded {
				t.Fatalf("daily job %s: %s %s", id, j.State, j.Error)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("daily job %s still %s", id, j.State)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestPseudonymDeterministic(t *testing.T) {
	for _, tc := range []struct{ name, a, b string }{
		{"same tenant", "t_0123456789ab", "t_0123456789ab"},
		{"other tenant", "t_0123456789ab", "t_0123456789ac"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pa, pb := privacy.Pseudonym(tc.a), privacy.Pseudonym(tc.b)
			if !strings.HasPrefix(pa, "erased-") || len(pa) != len("erased-")+16 || strings.Contains(pa, tc.a) {
				t.Fatalf("pseudonym %q", pa)
			}
			if (pa == pb) != (tc.a == tc.b) {
				t.Errorf("%q vs %q", pa, pb)
			}
		})
	}
}

// TestOverdue checks the overdue list at the edges of both deadlines.
func TestOverdue(t *testing.T) {
	clk := &clock{t: t0}
	db, err := store.Open(t.TempDir(), store.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	day := int64(24 * 3600)
	c := t0.Unix()
	for _, r := range []*appliance.DSARRequest{
		{ID: "dsar_answered_export", Type: appliance.DSARExport, Status: appliance.DSARCompleted, CreatedUnix: c, DueByUnix: c + 15*day, AnsweredUnix: c},
		{ID: "dsar_unanswered", Type: appliance.DSARExport, Status: appliance.DSARProcessing, CreatedUnix: c, DueByUnix: c + 15*day},
		{ID: "dsar_erase_pending", Type: appliance.DSARErase, Status: appliance.DSARReceived, CreatedUnix: c, DueByUnix: c + 15*day,
			AnsweredUnix: c, EraseScheduledUnix: c + 30*day},
		{ID: "dsar_erase_done", Type: appliance.DSARErase, Status: appliance.DSARCompleted, CreatedUnix: c, DueByUnix: c + 15*day,
			AnsweredUnix: c, EraseScheduledUnix: c + 30*day, EraseExecutedUnix: c + 30*day + 3600},
	} {
		if err := db.PutDSAR(r); err != nil {
			t.Fatal(err)
		}
	}
	svc := privacy.New(db, nil, nil, privacy.Options{Clock: clk.Now})
	admin := &appliance.APIKey{ID: "adm", Role: appliance.RoleAdmin}
	for _, tc := range []struct {
		name string
		at   int64
		want []string
	}{
		{"at once", c, nil},
		{"at the answer deadline", c + 15*day, nil},
		{"after the answer deadline", c + 15*day + 1, []string{"dsar_unanswered:answer_due"}},
		{"at the hard-delete deadline", c + 31*day, []string{"dsar_unanswered:answer_due"}},
		{"after the hard-delete deadline", c + 31*day + 1, []string{"dsar_unanswered:answer_due", "dsar_erase_pending:hard_delete_due"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk.Set(time.Unix(tc.at, 0))
			got, err := svc.Overdue(admin)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, o := range got {
				ids = append(ids, o.Request.ID+":"+o.Reason)
			}
			sort.Strings(ids)
			want := append([]string(nil), tc.want...)
			sort.Strings(want)
			if strings.Join(ids, ",") != strings.Join(want, ",") {
				t.Errorf("overdue %v, want %v", ids, want)
			}
		})
	}
	if _, err := svc.Overdue(&appliance.APIKey{ID: "t", Role: appliance.RoleTenant}); !errors.Is(err, appliance.ErrForbidden) {
		t.Errorf("tenant key: %v", err)
	}
}
