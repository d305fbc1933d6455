package appliance

import (
	"context"
	"unicode"
	"unicode/utf8"
)

// AuditEntry is one row of the audit log (SPEC §2.11). Its JSON tags are
// the stored and wire shape: the log is append-only, so the shape only ever
// gains fields.
type AuditEntry struct {
	Seq        uint64            `json:"seq"`                   // monotonically increasing sequence number
	TimeUnix   float64           `json:"time_unix"`             // epoch seconds
	Action     string            `json:"action"`                // action name, e.g. "admin.key.issue" (SPEC §6)
	ActorKey   string            `json:"actor_key,omitempty"`   // id of the acting key
	ActorEmail string            `json:"actor_email,omitempty"` // e-mail of the acting key's owner
	TenantID   string            `json:"tenant_id,omitempty"`   // tenant the action concerns
	Route      string            `json:"route,omitempty"`       // route template, e.g. "/admin/keys"
	Params     map[string]string `json:"params,omitempty"`      // non-secret parameters
	IP         string            `json:"ip,omitempty"`
	UserAgent  string            `json:"user_agent,omitempty"`
	RequestID  string            `json:"request_id,omitempty"`
}

// MaxUserAgentBytes is the most bytes of a client's user agent an audit row
// keeps (CleanUserAgent).
const MaxUserAgentBytes = 256

// CleanUserAgent returns ua as an audit row stores it: control and format
// characters (U+0000, newlines, U+202E and the like) and invalid UTF-8
// replaced by U+FFFD, cut on a character boundary to at most
// MaxUserAgentBytes bytes, "…" marking a cut. A client's header is up to
// the server's header limit (about 1 MiB), which a row must not copy.
func CleanUserAgent(ua string) string {
	const cut = "…"
	b := make([]byte, 0, min(len(ua), MaxUserAgentBytes+utf8.UTFMax))
	for _, r := range ua { // invalid UTF-8 comes as utf8.RuneError
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			r = utf8.RuneError
		}
		b = utf8.AppendRune(b, r)
		if len(b) > MaxUserAgentBytes {
			for len(b) > MaxUserAgentBytes-len(cut) {
				_, n := utf8.DecodeLastRune(b)
				b = b[:len(b)-n]
			}
			return string(b) + cut
		}
	}
	return string(b)
}

// AuditFilter selects audit entries for a page of the log, newest first
// (store and the audit service).
type AuditFilter struct {
	TenantID string  // "" : every tenant (admin view)
	Action   string  // "" : any action; else this exact action name
	FromUnix float64 // entries at or after this time (epoch seconds); 0: no bound
	ToUnix   float64 // entries before this time (epoch seconds); 0: no bound
	// BeforeSeq pages: entries with a sequence number below it; 0 starts
	// at the newest entry.
	BeforeSeq uint64
	Limit     int // most entries of the page, >= 1
}

// Actor is who makes a request and from where: what an audit entry
// records of the caller (SPEC §2.11). The API puts it in the request's
// context (WithActor) once the key is known; services that audit a change
// read it there (ActorFrom).
type Actor struct {
	KeyID     string
	Email     string
	TenantID  string
	Route     string // route template, e.g. "/jobs/{id}/cancel"
	IP        string
	UserAgent string
	RequestID string
}

type actorKey struct{}

// WithActor returns ctx carrying a.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// ActorFrom returns the actor of ctx; the zero Actor when none (a
// background task).
func ActorFrom(ctx context.Context) Actor {
	a, _ := ctx.Value(actorKey{}).(Actor)
	return a
}

// Entry returns the audit entry of action by a on tenantID's data, with
// params (not copied).
func (a Actor) Entry(action, tenantID string, params map[string]string) AuditEntry {
	return AuditEntry{Action: action, ActorKey: a.KeyID, ActorEmail: a.Email, TenantID: tenantID, Route: a.Route,
		Params: params, IP: a.IP, UserAgent: a.UserAgent, RequestID: a.RequestID}
}

// Audit action names. SPEC §6 names the privacy and observation ones; the
// others follow its dotted style (subject.verb).
const (
	ActionObservationRejectedNoConsent = "observation.rejected.no_consent" // SPEC §6
	ActionTenantDSARExport             = "tenant.dsar.export"              // SPEC §6
	ActionTenantDSARForgetSoft         = "tenant.dsar.forget.soft"         // SPEC §6
	ActionAdminDSARExport              = "admin.dsar.export"               // SPEC §6 (target tenant)
	ActionAdminDSARExportServed        = "admin.dsar.export.served"        // SPEC §6 (admin)
	ActionAdminDSAREraseSoft           = "admin.dsar.erase.soft"           // SPEC §6 (target tenant)
	ActionAdminDSAREraseServed         = "admin.dsar.erase.served"         // SPEC §6 (admin)
	ActionDSARHardDelete               = "dsar.hard_delete"                // SPEC §6

	ActionAdminBootstrap  = "admin.bootstrap"      // first admin key created
	ActionAdminKeyIssue   = "admin.key.issue"      // POST /admin/keys
	ActionAdminAuditRead  = "admin.audit.read"     // GET /admin/audit
	ActionTOTPFailed      = "admin.totp.failed"    // appliance/tenancy
	ActionTOTPThrottled   = "admin.totp.throttled" // appliance/tenancy
	ActionTOTPReplayed    = "admin.totp.replayed"  // appliance/tenancy
	ActionTOTPSealed      = "admin.totp.sealed"    // appliance/tenancy
	ActionTowerRegister   = "tower.register"       // POST /towers
	ActionEquipmentCreate = "equipment.create"     // POST /equipment/radios, /equipment/antennas, /equipment/antennas/import
	ActionEquipmentUpdate = "equipment.update"     // PUT /equipment/radios/{id}, /equipment/antennas/{id}
	ActionEquipmentDelete = "equipment.delete"     // DELETE /equipment/radios/{id}, /equipment/antennas/{id}
	ActionJobSubmit       = "job.submit"           // a queued job (batch report, repeater plan)
	ActionJobCancel       = "job.cancel"           // POST /jobs/{id}/cancel
	ActionJobQuarantine   = "job.quarantine"       // a job the process died at twice (appliance/jobs), failed for good
	ActionMapStart        = "coverage.map.start"   // POST /coverage/heatmap, /coverage/best_server
	ActionReportPDF       = "report.pdf"           // POST /reports/link, /reports/ptp (a PDF of the monthly quota)
	// appliance/observations
	ActionObservationIngest          = "observation.ingest"           // rows stored by a submission
	ActionObservationConsentApply    = "observation.consent.apply"    // consent stamping script --apply (SPEC §3)
	ActionObservationConsentWithdraw = "observation.consent.withdraw" // consent stamping script --withdraw
	ActionObservationDividendSettle  = "observation.dividend.settle"  // dividend settlement (SPEC §2.13)

	ActionObservationSourceAttest   = "observation.source.attest"          // `linkplan observations attest`: a source's rows vouched for as field measurements
	ActionObservationSourceWithdraw = "observation.source.attest.withdraw" // `linkplan observations attest --withdraw`
	// appliance/training: every retrain decision (SPEC §9)
	ActionModelPromoted = "model.promoted" // a retrain's candidate models replaced the served ones
	ActionModelKept     = "model.kept"     // a retrain's candidate did not beat the served models in the holdout replay; they stay
	// tenant key management (appliance/tenancy)
	ActionKeyCreate = "tenant.key.create" // POST /tenant/keys
	ActionKeyRotate = "tenant.key.rotate" // POST /tenant/keys/{key_id}/rotate
	ActionKeyRevoke = "tenant.key.revoke" // POST /tenant/keys/{key_id}/revoke
	// the admin tenant listing (appliance/tenancy)
	ActionAdminTenantsList = "admin.tenants.list" // GET /admin/tenants
	// the tenant's calibration (appliance/calibration)
	ActionCalibrationEnable  = "calibration.enable"  // PUT /coverage/calibration {"enabled":true}
	ActionCalibrationDisable = "calibration.disable" // PUT /coverage/calibration {"enabled":false}: the fitted calibration is deleted
	ActionCalibrationFit     = "calibration.fit"     // a fit job stored the tenant's calibration
	// warm standby (appliance/standby)
	ActionAdminStandbyKey = "admin.standby_key" // POST /admin/standby-key: a standby key issued (the previous one revoked)
	ActionStandbySnapshot = "standby.snapshot"  // GET /replication/snapshot: a verified snapshot served to a standby
)

// SpecActions are the action names of SPEC §6, spelled as there.
func SpecActions() []string {
	return []string{ActionObservationRejectedNoConsent, ActionTenantDSARExport, ActionTenantDSARForgetSoft,
		ActionAdminDSARExport, ActionAdminDSARExportServed, ActionAdminDSAREraseSoft, ActionAdminDSAREraseServed, ActionDSARHardDelete}
}

// Actions lists every audit action name the appliance writes or reserves.
func Actions() []string {
	return append(SpecActions(), ActionAdminBootstrap, ActionAdminKeyIssue, ActionAdminAuditRead, ActionTOTPFailed, ActionTOTPThrottled,
		ActionTOTPReplayed, ActionTOTPSealed, ActionTowerRegister, ActionJobSubmit, ActionJobCancel, ActionJobQuarantine, ActionReportPDF, ActionMapStart,
		ActionKeyCreate, ActionKeyRotate, ActionKeyRevoke, ActionModelPromoted, ActionModelKept, ActionAdminTenantsList,
		ActionCalibrationEnable, ActionCalibrationDisable, ActionCalibrationFit, ActionAdminStandbyKey, ActionStandbySnapshot)
}
