package privacy

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/periodic"
)

// Store is what the privacy service needs from storage (store.DB).
type Store interface {
	KeysOfTenant(tenantID string) ([]*appliance.APIKey, error)
	KeysByPrefix(prefix string) ([]*appliance.APIKey, error)
	// Audit returns up to limit entries of a tenant, newest first.
	Audit(tenantID string, limit int) ([]appliance.AuditEntry, error)
	JobsByTenant(ctx context.Context, tenantID string, limit int) ([]*appliance.Job, error)
	UserTowers() ([]*appliance.Tower, error)
	// Observations calls fn with the tenant's stored rows of kind until fn
	// returns false; ObservationCounts returns the tenant's row counts.
	Observations(tenant string, kind appliance.ObservationKind, fn func(appliance.Observation) bool) error
	ObservationCounts(tenant string) (appliance.ObservationCounts, error)
	// DividendEvents calls fn with the tenant's data dividend events until
	// fn returns false.
	DividendEvents(tenant string, fn func(appliance.DividendEvent) bool) error
	// BillingAccount returns the tenant's billing account, or an
	// appliance.ErrNotFound error when it has none.
	BillingAccount(tenantID string) (*appliance.BillingAccount, error)
	PutDSAR(r *appliance.DSARRequest, audit ...appliance.AuditEntry) error
	DSARRequests() ([]*appliance.DSARRequest, error)
	SoftEraseTenant(tenantID, pseudonym string, r *appliance.DSARRequest, audit ...appliance.AuditEntry) error
	HardDeleteTenant(reqID string, now time.Time, audit func(counts map[string]int) appliance.AuditEntry) (bool, appliance.Purged, error)
}

// Enqueuer queues durable jobs (appliance/jobs.Service).
type Enqueuer interface {
	Enqueue(ctx context.Context, j *appliance.Job) error
}

// Client describes where a request comes from, for the audit log and the
// step-up throttle (the fields of tenancy.Client).
type Client struct {
	IP        string
	UserAgent string
	RequestID string
	Route     string
}

// StepUp checks an admin key's TOTP code (tenancy.Service.VerifyAdminFrom).
type StepUp func(admin *appliance.APIKey, code string, c Client) error

// Audit actions (SPEC §6, exactly; the names live in appliance).
const (
	ActionTenantExport     = appliance.ActionTenantDSARExport
	ActionTenantForgetSoft = appliance.ActionTenantDSARForgetSoft
	ActionAdminExport      = appliance.ActionAdminDSARExport
	ActionAdminExportDone  = appliance.ActionAdminDSARExportServed
	ActionAdminEraseSoft   = appliance.ActionAdminDSAREraseSoft
	ActionAdminEraseDone   = appliance.ActionAdminDSAREraseServed
	ActionHardDelete       = appliance.ActionDSARHardDelete
)

// ForgetConfirmation is the literal text POST /tenant/me/data/forget
// needs (SPEC §4.10).
const ForgetConfirmation = "DELETE MY DATA"

// Bounds of the admin request fields.
const (
	MinPrefixChars        = 6
	MinJustificationChars = 10
	MaxJustificationChars = 1000
	// AuditRowsInBundle is how many audit rows a bundle holds, newest
	// first (SPEC §4.11: the last 1000).
	AuditRowsInBundle = 1000
	// JobsInBundle bounds the jobs of a bundle (newest first); records of
	// finished jobs are deleted after 30 days anyway.
	JobsInBundle = 10000
	// ObservationsInBundle bounds the observations of a bundle (link
	// observations first, then cell signal samples, each in storage
	// order); the bundle's counts say how many the tenant holds, so a
	// larger corpus is visibly cut (SPEC §4.11 sets no bound; one row is
	// about 600 bytes of JSON, so the cap keeps a bundle near 60 MB).
	ObservationsInBundle = 100000
)

// Options configure a Service.
type Options struct {
	// Clock is the time source; nil is time.Now.
	Clock func() time.Time
	// ScheduleInterval is how often the scheduler makes sure the daily
	// hard-delete jobs are queued (default 1 h).
	ScheduleInterval time.Duration
	// RemoveResult removes a job result file by name after a hard delete
	// (the jobs directory belongs to appliance/jobs); nil removes nothing.
	RemoveResult func(name string) error
	// TowersDeleted drops a hard-deleted tenant's towers from the
	// in-memory indexes (tower index, search); nil does nothing, and they
	// go at the next start-up or catalogue refresh.
	TowersDeleted func(ids []string)
	// Log receives the scheduler's errors; nil discards them.
	Log *slog.Logger
	// Recover recovers a panic of the scheduling loop (the loop goes on);
	// nil logs it to slog.Default.
	Recover *appliance.Recoverer
}

// Service answers data-subject requests (package doc).
type Service struct {
	store  Store
	queue  Enqueuer
	stepUp StepUp
	opts   Options
	log    *slog.Logger

	loop periodic.Loop // the scheduling loop of Start
}

// New returns a Service. queue may be nil when no job queue runs (no
// scheduling then); stepUp checks admin TOTP codes.
func New(store Store, queue Enqueuer, stepUp StepUp, opts Options) *Service {
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.ScheduleInterval <= 0 {
		opts.ScheduleInterval = time.Hour
	}
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{store: store, queue: queue, stepUp: stepUp, opts: opts, log: log.With("component", "privacy")}
}

func (s *Service) now() time.Time { return s.opts.Clock().UTC() }

// Pseudonym returns the deterministic pseudonym of a tenant: "erased-" and
// the first 16 hex digits of SHA-256("linkplan/dsar/v1" 0x00 tenantID).
// The same tenant always gets the same pseudonym, so erased rows stay
// countable per subject without naming it.
func Pseudonym(tenantID string) string {
	h := sha256.Sum256([]byte("linkplan/dsar/v1\x00" + tenantID))
	return "erased-" + hex.EncodeToString(h[:8])
}

// newRequestID returns "dsar_" and 16 random bytes in lowercase base32.
func newRequestID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("new dsar request id: %w", err)
	}
	return "dsar_" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:])), nil
}

// Bundle is a subject's data (SPEC §4.11): identity (the subject key's
// record), every key of its tenant, its audit log (the last
// AuditRowsInBundle rows, newest first), its jobs, its observations (at
// most ObservationsInBundle, with the counts of all) and their data
// dividend events, its user-registered towers and its billing references.
type Bundle struct {
	GeneratedAt time.Time
	Identity    *appliance.APIKey
	Keys        []*appliance.APIKey
	AuditLog    []appliance.AuditEntry
	Jobs        []*appliance.Job
	Towers      []*appliance.Tower
	Billing     Billing
	// Observations are the tenant's stored observations (both kinds, at
	// most ObservationsInBundle); ObservationCounts how many it holds.
	Observations      []appliance.Observation
	ObservationCounts appliance.ObservationCounts
	// DividendEvents are the data dividend events of the tenant's
	// observations (SPEC §2.13).
	DividendEvents []appliance.DividendEvent
}

// Billing holds the payment provider's references of the tenant (its
// billing account, appliance/billing).
type Billing struct {
	PaymentCustomerIDs []string
	SubscriptionIDs    []string
}

// Answer is the result of an export or erase request.
type Answer struct {
	Request *appliance.DSARRequest
	Bundle  *Bundle // exports only
}

func (s *Service) bundle(ctx context.Context, subject *appliance.APIKey) (*Bundle, error) {
	keys, err := s.store.KeysOfTenant(subject.TenantID)
	if err != nil {
		return nil, err
	}
	audit, err := s.store.Audit(subject.TenantID, AuditRowsInBundle)
	if err != nil {
		return nil, err
	}
	jobs, err := s.store.JobsByTenant(ctx, subject.TenantID, JobsInBundle)
	if err != nil {
		return nil, err
	}
	all, err := s.store.UserTowers()
	if err != nil {
		return nil, err
	}
	counts, err := s.store.ObservationCounts(subject.TenantID)
	if err != nil {
		return nil, err
	}
	obs := []appliance.Observation{}
	for _, kind := range []appliance.ObservationKind{appliance.KindLinkObservation, appliance.KindCellSignalSample} {
		if err := s.store.Observations(subject.TenantID, kind, func(o appliance.Observation) bool {
			if len(obs) >= ObservationsInBundle {
				return false
			}
			obs = append(obs, o)
			return true
		}); err != nil {
			return nil, err
		}
	}
	divs := []appliance.DividendEvent{}
	if err := s.store.DividendEvents(subject.TenantID, func(ev appliance.DividendEvent) bool {
		divs = append(divs, ev)
		return true
	}); err != nil {
		return nil, err
	}
	b := &Bundle{GeneratedAt: s.now(), Identity: subject, Keys: keys, AuditLog: audit, Jobs: jobs,
		Towers: []*appliance.Tower{}, Observations: obs, ObservationCounts: counts, DividendEvents: divs}
	for _, t := range all {
		if t.OwnerTenantID == subject.TenantID {
			b.Towers = append(b.Towers, t)
		}
	}
	b.Billing = Billing{PaymentCustomerIDs: []string{}, SubscriptionIDs: []string{}}
	acct, err := s.store.BillingAccount(subject.TenantID)
	switch {
	case errors.Is(err, appliance.ErrNotFound):
	case err != nil:
		return nil, err
	default:
		if acct.CustomerID != "" {
			b.Billing.PaymentCustomerIDs = append(b.Billing.PaymentCustomerIDs, acct.CustomerID)
		}
		if acct.SubscriptionID != "" {
			b.Billing.SubscriptionIDs = append(b.Billing.SubscriptionIDs, acct.SubscriptionID)
		}
	}
	return b, nil
}

// newRequest returns a request of type t about subject, created now.
func (s *Service) newRequest(t appliance.DSARType, subject, actor *appliance.APIKey, by string, now time.Time) (*appliance.DSARRequest, error) {
	id, err := newRequestID()
	if err != nil {
		return nil, err
	}
	return &appliance.DSARRequest{ID: id, Type: t, Status: appliance.DSARReceived, TenantID: subject.TenantID, KeyID: subject.ID,
		KeyPrefix: subject.Prefix, Subject: Pseudonym(subject.TenantID), RequestedBy: by, ActorKey: actor.ID,
		CreatedUnix: now.Unix(), DueByUnix: now.Add(appliance.DSARAnswerDue).Unix()}, nil
}

// selfService refuses admin keys (SPEC §4.10) and roles without the
// privacy permission (only tenant-admin has it).
func selfService(k *appliance.APIKey) error {
	if k.Role == appliance.RoleAdmin {
		return fmt.Errorf("tenant self-service routes do not accept admin keys: %w", appliance.ErrForbidden)
	}
	if r := k.EffectiveTenantRole(); !r.Allows(appliance.PermPrivacy) {
		return fmt.Errorf("this key's role %s cannot export or erase the tenant's data (tenant-admin can): %w", r, appliance.ErrForbidden)
	}
	return nil
}

// Export answers the caller's own export request: the bundle, and a
// completed export request recorded with its tenant.dsar.export audit row.
func (s *Service) Export(ctx context.Context, caller *appliance.APIKey, c Client) (*Answer, error) {
	if err := selfService(caller); err != nil {
		return nil, err
	}
	now := s.now()
	b, err := s.bundle(ctx, caller)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	r, err := s.newRequest(appliance.DSARExport, caller, caller, "self", now)
	if err != nil {
		return nil, err
	}
	r.Status, r.AnsweredUnix = appliance.DSARCompleted, now.Unix()
	e := entry(ActionTenantExport, caller, c, caller.TenantID, r.ID)
	if err := s.store.PutDSAR(r, e); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	return &Answer{Request: r, Bundle: b}, nil
}

// entry builds an audit row of action about tenantID by actor, carrying
// the request id.
func entry(action string, actor *appliance.APIKey, c Client, tenantID, reqID string) appliance.AuditEntry {
	return appliance.AuditEntry{Action: action, ActorKey: actor.ID, ActorEmail: actor.Email, TenantID: tenantID, Route: c.Route,
		IP: c.IP, UserAgent: c.UserAgent, RequestID: c.RequestID, Params: map[string]string{"dsar_request_id": reqID}}
}

// anonymous strips the personal columns of an audit row about an erased
// tenant (SPEC §3: actor e-mail, IP, user agent cleared).
func anonymous(e appliance.AuditEntry) appliance.AuditEntry {
	e.ActorEmail, e.IP, e.UserAgent = "", "", ""
	return e
}

// Forget erases the caller's tenant (soft erase, SPEC §3): confirmation
// must be ForgetConfirmation. Every key of the tenant then answers 401
// "API key has been erased"; the hard delete is scheduled 30 days later.
func (s *Service) Forget(ctx context.Context, caller *appliance.APIKey, confirmation string, c Client) (*Answer, error) {
	if err := selfService(caller); err != nil {
		return nil, err
	}
	if confirmation != ForgetConfirmation {
		return nil, appliance.Invalid("confirmation", "must be exactly %q", ForgetConfirmation)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	now := s.now()
	r, err := s.newRequest(appliance.DSARErase, caller, caller, "self", now)
	if err != nil {
		return nil, err
	}
	r.AnsweredUnix, r.EraseScheduledUnix = now.Unix(), now.Add(appliance.DSARHardDeleteAfter).Unix()
	e := anonymous(entry(ActionTenantForgetSoft, caller, c, caller.TenantID, r.ID))
	if err := s.store.SoftEraseTenant(caller.TenantID, r.Subject, r, e); err != nil {
		return nil, fmt.Errorf("forget: %w", err)
	}
	return &Answer{Request: r}, nil
}

// AdminRequest is the body of an admin export or erase (SPEC §4.11).
type AdminRequest struct {
	Prefix              string // the path's api_key_prefix
	TOTP                string // header X-Admin-Totp, else body field totp
	Justification       string
	ConfirmSubjectEmail string
	Client              Client
}

// validate checks the fields that need no lookup.
func (q AdminRequest) validate() error {
	v := &appliance.ValidationError{}
	if n := len([]rune(q.Prefix)); n < MinPrefixChars {
		v.Add("api_key_prefix", "must be at least %d characters of the key's prefix; got %d", MinPrefixChars, n)
	}
	if j := len([]rune(strings.TrimSpace(q.Justification))); j < MinJustificationChars || j > MaxJustificationChars {
		v.Add("justification", "a justification of %d to %d characters is required for admin actions", MinJustificationChars, MaxJustificationChars)
	}
	if e := strings.TrimSpace(q.ConfirmSubjectEmail); e == "" || !strings.Contains(e, "@") {
		v.Add("confirm_subject_email", "must be the subject's e-mail address")
	}
	return v.Err()
}

// subject checks the admin and the request, then finds the one key the
// prefix names and checks the confirmed e-mail. The order: admin key,
// fields, TOTP (before any lookup, so that without a code the route tells
// nothing about which prefixes exist), prefix, e-mail.
func (s *Service) subject(admin *appliance.APIKey, q AdminRequest) (*appliance.APIKey, error) {
	if admin.Role != appliance.RoleAdmin {
		return nil, fmt.Errorf("an admin key is required: %w", appliance.ErrForbidden)
	}
	if err := q.validate(); err != nil {
		return nil, err
	}
	if s.stepUp == nil {
		return nil, fmt.Errorf("no step-up verifier configured")
	}
	if err := s.stepUp(admin, q.TOTP, q.Client); err != nil {
		return nil, err
	}
	keys, err := s.store.KeysByPrefix(q.Prefix)
	if err != nil {
		return nil, err
	}
	switch {
	case len(keys) == 0:
		return nil, fmt.Errorf("no API key has the prefix %q: %w", q.Prefix, appliance.ErrNotFound)
	case len(keys) > 1:
		return nil, fmt.Errorf("the prefix %q matches %d keys: give more of it: %w", q.Prefix, len(keys), appliance.ErrConflict)
	}
	k := keys[0]
	if k.Role == appliance.RoleAdmin {
		return nil, fmt.Errorf("the prefix names an admin key, which holds no tenant data: %w", appliance.ErrForbidden)
	}
	if k.Tier != appliance.TierErased && !strings.EqualFold(strings.TrimSpace(q.ConfirmSubjectEmail), k.Email) {
		return nil, appliance.Invalid("confirm_subject_email", "does not match the e-mail of the key's owner")
	}
	return k, nil
}

// AdminExport answers an admin export (SPEC §4.11): the subject's bundle,
// a completed export request, and two audit rows carrying its id:
// admin.dsar.export (the subject's tenant) and admin.dsar.export.served
// (the admin's).
func (s *Service) AdminExport(ctx context.Context, admin *appliance.APIKey, q AdminRequest) (*Answer, error) {
	k, err := s.subject(admin, q)
	if err != nil {
		return nil, fmt.Errorf("admin export: %w", err)
	}
	now := s.now()
	b, err := s.bundle(ctx, k)
	if err != nil {
		return nil, fmt.Errorf("admin export: %w", err)
	}
	r, err := s.newRequest(appliance.DSARExport, k, admin, "admin", now)
	if err != nil {
		return nil, err
	}
	r.Status, r.AnsweredUnix, r.Justification = appliance.DSARCompleted, now.Unix(), strings.TrimSpace(q.Justification)
	target := entry(ActionAdminExport, admin, q.Client, k.TenantID, r.ID)
	if k.Tier == appliance.TierErased {
		target = anonymous(target)
	}
	served := entry(ActionAdminExportDone, admin, q.Client, admin.TenantID, r.ID)
	served.Params["justification"] = r.Justification
	if err := s.store.PutDSAR(r, target, served); err != nil {
		return nil, fmt.Errorf("admin export: %w", err)
	}
	return &Answer{Request: r, Bundle: b}, nil
}

// AdminErase soft-erases the subject's tenant (as Forget), with two audit
// rows carrying the request id: admin.dsar.erase.soft (the subject's
// tenant, without e-mail, address or user agent) and
// admin.dsar.erase.served (the admin's). An erased tenant is
// appliance.ErrConflict.
func (s *Service) AdminErase(ctx context.Context, admin *appliance.APIKey, q AdminRequest) (*Answer, error) {
	k, err := s.subject(admin, q)
	if err != nil {
		return nil, fmt.Errorf("admin erase: %w", err)
	}
	if k.Tier == appliance.TierErased {
		return nil, fmt.Errorf("admin erase: the tenant's data was already erased: %w", appliance.ErrConflict)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	now := s.now()
	r, err := s.newRequest(appliance.DSARErase, k, admin, "admin", now)
	if err != nil {
		return nil, err
	}
	r.AnsweredUnix, r.EraseScheduledUnix, r.Justification = now.Unix(), now.Add(appliance.DSARHardDeleteAfter).Unix(), strings.TrimSpace(q.Justification)
	target := anonymous(entry(ActionAdminEraseSoft, admin, q.Client, k.TenantID, r.ID))
	served := entry(ActionAdminEraseDone, admin, q.Client, admin.TenantID, r.ID)
	served.Params["justification"] = r.Justification
	if err := s.store.SoftEraseTenant(k.TenantID, r.Subject, r, target, served); err != nil {
		return nil, fmt.Errorf("admin erase: %w", err)
	}
	return &Answer{Request: r}, nil
}

// Overdue reasons.
const (
	ReasonAnswerDue     = "answer_due"      // no substantive answer by due_by
	ReasonHardDeleteDue = "hard_delete_due" // not hard-deleted within DSARHardDeleteWithin of erase_scheduled_at
)

// OverdueRequest is an open request past one of its deadlines.
type OverdueRequest struct {
	Request *appliance.DSARRequest
	Reason  string
}

// Overdue lists the open requests past a deadline at now (package doc),
// oldest first. Only an admin key may ask.
func (s *Service) Overdue(caller *appliance.APIKey) ([]OverdueRequest, error) {
	if caller.Role != appliance.RoleAdmin {
		return nil, fmt.Errorf("an admin key is required: %w", appliance.ErrForbidden)
	}
	all, err := s.store.DSARRequests()
	if err != nil {
		return nil, fmt.Errorf("overdue: %w", err)
	}
	return overdue(all, s.now()), nil
}

func overdue(all []*appliance.DSARRequest, now time.Time) []OverdueRequest {
	out := []OverdueRequest{}
	t := now.Unix()
	for _, r := range all {
		if !r.Open() {
			continue
		}
		switch {
		case r.AnsweredUnix == 0 && t > r.DueByUnix:
			out = append(out, OverdueRequest{Request: r, Reason: ReasonAnswerDue})
		case r.Type == appliance.DSARErase && r.EraseScheduledUnix != 0 && r.EraseExecutedUnix == 0 &&
			t > r.EraseScheduledUnix+int64(appliance.DSARHardDeleteWithin/time.Second):
			out = append(out, OverdueRequest{Request: r, Reason: ReasonHardDeleteDue})
		}
	}
	return out
}

// HardDeleteDue runs the hard delete of every erase request due at now
// (erase_scheduled_at in the past, erase_executed_at unset), one
// transaction per tenant, and returns the ids of the requests it
// executed. It is idempotent: an executed request is skipped.
func (s *Service) HardDeleteDue(ctx context.Context, now time.Time) ([]string, error) {
	all, err := s.store.DSARRequests()
	if err != nil {
		return nil, fmt.Errorf("hard delete: %w", err)
	}
	var done []string
	for _, r := range all {
		if r.Type != appliance.DSARErase || r.EraseExecutedUnix != 0 || r.EraseScheduledUnix == 0 || now.Unix() < r.EraseScheduledUnix {
			continue
		}
		if err := ctx.Err(); err != nil {
			return done, err
		}
		id, subject := r.ID, r.Subject
		ok, purged, err := s.store.HardDeleteTenant(id, now, func(counts map[string]int) appliance.AuditEntry {
			p := countsParams(counts)
			p["dsar_request_id"], p["subject"] = id, subject
			return appliance.AuditEntry{Action: ActionHardDelete, Route: "job:" + string(appliance.JobKindDSARHardDelete), Params: p}
		})
		if err != nil {
			return done, fmt.Errorf("hard delete %s: %w", id, err)
		}
		if !ok {
			continue
		}
		done = append(done, id)
		for _, f := range purged.ResultFiles {
			if s.opts.RemoveResult == nil {
				break
			}
			if err := s.opts.RemoveResult(f); err != nil {
				s.log.Error("privacy: remove an erased tenant's job result", "dsar_request_id", id, "err", err)
			}
		}
		if s.opts.TowersDeleted != nil && len(purged.TowerIDs) > 0 {
			s.opts.TowersDeleted(purged.TowerIDs)
		}
	}
	return done, nil
}

// countsParams renders per-bucket counts as audit parameters
// ("rows.<bucket>" -> count) with their total ("rows_total").
func countsParams(counts map[string]int) map[string]string {
	p := map[string]string{}
	total := 0
	names := make([]string, 0, len(counts))
	for k := range counts {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		p["rows."+k] = strconv.Itoa(counts[k])
		total += counts[k]
	}
	p["rows_total"] = strconv.Itoa(total)
	return p
}

// DailyJobID returns the id of the hard-delete job of day (UTC):
// "job_dsar_hard_delete_YYYYMMDD".
func DailyJobID(day time.Time) string {
	return "job_dsar_hard_delete_" + day.UTC().Format("20060102")
}

// Schedule makes sure the hard-delete jobs of today and tomorrow (UTC) are
// queued: each waits (NotBefore) until its day's 00:00 UTC. A job already
// queued or run is left alone, so Schedule is idempotent and a restart
// queues nothing twice.
func (s *Service) Schedule(ctx context.Context) error {
	if s.queue == nil {
		return nil
	}
	today := s.now().Truncate(24 * time.Hour)
	for _, day := range []time.Time{today, today.Add(24 * time.Hour)} {
		j := &appliance.Job{ID: DailyJobID(day), TenantID: appliance.SystemTenantID, Kind: appliance.JobKindDSARHardDelete,
			Lane: appliance.LaneStandard, NotBefore: day, Total: 1}
		if err := s.queue.Enqueue(ctx, j); err != nil && !errors.Is(err, appliance.ErrConflict) {
			return fmt.Errorf("schedule hard delete of %s: %w", day.Format("2006-01-02"), err)
		}
	}
	return nil
}

// Start schedules at once and then every ScheduleInterval until Close.
// A second Start is appliance.ErrConflict.
func (s *Service) Start(ctx context.Context) error {
	if s.loop.Started() {
		return fmt.Errorf("privacy: start: already started: %w", appliance.ErrConflict)
	}
	if err := s.Schedule(ctx); err != nil {
		return err
	}
	s.loop.Recover = s.opts.Recover
	return s.loop.Start("privacy", s.opts.ScheduleInterval, func(run context.Context) {
		if err := s.Schedule(run); err != nil && run.Err() == nil {
			s.log.Error("privacy: schedule the daily hard delete", "err", err)
		}
	})
}

// Close stops the scheduler and waits for it (bounded by ctx).
func (s *Service) Close(ctx context.Context) error {
	if err := s.loop.Close(ctx); err != nil {
		return fmt.Errorf("privacy: %w", err)
	}
	return nil
}

// Handler returns the job handler of appliance.JobKindDSARHardDelete.
func (s *Service) Handler() appliance.JobHandler { return handler{s} }

type handler struct{ s *Service }

// Run deletes what is due at the run's time and writes a JSON summary
// (request ids only, no tenant data) as the job's result.
func (h handler) Run(ctx context.Context, run appliance.JobRun) (appliance.JobResult, error) {
	now := h.s.now()
	done, err := h.s.HardDeleteDue(ctx, now)
	if err != nil {
		return appliance.JobResult{}, err
	}
	sum, err := json.Marshal(struct {
		RanAt    string   `json:"ran_at"`
		Executed []string `json:"executed"`
	}{now.Format(time.RFC3339), append([]string{}, done...)})
	if err != nil {
		return appliance.JobResult{}, err
	}
	if err := run.Checkpoint(ctx, appliance.JobProgress{Done: 1}, nil); err != nil {
		return appliance.JobResult{}, err
	}
	res, err := run.WriteResult(".json", func(w io.Writer) error { _, err := w.Write(sum); return err })
	if err != nil {
		return appliance.JobResult{}, err
	}
	res.Summary = sum
	return res, nil
}
