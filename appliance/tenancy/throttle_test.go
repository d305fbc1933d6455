package tenancy_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"linkplan/appliance"
	"linkplan/appliance/tenancy"
)

// rowsOf returns the audit rows with the action, newest first.
func (a *appliance6) rowsOf(t *testing.T, action string) []appliance.AuditEntry {
	t.Helper()
	es, err := a.db.Audit("", 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []appliance.AuditEntry
	for _, e := range es {
		if e.Action == action {
			out = append(out, e)
		}
	}
	return out
}

// freshCode moves the clock one TOTP step on and returns that step's code.
func (a *appliance6) freshCode(t *testing.T, secret string) string {
	t.Helper()
	*a.now = a.now.Add(30 * time.Second)
	code, err := totp.GenerateCode(secret, *a.now)
	if err != nil {
		t.Fatal(err)
	}
	return code
}

// TestFinding6ThrottleIPv6By64: one IPv6 user holds a /64, so rotating
// addresses inside it does not reset the per-address throttle; another /64
// and the IPv4 addresses are separate groups.
func TestFinding6ThrottleIPv6By64(t *testing.T) {
	a, c := bootstrap6(t)
	k := a.admin(t, c.APIKey)
	for i := range tenancy.MaxTOTPFailures {
		ip := fmt.Sprintf("2001:db8:1:2::%x", i+1)
		if err := a.svc.VerifyAdminFrom(k, "000000", tenancy.Client{IP: ip}); !errors.Is(err, appliance.ErrForbidden) {
			t.Fatalf("guess %d from %s: %v", i, ip, err)
		}
	}
	tests := []struct {
		name string
		ip   string
		want error
	}{
		{name: "new address in the same /64 is throttled", ip: "2001:db8:1:2:ffff::9", want: appliance.ErrQuota},
		{name: "another /64 passes", ip: "2001:db8:1:3::1", want: nil},
		{name: "an IPv4 address passes", ip: "192.0.2.1", want: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := a.svc.VerifyAdminFrom(k, a.freshCode(t, c.TOTPSecret), tenancy.Client{IP: tc.ip})
			if (tc.want == nil) != (err == nil) || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
	rows := a.rowsOf(t, tenancy.ActionTOTPThrottled)
	if len(rows) != 1 || rows[0].Params["limit"] != "address_group" || rows[0].Params["address_group"] != "2001:db8:1:2::/64" || rows[0].IP != "2001:db8:1:2:ffff::9" {
		t.Errorf("throttled rows %+v", rows)
	}
}

// TestFinding6PerKeyLimits: guesses spread over many addresses meet the
// per-key ceiling per window, and over the windows of a day the daily cap.
func TestFinding6PerKeyLimits(t *testing.T) {
	a, c := bootstrap6(t)
	k := a.admin(t, c.APIKey)
	ip := 0
	guess := func(t *testing.T) error {
		ip++
		return a.svc.VerifyAdminFrom(k, "000000", tenancy.Client{IP: fmt.Sprintf("198.51.%d.%d", ip/250, ip%250)})
	}
	windows := tenancy.MaxTOTPFailuresPerKeyPerDay / tenancy.MaxTOTPFailuresPerKey
	for w := range windows {
		for i := range tenancy.MaxTOTPFailuresPerKey {
			if err := guess(t); !errors.Is(err, appliance.ErrForbidden) {
				t.Fatalf("window %d guess %d: %v", w, i, err)
			}
		}
		if err := guess(t); !errors.Is(err, appliance.ErrQuota) {
			t.Fatalf("window %d: guess over the per-key ceiling: %v, want ErrQuota", w, err)
		}
		*a.now = a.now.Add(tenancy.TOTPFailureWindow + time.Second)
	}
	// A new window, but the day's cap is spent: a valid code from a new
	// address is refused until the first failures are a day old.
	if err := a.svc.VerifyAdminFrom(k, a.freshCode(t, c.TOTPSecret), tenancy.Client{IP: "203.0.113.50"}); !errors.Is(err, appliance.ErrQuota) {
		t.Fatalf("after %d failures in a day: %v, want ErrQuota", tenancy.MaxTOTPFailuresPerKeyPerDay, err)
	}
	if e, _ := a.lastAudit(t, tenancy.ActionTOTPThrottled); e.Params["limit"] != "key_day" {
		t.Errorf("throttled row %+v, want limit key_day", e)
	}
	*a.now = a.now.Add(tenancy.TOTPFailureDay)
	if err := a.svc.VerifyAdminFrom(k, a.freshCode(t, c.TOTPSecret), tenancy.Client{IP: "203.0.113.50"}); err != nil {
		t.Fatalf("a day later: %v", err)
	}
}

// TestFinding6ThrottledRowsBounded: every throttled request wrote an
// fsynced audit row with the raw user agent (up to about 1 MiB). Now the
// first throttled attempt of a window writes a row (user agent cleaned and
// capped), the others are counted and summarised by one row once the window
// has ended; rotating addresses under the per-key limit adds no rows.
func TestFinding6ThrottledRowsBounded(t *testing.T) {
	a, c := bootstrap6(t)
	k := a.admin(t, c.APIKey)
	hugeUA := "evil\u202e\x00\n" + strings.Repeat("A", 1<<20)
	attacker := tenancy.Client{IP: "198.51.100.9", UserAgent: hugeUA, RequestID: "rid-flood", Route: "/admin/keys"}
	for range tenancy.MaxTOTPFailures {
		_ = a.svc.VerifyAdminFrom(k, "000000", attacker)
	}
	const flood = 1000
	for i := range flood {
		if err := a.svc.VerifyAdminFrom(k, "000000", attacker); !errors.Is(err, appliance.ErrQuota) {
			t.Fatalf("flood %d: %v", i, err)
		}
	}
	rows := a.rowsOf(t, tenancy.ActionTOTPThrottled)
	if len(rows) != 1 {
		t.Fatalf("%d throttled rows for %d throttled attempts in one window, want 1", len(rows), flood)
	}
	if ua := rows[0].UserAgent; len(ua) > appliance.MaxUserAgentBytes || strings.ContainsAny(ua, "\x00\n\u202e") || !strings.HasPrefix(ua, "evil") {
		t.Errorf("stored user agent %d bytes %q...", len(ua), ua[:min(len(ua), 20)])
	}
	for _, e := range a.rowsOf(t, tenancy.ActionTOTPFailed) {
		if len(e.UserAgent) > appliance.MaxUserAgentBytes {
			t.Fatalf("failed row keeps a %d-byte user agent", len(e.UserAgent))
		}
	}
	// The window ends; the operator's next step-up writes the summary.
	*a.now = a.now.Add(tenancy.TOTPFailureWindow + time.Second)
	if err := a.svc.VerifyAdminFrom(k, a.freshCode(t, c.TOTPSecret), client6); err != nil {
		t.Fatal(err)
	}
	rows = a.rowsOf(t, tenancy.ActionTOTPThrottled)
	if len(rows) != 2 || rows[0].Params["summary"] != "1" || rows[0].Params["suppressed"] != fmt.Sprint(flood-1) || rows[0].Params["address_group"] != attacker.IP {
		t.Fatalf("rows after the window: %+v, want a summary of %d suppressed attempts", rows, flood-1)
	}
	// Under the per-key ceiling, attempts from ever new addresses leave one
	// row per window, not one per address.
	for i := range tenancy.MaxTOTPFailuresPerKey {
		_ = a.svc.VerifyAdminFrom(k, "000000", tenancy.Client{IP: fmt.Sprintf("192.0.2.%d", i)})
	}
	before := len(a.rowsOf(t, tenancy.ActionTOTPThrottled))
	for i := range 300 {
		if err := a.svc.VerifyAdminFrom(k, "000000", tenancy.Client{IP: fmt.Sprintf("203.0.%d.%d", i/250, i%250)}); !errors.Is(err, appliance.ErrQuota) {
			t.Fatalf("rotating address %d: %v", i, err)
		}
	}
	if got := len(a.rowsOf(t, tenancy.ActionTOTPThrottled)) - before; got != 1 {
		t.Errorf("%d throttled rows for 300 rotating addresses, want 1", got)
	}
}

// TestFinding6ThrottleReservationAtomic: the throttle check and the failure
// count were separate steps, so concurrent guesses could all pass the check
// before any failure was counted. Each attempt now reserves its failure
// under the lock: however the goroutines interleave, an address group gets
// at most MaxTOTPFailures checked codes and the key MaxTOTPFailuresPerKey.
func TestFinding6ThrottleReservationAtomic(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	a, c := bootstrap6(t)
	k := a.admin(t, c.APIKey)
	const goroutines, groups = 120, 8
	perGroup := map[string]int{}
	ips := make([]string, goroutines)
	for i := range ips {
		ips[i] = fmt.Sprintf("198.51.100.%d", rng.IntN(groups))
		perGroup[ips[i]]++
	}
	want := 0
	for _, n := range perGroup {
		want += min(n, tenancy.MaxTOTPFailures)
	}
	want = min(want, tenancy.MaxTOTPFailuresPerKey)
	var wg sync.WaitGroup
	var mu sync.Mutex
	checked := map[string]int{}
	for i := range goroutines {
		wg.Go(func() {
			err := a.svc.VerifyAdminFrom(k, "000000", tenancy.Client{IP: ips[i]})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case errors.Is(err, appliance.ErrForbidden):
				checked[ips[i]]++
			case !errors.Is(err, appliance.ErrQuota):
				t.Errorf("attempt %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	total := 0
	for ip, n := range checked {
		total += n
		if n > tenancy.MaxTOTPFailures {
			t.Errorf("%s: %d codes checked, limit %d", ip, n, tenancy.MaxTOTPFailures)
		}
	}
	if total != want {
		t.Errorf("%d codes checked in all, want %d (groups %v)", total, want, perGroup)
	}
	if n := len(a.rowsOf(t, tenancy.ActionTOTPFailed)); n != total {
		t.Errorf("%d failed rows, %d failures", n, total)
	}
	// A valid code releases its reservation: a group one failure short of
	// the limit can use codes again and again.
	*a.now = a.now.Add(tenancy.TOTPFailureWindow + time.Second)
	for range tenancy.MaxTOTPFailures - 1 {
		_ = a.svc.VerifyAdminFrom(k, "000000", client6)
	}
	for i := range 3 {
		if err := a.svc.VerifyAdminFrom(k, a.freshCode(t, c.TOTPSecret), client6); err != nil {
			t.Fatalf("valid code %d after %d failures: %v", i, tenancy.MaxTOTPFailures-1, err)
		}
	}
}
