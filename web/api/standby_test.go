package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/standby"
	"linkplan/web/api"
)

// TestIssue21_StandbyRefusesRequests: the API of a warm standby (a real
// replica that has pulled nothing yet) answers the health routes and
// refuses every other request, read or write, routed or not, with 409
// standby naming the role and the primary.
func TestIssue21_StandbyRefusesRequests(t *testing.T) {
	rep, err := standby.OpenReplica(standby.ReplicaDeps{DataDir: t.TempDir(), PrimaryURL: "https://user:pw@primary.example:8443/?x=1",
		Key: "lpsb_" + strings.Repeat("ab", 32), Every: time.Minute,
		Extract: func(context.Context, string, string) (appliance.BackupManifest, error) {
			t.Fatal("no pull in this test")
			return appliance.BackupManifest{}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	primary := rep.Failover().PrimaryURL
	if primary != "https://primary.example:8443/" {
		t.Fatalf("primary URL %q: user information and query must not be shown", primary)
	}
	a := api.New(api.Deps{OperationsDeps: api.OperationsDeps{Failover: rep}, PlatformDeps: api.PlatformDeps{StandbyOf: primary, Checks: []api.Check{{Name: "role", Fn: func(context.Context) error {
		return errRole
	}}}}})
	a.SetState(api.StateReady)
	cases := []struct {
		name, method, path, body string
		status                   int
		contains                 string
	}{
		{"liveness", "GET", "/health", "", 200, `"healthy"`},
		{"readiness", "GET", "/health/ready", "", 503, "warm standby"},
		{"failover", "GET", "/health/failover", "", 200, `"role":"standby"`},
		{"metrics", "GET", "/metrics", "", 200, "linkplan_http_requests_total"},
		{"a write", "POST", "/coverage/observations/batch", `{"observations":[]}`, 409, `"code":"standby"`},
		{"a read", "GET", "/towers/nearest?lat=-22.9&lon=-43.2", "", 409, "warm standby of https://primary.example:8443/"},
		{"an admin action", "POST", "/admin/keys", `{}`, 409, "role standby"},
		{"the snapshot route", "GET", "/replication/snapshot", "", 409, "promote"},
		{"no such route", "GET", "/nope", "", 409, `"code":"standby"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := httptest.NewRequest(c.method, c.path, strings.NewReader(c.body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-API-Key", "lp_live_whatever")
			w := httptest.NewRecorder()
			a.ServeHTTP(w, req)
			if w.Code != c.status || !strings.Contains(w.Body.String(), c.contains) {
				t.Errorf("%s %s: %d %s, want %d with %q", c.method, c.path, w.Code, w.Body, c.status, c.contains)
			}
		})
	}
	req := httptest.NewRequest("GET", "/health/failover", nil)
	w := httptest.NewRecorder()
	a.ServeHTTP(w, req)
	var f appliance.FailoverStatus
	if err := json.Unmarshal(w.Body.Bytes(), &f); err != nil || f.ReadyToPromote || len(f.Reasons) == 0 || f.LagS != nil || f.Verification.Status != "none" {
		t.Errorf("failover before any pull: %s", w.Body)
	}
	if w.Header().Get("Content-Type") == "" || w.Code != http.StatusOK {
		t.Errorf("failover answer %d %v", w.Code, w.Header())
	}
}

type roleError struct{}

func (roleError) Error() string { return "a warm standby: it serves no traffic until promoted" }

var errRole = roleError{}
