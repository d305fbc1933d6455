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
	db.stamp(&e)
	var seq uint64
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		var err error
		seq, err = appendAuditTx(tx, e)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("append audit: %w", err)
	}
	return seq, nil
}

// appendAuditTx writes e inside tx, so that an audited change and its audit
// entry commit together or not at all. The user agent is stored cleaned and
// capped (appliance.CleanUserAgent), whoever built the entry.
func appendAuditTx(tx *bolt.Tx, e appliance.AuditEntry) (uint64, error) {
	b := tx.Bucket(bucketAudit)
	s, err := b.NextSequence()
	if err != nil {
		return 0, err
	}
	e.Seq = s
	e.UserAgent = appliance.CleanUserAgent(e.UserAgent)
	raw, err := json.Marshal(e)
	if err != nil {
		return 0, err
	}
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], s)
	return s, b.Put(k[:], raw)
}

// appendAuditsTx stamps each entry (see stamp) and writes it inside tx
// (appendAuditTx).
func (db *DB) appendAuditsTx(tx *bolt.Tx, entries ...appliance.AuditEntry) error {
	for _, e := range entries {
		db.stamp(&e)
		if _, err := appendAuditTx(tx, e); err != nil {
			return err
		}
	}
	return nil
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

func (db *DB) stamp(e *appliance.AuditEntry) {
	if e.TimeUnix == 0 {
		e.TimeUnix = float64(db.now().UnixNano()) / 1e9
	}
}
