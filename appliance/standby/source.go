package standby

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"linkplan/appliance"
)

// Taker writes a verified backup for trigger and returns it open, audited
// when audit is set (backup.Service.Take).
type Taker func(ctx context.Context, trigger string, audit *appliance.AuditEntry) (*appliance.BackupFile, error)

// SourceDeps configure a Source.
type SourceDeps struct {
	DataDir string
	Take    Taker
	// Audit appends an audit entry (store.DB.AppendAudit): the issue of a
	// key is recorded before the key is shown.
	Audit   func(appliance.AuditEntry) (uint64, error)
	Version string
	Log     *slog.Logger
	Now     func() time.Time // nil: time.Now
}

// Source is the primary side: it issues the standby key and serves
// snapshots to the standby that presents it.
type Source struct {
	d        SourceDeps
	mu       sync.Mutex
	served   int
	lastAt   time.Time
	promoted time.Time
}

// keyRecord is DATA/standby-key.json: the key's SHA-256, never the key.
type keyRecord struct {
	KeyID     string    `json:"key_id"`
	SHA256    string    `json:"sha256"`
	CreatedAt time.Time `json:"created_at"`
	CreatedBy string    `json:"created_by"` // the admin key id that issued it
}

// NewSource returns the primary side for dataDir.
func NewSource(d SourceDeps) *Source {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	return &Source{d: d, promoted: Promoted(d.DataDir)}
}

// IssueKey makes a new standby key, revoking the previous one, and returns
// it (shown once). The caller (the admin route) has checked the admin key,
// its TOTP code and the justification; audit (its action set here) is
// appended before the key file is replaced.
func (s *Source) IssueKey(audit appliance.AuditEntry) (appliance.StandbyKeyIssued, error) {
	adminKeyID := audit.ActorKey
	var raw [32]byte
	var id [6]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return appliance.StandbyKeyIssued{}, fmt.Errorf("standby key: %w", err)
	}
	_, _ = rand.Read(id[:])
	key := keyPrefix + hex.EncodeToString(raw[:])
	sum := sha256.Sum256([]byte(key))
	rec := keyRecord{KeyID: "sbk_" + hex.EncodeToString(id[:]), SHA256: hex.EncodeToString(sum[:]), CreatedAt: s.d.Now().UTC(), CreatedBy: adminKeyID}
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return appliance.StandbyKeyIssued{}, fmt.Errorf("standby key: %w", err)
	}
	if s.d.Audit != nil {
		audit.Action = appliance.ActionAdminStandbyKey
		audit.Params = maps.Clone(audit.Params)
		if audit.Params == nil {
			audit.Params = map[string]string{}
		}
		audit.Params["standby_key_id"] = rec.KeyID
		if _, err := s.d.Audit(audit); err != nil {
			return appliance.StandbyKeyIssued{}, fmt.Errorf("standby key: audit: %w", err)
		}
	}
	if err := writeFileAtomic(filepath.Join(s.d.DataDir, KeyFile), s.d.DataDir, append(b, '\n')); err != nil {
		return appliance.StandbyKeyIssued{}, fmt.Errorf("standby key: %w", err)
	}
	s.d.Log.Info("standby key issued; any previous one is revoked", "key_id", rec.KeyID, "by", adminKeyID)
	return appliance.StandbyKeyIssued{StandbyKey: key, KeyID: rec.KeyID, CreatedAt: rec.CreatedAt}, nil
}

func (s *Source) readKey() (keyRecord, bool, error) {
	var rec keyRecord
	b, err := os.ReadFile(filepath.Join(s.d.DataDir, KeyFile))
	if errors.Is(err, os.ErrNotExist) {
		return rec, false, nil
	}
	if err != nil {
		return rec, false, fmt.Errorf("standby key: %w", err)
	}
	if err := json.Unmarshal(b, &rec); err != nil || len(rec.SHA256) != 64 {
		return rec, false, fmt.Errorf("standby key file %s is damaged; issue a new key: %w", KeyFile, appliance.ErrUnavailable)
	}
	return rec, true, nil
}

// Client describes who asks for a snapshot, for the audit log.
type Client struct {
	IP, UserAgent, RequestID string
}

// Snapshot checks the standby key and returns a verified backup (trigger
// standby), audited as standby.snapshot with the key id and the client.
func (s *Source) Snapshot(ctx context.Context, key string, c Client) (*appliance.BackupFile, error) {
	rec, ok, err := s.readKey()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("no standby key is issued on this appliance (an admin issues one: POST /admin/standby-key): %w", appliance.ErrUnavailable)
	}
	if key == "" {
		return nil, fmt.Errorf("the header %s with the standby key is required: %w", keyHeader, appliance.ErrUnauthenticated)
	}
	sum := sha256.Sum256([]byte(key))
	want, _ := hex.DecodeString(rec.SHA256)
	if !strings.HasPrefix(key, keyPrefix) || subtle.ConstantTimeCompare(sum[:], want) != 1 {
		s.d.Log.Warn("snapshot refused: wrong standby key", "ip", c.IP, "request_id", c.RequestID)
		return nil, fmt.Errorf("the standby key is not valid (revoked, or mistyped): %w", appliance.ErrUnauthenticated)
	}
	f, err := s.d.Take(ctx, appliance.BackupTriggerStandby, &appliance.AuditEntry{Action: appliance.ActionStandbySnapshot,
		ActorKey: rec.KeyID, Route: snapshotPath, IP: c.IP, UserAgent: c.UserAgent, RequestID: c.RequestID})
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.served++
	s.lastAt = s.d.Now()
	s.mu.Unlock()
	return f, nil
}

// Failover reports the primary's side (GET /health/failover).
func (s *Source) Failover() appliance.FailoverStatus {
	_, issued, _ := s.readKey()
	s.mu.Lock()
	defer s.mu.Unlock()
	zero := 0.0
	out := appliance.FailoverStatus{Role: appliance.RolePrimary, Version: s.d.Version, LagS: &zero, LastAttemptResult: "none",
		Verification:     appliance.SnapshotVerification{Status: "none"},
		TerrainPacks:     appliance.DataMatch{Primary: []appliance.DataFile{}, Local: []appliance.DataFile{}, Differences: []string{}},
		TowerSources:     appliance.DataMatch{Primary: []appliance.DataFile{}, Local: []appliance.DataFile{}, Differences: []string{}},
		Reasons:          []string{"this appliance is the primary: there is nothing to promote"},
		StandbyKeyIssued: issued, SnapshotsServed: s.served}
	if !s.lastAt.IsZero() {
		t := s.lastAt.UTC()
		out.LastSnapshotServedAt = &t
	}
	if !s.promoted.IsZero() {
		t := s.promoted.UTC()
		out.PromotedAt = &t
	}
	return out
}
