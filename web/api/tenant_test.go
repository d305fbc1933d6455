package api_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/sampledata"
	"linkplan/terrain-packs/sample"
)

// quotaAnswer is the body of GET /v1/me/quota.
type quotaAnswer struct {
	Tier     string  `json:"tier"`
	TenantID string  `json:"tenant_id"`
	Metered  bool    `json:"metered"`
	Reason   *string `json:"reason"`
	Month    string  `json:"month"`
	Counters []struct {
		Name      string  `json:"name"`
		Limit     *int    `json:"limit"`
		Used      int     `json:"used"`
		Remaining *int    `json:"remaining"`
		ResetAt   *string `json:"reset_at"`
		Reason    *string `json:"reason"`
	} `json:"counters"`
	RateLimits []struct {
		Group          string `json:"group"`
		LimitPerMinute int    `json:"limit_per_minute"`
		Remaining      int    `json:"remaining"`
	} `json:"rate_limits"`
}

func (q quotaAnswer) used(name string) int {
	for _, c := range q.Counters {
		if c.Name == name {
			return c.Used
		}
	}
	return -1
}

// auditAnswer is the body of the audit routes.
type auditAnswer struct {
	Entries []struct {
		Seq        uint64            `json:"seq"`
		Time       string            `json:"time"`
		Action     string            `json:"action"`
		ActorKey   *string           `json:"actor_key"`
		ActorEmail *string           `json:"actor_email"`
		TenantID   *string           `json:"tenant_id"`
		Route      *string           `json:"route"`
		Params     map[string]string `json:"params"`
		IP         *string           `json:"ip"`
		RequestID  *string           `json:"request_id"`
	} `json:"entries"`
	NextBefore *uint64 `json:"next_before"`
}

// quotaError is the parseable part of a 429 of the metering service.
type quotaError struct {
	Error struct {
		Code  string `json:"code"`
		Quota struct {
			Kind    string  `json:"kind"`
			Counter *string `json:"counter"`
			Group   *string `json:"group"`
			Tier    string  `json:"tier"`
			Limit   int     `json:"limit"`
			Used    int     `json:"used"`
			ResetAt string  `json:"reset_at"`
			WindowS int     `json:"window_s"`
		} `json:"quota"`
	} `json:"error"`
}

func tenantScenarios(t *testing.T, h *harness) []scenario {
	return []scenario{
		{name: "quota of a Free key", method: "GET", url: "/v1/me/quota", key: "free", status: 200, check: func(t *testing.T, h *harness, res *response) {
			q := decodeJSON[quotaAnswer](t, res)
			if q.Tier != "Free" || !q.Metered || q.Reason != nil || len(q.Counters) != 4 || len(q.RateLimits) != 9 {
				t.Errorf("%s", res.body)
			}
			for _, c := range q.Counters {
				if c.Limit == nil || c.Remaining == nil || *c.Remaining != *c.Limit-c.Used {
					t.Errorf("counter %s: %s", c.Name, res.body)
				}
			}
		}},
		{name: "quota of an admin key is null with a reason", method: "GET", url: "/v1/me/quota", key: "admin", status: 200, check: func(t *testing.T, h *harness, res *response) {
			q := decodeJSON[quotaAnswer](t, res)
			if q.Metered || q.Reason == nil || res.header.Get("RateLimit-Limit") != "" || strings.Contains(strings.ToLower(string(res.body)), "unlimited") {
				t.Errorf("%s", res.body)
			}
			for _, c := range q.Counters {
				if c.Limit != nil || c.Reason == nil {
					t.Errorf("counter %s: %s", c.Name, res.body)
				}
			}
		}},
		{name: "quota without key", method: "GET", url: "/v1/me/quota", status: 401, code: "unauthenticated"},
		{name: "tier limits of a Pro key (issue 27)", method: "GET", url: "/v1/me/limits", key: "pro", status: 200},
		{name: "quota of an erased key", method: "GET", url: "/v1/me/quota", key: "erased", status: 401, code: "key_erased"},
		{name: "tenant audit log", method: "GET", url: "/tenant/audit?limit=5", key: "pro", status: 200},
		{name: "tenant audit log by action and time", method: "GET", url: "/tenant/audit?action=tower.register&from=2026-01-01T00:00:00-03:00&to=2027-01-01T00:00:00Z", key: "pro", status: 200},
		{name: "tenant audit log refuses admin keys", method: "GET", url: "/tenant/audit", key: "admin", status: 403, code: "forbidden"},
		{name: "tenant audit log bad filters", method: "GET", url: "/tenant/audit?action=Tower%20Register&from=yesterday&before=-1&limit=0", key: "pro", status: 422, code: "invalid_input",
			fields: []string{"action", "from", "before", "limit"}, doc: docRejects},
		{name: "tenant audit log with to before from", method: "GET", url: "/tenant/audit?from=2026-03-02T00:00:00Z&to=2026-03-01T00:00:00Z", key: "pro", status: 422, code: "invalid_input", fields: []string{"to"}},
		{name: "tenant audit log refuses tenant_id", method: "GET", url: "/tenant/audit?tenant_id=t_x", key: "pro", status: 422, code: "invalid_input", fields: []string{"tenant_id"}, doc: docRejects},
		{name: "admin audit log", method: "GET", url: "/admin/audit?limit=3", key: "admin", status: 200, check: func(t *testing.T, h *harness, res *response) {
			a := decodeJSON[auditAnswer](t, res)
			if len(a.Entries) == 0 || a.Entries[0].Action != appliance.ActionAdminAuditRead || a.Entries[0].Params["limit"] != "3" {
				t.Errorf("the read is not audited first: %s", res.body)
			}
		}},
		{name: "admin audit log refuses tenant keys", method: "GET", url: "/admin/audit", key: "pro", status: 403, code: "forbidden"},
		{name: "platform maturity", method: "GET", url: "/platform/maturity", key: "free", status: 200, check: func(t *testing.T, h *harness, res *response) {
			var m struct {
				Offline      bool `json:"offline"`
				Dependencies []struct {
					Name, Status string
				} `json:"dependencies"`
				HostingPortability struct {
					Dependencies struct {
						LLMInference struct {
							Active    bool `json:"active"`
							AWSBacked bool `json:"aws_backed"`
						} `json:"llm_inference"`
					} `json:"dependencies"`
				} `json:"hosting_portability"`
				DataManifest struct {
					Complete     bool
					TerrainPacks []struct {
						Name, Status string
						SHA256       string `json:"sha256"`
						Tiles        int
					} `json:"terrain_packs"`
					TowerSources []struct {
						Name        string
						SHA256      string `json:"sha256"`
						LastRefresh struct {
							SHA256     string `json:"sha256"`
							Towers     int
							SameAsFile bool `json:"same_as_file"`
						} `json:"last_refresh"`
					} `json:"tower_sources"`
				} `json:"data_manifest"`
			}
			if err := json.Unmarshal(res.body, &m); err != nil {
				t.Fatal(err)
			}
			if !m.Offline || len(m.Dependencies) != 5 || m.Dependencies[3].Name != "queue" || m.Dependencies[4].Name != "disk" || m.Dependencies[0].Name != "database" || m.Dependencies[0].Status != "ok" ||
				m.HostingPortability.Dependencies.LLMInference.Active || m.HostingPortability.Dependencies.LLMInference.AWSBacked {
				t.Errorf("%s", res.body)
			}
			// The data manifest: the embedded sample pack and towers by
			// SHA-256, each tower source with the refresh that read it.
			sha := func(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }
			dm := m.DataManifest
			if !dm.Complete || len(dm.TerrainPacks) != 1 || dm.TerrainPacks[0].Name != "embedded:rio.ltp" || dm.TerrainPacks[0].Status != "ok" ||
				dm.TerrainPacks[0].SHA256 != sha(sample.Pack()) || dm.TerrainPacks[0].Tiles != 2 || len(dm.TowerSources) != 2 {
				t.Fatalf("data manifest: %s", res.body)
			}
			for i, want := range []struct {
				name   string
				data   []byte
				towers int
			}{{"embedded:anatel_erbs_sample.csv", sampledata.AnatelERBs(), 104}, {"embedded:opencellid_724_sample.csv", sampledata.OpenCelliD(), 204}} {
				got := dm.TowerSources[i]
				if got.Name != want.name || got.SHA256 != sha(want.data) || got.LastRefresh.SHA256 != sha(want.data) ||
					got.LastRefresh.Towers != want.towers || !got.LastRefresh.SameAsFile {
					t.Errorf("tower source %d: %+v", i, got)
				}
			}
		}},
		{name: "platform maturity without key", method: "GET", url: "/platform/maturity", status: 401, code: "unauthenticated"},
	}
}

// TestQuotaFreeMonthlyCalls makes the 200 calls of a Free month over HTTP
// (spread so that no rate limit applies) and checks the 201st: a 429 whose
// body names the spent counter, its cap and the reset instant (00:00 of
// 1 April in America/Sao_Paulo), with Retry-After up to that instant; then
// moves the harness clock to the last second of March (still refused) and
// to the reset instant (admitted, counted in April).
func TestQuotaFreeMonthlyCalls(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	d := loadOpenAPI(t)
	key := h.keys["free"]
	for i := 1; i <= 200; i++ {
		h.clock.advance(3 * time.Second) // Free read: 30 a minute
		res := h.do(t, "GET", "/places?q=rio&limit=1", key, nil, "")
		if res.status != http.StatusOK {
			t.Fatalf("call %d: %d %s", i, res.status, res.body)
		}
		if left, _ := strconv.Atoi(res.header.Get("RateLimit-Remaining")); i > 170 && left != 200-i {
			// The monthly calls become the limit closest to exhaustion.
			t.Fatalf("call %d: RateLimit-Remaining %d, want %d (limit %s)", i, left, 200-i, res.header.Get("RateLimit-Limit"))
		}
	}
	h.clock.advance(3 * time.Second)
	now := h.clock.Now()
	res := h.do(t, "GET", "/places?q=rio&limit=1", key, nil, "")
	contract(t, d, "GET", "/places", res)
	if res.status != http.StatusTooManyRequests {
		t.Fatalf("call 201: %d %s", res.status, res.body)
	}
	var qe quotaError
	if err := json.Unmarshal(res.body, &qe); err != nil {
		t.Fatalf("body is not parseable: %v: %s", err, res.body)
	}
	q := qe.Error.Quota
	reset := time.Date(2026, 4, 1, 3, 0, 0, 0, time.UTC)
	if qe.Error.Code != "quota_exceeded" || q.Kind != "monthly" || q.Counter == nil || *q.Counter != "calls" || q.Group != nil ||
		q.Tier != "Free" || q.Limit != 200 || q.Used != 200 || q.ResetAt != reset.Format(time.RFC3339Nano) || q.WindowS != 0 {
		t.Errorf("body %s", res.body)
	}
	if ra := res.header.Get("Retry-After"); ra != strconv.Itoa(int(reset.Sub(now).Seconds())) {
		t.Errorf("Retry-After %q, want %d", ra, int(reset.Sub(now).Seconds()))
	}
	if res.header.Get("RateLimit-Remaining") != "0" || res.header.Get("RateLimit-Limit") != "200" {
		t.Errorf("RateLimit headers %v", res.header)
	}
	// Tenant routes still answer, and count the refused call nowhere.
	res = h.do(t, "GET", "/v1/me/quota", key, nil, "")
	if res.status != http.StatusOK || decodeJSON[quotaAnswer](t, res).used("calls") != 200 {
		t.Errorf("quota after the refusal: %d %s", res.status, res.body)
	}
	// Another tenant is not affected.
	if res := h.do(t, "GET", "/places?q=rio&limit=1", h.keys["pro"], nil, ""); res.status != http.StatusOK {
		t.Errorf("pro: %d", res.status)
	}
	// The month rolls over at 00:00 of 1 April in São Paulo (03:00 UTC).
	h.clock.set(reset.Add(-time.Second))
	res = h.do(t, "GET", "/places?q=rio&limit=1", key, nil, "")
	if res.status != http.StatusTooManyRequests || res.header.Get("Retry-After") != "1" {
		t.Errorf("23:59:59 on 31 March in São Paulo: %d Retry-After %q", res.status, res.header.Get("Retry-After"))
	}
	h.clock.set(reset)
	if res := h.do(t, "GET", "/places?q=rio&limit=1", key, nil, ""); res.status != http.StatusOK {
		t.Fatalf("00:00 on 1 April in São Paulo: %d %s", res.status, res.body)
	}
	april := decodeJSON[quotaAnswer](t, h.do(t, "GET", "/v1/me/quota", key, nil, ""))
	if april.Month != "2026-04" || april.used("calls") != 1 {
		t.Errorf("April: month %s, %d calls used", april.Month, april.used("calls"))
	}
}

// TestRateLimitBurst sends a burst at one instant of the harness clock:
// the headers count down, the request past the burst is a 429 with
// Retry-After of one emission interval, and concurrent requests admit
// exactly the allowance.
func TestRateLimitBurst(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	d := loadOpenAPI(t)
	key := h.keys["free"] // Free read: 30 a minute, one every 2 s
	for i := 1; i <= 30; i++ {
		res := h.do(t, "GET", "/places?q=rio&limit=1", key, nil, "")
		if res.status != http.StatusOK {
			t.Fatalf("request %d: %d %s", i, res.status, res.body)
		}
		want := map[string]string{"RateLimit-Limit": "30", "RateLimit-Remaining": strconv.Itoa(30 - i), "RateLimit-Reset": strconv.Itoa(2 * i)}
		for hname, v := range want {
			if got := res.header.Get(hname); got != v {
				t.Errorf("request %d: %s %q, want %q", i, hname, got, v)
			}
		}
	}
	res := h.do(t, "GET", "/places?q=rio&limit=1", key, nil, "")
	contract(t, d, "GET", "/places", res)
	var qe quotaError
	if err := json.Unmarshal(res.body, &qe); err != nil || res.status != http.StatusTooManyRequests || qe.Error.Code != "rate_limited" ||
		qe.Error.Quota.Kind != "rate" || qe.Error.Quota.Group == nil || *qe.Error.Quota.Group != "read" || qe.Error.Quota.WindowS != 60 {
		t.Fatalf("request 31: %d %s", res.status, res.body)
	}
	if res.header.Get("Retry-After") != "2" || res.header.Get("RateLimit-Remaining") != "0" || res.header.Get("RateLimit-Reset") != "60" {
		t.Errorf("request 31 headers: Retry-After %q RateLimit %q/%q/%q", res.header.Get("Retry-After"),
			res.header.Get("RateLimit-Limit"), res.header.Get("RateLimit-Remaining"), res.header.Get("RateLimit-Reset"))
	}
	h.clock.advance(2 * time.Second)
	if res := h.do(t, "GET", "/places?q=rio&limit=1", key, nil, ""); res.status != http.StatusOK || res.header.Get("RateLimit-Remaining") != "0" {
		t.Errorf("after Retry-After: %d %v", res.status, res.header)
	}

	// Concurrent burst on another group (Free compute: 10 a minute, one
	// every 6 s): the admitted answers' RateLimit-Remaining are 9 down to
	// 0, each once; every refusal waits one interval.
	var mu sync.Mutex
	counts := map[int]int{}
	var remaining []int
	var wg sync.WaitGroup
	for range 25 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := h.do(t, "POST", "/analyze_link", key, nil, `{"receiver":{"lat":-22.95,"lon":-43.20,"height":10},"frequency_mhz":1800,"max_distance_km":5}`)
			mu.Lock()
			defer mu.Unlock()
			counts[res.status]++
			switch res.status {
			case http.StatusOK:
				n, _ := strconv.Atoi(res.header.Get("RateLimit-Remaining"))
				remaining = append(remaining, n)
			case http.StatusTooManyRequests:
				if res.header.Get("Retry-After") != "6" || res.header.Get("RateLimit-Remaining") != "0" || res.header.Get("RateLimit-Limit") != "10" {
					t.Errorf("refusal headers: %v", res.header)
				}
			}
		}()
	}
	wg.Wait()
	if counts[http.StatusOK] != 10 || counts[http.StatusTooManyRequests] != 15 {
		t.Errorf("concurrent burst: %v, want 10 OK and 15 refused", counts)
	}
	sort.Ints(remaining)
	for i, n := range remaining {
		if n != i {
			t.Errorf("RateLimit-Remaining of the admitted: %v, want 0..9 once each", remaining)
			break
		}
	}
}

// TestTenantIsolationQuotaAndAudit is the isolation table of the quota
// and audit routes: a tenant's calls, towers and audit entries are never
// counted in, or shown to, another tenant (the Free and internal keys).
func TestTenantIsolationQuotaAndAudit(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	towerID := registerOwn(t, h, "pro", "Isolada Auditoria", "ISO-AUD-1", -22.95, -43.21)
	j := submitJob(t, h, h.keys["pro"], `{"rows":[`+batchRows(101)+`],"options":{"pdfs":false}}`)
	h.do(t, "POST", "/jobs/"+j.ID+"/cancel", h.keys["pro"], nil, "")
	mapID, _, _ := startMap(t, h, h.keys["pro"], heatmapBody)
	for range 5 {
		h.do(t, "GET", "/places?q=rio&limit=1", h.keys["pro"], nil, "")
	}
	proQuota := decodeJSON[quotaAnswer](t, h.do(t, "GET", "/v1/me/quota", h.keys["pro"], nil, ""))
	if proQuota.used("calls") < 9 || proQuota.used("towers") != 1 {
		t.Fatalf("pro quota %+v", proQuota)
	}
	secrets := []string{towerID, j.ID, mapID, h.keyIDs["pro"], "pro@example.com", proQuota.TenantID}
	for _, other := range []string{"free", "internal"} {
		for _, tc := range []struct{ name, url string }{
			{"quota", "/v1/me/quota"},
			{"audit", "/tenant/audit?limit=1000"},
			{"audit by action", "/tenant/audit?action=tower.register"},
			{"audit of a job", "/tenant/audit?action=job.submit"},
			{"audit paged before the pro entries", "/tenant/audit?before=1000000"},
		} {
			t.Run(tc.name+" as "+other, func(t *testing.T) {
				res := h.do(t, "GET", tc.url, h.keys[other], nil, "")
				if res.status != http.StatusOK {
					t.Fatalf("%d %s", res.status, res.body)
				}
				for _, s := range secrets {
					if strings.Contains(string(res.body), s) {
						t.Errorf("answer holds the pro tenant's %q: %.400s", s, res.body)
					}
				}
				if tc.name == "quota" {
					q := decodeJSON[quotaAnswer](t, res)
					if q.used("towers") != 0 || q.used("calls") > 3 {
						t.Errorf("counts of another tenant: %s", res.body)
					}
				}
			})
		}
	}
	// The other tenants' calls changed nothing of the pro tenant's counts.
	if after := decodeJSON[quotaAnswer](t, h.do(t, "GET", "/v1/me/quota", h.keys["pro"], nil, "")); after.used("calls") != proQuota.used("calls") {
		t.Errorf("pro calls %d after the other tenants' calls, %d before", after.used("calls"), proQuota.used("calls"))
	}
	// The owner sees its entries, written by the change's transaction with
	// the request's details; the admin sees them too.
	res := h.do(t, "GET", "/tenant/audit", h.keys["pro"], map[string]string{"X-Request-Id": "iso-audit-1"}, "")
	a := decodeJSON[auditAnswer](t, res)
	seen := map[string]bool{}
	for _, e := range a.Entries {
		seen[e.Action] = true
		if e.TenantID == nil || *e.TenantID != proQuota.TenantID {
			t.Errorf("entry of another tenant: %+v", e)
		}
		if e.Action == appliance.ActionMapStart && e.Params["map_id"] != mapID {
			t.Errorf("coverage.map.start entry %+v", e)
		}
		if e.Action == appliance.ActionJobCancel && (e.Params["job_id"] != j.ID || e.IP == nil || e.RequestID == nil || e.Route == nil || *e.Route != "/jobs/{id}/cancel") {
			t.Errorf("job.cancel entry %+v", e)
		}
	}
	for _, act := range []string{appliance.ActionTowerRegister, appliance.ActionJobSubmit, appliance.ActionJobCancel, appliance.ActionMapStart} {
		if !seen[act] {
			t.Errorf("no %s entry for the owner: %s", act, res.body)
		}
	}
	res = h.do(t, "GET", "/admin/audit?tenant_id="+url.QueryEscape(proQuota.TenantID), h.keys["admin"], nil, "")
	if !strings.Contains(string(res.body), j.ID) || !strings.Contains(string(res.body), towerID) {
		t.Errorf("admin view lacks the pro entries: %.400s", res.body)
	}
}

// TestReportPDFQuota makes the five PDF reports of a Free month: each is
// counted (GET /v1/me/quota) and audited (report.pdf); the sixth is a 429
// naming the pdfs counter.
func TestReportPDFQuota(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	for i := 1; i <= 5; i++ {
		h.clock.nextStep() // Free compute: 10 a minute
		res := h.do(t, http.MethodPost, "/reports/link", h.keys["free"], nil, exportBody)
		if res.status != http.StatusOK || res.header.Get("Content-Type") != "application/pdf" {
			t.Fatalf("report %d: %d %.300s", i, res.status, res.body)
		}
	}
	h.clock.nextStep()
	res := h.do(t, http.MethodPost, "/reports/link", h.keys["free"], nil, exportBody)
	contract(t, loadOpenAPI(t), "POST", "/reports/link", res)
	var qe quotaError
	if err := json.Unmarshal(res.body, &qe); err != nil || res.status != http.StatusTooManyRequests || qe.Error.Code != "quota_exceeded" ||
		qe.Error.Quota.Counter == nil || *qe.Error.Quota.Counter != "pdfs" || qe.Error.Quota.Limit != 5 || qe.Error.Quota.Used != 5 {
		t.Fatalf("report 6: %d %s", res.status, res.body)
	}
	q := decodeJSON[quotaAnswer](t, h.do(t, "GET", "/v1/me/quota", h.keys["free"], nil, ""))
	if q.used("pdfs") != 5 {
		t.Errorf("pdfs used %d, want 5", q.used("pdfs"))
	}
	a := decodeJSON[auditAnswer](t, h.do(t, "GET", "/tenant/audit?action=report.pdf", h.keys["free"], nil, ""))
	if len(a.Entries) != 5 || a.Entries[0].Params["report_id"] == "" {
		t.Errorf("report.pdf entries: %+v", a.Entries)
	}
	// The pro tenant's PDFs are its own.
	if q := decodeJSON[quotaAnswer](t, h.do(t, "GET", "/v1/me/quota", h.keys["pro"], nil, "")); q.used("pdfs") != 0 {
		t.Errorf("pro pdfs %d", q.used("pdfs"))
	}
}

// TestAuditPaging pages the tenant log two entries at a time: every
// entry once, newest first, and next_before null at the end.
func TestAuditPaging(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	for i := range 5 {
		h.clock.advance(10 * time.Second)
		registerOwn(t, h, "pro", "Paginada", fmt.Sprintf("PG-%d", i), -22.95+float64(i)*0.001, -43.21)
	}
	var seqs []uint64
	u := "/tenant/audit?action=tower.register&limit=2"
	for pages := 0; ; pages++ {
		if pages > 5 {
			t.Fatal("paging does not end")
		}
		a := decodeJSON[auditAnswer](t, h.do(t, "GET", u, h.keys["pro"], nil, ""))
		for _, e := range a.Entries {
			seqs = append(seqs, e.Seq)
		}
		if a.NextBefore == nil {
			break
		}
		u = fmt.Sprintf("/tenant/audit?action=tower.register&limit=2&before=%d", *a.NextBefore)
	}
	if len(seqs) != 5 {
		t.Fatalf("entries %v, want 5", seqs)
	}
	for i := 1; i < len(seqs); i++ {
		if seqs[i] >= seqs[i-1] {
			t.Errorf("not newest first: %v", seqs)
		}
	}
	// A time range (the store stamps entries with its own clock): from
	// just before the fourth newest entry to just before the second newest
	// holds the fourth and the third.
	all := decodeJSON[auditAnswer](t, h.do(t, "GET", "/tenant/audit?action=tower.register", h.keys["pro"], nil, ""))
	at := func(i int) time.Time {
		tm, err := time.Parse(time.RFC3339Nano, all.Entries[i].Time)
		if err != nil {
			t.Fatal(err)
		}
		return tm.Add(-500 * time.Microsecond)
	}
	a := decodeJSON[auditAnswer](t, h.do(t, "GET", "/tenant/audit?action=tower.register&from="+at(3).Format(time.RFC3339Nano)+
		"&to="+url.QueryEscape(at(1).Format(time.RFC3339Nano)), h.keys["pro"], nil, ""))
	if len(a.Entries) != 2 || a.Entries[0].Seq != all.Entries[2].Seq || a.Entries[1].Seq != all.Entries[3].Seq {
		t.Errorf("time range: %+v, want entries 3 and 4 of %+v", a.Entries, all.Entries)
	}
}

// TestSpecActionNames checks the SPEC §6 audit action names, spelled
// exactly as there.
func TestSpecActionNames(t *testing.T) {
	want := []string{"observation.rejected.no_consent", "tenant.dsar.export", "tenant.dsar.forget.soft", "admin.dsar.export",
		"admin.dsar.export.served", "admin.dsar.erase.soft", "admin.dsar.erase.served", "dsar.hard_delete"}
	got := appliance.SpecActions()
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("SpecActions %v, want %v", got, want)
	}
	seen := map[string]bool{}
	for _, a := range appliance.Actions() {
		if seen[a] {
			t.Errorf("action %s listed twice", a)
		}
		seen[a] = true
	}
}

// FuzzAuditQuery runs GET /tenant/audit on arbitrary query strings:
// never a 500, always a documented answer.
func FuzzAuditQuery(f *testing.F) {
	fuzzQueryContract(f, "/tenant/audit", "pro", "action=tower.register&limit=2", "from=2026-03-01T00:00:00Z&to=2026-03-02T00:00:00-03:00",
		"before=18446744073709551615", "before=0&limit=-1", "from=2026-13-01T00:00:00Z", "action=%00", "limit=1e9", "to=x&from=y")
}

// fuzzQueryContract fuzzes the query string of GET path with the harness
// key named key: never a 500, always an answer the OpenAPI document
// allows. The parameters and values are arbitrary; the request line is
// well-formed (what the server's own parser accepts).
func fuzzQueryContract(f *testing.F, path, key string, seeds ...string) {
	for _, s := range seeds {
		f.Add(s)
	}
	h := newHarness(f, harnessOptions{unmetered: true})
	d := loadOpenAPI(f)
	f.Fuzz(func(t *testing.T, q string) {
		vals, err := url.ParseQuery(q)
		if err != nil {
			return
		}
		req := httptest.NewRequest(http.MethodGet, path+"?"+vals.Encode(), nil)
		req.Header.Set("X-API-Key", h.keys[key])
		rec := httptest.NewRecorder()
		h.api.ServeHTTP(rec, req)
		res := &response{status: rec.Code, header: rec.Result().Header, body: rec.Body.Bytes()}
		if res.status == http.StatusInternalServerError {
			t.Fatalf("500 for %q", q)
		}
		for _, e := range d.checkResponse(http.MethodGet, path, res) {
			t.Errorf("contract: %s (query %q)", e, q)
		}
	})
}
