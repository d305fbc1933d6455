package appliance

import "time"

// Warm standby (issue 21, scope 2): a standby pulls verified snapshots
// (backup files) from its primary and can be promoted into a primary. It is
// replication by verified snapshots, not a consensus cluster
// (appliance/standby, docs/SCALING.md).

// Roles of an appliance in a primary/standby pair.
const (
	RolePrimary = "primary" // serves the API; a standby may pull snapshots from it
	RoleStandby = "standby" // holds the primary's last good snapshot; serves /health only
)

// FailoverStatus is the body of GET /health/failover, on both roles. It
// carries no tenant data: times, hashes of the data files, counts and
// reasons. Times are UTC; nil when there is none.
type FailoverStatus struct {
	Role    string `json:"role"` // RolePrimary or RoleStandby
	Version string `json:"version"`
	// PrimaryURL is the primary a standby pulls from, without any user
	// information or query; "" on a primary.
	PrimaryURL string `json:"primary_url,omitempty"`
	// EveryS is the standby's pull interval, seconds (0 on a primary).
	EveryS float64 `json:"standby_every_s"`
	// LastSnapshotAt is when the newest good snapshot's read transaction
	// began on the primary (what it holds is the primary's data as of
	// then); LastSnapshotAgeS is now minus that, seconds.
	LastSnapshotAt   *time.Time `json:"last_snapshot_at"`
	LastSnapshotAgeS *float64   `json:"last_snapshot_age_s"`
	// LagS is how far the standby's data is behind the primary, seconds:
	// the age of the newest good snapshot while the primary answers, and
	// the same figure, growing, while it does not (the writes a promotion
	// now would lose are at most those of the last LagS seconds). nil
	// without a snapshot; 0 on a primary.
	LagS *float64 `json:"lag_s"`
	// LastAttemptAt and LastAttemptResult describe the latest pull
	// ("ok", "failed" with LastAttemptError, or "none").
	LastAttemptAt     *time.Time `json:"last_attempt_at"`
	LastAttemptResult string     `json:"last_attempt_result"`
	LastAttemptError  string     `json:"last_attempt_error,omitempty"`
	// Verification is the result of verifying the newest snapshot pulled
	// (the last good one stays in use when a later one fails).
	Verification SnapshotVerification `json:"verification"`
	// TerrainPacks and TowerSources compare the data files of the standby
	// with those the primary served when its newest good snapshot was
	// taken, by SHA-256.
	TerrainPacks DataMatch `json:"terrain_packs"`
	TowerSources DataMatch `json:"tower_sources"`
	// ReadyToPromote is true on a standby whose promotion would give a
	// sound primary now; Reasons says why not when false (and, on a
	// primary, that it is one).
	ReadyToPromote bool     `json:"ready_to_promote"`
	Reasons        []string `json:"reasons"`
	// PromotedAt is when this data directory was promoted from a standby
	// (nil: never).
	PromotedAt *time.Time `json:"promoted_at"`
	// On a primary: whether a standby key is issued, and the snapshots
	// served to standbys since the start.
	StandbyKeyIssued     bool       `json:"standby_key_issued"`
	SnapshotsServed      int        `json:"snapshots_served"`
	LastSnapshotServedAt *time.Time `json:"last_snapshot_served_at"`
}

// SnapshotVerification is the result of verifying a pulled snapshot.
type SnapshotVerification struct {
	Status string `json:"status"` // ok, failed, none
	Reason string `json:"reason"` // "" when ok
	// Of the last good snapshot: the database's SHA-256, transaction id
	// and schema version ("" and 0 without one).
	SHA256 string `json:"sha256"`
	TxID   uint64 `json:"txid"`
	Schema int    `json:"schema_version"`
}

// DataMatch compares one kind of data file between primary and standby.
type DataMatch struct {
	// Match is true when both sides hold the same files (the same
	// SHA-256 set); nil when not known (no snapshot yet, or a primary).
	Match *bool `json:"match"`
	// Primary and Local are the files by base name and SHA-256.
	Primary []DataFile `json:"primary"`
	Local   []DataFile `json:"local"`
	// Differences names the files only one side has.
	Differences []string `json:"differences"`
}

// StandbyKeyIssued is the answer of POST /admin/standby-key: the plain key,
// shown once.
type StandbyKeyIssued struct {
	StandbyKey string    `json:"standby_key"`
	KeyID      string    `json:"key_id"`
	CreatedAt  time.Time `json:"created_at"`
}
