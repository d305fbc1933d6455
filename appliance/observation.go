package appliance

// Observation is one measured received level with its link context (SPEC
// §2.7): the transmitter, the receiver and the measurement. Stored rows are
// tenant-scoped (TenantID) and carry the submitting key (SubmittedBy).
type Observation struct {
	ID          string  `json:"id"`           // "obs_" + 16 hex digits, random
	TenantID    string  `json:"tenant_id"`    // owner tenant
	SubmittedBy string  `json:"submitted_by"` // id of the submitting key
	TowerID     string  `json:"tower_id,omitempty"`
	TxLat       float64 `json:"tx_lat"`           // WGS84 degrees
	TxLon       float64 `json:"tx_lon"`           // WGS84 degrees
	TxHeightM   float64 `json:"tx_height_m"`      // antenna height above ground, metres
	TxPowerDBm  float64 `json:"tx_power_dbm"`     // transmitter output power, dBm
	TxGainDBi   float64 `json:"tx_gain_dbi"`      // transmit antenna gain, dBi
	RxLat       float64 `json:"rx_lat"`           // WGS84 degrees
	RxLon       float64 `json:"rx_lon"`           // WGS84 degrees
	RxHeightM   float64 `json:"rx_height_m"`      // receive antenna height above ground, metres
	RxGainDBi   float64 `json:"rx_gain_dbi"`      // receive antenna gain, dBi
	CableLossDB float64 `json:"cable_loss_db"`    // feeder loss, dB
	FreqHz      float64 `json:"freq_hz"`          // carrier frequency, Hz
	ObservedDBm float64 `json:"observed_dbm"`     // measured received level, dBm
	Source      string  `json:"source"`           // e.g. "api", "drivetest_tems", "drive_test"
	TsUnix      float64 `json:"ts"`               // measurement time, epoch seconds
	Consent     Consent `json:"consent"`          // training consent state (SPEC §3)
	Signed      bool    `json:"signed"`           // the submission carried a verified signature
	Weight      float64 `json:"weight"`           // weight in drift metrics (SPEC §5.3)
	IngestedAt  float64 `json:"ingested_at"`      // epoch seconds
	Device      string  `json:"device,omitempty"` // measuring tool of a drive-test upload
	// Metric names what ObservedDBm measures: "received_power" (the JSON
	// routes: total received power) or the drive-test column it came from
	// ("rsrp", "rscp", "rxlev", "signal_dbm"). LTE RSRP is the power of one
	// resource element, about 10·log10(12·N_RB) dB below the wideband
	// received power: models must not mix them unknowingly.
	Metric string `json:"metric"`
}

// Consent is an observation's training consent state (SPEC §3).
type Consent string

// Consent states: a row serves its tenant either way; only consented rows
// may train the global model.
const (
	ConsentRefused   Consent = "refused"
	ConsentConsented Consent = "consented"
)

// SourceAttestation is an operator's statement that the rows of one
// source are field measurements (`linkplan observations attest`, SPEC §3
// style: per named source, mandatory basis, audited). Only attested rows
// count as real data for a model's grade and field-accuracy claim
// (appliance/training): a source label a tenant chose never does. It
// covers the rows of the source stored when it was made (IngestedAt <=
// AttestedAtUnix); rows stored later need a new attestation.
type SourceAttestation struct {
	Source     string `json:"source"`
	Basis      string `json:"basis"`
	AttestedBy string `json:"attested_by"`
	// AttestedAtUnix is when, epoch seconds.
	AttestedAtUnix float64 `json:"attested_at"`
	// Rows is how many rows of the source were stored then (every
	// tenant's).
	Rows int `json:"rows"`
	// WithdrawnAtUnix and WithdrawnBy are set by --withdraw: the source
	// is no longer attested.
	WithdrawnAtUnix *float64 `json:"withdrawn_at,omitempty"`
	WithdrawnBy     string   `json:"withdrawn_by,omitempty"`
	WithdrawBasis   string   `json:"withdraw_basis,omitempty"`
}

// Live reports whether the attestation stands (not withdrawn).
func (a *SourceAttestation) Live() bool { return a != nil && a.WithdrawnAtUnix == nil }

// Covers reports whether the attestation stands and covers o (same
// source, stored no later than the attestation).
func (a *SourceAttestation) Covers(o *Observation) bool {
	return a.Live() && o.Source == a.Source && o.IngestedAt <= a.AttestedAtUnix
}

// ObservationKind is the bucket an observation lives in: link observations
// (the JSON routes) or cell signal samples (drive-test CSV uploads).
type ObservationKind string

// Observation kinds (SPEC §2.7: link_observations, cell_signal_samples).
const (
	KindLinkObservation  ObservationKind = "link_observations"
	KindCellSignalSample ObservationKind = "cell_signal_samples"
)

// ObservationCounts are the stored rows of each kind.
type ObservationCounts struct {
	LinkObservations  int `json:"link_observations"`
	CellSignalSamples int `json:"cell_signal_samples"`
}

// DividendEvent is one remunerated observation (SPEC §2.13, table
// data_dividend_events), unique by ObservationID. Amount, form and
// settlement time are nil (NULL, not zero) until a settlement under the
// operator's policy sets them.
type DividendEvent struct {
	ObservationID  string   `json:"observation_id"`
	TenantID       string   `json:"tenant_id"`
	SubmittedBy    string   `json:"submitted_by"`    // key id of the declaring submitter
	SubmitterEmail string   `json:"submitter_email"` // the identifiable submitter
	CreatedAt      float64  `json:"created_at"`      // epoch seconds
	AmountBRLCents *int64   `json:"amount_brl_cents"`
	SettlementForm *string  `json:"settlement_form"` // invoice_credit, tier_discount or payout
	SettledAt      *float64 `json:"settled_at"`      // epoch seconds
}
