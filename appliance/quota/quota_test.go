package quota_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/quota"
	"linkplan/store"
)

// clock is an injected time source.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func openDB(t testing.TB, dir string) *store.DB {
	t.Helper()
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func key(tier appliance.Tier, tenant string) *appliance.APIKey {
	return &appliance.APIKey{ID: "k_" + tenant, Tier: tier, Role: appliance.RoleTenant, TenantID: tenant}
}

// limitErr returns the LimitError and the wait of a refusal.
func limitErr(t *testing.T, err error) (*quota.LimitError, time.Duration) {
	t.Helper()
	var le *quota.LimitError
	var ra *appliance.RetryAfterError
	if !errors.As(err, &le) || !errors.As(err, &ra) || !errors.Is(err, appliance.ErrQuota) {
		t.Fatalf("want a LimitError in a RetryAfterError matching ErrQuota, got %v", err)
	}
	return le, ra.After
}

// spread admits n calls of k on the read group, moving the clock so that
// no rate limit is met (Free read: 30 a minute).
func spread(t *testing.T, s *quota.Service, c *clock, k *appliance.APIKey, n int) {
	t.Helper()
	for i := range n {
		if _, err := s.Admit(k, quota.GroupRead); err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
		c.Add(3 * time.Second)
	}
}

func TestFreeMonthlyCalls(t *testing.T) {
	c := &clock{t: time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)}
	db := openDB(t, t.TempDir())
	defer db.Close()
	s := quota.New(db, quota.Options{Now: c.Now})
	k := key(appliance.TierFree, "t_a")
	spread(t, s, c, k, 200)
	_, err := s.Admit(k, quota.GroupRead)
	le, wait := limitErr(t, err)
	if le.Counter != quota.CounterCalls || le.Limit != 200 || le.Used != 200 {
		t.Errorf("refusal %+v", le)
	}
	wantReset := time.Date(2026, 4, 1, 3, 0, 0, 0, time.UTC)
	if !le.Reset.Equal(wantReset) || wait != wantReset.Sub(c.Now()) {
		t.Errorf("reset %v wait %v, want %v", le.Reset, wait, wantReset)
	}
	// The tenant group is not counted: the quota can still be read.
	if _, err := s.Admit(k, quota.GroupTenant); err != nil {
		t.Errorf("tenant group refused: %v", err)
	}
	// Another tenant is not affected.
	if _, err := s.Admit(key(appliance.TierFree, "t_b"), quota.GroupRead); err != nil {
		t.Errorf("other tenant: %v", err)
	}
}

// TestCountsSurviveRestart closes the service and the bbolt file, reopens
// both and checks that the month's count goes on; and that a crash (no
// Close) loses only what was admitted after the last flush.
func TestCountsSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	c := &clock{t: time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)}
	k := key(appliance.TierFree, "t_a")

	db := openDB(t, dir)
	s := quota.New(db, quota.Options{Now: c.Now})
	if err := s.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	spread(t, s, c, k, 150)
	if err := s.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	db.Close()

	db = openDB(t, dir)
	s = quota.New(db, quota.Options{Now: c.Now})
	spread(t, s, c, k, 40)
	if err := s.Flush(); err != nil { // the loop's flush
		t.Fatal(err)
	}
	spread(t, s, c, k, 5) // admitted after the last flush: a crash loses them
	db.Close()            // crash: no Close of the service

	db = openDB(t, dir)
	defer db.Close()
	s = quota.New(db, quota.Options{Now: c.Now})
	r, err := s.Report(k)
	if err != nil {
		t.Fatal(err)
	}
	if r.Counters[0].Name != "calls" || r.Counters[0].Used != 190 {
		t.Fatalf("after crash: %+v, want 190 calls (150 + 40; the 5 after the last flush lost)", r.Counters[0])
	}
	spread(t, s, c, k, 10)
	if _, err := s.Admit(k, quota.GroupRead); err == nil {
		t.Fatal("201st call of the month admitted after restarts")
	}
}

// TestMonthRollover checks the documented instant: 00:00 of the 1st in
// America/Sao_Paulo, 03:00 UTC.
func TestMonthRollover(t *testing.T) {
	c := &clock{t: time.Date(2026, 3, 31, 20, 0, 0, 0, time.UTC)}
	db := openDB(t, t.TempDir())
	defer db.Close()
	s := quota.New(db, quota.Options{Now: c.Now})
	k := key(appliance.TierFree, "t_a")
	spread(t, s, c, k, 200)
	c.Set(time.Date(2026, 4, 1, 2, 59, 59, 0, time.UTC)) // 23:59:59 on 31 March in São Paulo
	_, err := s.Admit(k, quota.GroupRead)
	if le, wait := limitErr(t, err); le.Counter != quota.CounterCalls || wait != time.Second {
		t.Fatalf("last second of March: %+v wait %v, want the calls quota with 1 s to wait", le, wait)
	}
	c.Set(time.Date(2026, 4, 1, 3, 0, 0, 0, time.UTC)) // 00:00 on 1 April in São Paulo
	d, err := s.Admit(k, quota.GroupRead)
	if err != nil {
		t.Fatalf("first second of April: %v", err)
	}
	if d.Limit != 30 || d.Remaining != 29 {
		t.Errorf("decision %+v, want the read rate (30, 29 left)", d)
	}
	r, err := s.Report(k)
	if err != nil {
		t.Fatal(err)
	}
	if r.Month != "2026-04" || r.Counters[0].Used != 1 || r.Counters[0].ResetAt.UTC() != time.Date(2026, 5, 1, 3, 0, 0, 0, time.UTC) {
		t.Errorf("report %s %+v reset %v", r.Month, r.Counters[0], r.Counters[0].ResetAt)
	}
}

// TestMonthMatchesPDFCounter checks that the calls and the PDF counters
// share the month rule, around every month boundary of two years.
func TestMonthMatchesPDFCounter(t *testing.T) {
	cal := quota.NewCalendar()
	for m := 0; m < 24; m++ {
		b := time.Date(2026, time.Month(1+m), 1, 3, 0, 0, 0, time.UTC)
		for _, d := range []time.Duration{-time.Nanosecond, 0, time.Hour, -4 * time.Hour} {
			at := b.Add(d)
			if got, want := cal.Month(at), store.PDFMonth(at); got != want {
				t.Errorf("%v: quota month %s, PDF month %s", at, got, want)
			}
		}
		if got := cal.NextReset(b.Add(-time.Nanosecond)); !got.Equal(b) {
			t.Errorf("reset before %v = %v", b, got)
		}
	}
}

// TestRateBurst sends a burst at one instant: Remaining counts down to 0,
// the next request is refused with the wait of one emission interval, and
// a request after that wait is admitted.
func TestRateBurst(t *testing.T) {
	tests := []struct {
		name  string
		tier  appliance.Tier
		group quota.Group
		rate  int
	}{
		{"free read", appliance.TierFree, quota.GroupRead, 30},
		{"pro observations (SPEC 600/min)", appliance.TierPro, quota.GroupObservations, 600},
		{"pro prediction (SPEC 6/min)", appliance.TierPro, quota.GroupPrediction, 6},
		{"business maps", appliance.TierBusiness, quota.GroupMaps, 60},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &clock{t: time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)}
			db := openDB(t, t.TempDir())
			defer db.Close()
			s := quota.New(db, quota.Options{Now: c.Now})
			k := key(tc.tier, "t_burst")
			interval := time.Minute / time.Duration(tc.rate)
			for i := 1; i <= tc.rate; i++ {
				d, err := s.Admit(k, tc.group)
				if err != nil {
					t.Fatalf("request %d: %v", i, err)
				}
				if d.Limit != tc.rate || d.Remaining != tc.rate-i || d.Reset != time.Duration(i)*interval {
					t.Fatalf("request %d: %+v, want limit %d remaining %d reset %v", i, d, tc.rate, tc.rate-i, time.Duration(i)*interval)
				}
			}
			_, err := s.Admit(k, tc.group)
			le, wait := limitErr(t, err)
			if le.Counter != "" || le.Group != tc.group || wait != interval {
				t.Fatalf("refusal %+v wait %v, want the rate with %v", le, wait, interval)
			}
			c.Add(interval - time.Nanosecond)
			if _, err := s.Admit(k, tc.group); err == nil {
				t.Fatal("admitted before the wait")
			}
			c.Add(time.Nanosecond)
			if d, err := s.Admit(k, tc.group); err != nil || d.Remaining != 0 {
				t.Fatalf("after the wait: %+v %v", d, err)
			}
			// Another group of the same tenant has its own allowance.
			if _, err := s.Admit(k, quota.GroupTenant); err != nil {
				t.Errorf("tenant group: %v", err)
			}
		})
	}
}

func TestChargeAI(t *testing.T) {
	c := &clock{t: time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)}
	db := openDB(t, t.TempDir())
	defer db.Close()
	s := quota.New(db, quota.Options{Now: c.Now})
	if err := s.ChargeAI(key(appliance.TierFree, "t_free")); !errors.Is(err, appliance.ErrForbidden) {
		t.Errorf("free: %v, want forbidden", err)
	}
	k := key(appliance.TierStarter, "t_s")
	for i := range 100 {
		if err := s.ChargeAI(k); err != nil {
			t.Fatalf("ai call %d: %v", i+1, err)
		}
	}
	le, _ := limitErr(t, s.ChargeAI(k))
	if le.Counter != quota.CounterAI || le.Limit != 100 {
		t.Errorf("%+v", le)
	}
	admin := &appliance.APIKey{ID: "adm", Role: appliance.RoleAdmin, TenantID: "t_adm"}
	if err := s.ChargeAI(admin); err != nil {
		t.Errorf("admin: %v", err)
	}
}

func TestReservePDF(t *testing.T) {
	c := &clock{t: time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)}
	db := openDB(t, t.TempDir())
	defer db.Close()
	s := quota.New(db, quota.Options{Now: c.Now})
	k := key(appliance.TierFree, "t_a")
	for i := range 5 {
		if err := s.ReservePDF(context.Background(), k, "r"+string(rune('a'+i))); err != nil {
			t.Fatal(err)
		}
	}
	le, _ := limitErr(t, s.ReservePDF(context.Background(), k, "rf"))
	if le.Counter != quota.CounterPDFs || le.Limit != 5 || le.Used != 5 {
		t.Errorf("%+v", le)
	}
	r, err := s.Report(k)
	if err != nil {
		t.Fatal(err)
	}
	if r.Counters[1].Name != "pdfs" || r.Counters[1].Used != 5 || *r.Counters[1].Remaining != 0 {
		t.Errorf("%+v", r.Counters[1])
	}
}

// TestReportCaps checks the caps of the report: null with a reason where
// there is none, and never the word "unlimited".
func TestReportCaps(t *testing.T) {
	c := &clock{t: time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)}
	db := openDB(t, t.TempDir())
	defer db.Close()
	s := quota.New(db, quota.Options{Now: c.Now})
	tests := []struct {
		name       string
		k          *appliance.APIKey
		nullCaps   []string
		callsLimit int
	}{
		{"free", key(appliance.TierFree, "t_f"), nil, 200},
		{"business towers have no cap", key(appliance.TierBusiness, "t_b"), []string{"towers"}, 150000},
		{"ultra", key(appliance.TierUltra, "t_u"), nil, 1000000},
		{"admin is not metered", &appliance.APIKey{ID: "adm", Role: appliance.RoleAdmin, TenantID: "t_adm"}, []string{"calls", "pdfs", "ai", "towers"}, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := s.Report(tc.k)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := json.Marshal(r)
			if strings.Contains(strings.ToLower(string(raw)), "unlimited") {
				t.Errorf("report says unlimited: %s", raw)
			}
			for _, cr := range r.Counters {
				null := false
				for _, n := range tc.nullCaps {
					null = null || n == cr.Name
				}
				if null != (cr.Limit == nil) || (cr.Limit == nil) != (cr.Reason != "") && cr.Name != "ai" {
					t.Errorf("%s: limit %v reason %q", cr.Name, cr.Limit, cr.Reason)
				}
				if cr.Name == "calls" && tc.callsLimit >= 0 && *cr.Limit != tc.callsLimit {
					t.Errorf("calls limit %d, want %d", *cr.Limit, tc.callsLimit)
				}
			}
			if tc.k.Role != appliance.RoleAdmin && len(r.Rates) != len(quota.Groups()) {
				t.Errorf("%d rates", len(r.Rates))
			}
		})
	}
}

// TestConcurrentAdmit admits from many goroutines: exactly the cap is
// admitted, and the flushed count equals it.
func TestConcurrentAdmit(t *testing.T) {
	c := &clock{t: time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)}
	dir := t.TempDir()
	db := openDB(t, dir)
	s := quota.New(db, quota.Options{Now: c.Now, FlushInterval: time.Millisecond})
	if err := s.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	k := key(appliance.TierStarter, "t_c") // 3,000 calls; observations 60/min
	var wg sync.WaitGroup
	var mu sync.Mutex
	admitted := 0
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 400 {
				if _, err := s.Admit(k, quota.GroupObservations); err == nil {
					mu.Lock()
					admitted++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if admitted != 60 {
		t.Errorf("admitted %d at one instant, want the burst of 60", admitted)
	}
	if err := s.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	u, err := db.Usage("t_c", "2026-03")
	if err != nil || u["calls"] != 60 {
		t.Errorf("stored %v %v", u, err)
	}
	db.Close()
}
