package observations

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"linkplan/appliance"
	"linkplan/appliance/telemetry"
)

// MaxBatchRows is the most rows one submission may hold (SPEC §8.2).
const MaxBatchRows = 10000

// Defaults of Config.
const (
	DefaultDedupWindow = 60 * time.Second  // OBSERVATION_DEDUP_WINDOW_SEC
	DefaultMaxSkew     = 300 * time.Second // OBSERVATION_SIGNATURE_MAX_SKEW_SEC
)

// Audit actions written by the service (SPEC §6 names the refusal).
const (
	ActionIngest            = appliance.ActionObservationIngest
	ActionRejectedNoConsent = appliance.ActionObservationRejectedNoConsent
)

// Store keeps observations.
type Store interface {
	// PutObservations stores, for tenant, the rows of kind whose dedup
	// key (keys[i] for rows[i]) the tenant has not stored yet, and the
	// audit entries, in one transaction. It returns which rows it stored.
	// For every stored row i with dividends[i] non-nil it also creates
	// that data dividend event.
	PutObservations(tenant string, kind appliance.ObservationKind, rows []appliance.Observation, keys []string,
		dividends []*appliance.DividendEvent, audit ...appliance.AuditEntry) ([]bool, error)
	// ObservationCounts counts a tenant's rows ("" counts every tenant's).
	ObservationCounts(tenant string) (appliance.ObservationCounts, error)
}

// Config tunes the service; the zero value is the SPEC's defaults.
type Config struct {
	RequireSignature bool          // OBSERVATION_REQUIRE_SIGNATURE
	DedupWindow      time.Duration // 0: DefaultDedupWindow
	MaxSkew          time.Duration // 0: DefaultMaxSkew
	Now              func() time.Time
	// Metrics receives coverage_observations_total{source} (SPEC §4.9);
	// nil: not exported.
	Metrics *metrics.Set
}

// MetricSource is the source label of coverage_observations_total for a
// row's source. /metrics is public and a source is a tenant's own text
// (at most 32 characters), so the label is a class, never that text: the
// appliance's own sources "api", "drive_test" (uploads) and "synthetic"
// as they are, every "drivetest_<tool>" as "drivetest", any other as
// "other". The series stay five, and no tenant's label reaches another.
func MetricSource(source string) string {
	switch {
	case source == DefaultSource || source == "drive_test" || source == SyntheticSource:
		return source
	case strings.HasPrefix(source, "drivetest_"):
		return "drivetest"
	}
	return "other"
}

// Service ingests observations. It is safe for concurrent use.
type Service struct {
	store  Store
	towers TowerLookup
	cfg    Config
}

// New returns a service over store, resolving tower_id with towers.
func New(store Store, towers TowerLookup, cfg Config) *Service {
	if cfg.DedupWindow <= 0 {
		cfg.DedupWindow = DefaultDedupWindow
	}
	if cfg.MaxSkew <= 0 {
		cfg.MaxSkew = DefaultMaxSkew
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Service{store: store, towers: towers, cfg: cfg}
}

// Client is who sent a request, for the audit log.
type Client struct {
	IP, UserAgent, RequestID, Route string
}

// Submission is a JSON submission: one row or a batch.
type Submission struct {
	Rows    []Input
	Consent *bool // consent_for_training; nil: not declared (refused)
	// WispConsent is consent_for_wisp_training: the submitter's explicit
	// declaration that creates data dividend events (SPEC §2.13).
	WispConsent *bool
	Prefix      string // field name prefix of row i: Prefix + "[i]." ("" for a single row: no prefix)
	// The raw body and the signature headers ("" when absent); APIKey is
	// the plain key the caller presented ("" with a bearer token).
	Body                   []byte
	Signature, SignatureTs string
	APIKey                 string
}

// Result is the answer of a submission (SPEC §2.8).
type Result struct {
	Ingested           int    `json:"ingested"`
	DedupedIntraBatch  int    `json:"deduped_intra_batch"`
	DedupedExisting    int    `json:"deduped_existing"`
	Submitted          int    `json:"submitted"`
	SignatureStatus    string `json:"signature_status"`
	GrantedForTraining int    `json:"granted_for_training"`
	RefusedForTraining int    `json:"refused_for_training"`
	// IDs are the ids of the stored rows of a single-row submission.
	IDs []string `json:"ids,omitempty"`
}

// checkTier refuses keys below Pro.
func checkTier(k *appliance.APIKey) error {
	if k == nil || !k.Tier.AtLeast(appliance.TierPro) {
		tier := appliance.Tier("")
		if k != nil {
			tier = k.Tier
		}
		return fmt.Errorf("observations need tier Pro or higher (this key is %s): %w", tier, appliance.ErrForbidden)
	}
	return nil
}

// TooManyRows is the error of a submission over MaxBatchRows rows.
func TooManyRows(n int, atLeast bool) error {
	c := strconv.Itoa(n)
	if atLeast {
		c = "more than " + c
	}
	return fmt.Errorf("batch has %s rows; at most %d rows per request: %w", c, MaxBatchRows, appliance.ErrTooManyRows)
}

// Submit validates, verifies, deduplicates and stores a JSON submission.
func (s *Service) Submit(ctx context.Context, k *appliance.APIKey, sub Submission, c Client) (*Result, error) {
	if err := checkTier(k); err != nil {
		return nil, err
	}
	if len(sub.Rows) > MaxBatchRows {
		return nil, TooManyRows(len(sub.Rows), false)
	}
	now := s.cfg.Now()
	status, err := verify(sub.Body, sub.Signature, sub.SignatureTs, sub.APIKey, s.cfg.RequireSignature, s.cfg.MaxSkew, now)
	if err != nil {
		return nil, err
	}
	if len(sub.Rows) == 0 {
		return nil, fmt.Errorf("submit observations: %w", appliance.Invalid(sub.Prefix, "holds no observation"))
	}
	v := &appliance.ValidationError{}
	rows := make([]appliance.Observation, 0, len(sub.Rows))
	for i, in := range sub.Rows {
		prefix := ""
		if sub.Prefix != "" {
			prefix = fmt.Sprintf("%s[%d].", sub.Prefix, i)
		}
		rows = append(rows, row(v, prefix, in, k, s.towers, now))
		if v.Full() {
			break
		}
	}
	if err := v.Err(); err != nil {
		return nil, fmt.Errorf("submit observations: %w", err)
	}
	consent := sub.Consent != nil && *sub.Consent
	return s.save(ctx, k, appliance.KindLinkObservation, rows, consent, sub.WispConsent != nil && *sub.WispConsent, status, "", c, now)
}

// save stamps and stores validated rows.
func (s *Service) save(ctx context.Context, k *appliance.APIKey, kind appliance.ObservationKind, rows []appliance.Observation,
	consent, wisp bool, status, device string, c Client, now time.Time) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res := &Result{Submitted: len(rows), SignatureStatus: status}
	weight := UnsignedWeight
	if status == SignatureVerified {
		weight = SignedWeight
	}
	state := appliance.ConsentRefused
	if consent {
		state = appliance.ConsentConsented
	}
	nowUnix := float64(now.UnixNano()) / 1e9
	window := s.cfg.DedupWindow.Seconds()
	seen := make(map[string]bool, len(rows))
	keep := rows[:0]
	var keys []string
	var dividends []*appliance.DividendEvent
	// SPEC §2.13: only an explicit declaration by an identifiable
	// submitter creates events; a source label never does, synthetic rows
	// never do.
	var dividend *appliance.DividendEvent
	if wisp && k.Email != "" {
		dividend = &appliance.DividendEvent{SubmittedBy: k.ID, SubmitterEmail: k.Email, CreatedAt: nowUnix}
	}
	for _, o := range rows {
		key := DedupKey(&o, window)
		if seen[key] {
			res.DedupedIntraBatch++
			continue
		}
		seen[key] = true
		id, err := newID(now)
		if err != nil {
			return nil, fmt.Errorf("submit observations: %w", err)
		}
		o.ID, o.TenantID, o.SubmittedBy = id, k.TenantID, k.ID
		o.Consent, o.Signed, o.Weight, o.IngestedAt, o.Device = state, status == SignatureVerified, weight, nowUnix, device
		keep = append(keep, o)
		keys = append(keys, key)
		if dividend != nil && o.Source != "synthetic" {
			dividends = append(dividends, dividend)
		} else {
			dividends = append(dividends, nil)
		}
	}
	audit := appliance.AuditEntry{Action: ActionIngest, ActorKey: k.ID, ActorEmail: k.Email, TenantID: k.TenantID,
		Route: c.Route, IP: c.IP, UserAgent: c.UserAgent, RequestID: c.RequestID,
		Params: map[string]string{"kind": string(kind), "submitted": strconv.Itoa(len(rows)), "signature": status, "consent": string(state)}}
	entries := []appliance.AuditEntry{audit}
	if !consent {
		r := audit
		r.Action = ActionRejectedNoConsent
		r.Params = map[string]string{"kind": string(kind), "rows": strconv.Itoa(len(keep)),
			"reason": "consent_for_training not declared: rows serve this tenant and are excluded from the global model"}
		entries = append(entries, r)
	}
	if wisp && dividend == nil {
		return nil, fmt.Errorf("submit observations: %w", appliance.Invalid("consent_for_wisp_training",
			"needs an identifiable submitter: this key has no e-mail address on record"))
	}
	stored, err := s.store.PutObservations(k.TenantID, kind, keep, keys, dividends, entries...)
	if err != nil {
		return nil, fmt.Errorf("submit observations: %w", err)
	}
	n := 0
	for _, ok := range stored {
		if ok {
			n++
		}
	}
	res.Ingested = n
	res.DedupedExisting = len(keep) - n
	s.count(keep, stored)
	if consent {
		res.GrantedForTraining = n
	} else {
		res.RefusedForTraining = n
	}
	if len(rows) == 1 && n == 1 {
		res.IDs = []string{keep[0].ID}
	}
	return res, nil
}

// Stats counts the rows a key may see: its tenant's (tier Pro or higher),
// or every tenant's for an admin key.
func (s *Service) Stats(k *appliance.APIKey) (appliance.ObservationCounts, error) {
	if k != nil && k.Role == appliance.RoleAdmin {
		return s.store.ObservationCounts("")
	}
	if err := checkTier(k); err != nil {
		return appliance.ObservationCounts{}, err
	}
	return s.store.ObservationCounts(k.TenantID)
}

// newID returns "obs_" and 16 hex digits: the receipt time in seconds (8
// digits, so that stored rows, keyed by id, are appended in time order)
// and 32 random bits. No sequence number: ids reveal nothing of other
// tenants' volumes.
func newID(now time.Time) (string, error) {
	var b [8]byte
	binary.BigEndian.PutUint32(b[:4], uint32(now.Unix()))
	if _, err := rand.Read(b[4:]); err != nil {
		return "", fmt.Errorf("observation id: %w", err)
	}
	return "obs_" + hex.EncodeToString(b[:]), nil
}

// Audit actions of the operator's consent stamping (SPEC §3, §6).
const (
	ActionConsentApply    = appliance.ActionObservationConsentApply
	ActionConsentWithdraw = appliance.ActionObservationConsentWithdraw
)

// MaxBasisLen is the most characters of a consent basis text.
const MaxBasisLen = 500

// ConsentStore stamps consent (store.DB).
type ConsentStore interface {
	StampConsent(source string, state appliance.Consent, audit appliance.AuditEntry) (int, error)
}

// StampConsent is the operator's consent stamping (SPEC §3): every stored
// row of exactly one named source becomes consented (apply) or refused
// (withdraw), audited with the mandatory basis text. There is no wildcard
// and no "all": source must be a source label (no '*', no '%').
func StampConsent(st ConsentStore, source, basis string, apply bool, operator string) (int, error) {
	v := &appliance.ValidationError{}
	if !validSource(source) {
		v.Add("source", "must name exactly one source (1 to %d characters of a-z, 0-9, '_', '.' or '-'); wildcards and --all are refused", MaxSourceLen)
	}
	basis = strings.TrimSpace(basis)
	if basis == "" || len([]rune(basis)) > MaxBasisLen {
		v.Add("basis", "is required: the legal basis of the change, at most %d characters", MaxBasisLen)
	}
	if err := v.Err(); err != nil {
		return 0, fmt.Errorf("stamp consent: %w", err)
	}
	state, action := appliance.ConsentRefused, ActionConsentWithdraw
	if apply {
		state, action = appliance.ConsentConsented, ActionConsentApply
	}
	return st.StampConsent(source, state, appliance.AuditEntry{Action: action, ActorEmail: operator, Route: "cli: linkplan observations consent",
		Params: map[string]string{"source": source, "basis": basis, "consent": string(state)}})
}

// Dividend settlement policy (SPEC §2.13): the operator's environment.
const (
	EnvDividendForm      = "DATA_DIVIDEND_FORM"
	EnvDividendRate      = "DATA_DIVIDEND_RATE_BRL_PER_EVENT"
	ActionDividendSettle = appliance.ActionObservationDividendSettle
)

// DividendForms are the settlement forms DATA_DIVIDEND_FORM may name.
var DividendForms = []string{"invoice_credit", "tier_discount", "payout"}

// DividendStore settles dividend events (store.DB).
type DividendStore interface {
	SettleDividends(amountBRLCents int64, form string, settledAt float64, audit appliance.AuditEntry) (int, error)
}

// DividendPolicy checks the operator's settlement policy: form is
// DATA_DIVIDEND_FORM and rate DATA_DIVIDEND_RATE_BRL_PER_EVENT as set in
// the environment ("" when unset). It returns the amount per event in
// centavos, or, without both (a known form, a rate > 0), an error naming
// them: amounts stay undefined (NULL) until the operator decides.
func DividendPolicy(form, rate string) (int64, error) {
	r, err := strconv.ParseFloat(strings.TrimSpace(rate), 64)
	if !slices.Contains(DividendForms, form) || err != nil || !(r > 0) || r > 1e6 {
		return 0, fmt.Errorf("data dividend settlement refused: set %s (invoice_credit, tier_discount or payout) and %s (BRL per event, > 0) first; until the operator sets both, amounts, form and settlement stay undefined: %w",
			EnvDividendForm, EnvDividendRate, appliance.ErrInvalid)
	}
	return int64(math.Round(r * 100)), nil
}

// SettleDividends settles every unsettled data dividend event at the
// operator's policy (DividendPolicy), audited.
func SettleDividends(st DividendStore, form, rate, operator string, now time.Time) (int, error) {
	cents, err := DividendPolicy(form, rate)
	if err != nil {
		return 0, err
	}
	return st.SettleDividends(cents, form, float64(now.UnixNano())/1e9, appliance.AuditEntry{Action: ActionDividendSettle, ActorEmail: operator,
		Route: "cli: linkplan observations dividends settle", Params: map[string]string{"form": form, "amount_brl_cents_per_event": strconv.FormatInt(cents, 10)}})
}

// count adds the stored rows to coverage_observations_total{source}.
func (s *Service) count(rows []appliance.Observation, stored []bool) {
	if s.cfg.Metrics == nil {
		return
	}
	by := map[string]int{}
	for i, o := range rows {
		if stored[i] {
			by[MetricSource(o.Source)]++
		}
	}
	for label, n := range by {
		s.cfg.Metrics.GetOrCreateCounter(telemetry.ObservationsSeries(label)).Add(n)
	}
}
