package api_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/tenancy"
	"linkplan/web/api"
)

// adminPost sends POST /admin/keys straight to the handler from a chosen
// client address.
func adminPost(t *testing.T, a *api.API, h *harness, remote, code, rid, ua string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/admin/keys", strings.NewReader(issueBody("Free", "")))
	req.RemoteAddr = remote
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", h.adminKey)
	req.Header.Set("X-Admin-Totp", code)
	req.Header.Set("X-Request-Id", rid)
	req.Header.Set("User-Agent", ua)
	rec := httptest.NewRecorder()
	a.ServeHTTP(rec, req)
	return rec
}

// auditFor returns the newest audit entry with action and request id.
func auditFor(t *testing.T, h *harness, action, rid string) (appliance.AuditEntry, bool) {
	t.Helper()
	es, err := h.db.Audit("", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if e.Action == action && e.RequestID == rid {
			return e, true
		}
	}
	return appliance.AuditEntry{}, false
}

// TestFinding6AdminStepUp is the API regression test of issue 7, finding 6:
// a used code is refused after a restart of the service (its memory gone,
// the store kept), throttling is per client address, and replayed, failed
// and throttled attempts are audited with address, user agent and request id.
func TestFinding6AdminStepUp(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	code := h.freshTOTP(t)
	if rec := adminPost(t, h.api, h, "192.0.2.10:4000", code, "f6-first", "ops-cli"); rec.Code != http.StatusCreated {
		t.Fatalf("first use: %d %s", rec.Code, rec.Body)
	}
	// A restarted service: new tenancy state over the same store.
	restarted := api.New(api.Deps{AccessDeps: api.AccessDeps{Auth: tenancy.New(h.db, h.clock.Now)}})
	restarted.SetState(api.StateReady)
	rec := adminPost(t, restarted, h, "192.0.2.66:4000", code, "f6-replay", "replayer/1")
	if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "already used") {
		t.Fatalf("replay after restart: %d %s, want 403 already used", rec.Code, rec.Body)
	}
	if e, ok := auditFor(t, h, tenancy.ActionTOTPReplayed, "f6-replay"); !ok || e.IP != "192.0.2.66" || e.UserAgent != "replayer/1" || e.Route != "/admin/keys" {
		t.Errorf("replay audit entry %+v (found %v)", e, ok)
	}

	const guesser = "198.51.100.9:5555"
	for i := range tenancy.MaxTOTPFailures {
		if rec := adminPost(t, h.api, h, guesser, "000000", "f6-guess", "guesser"); rec.Code != http.StatusForbidden {
			t.Fatalf("guess %d: %d %s", i, rec.Code, rec.Body)
		}
	}
	if e, ok := auditFor(t, h, tenancy.ActionTOTPFailed, "f6-guess"); !ok || e.IP != "198.51.100.9" || e.UserAgent != "guesser" {
		t.Errorf("failed attempt audit entry %+v (found %v)", e, ok)
	}
	tests := []struct {
		name   string
		remote string
		rid    string
		status int
		audit  string
	}{
		{name: "valid code from the guessing address is throttled", remote: guesser, rid: "f6-throttled", status: http.StatusTooManyRequests, audit: tenancy.ActionTOTPThrottled},
		{name: "valid code from the operator's address passes", remote: "192.0.2.10:4001", rid: "f6-operator", status: http.StatusCreated},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := adminPost(t, h.api, h, tc.remote, h.freshTOTP(t), tc.rid, "ops-cli")
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.status, rec.Body)
			}
			if ra := rec.Header().Get("Retry-After"); (tc.status == http.StatusTooManyRequests) != (ra != "") {
				t.Errorf("Retry-After %q on a %d", ra, rec.Code)
			} else if ra != "" && ra != strconv.Itoa(int(tenancy.TOTPFailureWindow/time.Second)) {
				t.Errorf("Retry-After %q, want the throttle window %v", ra, tenancy.TOTPFailureWindow)
			}
			if tc.audit == "" {
				return
			}
			ip := tc.remote[:strings.LastIndexByte(tc.remote, ':')]
			if e, ok := auditFor(t, h, tc.audit, tc.rid); !ok || e.IP != ip || e.UserAgent != "ops-cli" {
				t.Errorf("%s audit entry %+v (found %v)", tc.audit, e, ok)
			}
		})
	}
}
