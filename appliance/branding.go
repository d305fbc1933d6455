package appliance

// Branding is a tenant's white-label branding: the console shows it and the
// PDF reports carry it (SPEC §2.10). The zero value is the neutral
// appliance branding.
type Branding struct {
	TenantID    string
	DisplayName string
	// LogoMediaType is BrandingLogoPNG, BrandingLogoSVG or "" (no logo).
	LogoMediaType string
	Logo          []byte // the image as uploaded (PNG or SVG text)
	// PrimaryColor is "#RRGGBB", or "" for the neutral slate.
	PrimaryColor   string
	SupportContact string // e-mail address, URL or phone number shown to users
	ReportFooter   string // one line printed in the footer of every report page
	UpdatedUnix    int64  // epoch seconds
	UpdatedBy      string // id of the key that set it
}

// Logo media types of a Branding.
const (
	BrandingLogoPNG = "image/png"
	BrandingLogoSVG = "image/svg+xml"
)
