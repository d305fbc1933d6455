package api

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"linkplan/appliance"
	"linkplan/appliance/branding"
	"linkplan/appliance/report"
)

// Brandings keeps the tenants' white-label branding (appliance/branding).
type Brandings interface {
	Get(tenantID string) (*appliance.Branding, error)
	Set(actor *appliance.APIKey, req branding.Request, base appliance.AuditEntry) (*appliance.Branding, error)
	SetFor(admin *appliance.APIKey, tenantID string, req branding.Request, base appliance.AuditEntry) (*appliance.Branding, error)
}

func (a *API) registerBranding(r *mux.Router) {
	r.HandleFunc("/tenant/branding", a.wrap(a.authed(a.getBranding))).Methods(http.MethodGet)
	r.HandleFunc("/tenant/branding", a.wrap(a.authed(a.putBranding))).Methods(http.MethodPut)
	r.HandleFunc("/admin/tenants/{tenant_id}/branding", a.wrap(a.authed(a.adminPutBranding))).Methods(http.MethodPut)
}

// BrandingLogo is the logo of a branding on the wire.
type BrandingLogo struct {
	MediaType  string `json:"media_type"`
	DataBase64 string `json:"data_base64"`
	SizeBytes  int    `json:"size_bytes,omitempty"` // responses only
	SHA256     string `json:"sha256,omitempty"`     // responses only: hex digest, for caching
}

// BrandingJSON is a tenant's branding on the wire (GET and PUT
// /tenant/branding).
type BrandingJSON struct {
	TenantID       string        `json:"tenant_id"`
	DisplayName    string        `json:"display_name"`
	PrimaryColor   string        `json:"primary_color"`
	SupportContact string        `json:"support_contact"`
	ReportFooter   string        `json:"report_footer"`
	Logo           *BrandingLogo `json:"logo"`
	UpdatedUnix    int64         `json:"updated_unix"`
}

type brandingRequest struct {
	DisplayName    string        `json:"display_name"`
	PrimaryColor   string        `json:"primary_color"`
	SupportContact string        `json:"support_contact"`
	ReportFooter   string        `json:"report_footer"`
	Logo           *BrandingLogo `json:"logo"`
	TOTP           *string       `json:"totp"`
	Justification  string        `json:"justification"`
}

func (q *brandingRequest) request(r *http.Request) (branding.Request, error) {
	req := branding.Request{DisplayName: q.DisplayName, PrimaryColor: q.PrimaryColor, SupportContact: q.SupportContact,
		ReportFooter: q.ReportFooter, Justification: strings.TrimSpace(q.Justification), Memory: bodyFrom(r.Context()).lease}
	if q.Logo != nil {
		raw, err := base64.StdEncoding.DecodeString(q.Logo.DataBase64)
		if err != nil {
			return req, appliance.Invalid("logo.data_base64", "must be standard base64 (RFC 4648 §4, with padding)")
		}
		req.LogoMediaType, req.Logo = q.Logo.MediaType, raw
	}
	return req, nil
}

func brandingJSON(b *appliance.Branding) BrandingJSON {
	out := BrandingJSON{TenantID: b.TenantID, DisplayName: b.DisplayName, PrimaryColor: b.PrimaryColor,
		SupportContact: b.SupportContact, ReportFooter: b.ReportFooter, UpdatedUnix: b.UpdatedUnix}
	if len(b.Logo) > 0 {
		sum := sha256.Sum256(b.Logo)
		out.Logo = &BrandingLogo{MediaType: b.LogoMediaType, DataBase64: base64.StdEncoding.EncodeToString(b.Logo),
			SizeBytes: len(b.Logo), SHA256: hex.EncodeToString(sum[:])}
	}
	return out
}

// errNoBranding answers the branding routes when the service is not wired.
var errNoBranding = &httpError{status: http.StatusServiceUnavailable, code: "unavailable", msg: "branding is not available on this appliance"}

func (a *API) getBranding(w http.ResponseWriter, r *http.Request) (any, error) {
	if a.Branding == nil {
		return nil, errNoBranding
	}
	k := keyFrom(r.Context())
	if k.Role == appliance.RoleAdmin {
		return nil, &httpError{status: http.StatusForbidden, code: "forbidden", msg: "tenant self-service refuses admin keys"}
	}
	b, err := a.Branding.Get(k.TenantID)
	if err != nil {
		return nil, err
	}
	return brandingJSON(b), nil
}

func (a *API) putBranding(w http.ResponseWriter, r *http.Request) (any, error) {
	if a.Branding == nil {
		return nil, errNoBranding
	}
	var q brandingRequest
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	if q.TOTP != nil || q.Justification != "" {
		return nil, appliance.Invalid("totp", "is an admin field: a tenant sets its branding without TOTP or justification")
	}
	req, err := q.request(r)
	if err != nil {
		return nil, err
	}
	k := keyFrom(r.Context())
	b, err := a.Branding.Set(k, req, auditBase(r, k, "/tenant/branding"))
	if err != nil {
		return nil, err
	}
	return brandingJSON(b), nil
}

func (a *API) adminPutBranding(w http.ResponseWriter, r *http.Request) (any, error) {
	if a.Branding == nil {
		return nil, errNoBranding
	}
	admin := keyFrom(r.Context())
	if admin.Role != appliance.RoleAdmin {
		return nil, &httpError{status: http.StatusForbidden, code: "forbidden", msg: "an admin key is required"}
	}
	var q brandingRequest
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	req, err := q.request(r)
	if err != nil {
		return nil, err
	}
	if err := branding.ValidateAdmin(&req); err != nil {
		return nil, err
	}
	code := r.Header.Get("X-Admin-Totp")
	if code == "" && q.TOTP != nil {
		code = *q.TOTP
	}
	const route = "/admin/tenants/{tenant_id}/branding"
	if err := a.verifyAdmin(r, admin, code, route); err != nil {
		return nil, err
	}
	b, err := a.Branding.SetFor(admin, mux.Vars(r)["tenant_id"], req, auditBase(r, admin, route))
	if err != nil {
		return nil, err
	}
	return brandingJSON(b), nil
}

// reportBranding returns the report branding of a key's tenant: the
// neutral default without a branding service or record. An SVG logo is
// left out (the PDF renderer draws PNG only).
func (a *API) reportBranding(k *appliance.APIKey) (report.Branding, error) {
	if a.Branding == nil || k == nil {
		return report.Branding{}, nil
	}
	b, err := a.Branding.Get(k.TenantID)
	if err != nil {
		return report.Branding{}, err
	}
	out := report.Branding{Name: b.DisplayName, Color: b.PrimaryColor, Footer: b.ReportFooter, Support: b.SupportContact}
	if b.LogoMediaType == appliance.BrandingLogoPNG {
		out.LogoPNG = b.Logo
	}
	return out, nil
}
