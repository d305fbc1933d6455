package appliance

import (
	"errors"
	"fmt"
	"io"
	"time"
)

// Backups and database checks (issue 21). A backup is a tar file of two
// members: manifest.json (a BackupManifest) then linkplan.db (a copy of the
// database written from one read transaction). Its byte layout is
// documented in docs/OPERATIONS.md and appliance/backup.

var (
	// ErrCorrupt means a database or backup file fails verification: a
	// structural check of the database (bbolt's and linkplan's), a
	// checksum, or the backup's layout.
	ErrCorrupt = errors.New("corrupt")
	// ErrNewerSchema means a database or backup comes from a newer schema
	// version than this binary knows; it must not be opened, restored or
	// migrated by it.
	ErrNewerSchema = errors.New("newer schema")
)

// BackupFormat is the Format of every BackupManifest.
const BackupFormat = "linkplan-backup"

// BackupFormatVersion is the layout version of the backup files this
// binary writes and reads.
const BackupFormatVersion = 1

// Backup triggers: what asked for a backup.
const (
	BackupTriggerCLI          = "cli"           // linkplan backup (admin socket, or the offline path)
	BackupTriggerRoute        = "route"         // POST /admin/backup
	BackupTriggerScheduled    = "scheduled"     // --backup-every
	BackupTriggerPreMigration = "pre-migration" // taken before a schema migration
	BackupTriggerStandby      = "standby"       // a snapshot pulled by a warm standby (GET /replication/snapshot)
)

// BackupManifest describes one backup. Its JSON names are stable: the
// standby reads them from the primary's snapshots.
type BackupManifest struct {
	Format        string    `json:"format"`           // BackupFormat
	FormatVersion int       `json:"format_version"`   // BackupFormatVersion
	Version       string    `json:"linkplan_version"` // the release that wrote it
	Schema        int       `json:"schema_version"`   // the database's schema version
	CreatedAt     time.Time `json:"created_at"`       // UTC, when the read transaction began
	Trigger       string    `json:"trigger"`          // BackupTriggerCLI, ...Route, ...Scheduled or ...PreMigration
	// DB describes the database member.
	DB DBSnapshot `json:"database"`
	// TerrainPacks and TowerSources are the data files the appliance was
	// serving when the backup was taken, by content hash; they are not in
	// the backup (reinstall the same files, or check them against these
	// hashes). Empty for a backup taken before they are loaded
	// (pre-migration) or by the offline path.
	TerrainPacks []DataFile `json:"terrain_packs"`
	TowerSources []DataFile `json:"tower_sources"`
}

// DBSnapshot describes a copy of the database taken in one read
// transaction.
type DBSnapshot struct {
	Bytes  int64  `json:"bytes"`  // length of the copy, bytes
	SHA256 string `json:"sha256"` // hex SHA-256 of the copy
	TxID   uint64 `json:"txid"`   // bbolt transaction id the copy is consistent at
	Schema int    `json:"schema_version"`
	// Buckets counts the keys of each top-level bucket (nested buckets'
	// keys included).
	Buckets map[string]int `json:"buckets"`
}

// DataFile identifies an input file by content.
type DataFile struct {
	Name   string `json:"name"`            // base name of the file, or "embedded:<name>" (as GET /platform/maturity names it)
	SHA256 string `json:"sha256"`          // hex SHA-256 of its bytes
	Bytes  int64  `json:"bytes,omitempty"` // length, bytes (0: not recorded)
}

// DBCheck is the result of a structural check of a database file.
type DBCheck struct {
	Bytes    int64          `json:"bytes"`     // file length, bytes
	PageSize int            `json:"page_size"` // bytes
	Pages    int64          `json:"pages"`     // high-water mark of the newest meta page
	TxID     uint64         `json:"txid"`
	Schema   int            `json:"schema_version"`
	Buckets  map[string]int `json:"buckets"`
	// Problems lists what the check found (at most a few dozen, the first
	// ones); empty for a sound file.
	Problems []string `json:"problems"`
	// DurationS is the check's wall time, seconds.
	DurationS float64 `json:"duration_s"`
}

// BackupStatus is the state of the scheduled backups, for /health/ready and
// the metrics.
type BackupStatus struct {
	Scheduled bool          // --backup-dir was given
	Since     time.Time     // when the schedule started (this process)
	Every     time.Duration // the schedule's interval
	Keep      int           // backups kept by the rotation
	// LastSuccess is when the newest good scheduled backup was taken (zero:
	// none yet); LastAttempt and LastError describe the latest attempt
	// (LastError empty when it succeeded).
	LastSuccess  time.Time
	LastAttempt  time.Time
	LastError    string
	LastBytes    int64         // size of the newest good backup file, bytes
	LastDuration time.Duration // wall time of the latest attempt
}

// Freshness states of the scheduled backups (BackupStatus.Freshness).
const (
	BackupFresh   = "ok"      // the latest attempt succeeded, within two intervals
	BackupPending = "pending" // none yet, and the schedule started less than two intervals ago
	BackupFailed  = "failed"  // the latest attempt failed
	BackupStale   = "stale"   // the newest good backup is older than two intervals
)

// Freshness says how the scheduled backups stand at now, and why (a
// sentence for an operator; "" when fresh).
func (s BackupStatus) Freshness(now time.Time) (state, reason string) {
	limit := 2 * s.Every
	switch {
	case s.LastError != "":
		return BackupFailed, "the latest scheduled backup failed: " + s.LastError
	case s.LastSuccess.IsZero() && now.Sub(s.Since) <= limit:
		return BackupPending, "no scheduled backup yet; the first is due within one interval of the start"
	case s.LastSuccess.IsZero():
		return BackupStale, fmt.Sprintf("no scheduled backup in the %s since the start", now.Sub(s.Since).Round(time.Second))
	case now.Sub(s.LastSuccess) > limit:
		return BackupStale, fmt.Sprintf("the newest backup is %s old, more than two intervals of %s", now.Sub(s.LastSuccess).Round(time.Second), s.Every)
	}
	return BackupFresh, ""
}

// BackupFile is a verified backup open for reading (POST /admin/backup,
// the admin socket). Body reads the file; closing it releases the file,
// which has no name left on disk.
type BackupFile struct {
	Manifest BackupManifest
	Bytes    int64 // length of the file, bytes
	Body     io.ReadCloser
}
