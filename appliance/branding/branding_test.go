package branding_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/branding"
	"linkplan/store"
)

func pngOf(tb testing.TB, w, h int) []byte {
	tb.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	img.Set(0, 0, color.NRGBA{R: 200, A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

const goodSVG = `<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10">
<defs><linearGradient id="g"><stop offset="0" stop-color="#fff"/></linearGradient><path id="p" d="M0 0h5"/></defs>
<rect width="10" height="10" fill="url(#g)"/><use xlink:href="#p"/><text x="1" y="9">ACME</text></svg>`

func TestCheckSVG(t *testing.T) {
	tests := []struct {
		name, svg string
		want      string // "" = accepted; else part of the reason
	}{
		{"drawing", goodSVG, ""},
		{"script element", `<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`, "<script>"},
		{"script in another case", `<svg><SCRIPT>alert(1)</SCRIPT></svg>`, "<SCRIPT>"},
		{"event handler", `<svg onload="alert(1)"/>`, "event-handler"},
		{"event handler on a child", `<svg><rect ONCLICK="x()"/></svg>`, "event-handler"},
		{"javascript href", `<svg><use href="javascript:alert(1)"/></svg>`, "href"},
		{"external href", `<svg xmlns:xlink="http://www.w3.org/1999/xlink"><use xlink:href="https://evil.example/x.svg#a"/></svg>`, "href"},
		{"external url()", `<svg><rect fill="url(https://evil.example/a)"/></svg>`, "url()"},
		{"javascript with spaces", `<svg><rect fill="java script:x" style="x: javascript :y"/></svg>`, "javascript:"},
		{"foreignObject", `<svg><foreignObject><div/></foreignObject></svg>`, "foreignObject"},
		{"style element", `<svg><style>@import url(x)</style></svg>`, "<style>"},
		{"image element", `<svg><image href="#x"/></svg>`, "<image>"},
		{"animation", `<svg><set attributeName="href" to="javascript:x"/></svg>`, "<set>"},
		{"doctype with entity", `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x "y">]><svg>&x;</svg>`, "DOCTYPE"},
		{"processing instruction", `<svg><?php echo 1 ?></svg>`, "processing instruction"},
		{"html root", `<html><svg/></html>`, "root element"},
		{"other namespace", `<svg><h:div xmlns:h="http://www.w3.org/1999/xhtml"/></svg>`, "namespace"},
		{"not xml", `<svg><rect></svg>`, "well-formed"},
		{"empty", ``, "root element"},
		{"text before root", `hello<svg/>`, "root element"},
		{"deep nesting", strings.Repeat("<g>", 70) + strings.Repeat("</g>", 70), "root element"},
		{"deep nesting inside svg", "<svg>" + strings.Repeat("<g>", 70) + strings.Repeat("</g>", 70) + "</svg>", "nested"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := branding.CheckSVG([]byte(tc.svg))
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tc.want)
			}
		})
	}
}

// FuzzCheckSVG: CheckSVG never panics, and whatever it accepts, read
// again by a plain XML tokenizer, holds no script or foreignObject
// element, no on* attribute and no attribute value with "javascript:".
func FuzzCheckSVG(f *testing.F) {
	for _, s := range []string{goodSVG, `<svg onload="x"/>`, `<svg><script/></svg>`, `<!DOCTYPE x><svg/>`, `<svg><a href="#x"/></svg>`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if branding.CheckSVG(b) != nil {
			return
		}
		d := xml.NewDecoder(bytes.NewReader(b))
		for {
			tok, err := d.Token()
			if err != nil {
				break
			}
			se, ok := tok.(xml.StartElement)
			if !ok {
				continue
			}
			if n := strings.ToLower(se.Name.Local); n == "script" || n == "foreignobject" {
				t.Fatalf("accepted <%s>: %q", se.Name.Local, b)
			}
			for _, a := range se.Attr {
				if strings.HasPrefix(strings.ToLower(a.Name.Local), "on") || strings.Contains(strings.ToLower(a.Value), "javascript:") {
					t.Fatalf("accepted attribute %s=%q: %q", a.Name.Local, a.Value, b)
				}
			}
		}
	})
}

func TestSet(t *testing.T) {
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tenant := &appliance.APIKey{ID: "aaaaaaaaaaaa", HashHex: strings.Repeat("a", 64), Tier: appliance.TierPro, Role: appliance.RoleTenant, TenantID: "t_a"}
	admin := &appliance.APIKey{ID: "bbbbbbbbbbbb", HashHex: strings.Repeat("b", 64), Tier: appliance.TierUltra, Role: appliance.RoleAdmin, TenantID: "admin"}
	for _, k := range []*appliance.APIKey{tenant, admin} {
		if err := db.PutKey(k); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	svc := branding.New(db, func() time.Time { return now })
	good := branding.Request{DisplayName: "ACME Telecom", PrimaryColor: "#0A7F3C", SupportContact: "noc@acme.example", ReportFooter: "ACME · CNPJ 00.000.000/0001-00",
		LogoMediaType: appliance.BrandingLogoPNG, Logo: pngOf(t, 40, 20)}
	tests := []struct {
		name    string
		actor   *appliance.APIKey
		admin   bool
		tenant  string
		req     branding.Request
		wantErr error
		fields  []string
	}{
		{name: "tenant sets its own", actor: tenant, req: good},
		{name: "svg logo", actor: tenant, req: branding.Request{LogoMediaType: appliance.BrandingLogoSVG, Logo: []byte(goodSVG)}},
		{name: "svg with a script", actor: tenant, req: branding.Request{LogoMediaType: appliance.BrandingLogoSVG, Logo: []byte(`<svg><script/></svg>`)},
			wantErr: appliance.ErrInvalid, fields: []string{"logo.data_base64"}},
		{name: "png that is an svg", actor: tenant, req: branding.Request{LogoMediaType: appliance.BrandingLogoPNG, Logo: []byte(goodSVG)},
			wantErr: appliance.ErrInvalid, fields: []string{"logo.data_base64"}},
		{name: "png too large a side", actor: tenant, req: branding.Request{LogoMediaType: appliance.BrandingLogoPNG, Logo: pngOf(t, 2001, 1)},
			wantErr: appliance.ErrInvalid, fields: []string{"logo.data_base64"}},
		{name: "logo too many bytes", actor: tenant, req: branding.Request{LogoMediaType: appliance.BrandingLogoSVG, Logo: bytes.Repeat([]byte("<svg/>"), branding.MaxLogoBytes)},
			wantErr: appliance.ErrInvalid, fields: []string{"logo.data_base64"}},
		{name: "jpeg media type", actor: tenant, req: branding.Request{LogoMediaType: "image/jpeg", Logo: []byte{0xff, 0xd8}},
			wantErr: appliance.ErrInvalid, fields: []string{"logo.media_type"}},
		{name: "every text field bad", actor: tenant, req: branding.Request{DisplayName: strings.Repeat("x", 101), PrimaryColor: "red", SupportContact: "a\nb", ReportFooter: "\u202eevil"},
			wantErr: appliance.ErrInvalid, fields: []string{"display_name", "support_contact", "report_footer", "primary_color"}},
		{name: "admin key on the tenant path", actor: admin, req: good, wantErr: appliance.ErrForbidden},
		{name: "admin sets a tenant's", actor: admin, admin: true, tenant: "t_a", req: withJustification(good)},
		{name: "admin without justification", actor: admin, admin: true, tenant: "t_a", req: good, wantErr: appliance.ErrInvalid, fields: []string{"justification"}},
		{name: "admin, unknown tenant", actor: admin, admin: true, tenant: "t_nobody", req: withJustification(good), wantErr: appliance.ErrNotFound},
		{name: "tenant key on the admin path", actor: tenant, admin: true, tenant: "t_a", req: withJustification(good), wantErr: appliance.ErrForbidden},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.admin {
				_, err = svc.SetFor(tc.actor, tc.tenant, tc.req, appliance.AuditEntry{ActorKey: tc.actor.ID})
			} else {
				_, err = svc.Set(tc.actor, tc.req, appliance.AuditEntry{ActorKey: tc.actor.ID})
			}
			if tc.wantErr == nil {
				if err != nil {
					t.Fatal(err)
				}
				got, err := svc.Get("t_a")
				if err != nil || got.DisplayName != tc.req.DisplayName || !bytes.Equal(got.Logo, tc.req.Logo) || got.UpdatedUnix != now.Unix() {
					t.Fatalf("stored %+v, %v", got, err)
				}
				return
			}
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			var ve *appliance.ValidationError
			if len(tc.fields) > 0 {
				if !errors.As(err, &ve) {
					t.Fatalf("err = %v, not a validation error", err)
				}
				var got []string
				for _, f := range ve.Fields {
					got = append(got, f.Field)
				}
				for _, f := range tc.fields {
					if !strings.Contains(strings.Join(got, ","), f) {
						t.Errorf("fields %v, want %s", got, f)
					}
				}
			}
		})
	}
	if b, err := svc.Get("t_other"); err != nil || b.DisplayName != "" || b.TenantID != "t_other" {
		t.Errorf("default branding = %+v, %v", b, err)
	}
	entries, _ := db.Audit("t_a", 0)
	n := map[string]int{}
	for _, e := range entries {
		n[e.Action]++
	}
	if n[branding.ActionSet] != 2 || n[branding.ActionAdminSet] != 1 {
		t.Errorf("audit rows %v", n)
	}
}

func withJustification(r branding.Request) branding.Request {
	r.Justification = "white-label onboarding, ticket 77"
	return r
}
