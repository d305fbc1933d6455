package branding

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"linkplan/appliance"
	"linkplan/appliance/decodebudget"
)

// Limits of a branding.
const (
	MaxLogoBytes          = 256 << 10 // bytes of a logo, PNG or SVG
	MaxLogoPx             = 2000      // pixels a side of a PNG logo (the report's limit)
	MaxDisplayNameRunes   = 100
	MaxSupportContactRune = 200
	MaxReportFooterRunes  = 200
)

// Audit actions.
const (
	ActionSet      = "tenant.branding.set" // a tenant set its branding
	ActionAdminSet = "admin.branding.set"  // the admin set a tenant's branding (TOTP, justification)
)

// Store is what branding needs from storage (store.DB).
type Store interface {
	PutBranding(b *appliance.Branding, audit ...appliance.AuditEntry) error
	Branding(tenantID string) (*appliance.Branding, error)
	TenantExists(tenantID string) (bool, error)
}

// Service keeps the tenants' branding.
type Service struct {
	store Store
	now   func() time.Time
}

// New returns a Service; now nil is time.Now.
func New(st Store, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: st, now: now}
}

// Request is a whole branding to store (it replaces the previous one;
// empty fields are cleared). Logo is the decoded image; LogoMediaType
// names it.
type Request struct {
	DisplayName    string
	LogoMediaType  string
	Logo           []byte
	PrimaryColor   string
	SupportContact string
	ReportFooter   string
	// Justification is required from the admin (10 to 1000 characters).
	Justification string
	// Memory is the request's lease on the appliance-wide decode budget
	// (appliance/decodebudget), charged for the pixels of a PNG logo
	// before they are decoded; nil charges nothing.
	Memory *decodebudget.Lease
}

// Validate checks every field and returns all bad ones at once.
func Validate(req *Request) error {
	v := &appliance.ValidationError{}
	text(v, "display_name", req.DisplayName, MaxDisplayNameRunes)
	text(v, "support_contact", req.SupportContact, MaxSupportContactRune)
	text(v, "report_footer", req.ReportFooter, MaxReportFooterRunes)
	if c := req.PrimaryColor; c != "" && !isColor(c) {
		v.Add("primary_color", "must be a colour #RRGGBB, got %q", clip(c))
	}
	switch {
	case req.LogoMediaType == "" && len(req.Logo) == 0:
	case len(req.Logo) == 0:
		v.Add("logo.data_base64", "must hold the image")
	case len(req.Logo) > MaxLogoBytes:
		v.Add("logo.data_base64", "must be at most %d bytes decoded, got %d", MaxLogoBytes, len(req.Logo))
	case req.LogoMediaType == appliance.BrandingLogoPNG:
		if err := checkPNG(req.Logo, req.Memory); errors.Is(err, appliance.ErrUnavailable) {
			return err // the decode budget is spent for now: no field is at fault
		} else if err != nil {
			v.Add("logo.data_base64", "%v", err)
		}
	case req.LogoMediaType == appliance.BrandingLogoSVG:
		if err := CheckSVG(req.Logo); err != nil {
			v.Add("logo.data_base64", "the SVG %v", err)
		}
	default:
		v.Add("logo.media_type", "must be %s or %s, got %q", appliance.BrandingLogoPNG, appliance.BrandingLogoSVG, clip(req.LogoMediaType))
	}
	return v.Err()
}

// ValidateAdmin is Validate plus the admin's justification, so that the
// TOTP code is spent only on an otherwise valid request.
func ValidateAdmin(req *Request) error {
	v := &appliance.ValidationError{}
	if err := Validate(req); err != nil {
		var ve *appliance.ValidationError
		errors.As(err, &ve)
		v.Merge(ve)
	}
	if j := strings.TrimSpace(req.Justification); len(j) < 10 || len(j) > 1000 {
		v.Add("justification", "a justification of 10 to 1000 characters is required for admin actions")
	}
	return v.Err()
}

func text(v *appliance.ValidationError, field, s string, maxRunes int) {
	if !utf8.ValidString(s) {
		v.Add(field, "must be valid UTF-8")
		return
	}
	if n := utf8.RuneCountInString(s); n > maxRunes {
		v.Add(field, "must be at most %d characters, got %d", maxRunes, n)
	}
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			v.Add(field, "must be one line without control or format characters")
			return
		}
	}
}

func isColor(s string) bool {
	if len(s) != 7 || s[0] != '#' {
		return false
	}
	for _, c := range s[1:] {
		if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return false
		}
	}
	return true
}

// checkPNG checks the signature, the dimensions (before decoding the
// pixels) and that the whole image decodes.
func checkPNG(b []byte, mem *decodebudget.Lease) error {
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return errors.New("must be a PNG image (the content is not PNG)")
	}
	if cfg.Width < 1 || cfg.Height < 1 || cfg.Width > MaxLogoPx || cfg.Height > MaxLogoPx {
		return fmt.Errorf("must be 1 to %d pixels a side, got %d×%d", MaxLogoPx, cfg.Width, cfg.Height)
	}
	// A 256 KiB PNG of 2000×2000 16-bit pixels decodes into 32 MB: charged
	// (8 bytes a pixel, the widest colour model) before it is decoded.
	if err := mem.Grow(int64(cfg.Width)*int64(cfg.Height)*8, "the logo's pixels"); err != nil {
		return err
	}
	if _, err := png.Decode(bytes.NewReader(b)); err != nil {
		return errors.New("must be a complete PNG image (it does not decode)")
	}
	return nil
}

// Set stores the branding of the tenant key actor's own tenant. Admin keys
// are refused (they use SetFor). Audited tenant.branding.set.
func (s *Service) Set(actor *appliance.APIKey, req Request, base appliance.AuditEntry) (*appliance.Branding, error) {
	if actor.Role == appliance.RoleAdmin {
		return nil, fmt.Errorf("tenant self-service refuses admin keys: use PUT /admin/tenants/{tenant_id}/branding: %w", appliance.ErrForbidden)
	}
	if err := Validate(&req); err != nil {
		return nil, err
	}
	return s.put(actor, actor.TenantID, req, ActionSet, base)
}

// SetFor stores the branding of tenantID on behalf of the admin, whose
// TOTP step-up the caller verified. An unknown tenant is
// appliance.ErrNotFound. Audited admin.branding.set with the
// justification.
func (s *Service) SetFor(admin *appliance.APIKey, tenantID string, req Request, base appliance.AuditEntry) (*appliance.Branding, error) {
	if admin.Role != appliance.RoleAdmin {
		return nil, fmt.Errorf("an admin key is required: %w", appliance.ErrForbidden)
	}
	if err := ValidateAdmin(&req); err != nil {
		return nil, err
	}
	ok, err := s.store.TenantExists(tenantID)
	if err != nil {
		return nil, fmt.Errorf("set branding: %w", err)
	}
	if !ok {
		return nil, fmt.Errorf("no tenant has the id %q: %w", clip(tenantID), appliance.ErrNotFound)
	}
	return s.put(admin, tenantID, req, ActionAdminSet, base)
}

func (s *Service) put(actor *appliance.APIKey, tenantID string, req Request, action string, base appliance.AuditEntry) (*appliance.Branding, error) {
	b := &appliance.Branding{TenantID: tenantID, DisplayName: req.DisplayName, PrimaryColor: req.PrimaryColor,
		SupportContact: req.SupportContact, ReportFooter: req.ReportFooter, UpdatedUnix: s.now().Unix(), UpdatedBy: actor.ID}
	if len(req.Logo) > 0 {
		b.LogoMediaType, b.Logo = req.LogoMediaType, req.Logo
	}
	e := base
	e.Action, e.TenantID = action, tenantID
	e.Params = map[string]string{"logo_media_type": b.LogoMediaType, "logo_bytes": fmt.Sprint(len(b.Logo))}
	if action == ActionAdminSet {
		e.Params["justification"] = strings.TrimSpace(req.Justification)
	}
	if err := s.store.PutBranding(b, e); err != nil {
		return nil, fmt.Errorf("set branding: %w", err)
	}
	return b, nil
}

// Get returns the branding of a tenant; a tenant that set none gets the
// neutral default (zero fields but TenantID).
func (s *Service) Get(tenantID string) (*appliance.Branding, error) {
	b, err := s.store.Branding(tenantID)
	if errors.Is(err, appliance.ErrNotFound) {
		return &appliance.Branding{TenantID: tenantID}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("get branding: %w", err)
	}
	return b, nil
}
