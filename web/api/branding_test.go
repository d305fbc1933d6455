package api_test

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"strings"
	"testing"
)

func pngBase64(t *testing.T) string {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 32, 16))
	img.Set(1, 1, color.NRGBA{G: 200, A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

// TestBrandingRoutes covers the branding routes: tenant set and read,
// content checks, admin set with TOTP, and the report carrying the logo.
func TestBrandingRoutes(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	d := loadOpenAPI(t)
	logo := pngBase64(t)
	svgScript := base64.StdEncoding.EncodeToString([]byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`))
	proTenant := "t_" + h.keyIDs["pro"]
	steps := []struct {
		name, method, url, key, body string
		totp                         bool
		status                       int
		want                         string
	}{
		{"default", "GET", "/tenant/branding", "pro", "", false, 200, `"logo":null`},
		{"set", "PUT", "/tenant/branding", "pro", `{"display_name":"Pro Telecom","primary_color":"#0A7F3C","support_contact":"noc@pro.example","report_footer":"Pro Telecom Ltda","logo":{"media_type":"image/png","data_base64":"` + logo + `"}}`, false, 200, `"display_name":"Pro Telecom"`},
		{"read back", "GET", "/tenant/branding", "pro", "", false, 200, `"media_type":"image/png"`},
		{"svg with a script", "PUT", "/tenant/branding", "pro", `{"logo":{"media_type":"image/svg+xml","data_base64":"` + svgScript + `"}}`, false, 422, "logo.data_base64"},
		{"not base64", "PUT", "/tenant/branding", "pro", `{"logo":{"media_type":"image/png","data_base64":"%%%"}}`, false, 422, "logo.data_base64"},
		{"bad colour", "PUT", "/tenant/branding", "pro", `{"primary_color":"green"}`, false, 422, "primary_color"},
		{"control character", "PUT", "/tenant/branding", "pro", `{"report_footer":"a\u0007b"}`, false, 422, "report_footer"},
		{"totp on the tenant route", "PUT", "/tenant/branding", "pro", `{"totp":"123456"}`, false, 422, "totp"},
		{"admin key on the tenant route", "GET", "/tenant/branding", "admin", "", false, 403, "forbidden"},
		{"admin without TOTP", "PUT", "/admin/tenants/" + proTenant + "/branding", "admin", `{"display_name":"By Admin","justification":"white-label onboarding"}`, false, 422, "totp"},
		{"admin", "PUT", "/admin/tenants/" + proTenant + "/branding", "admin", `{"display_name":"By Admin","justification":"white-label onboarding"}`, true, 200, `"display_name":"By Admin"`},
		{"admin, unknown tenant", "PUT", "/admin/tenants/t_nobody/branding", "admin", `{"display_name":"X","justification":"white-label onboarding"}`, true, 404, "not_found"},
		{"tenant key on the admin route", "PUT", "/admin/tenants/" + proTenant + "/branding", "pro", `{"display_name":"X","justification":"white-label onboarding"}`, true, 403, "forbidden"},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			var hdr map[string]string
			if st.totp {
				hdr = map[string]string{"X-Admin-Totp": h.freshTOTP(t)}
			}
			res := h.do(t, st.method, st.url, h.keys[st.key], hdr, st.body)
			contract(t, d, st.method, st.url, res)
			if res.status != st.status || !strings.Contains(string(res.body), st.want) {
				t.Fatalf("status %d, want %d with %q: %s", res.status, st.status, st.want, res.body)
			}
		})
	}
	rows, _ := h.db.Audit(proTenant, 0)
	n := map[string]int{}
	for _, e := range rows {
		n[e.Action]++
	}
	if n["tenant.branding.set"] != 1 || n["admin.branding.set"] != 1 {
		t.Errorf("audit rows %v", n)
	}
}

// TestBrandedReport: a tenant's PNG logo is embedded in its PDF reports,
// another tenant's reports stay neutral.
func TestBrandedReport(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	res := h.do(t, "PUT", "/tenant/branding", h.keys["pro"], nil, `{"display_name":"Pro Telecom","logo":{"media_type":"image/png","data_base64":"`+pngBase64(t)+`"}}`)
	if res.status != http.StatusOK {
		t.Fatalf("set: %d %s", res.status, res.body)
	}
	body := exportBody
	for _, tc := range []struct {
		key   string
		image bool
	}{{"pro", true}, {"free", false}} {
		res := h.do(t, "POST", "/reports/link", h.keys[tc.key], nil, body)
		if res.status != http.StatusOK || !bytes.HasPrefix(res.body, []byte("%PDF")) {
			t.Fatalf("%s report: %d %.300s", tc.key, res.status, res.body)
		}
		if got := bytes.Contains(res.body, []byte("/Subtype /Image")); got != tc.image {
			t.Errorf("%s report embeds an image: %v, want %v", tc.key, got, tc.image)
		}
	}
}
