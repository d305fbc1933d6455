package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/tenancy"
	"linkplan/web/api"
)

type wireKey struct {
	KeyID          string  `json:"key_id"`
	Prefix         string  `json:"prefix"`
	Tier           string  `json:"tier"`
	TenantRole     string  `json:"tenant_role"`
	State          string  `json:"state"`
	LastUsedUnix   *int64  `json:"last_used_unix"`
	GraceUntilUnix *int64  `json:"grace_until_unix"`
	RotatedTo      *string `json:"rotated_to"`
}

type wireNewKey struct {
	APIKey   string   `json:"api_key"`
	Key      wireKey  `json:"key"`
	Previous *wireKey `json:"previous"`
}

// call sends a request and checks the answer against the document.
func call(t *testing.T, h *harness, d *openAPI, method, url, key string, header map[string]string, body string) *response {
	t.Helper()
	res := h.do(t, method, url, key, header, body)
	contract(t, d, method, url, res)
	return res
}

func wantStatus(t *testing.T, res *response, status int, code string) {
	t.Helper()
	if res.status != status {
		t.Fatalf("status %d, want %d: %s", res.status, status, res.body)
	}
	if code != "" && errorCode(t, res) != code {
		t.Fatalf("code %q, want %q: %s", errorCode(t, res), code, res.body)
	}
}

// TestTenantKeys walks the key life cycle through the API: list, create
// with each role, the roles' limits, rotation with its grace period,
// revocation, the last tenant-admin key, the audit rows.
func TestTenantKeys(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	d := loadOpenAPI(t)
	pro := h.keys["pro"]

	list := decodeInto[struct {
		Keys  []wireKey `json:"keys"`
		Count int       `json:"count"`
	}](t, call(t, h, d, "GET", "/tenant/keys", pro, nil, ""))
	if list.Count != 1 || list.Keys[0].KeyID != h.keyIDs["pro"] || list.Keys[0].TenantRole != "tenant-admin" || list.Keys[0].State != "active" {
		t.Fatalf("list: %+v", list)
	}
	if strings.Contains(fmt.Sprint(list), pro) {
		t.Fatal("the list holds the plain key")
	}

	for _, tc := range []struct {
		name, key, body string
		status          int
		code            string
	}{
		{"unknown role", pro, `{"tenant_role":"owner"}`, 422, "invalid_input"},
		{"empty role", pro, `{"tenant_role":""}`, 422, "invalid_input"},
		{"unknown field", pro, `{"role":"member"}`, 422, ""},
		{"admin key", h.adminKey, `{}`, 403, "forbidden"},
		{"erased key", h.keys["erased"], `{}`, 401, "key_erased"},
	} {
		t.Run("create: "+tc.name, func(t *testing.T) {
			wantStatus(t, call(t, h, d, "POST", "/tenant/keys", tc.key, nil, tc.body), tc.status, tc.code)
		})
	}

	ro := decodeInto[wireNewKey](t, call(t, h, d, "POST", "/tenant/keys", pro, nil, `{"tenant_role":"read-only"}`))
	member := decodeInto[wireNewKey](t, call(t, h, d, "POST", "/tenant/keys", pro, nil, ""))
	if ro.Key.TenantRole != "read-only" || member.Key.TenantRole != "member" || ro.Key.Tier != "Pro" || !strings.HasPrefix(member.APIKey, appliance.KeyPrefixTenant) {
		t.Fatalf("created %+v %+v", ro, member)
	}

	// Roles.
	wantStatus(t, call(t, h, d, "POST", "/tenant/keys", ro.APIKey, nil, `{}`), 403, "forbidden")
	wantStatus(t, call(t, h, d, "POST", "/tenant/keys", member.APIKey, nil, `{}`), 403, "forbidden")
	wantStatus(t, call(t, h, d, "POST", "/tenant/keys/"+ro.Key.KeyID+"/revoke", member.APIKey, nil, ""), 403, "forbidden")
	wantStatus(t, call(t, h, d, "POST", "/tenant/keys/"+ro.Key.KeyID+"/rotate", member.APIKey, nil, ""), 403, "forbidden")
	wantStatus(t, call(t, h, d, "POST", "/towers", ro.APIKey, nil, `{"operator":"RO","lat":-22.95,"lon":-43.21}`), 403, "forbidden")
	wantStatus(t, call(t, h, d, "GET", "/tenant/me/data/export", member.APIKey, nil, ""), 403, "forbidden")
	wantStatus(t, call(t, h, d, "POST", "/towers", member.APIKey, nil, `{"operator":"Member","lat":-22.95,"lon":-43.21}`), 201, "")
	wantStatus(t, call(t, h, d, "GET", "/tenant/keys", ro.APIKey, nil, ""), 200, "")

	// Rotation of the member's own key: the old key works for the grace
	// period, then is refused.
	rot := decodeInto[wireNewKey](t, call(t, h, d, "POST", "/tenant/keys/"+member.Key.KeyID+"/rotate", member.APIKey, nil, "{}"))
	if rot.Previous == nil || rot.Previous.State != "rotating" || rot.Previous.GraceUntilUnix == nil ||
		*rot.Previous.GraceUntilUnix != h.clock.Now().Add(tenancy.RotationGrace).Unix() || rot.Key.TenantRole != "member" ||
		rot.Previous.RotatedTo == nil || *rot.Previous.RotatedTo != rot.Key.KeyID {
		t.Fatalf("rotation: %+v", rot)
	}
	wantStatus(t, call(t, h, d, "POST", "/tenant/keys/"+member.Key.KeyID+"/rotate", pro, nil, ""), 409, "conflict")
	h.clock.advance(tenancy.RotationGrace - time.Second)
	wantStatus(t, call(t, h, d, "GET", "/tenant/keys", member.APIKey, nil, ""), 200, "")
	h.clock.advance(time.Second)
	wantStatus(t, call(t, h, d, "GET", "/tenant/keys", member.APIKey, nil, ""), 401, "unauthenticated")
	wantStatus(t, call(t, h, d, "GET", "/tenant/keys", rot.APIKey, nil, ""), 200, "")

	// Revocation.
	wantStatus(t, call(t, h, d, "POST", "/tenant/keys/"+ro.Key.KeyID+"/revoke", pro, nil, ""), 200, "")
	wantStatus(t, call(t, h, d, "GET", "/tenant/keys", ro.APIKey, nil, ""), 401, "unauthenticated")
	wantStatus(t, call(t, h, d, "POST", "/tenant/keys/"+ro.Key.KeyID+"/revoke", pro, nil, ""), 409, "conflict")
	wantStatus(t, call(t, h, d, "POST", "/tenant/keys/"+h.keyIDs["pro"]+"/revoke", pro, nil, ""), 409, "conflict")
	wantStatus(t, call(t, h, d, "POST", "/tenant/keys/"+h.keyIDs["pro"]+"/revoke", pro, nil, `{"x":1}`), 422, "")

	// Another tenant's key is missing.
	for _, op := range []string{"rotate", "revoke"} {
		res := call(t, h, d, "POST", "/tenant/keys/"+h.keyIDs["free"]+"/"+op, pro, nil, "")
		wantStatus(t, res, 404, "not_found")
	}

	list2 := decodeInto[struct {
		Keys []wireKey `json:"keys"`
	}](t, call(t, h, d, "GET", "/tenant/keys", pro, nil, ""))
	states := map[string]string{}
	for _, k := range list2.Keys {
		states[k.KeyID] = k.State
		if k.KeyID == h.keyIDs["pro"] && k.LastUsedUnix == nil {
			t.Errorf("last use of the pro key not recorded: %+v", k)
		}
	}
	if len(list2.Keys) != 4 || states[ro.Key.KeyID] != "revoked" || states[member.Key.KeyID] != "revoked" || states[rot.Key.KeyID] != "active" {
		t.Errorf("states: %v", states)
	}
	audit, err := h.db.Audit("t_"+h.keyIDs["pro"], 0)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, e := range audit {
		seen[e.Action]++
	}
	if seen[tenancy.ActionKeyCreate] != 2 || seen[tenancy.ActionKeyRotate] != 1 || seen[tenancy.ActionKeyRevoke] != 1 {
		t.Errorf("audit actions: %v", seen)
	}
}

// routeOps returns every authenticated operation of the document as
// method, template and a concrete URL (path parameters filled with x).
func routeOps(t *testing.T, d *openAPI) [][3]string {
	t.Helper()
	var out [][3]string
	for tpl, item := range obj(d.root, "paths") {
		for method, opv := range item.(map[string]any) {
			if sec, _ := opv.(map[string]any)["security"].([]any); len(sec) == 0 {
				continue
			}
			u := tpl
			for strings.Contains(u, "{") {
				i, j := strings.Index(u, "{"), strings.Index(u, "}")
				u = u[:i] + "xxxxxxxx" + u[j+1:]
			}
			out = append(out, [3]string{strings.ToUpper(method), tpl, u})
		}
	}
	return out
}

// minimalRequest returns a small body, and its headers, of the media type
// the operation takes (the Content-Type is checked before the key): {}
// for JSON, an empty form for multipart/form-data; none for a GET.
func minimalRequest(d *openAPI, method, tpl string) (map[string]string, string) {
	if method != "POST" {
		return nil, ""
	}
	for ct := range obj(d.operation(method, tpl), "requestBody", "content") {
		if strings.HasPrefix(ct, "multipart/") {
			return map[string]string{"Content-Type": "multipart/form-data; boundary=b0undary"}, "--b0undary--\r\n"
		}
	}
	return nil, "{}"
}

// TestRolesOnEveryRoute sends every authenticated operation of the
// document with a read-only and a member key: each route the role does not
// allow answers 403 naming the role, each route it allows never does.
func TestRolesOnEveryRoute(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	d := loadOpenAPI(t)
	keys, ids := map[appliance.TenantRole]string{}, map[appliance.TenantRole]string{}
	for _, r := range []appliance.TenantRole{appliance.TenantReadOnly, appliance.TenantMember, appliance.TenantAdmin} {
		nk := decodeInto[wireNewKey](t, h.do(t, "POST", "/tenant/keys", h.keys["pro"], nil, `{"tenant_role":"`+string(r)+`"}`))
		keys[r], ids[r] = nk.APIKey, nk.Key.KeyID
	}
	ops := routeOps(t, d)
	if len(ops) < 20 {
		t.Fatalf("only %d operations", len(ops))
	}
	for _, op := range ops {
		for role, key := range keys {
			perm := api.RoutePermission(op[0], op[1])
			if op[0] == "POST" && op[1] == "/tenant/me/data/forget" && role == appliance.TenantAdmin {
				continue // would erase the tenant of the other cases
			}
			t.Run(op[0]+" "+op[1]+" as "+string(role), func(t *testing.T) {
				hdr, body := minimalRequest(d, op[0], op[1])
				u := op[2]
				if op[1] == "/tenant/keys/{key_id}/rotate" { // its own key: the route's permission
					u = strings.Replace(u, "xxxxxxxx", ids[role], 1)
				}
				res := h.do(t, op[0], u, key, hdr, body)
				refused := res.status == http.StatusForbidden && strings.Contains(string(res.body), "does not allow")
				if want := !role.Allows(perm); refused != want {
					t.Errorf("permission %s: refused by role %v, want %v: %d %.300s", perm, refused, want, res.status, res.body)
				}
				if res.status == http.StatusInternalServerError { // 503: SSO not configured in the harness
					t.Errorf("%d %s", res.status, res.body)
				}
			})
		}
	}
}

// TestPrivacySelfService checks the export bundle (SPEC §4.11) and the
// forget flow: soft erase, then 401 "API key has been erased" on every
// authenticated route for every key of the tenant.
func TestPrivacySelfService(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	d := loadOpenAPI(t)
	pro := h.keys["pro"]
	tower := registerOwn(t, h, "pro", "Privada", "PRIV-1", -22.9519, -43.2105)
	job := submitJob(t, h, pro, `{"rows":[`+batchRows(101)+`],"options":{"pdfs":false}}`)
	waitFor(t, h, pro, job.ID)
	second := decodeInto[wireNewKey](t, h.do(t, "POST", "/tenant/keys", pro, nil, `{"tenant_role":"member"}`))
	if res := h.do(t, "POST", "/coverage/observations", pro, nil, obsRow(-22.90)); res.status != http.StatusOK {
		t.Fatalf("observation: %d %s", res.status, res.body)
	}

	wantStatus(t, call(t, h, d, "GET", "/tenant/me/data/export", h.adminKey, nil, ""), 403, "forbidden")
	res := call(t, h, d, "GET", "/tenant/me/data/export", pro, map[string]string{"User-Agent": "exporter/1"}, "")
	wantStatus(t, res, 200, "")
	var exp struct {
		ID     string `json:"dsar_request_id"`
		Bundle struct {
			Identity struct {
				KeyID, Email, Owner string
				TenantID            string `json:"tenant_id"`
			} `json:"identity"`
			Keys      []wireKey              `json:"keys"`
			AuditLog  []appliance.AuditEntry `json:"audit_log"`
			BatchJobs []struct{ ID string }  `json:"batch_jobs"`
			Obs       []struct {
				ID          string `json:"id"`
				SubmittedBy string `json:"submitted_by"`
			} `json:"observations"`
			ObsCounts map[string]int        `json:"observation_counts"`
			Towers    []struct{ ID string } `json:"towers"`
			Billing   map[string][]string   `json:"billing"`
		} `json:"bundle"`
	}
	if err := json.Unmarshal(res.body, &exp); err != nil {
		t.Fatal(err)
	}
	b := exp.Bundle
	if !strings.HasPrefix(exp.ID, "dsar_") || b.Identity.Email != "pro@example.com" || b.Identity.TenantID != "t_"+h.keyIDs["pro"] ||
		len(b.Keys) != 2 || len(b.BatchJobs) != 1 || b.BatchJobs[0].ID != job.ID || len(b.Towers) != 1 || b.Towers[0].ID != tower ||
		len(b.Obs) != 1 || b.Obs[0].SubmittedBy != h.keyIDs["pro"] || b.ObsCounts["link_observations"] != 1 || b.Billing["payment_customer_ids"] == nil {
		t.Fatalf("bundle: %s", res.body)
	}
	actions := map[string]bool{}
	for _, e := range b.AuditLog {
		actions[e.Action] = true
		if e.TenantID != "t_"+h.keyIDs["pro"] {
			t.Errorf("another tenant's audit row in the bundle: %+v", e)
		}
	}
	if !actions[tenancy.ActionKeyCreate] {
		t.Errorf("audit log of the bundle: %v", actions)
	}
	if strings.Contains(string(res.body), h.keyIDs["free"]) || strings.Contains(string(res.body), "free@example.com") {
		t.Error("the bundle holds another tenant's data")
	}
	if !auditHas(t, h, "tenant.dsar.export", exp.ID, 1) {
		t.Error("no tenant.dsar.export row with the request id")
	}

	for _, tc := range []struct{ name, body, code string }{
		{"no confirmation", `{}`, "invalid_input"},
		{"lower case", `{"confirmation":"delete my data"}`, "invalid_input"},
		{"trailing space", `{"confirmation":"DELETE MY DATA "}`, "invalid_input"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, h, d, "POST", "/tenant/me/data/forget", pro, nil, tc.body)
			wantStatus(t, res, 422, tc.code)
			if !strings.Contains(string(res.body), `"field":"confirmation"`) {
				t.Errorf("the error does not name confirmation: %s", res.body)
			}
		})
	}
	wantStatus(t, call(t, h, d, "POST", "/tenant/me/data/forget", h.adminKey, nil, `{"confirmation":"DELETE MY DATA"}`), 403, "forbidden")
	wantStatus(t, call(t, h, d, "POST", "/tenant/me/data/forget", second.APIKey, nil, `{"confirmation":"DELETE MY DATA"}`), 403, "forbidden")

	now := h.clock.Now()
	res = call(t, h, d, "POST", "/tenant/me/data/forget", pro, nil, `{"confirmation":"DELETE MY DATA"}`)
	wantStatus(t, res, 200, "")
	er := decodeInto[struct {
		ID        string `json:"dsar_request_id"`
		Status    string `json:"status"`
		Tier      string `json:"tier"`
		DueBy     int64  `json:"due_by"`
		Scheduled int64  `json:"erase_scheduled_at"`
	}](t, res)
	if er.Status != "received" || er.Tier != "erased" || er.DueBy != now.Add(15*24*time.Hour).Unix() || er.Scheduled != now.Add(30*24*time.Hour).Unix() {
		t.Fatalf("forget: %+v", er)
	}
	if !auditHas(t, h, "tenant.dsar.forget.soft", er.ID, 1) {
		t.Error("no tenant.dsar.forget.soft row with the request id")
	}
	rows, err := h.db.Audit("t_"+h.keyIDs["pro"], 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range rows {
		if e.ActorEmail != "" || e.IP != "" || e.UserAgent != "" {
			t.Errorf("audit row keeps personal columns after the erase: %+v", e)
		}
	}

	ops := routeOps(t, d)
	for _, key := range []string{pro, second.APIKey} {
		for _, op := range ops {
			t.Run("erased "+op[0]+" "+op[1], func(t *testing.T) {
				hdr, body := minimalRequest(d, op[0], op[1])
				res := h.do(t, op[0], op[2], key, hdr, body)
				if res.status != http.StatusUnauthorized || errorCode(t, res) != "key_erased" || !strings.Contains(string(res.body), `"message":"API key has been erased"`) {
					t.Errorf("%d %s", res.status, res.body)
				}
			})
		}
	}
	wantStatus(t, call(t, h, d, "GET", "/tenant/keys", h.keys["free"], nil, ""), 200, "")
}

// auditHas reports whether the log holds n rows of action whose params
// carry dsar_request_id id.
func auditHas(t *testing.T, h *harness, action, id string, n int) bool {
	t.Helper()
	all, err := h.db.Audit("", 0)
	if err != nil {
		t.Fatal(err)
	}
	got := 0
	for _, e := range all {
		if e.Action == action && e.Params["dsar_request_id"] == id {
			got++
		}
	}
	return got == n
}

func dsarBody(totp, justification, email string) string {
	m := map[string]any{"justification": justification, "confirm_subject_email": email}
	if totp != "" {
		m["totp"] = totp
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// TestAdminDSAR covers the admin export and erase: each check of SPEC
// §4.11 refuses with the status the document gives, a served request
// writes two audit rows with its id, and the overdue list follows the
// deadlines.
func TestAdminDSAR(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	d := loadOpenAPI(t)
	subject := h.keys["internal"]
	prefix := subject[:len(appliance.KeyPrefixInternal)+6]
	tower := registerOwn(t, h, "internal", "Apagada", "ERASE-1", -22.9519, -43.2105)
	const why = "data subject request, ticket 4711"
	email := "internal@example.com"
	for _, tc := range []struct {
		name, key, prefix, body string
		header                  bool
		status                  int
		field                   string
	}{
		{"tenant key", h.keys["pro"], prefix, dsarBody("", why, email), true, 403, ""},
		{"no totp", h.adminKey, prefix, dsarBody("", why, email), false, 422, "totp"},
		{"wrong totp", h.adminKey, prefix, dsarBody("000000", why, email), false, 403, ""},
		{"no justification", h.adminKey, prefix, dsarBody("", "", email), true, 422, "justification"},
		{"short justification", h.adminKey, prefix, dsarBody("", "because", email), true, 422, "justification"},
		{"no e-mail", h.adminKey, prefix, dsarBody("", why, ""), true, 422, "confirm_subject_email"},
		{"short prefix", h.adminKey, prefix[:5], dsarBody("", why, email), true, 422, "api_key_prefix"},
		{"unknown prefix", h.adminKey, "lp_int_zzzzzz", dsarBody("", why, email), true, 404, ""},
		{"ambiguous prefix", h.adminKey, "lp_live_", dsarBody("", why, email), true, 409, ""},
		{"wrong e-mail", h.adminKey, prefix, dsarBody("", why, "someone@example.com"), true, 422, "confirm_subject_email"},
		{"admin subject", h.adminKey, h.adminKey[:13], dsarBody("", why, "x@example.com"), true, 403, ""},
		{"unknown field", h.adminKey, prefix, `{"justification":"` + why + `","confirm_subject_email":"a@b","tenant":"x"}`, true, 422, ""},
	} {
		for _, op := range []string{"export", "erase"} {
			t.Run(op+": "+tc.name, func(t *testing.T) {
				hdr := map[string]string{}
				if tc.header {
					hdr["X-Admin-Totp"] = h.freshTOTP(t)
				}
				res := call(t, h, d, "POST", "/admin/dsar/"+tc.prefix+"/"+op, tc.key, hdr, tc.body)
				wantStatus(t, res, tc.status, "")
				if tc.field != "" && !strings.Contains(string(res.body), `"field":"`+tc.field+`"`) {
					t.Errorf("the error does not name %s: %s", tc.field, res.body)
				}
				if strings.Contains(string(res.body), "internal@example.com") && tc.name == "wrong e-mail" {
					t.Error("the error reveals the subject's e-mail")
				}
			})
		}
	}

	res := call(t, h, d, "POST", "/admin/dsar/"+prefix+"/export", h.adminKey, nil, dsarBody(h.freshTOTP(t), why, "INTERNAL@example.com"))
	wantStatus(t, res, 200, "")
	exp := decodeInto[struct {
		ID     string `json:"dsar_request_id"`
		Bundle struct {
			Identity struct {
				KeyID string `json:"key_id"`
			} `json:"identity"`
		} `json:"bundle"`
	}](t, res)
	if exp.Bundle.Identity.KeyID != h.keyIDs["internal"] {
		t.Fatalf("export: %s", res.body)
	}
	if !auditHas(t, h, "admin.dsar.export", exp.ID, 1) || !auditHas(t, h, "admin.dsar.export.served", exp.ID, 1) {
		t.Error("the export does not have its two audit rows")
	}

	if _, ok := h.index.Get(tower); !ok {
		t.Fatalf("tower %s not in the index", tower)
	}
	res = call(t, h, d, "POST", "/admin/dsar/"+prefix+"/erase", h.adminKey, map[string]string{"X-Admin-Totp": h.freshTOTP(t)}, dsarBody("", why, email))
	wantStatus(t, res, 200, "")
	er := decodeInto[struct {
		ID string `json:"dsar_request_id"`
	}](t, res)
	eraseAt := h.clock.Now()
	if !auditHas(t, h, "admin.dsar.erase.soft", er.ID, 1) || !auditHas(t, h, "admin.dsar.erase.served", er.ID, 1) {
		t.Error("the erase does not have its two audit rows")
	}
	wantStatus(t, call(t, h, d, "GET", "/towers?limit=1", subject, nil, ""), 401, "key_erased")
	wantStatus(t, call(t, h, d, "POST", "/admin/dsar/"+prefix+"/erase", h.adminKey, map[string]string{"X-Admin-Totp": h.freshTOTP(t)}, dsarBody("", why, email)), 409, "conflict")

	// Overdue: none until 24 h past the scheduled hard delete.
	overdue := func(key string) (int, []map[string]any) {
		res := call(t, h, d, "GET", "/admin/dsar/overdue", key, nil, "")
		wantStatus(t, res, 200, "")
		v := decodeInto[struct {
			Count    int              `json:"count"`
			Requests []map[string]any `json:"requests"`
		}](t, res)
		return v.Count, v.Requests
	}
	wantStatus(t, call(t, h, d, "GET", "/admin/dsar/overdue", h.keys["pro"], nil, ""), 403, "forbidden")
	if n, _ := overdue(h.adminKey); n != 0 {
		t.Fatalf("%d overdue at once", n)
	}
	mark := eraseAt.Add(appliance.DSARHardDeleteAfter + appliance.DSARHardDeleteWithin)
	h.clock.advance(mark.Sub(h.clock.Now()))
	if n, _ := overdue(h.adminKey); n != 0 {
		t.Fatalf("%d overdue at the deadline itself", n)
	}
	h.clock.advance(time.Second)
	n, reqs := overdue(h.adminKey)
	if n != 1 || reqs[0]["dsar_request_id"] != er.ID || reqs[0]["reason"] != "hard_delete_due" {
		t.Fatalf("overdue after the deadline: %d %v", n, reqs)
	}
	if _, err := h.privacy.HardDeleteDue(t.Context(), h.clock.Now()); err != nil {
		t.Fatal(err)
	}
	if n, _ := overdue(h.adminKey); n != 0 {
		t.Fatalf("%d overdue after the hard delete", n)
	}
	if res := h.do(t, "GET", "/towers?limit=1", subject, nil, ""); res.status != http.StatusUnauthorized {
		t.Errorf("deleted key: %d", res.status)
	}
	if _, ok := h.index.Get(tower); ok {
		t.Errorf("the erased tenant's tower %s is still in the tower index", tower)
	}
}

// keyPrivacyScenarios are the happy paths (and a few refusals) of the tenant
// key and privacy routes for TestScenarios, on keys of their own: the
// forget and erase scenarios erase their tenants.
func keyPrivacyScenarios(t *testing.T, h *harness) []scenario {
	t.Helper()
	h.issue(t, "dsar-self", appliance.TierPro, appliance.RoleTenant)
	h.issue(t, "dsar-admin", appliance.TierStarter, appliance.RoleTenant)
	h.issue(t, "keys", appliance.TierPro, appliance.RoleTenant)
	owner, err := h.auth.Authenticate(h.keys["keys"])
	if err != nil {
		t.Fatal(err)
	}
	_, toRotate, err := h.auth.CreateKey(owner, tenancy.KeyRequest{TenantRole: appliance.TenantMember})
	if err != nil {
		t.Fatal(err)
	}
	_, toRevoke, err := h.auth.CreateKey(owner, tenancy.KeyRequest{TenantRole: appliance.TenantReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	prefix := h.keys["dsar-admin"][:14]
	body := dsarBody("", "scenario: data subject request", "dsar-admin@example.com")
	return []scenario{
		{name: "list keys", method: "GET", url: "/tenant/keys", key: "keys", status: 200, contains: []string{toRotate.ID, `"tenant_role":"member"`}},
		{name: "create a key", method: "POST", url: "/tenant/keys", key: "keys", body: `{"tenant_role":"read-only"}`, status: 201, contains: []string{`"api_key":"lp_live_`}},
		{name: "create a key with a bad role", method: "POST", url: "/tenant/keys", key: "keys", body: `{"tenant_role":"owner"}`, status: 422, code: "invalid_input", fields: []string{"tenant_role"}, doc: docRejects},
		{name: "rotate a key", method: "POST", url: "/tenant/keys/" + toRotate.ID + "/rotate", key: "keys", status: 201, contains: []string{`"state":"rotating"`}},
		{name: "revoke a key", method: "POST", url: "/tenant/keys/" + toRevoke.ID + "/revoke", key: "keys", body: "{}", status: 200, contains: []string{`"state":"revoked"`}},
		{name: "keys with an admin key", method: "GET", url: "/tenant/keys", key: "admin", status: 403, code: "forbidden"},
		{name: "export my data", method: "GET", url: "/tenant/me/data/export", key: "dsar-self", status: 200, contains: []string{`"dsar_request_id":"dsar_`, `"observation_counts":{`}},
		{name: "forget me", method: "POST", url: "/tenant/me/data/forget", key: "dsar-self", body: `{"confirmation":"DELETE MY DATA"}`, status: 200, contains: []string{`"tier":"erased"`}},
		{name: "after forget", method: "GET", url: "/tenant/keys", key: "dsar-self", status: 401, code: "key_erased", contains: []string{"API key has been erased"}},
		{name: "admin export", method: "POST", url: "/admin/dsar/" + prefix + "/export", key: "admin", totp: "header", body: body, status: 200, contains: []string{`"dsar_request_id":"dsar_`}},
		{name: "admin erase without totp", method: "POST", url: "/admin/dsar/" + prefix + "/erase", key: "admin", body: body, status: 422, code: "invalid_input", fields: []string{"totp"}},
		{name: "admin erase", method: "POST", url: "/admin/dsar/" + prefix + "/erase", key: "admin", totp: "header", body: body, status: 200, contains: []string{`"status":"received"`}},
		{name: "overdue requests", method: "GET", url: "/admin/dsar/overdue", key: "admin", status: 200, contains: []string{`"count":0`}},
	}
}
