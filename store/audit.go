package store

import (
	"encoding/binary"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"linkplan/appliance"
)

// AppendAudit appends an entry to the audit log and returns its sequence
// number. The entry's time is set from the store clock when zero.
func (db *DB) AppendAudit(e appliance.AuditEntry) (uint64, error) {
	if e.TimeUnix == 0 {
		e.TimeUnix = float64(db.now().UnixNano()) / 1e9
	}
	var seq uint64
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketAudit)
		s, err := b.NextSequence()
		if err != nil {
			return err
		}
		seq, e.Seq = s, s
		raw, err := json.Marshal(e)
		if err != nil {
			return err
		}
		var k [8]byte
		binary.BigEndian.PutUint64(k[:], s)
		return b.Put(k[:], raw)
	})
	if err != nil {
		return 0, fmt.Errorf("append audit: %w", err)
	}
	return seq, nil
}

// Audit returns up to limit audit entries of a tenant, newest first. An empty
// tenantID returns every tenant's entries.
func (db *DB) Audit(tenantID string, limit int) ([]appliance.AuditEntry, error) {
	var out []appliance.AuditEntry
	err := db.bolt.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketAudit).Cursor()
		for k, v := c.Last(); k != nil && (limit <= 0 || len(out) < limit); k, v = c.Prev() {
			var e appliance.AuditEntry
			if err := json.Unmarshal(v, &e); err != nil {
				return err
			}
			if tenantID == "" || e.TenantID == tenantID {
				out = append(out, e)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read audit: %w", err)
	}
	return out, nil
}
