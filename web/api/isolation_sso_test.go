package api_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// TestTenantIsolationSSOBranding is the isolation table of the SSO binding
// and branding routes (binding with a proof and binding links included):
// for each route, as each tenant (a Pro key and a Free key, each by
// X-API-Key and by a bearer ID token bound to it), the answer never holds
// the other tenant's branding or subjects, and the other tenant's records
// are unchanged afterwards.
func TestTenantIsolationSSOBranding(t *testing.T) {
	h := newHarness(t, harnessOptions{sso: true})
	type tenant struct{ role, marker, subject, token, other string }
	ts := []*tenant{{role: "pro", marker: "ISO-BRAND-PRO", subject: "iso-sub-pro"}, {role: "free", marker: "ISO-BRAND-FREE", subject: "iso-sub-free"}}
	ts[0].other, ts[1].other = "free", "pro"
	by := map[string]*tenant{}
	for _, tn := range ts {
		by[tn.role] = tn
		res := h.do(t, "PUT", "/tenant/branding", h.keys[tn.role], nil, `{"display_name":"`+tn.marker+`","report_footer":"`+tn.marker+` footer"}`)
		if res.status != http.StatusOK {
			t.Fatalf("set branding: %d %s", res.status, res.body)
		}
		tn.token = bindSubject(t, h, tn.role, tn.subject)
	}
	// {proof:S} is a fresh ID token of subject S. Binding the other
	// tenant's subject, with or without its proof, and binding a subject
	// nobody holds with a spent proof get the one refusal (TestIssue20_
	// SSONoExistenceOracle compares the bodies).
	tests := []struct {
		name, method, url, body string
		status                  int // wanted status
	}{
		{"read branding", "GET", "/tenant/branding", "", 200},
		{"set branding", "PUT", "/tenant/branding", `{"display_name":"{self} again"}`, 200},
		{"list bindings", "GET", "/tenant/sso/bindings", "", 200},
		{"bind the other tenant's key", "POST", "/tenant/sso/bindings", `{"id_token":"{proof:{self}-x}","key_id":"{otherKey}"}`, 422},
		{"bind the other tenant's subject by name", "POST", "/tenant/sso/bindings", `{"subject":"{otherSubject}"}`, 422},
		{"bind the other tenant's subject with its proof", "POST", "/tenant/sso/bindings", `{"id_token":"{proof:{otherSubject}}"}`, 403},
		{"binding link for the other tenant's key", "POST", "/tenant/sso/binding_intents", `{"key_id":"{otherKey}"}`, 422},
		{"delete the other tenant's binding", "DELETE", "/tenant/sso/bindings?subject={otherSubject}", "", 404},
	}
	proof := regexp.MustCompile(`\{proof:([^}]+)\}`)
	for _, tc := range tests {
		for _, tn := range ts {
			o := by[tn.other]
			for _, cred := range []string{"key", "bearer"} {
				t.Run(tc.name+" as "+tn.role+" by "+cred, func(t *testing.T) {
					r := strings.NewReplacer("{self}", tn.marker, "{otherKey}", h.keyIDs[o.role], "{otherSubject}", o.subject)
					url, body := r.Replace(tc.url), r.Replace(tc.body)
					body = proof.ReplaceAllStringFunc(body, func(m string) string { return proofToken(t, h, proof.FindStringSubmatch(m)[1]) })
					key, hdr := h.keys[tn.role], map[string]string(nil)
					if cred == "bearer" {
						key, hdr = "", bearer(tn.token)
					}
					res := h.do(t, tc.method, url, key, hdr, body)
					if res.status != tc.status {
						t.Fatalf("status %d, want %d: %s", res.status, tc.status, res.body)
					}
					got := string(res.body)
					if strings.Contains(got, o.marker) || strings.Contains(got, h.keyIDs[o.role]) && !strings.Contains(body, h.keyIDs[o.role]) ||
						strings.Contains(got, o.subject) && !strings.Contains(url+tc.body, "{otherSubject}") {
						t.Errorf("answer holds the other tenant's data: %.400s", got)
					}
					if tc.status == 403 && !strings.Contains(got, "cannot be bound") {
						t.Errorf("not the one binding refusal: %.400s", got)
					}
					if tc.status == 200 && tc.method == "GET" && strings.Contains(got, o.subject) {
						t.Errorf("answer lists the other tenant's subject: %.400s", got)
					}
				})
			}
		}
	}
	// The other tenant's records are intact: its branding is its own,
	// its subject still authenticates as its key.
	for _, tn := range ts {
		res := h.do(t, "GET", "/tenant/branding", "", bearer(tn.token), "")
		if res.status != http.StatusOK || !strings.Contains(string(res.body), tn.marker) || strings.Contains(string(res.body), by[tn.other].marker) {
			t.Errorf("%s branding after the table: %d %s", tn.role, res.status, res.body)
		}
		res = h.do(t, "GET", "/tenant/sso/bindings", h.keys[tn.role], nil, "")
		if !strings.Contains(string(res.body), tn.subject) || strings.Count(string(res.body), `"subject"`) != 1 {
			t.Errorf("%s bindings after the table: %s", tn.role, res.body)
		}
	}
}
