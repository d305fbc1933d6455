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

// AuditPage returns up to f.Limit audit entries matching f, newest first,
// and the BeforeSeq of the next page (0 when this page reaches the oldest
// matching entry). It reads the log from f.BeforeSeq backwards: the cost
// is the number of entries scanned, not the page size.
func (db *DB) AuditPage(f appliance.AuditFilter) ([]appliance.AuditEntry, uint64, error) {
	if f.Limit < 1 {
		return nil, 0, fmt.Errorf("audit page: limit %d: %w", f.Limit, appliance.ErrInvalid)
	}
	var (
		out  []appliance.AuditEntry
		next uint64
	)
	err := db.bolt.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketAudit).Cursor()
		var k, v []byte
		if f.BeforeSeq == 0 {
			k, v = c.Last()
		} else {
			var start [8]byte
			binary.BigEndian.PutUint64(start[:], f.BeforeSeq)
			if k, v = c.Seek(start[:]); k == nil {
				k, v = c.Last()
			}
			for k != nil && binary.BigEndian.Uint64(k) >= f.BeforeSeq {
				k, v = c.Prev()
			}
		}
		for ; k != nil; k, v = c.Prev() {
			var e appliance.AuditEntry
			if err := json.Unmarshal(v, &e); err != nil {
				return fmt.Errorf("entry %d: %w", binary.BigEndian.Uint64(k), err)
			}
			if !auditMatch(&e, &f) {
				continue
			}
			if len(out) == f.Limit {
				next = out[len(out)-1].Seq
				return nil
			}
			out = append(out, e)
		}
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("audit page: %w", err)
	}
	return out, next, nil
}

func auditMatch(e *appliance.AuditEntry, f *appliance.AuditFilter) bool {
	return (f.TenantID == "" || e.TenantID == f.TenantID) &&
		(f.Action == "" || e.Action == f.Action) &&
		(f.FromUnix == 0 || e.TimeUnix >= f.FromUnix) &&
		(f.ToUnix == 0 || e.TimeUnix < f.ToUnix)
}

// KeyTenant returns the tenant of the key whose id is keyID, or an
// appliance.ErrNotFound error.
func (db *DB) KeyTenant(keyID string) (string, error) {
	var tenant string
	err := db.bolt.View(func(tx *bolt.Tx) error {
		hash := tx.Bucket(bucketKeyIDs).Get([]byte(keyID))
		if hash == nil {
			return fmt.Errorf("key %s: %w", keyID, appliance.ErrNotFound)
		}
		var rec keyRecord
		if err := json.Unmarshal(tx.Bucket(bucketKeys).Get(hash), &rec); err != nil {
			return err
		}
		tenant = rec.TenantID
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("key tenant: %w", err)
	}
	return tenant, nil
}
