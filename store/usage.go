package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"

	bolt "go.etcd.io/bbolt"

	"linkplan/appliance"
)

// Usage counters (bucket usage, schema version 7): the monthly counts of
// package appliance/quota, per tenant, month and counter.
//
// Keys:
//
//	tenant 0x00 "YYYY-MM" 0x00 counter  -> big-endian uint64: the month's count
//
// The month is the calendar month in America/Sao_Paulo (PDFMonth). The
// bucket is per-tenant data: every key starts with the tenant id and a NUL
// byte (usageKey), so erasing a tenant deletes the keys under that
// prefix.

func usageKey(tenantID, month, counter string) []byte {
	return []byte(tenantID + "\x00" + month + "\x00" + counter)
}

func validUsageKey(tenantID, month, counter string) error {
	if tenantID == "" || month == "" || counter == "" ||
		strings.ContainsRune(tenantID, 0) || strings.ContainsRune(month, 0) || strings.ContainsRune(counter, 0) {
		return fmt.Errorf("usage key tenant %q, month %q, counter %q: %w", tenantID, month, counter, appliance.ErrInvalid)
	}
	return nil
}

// AddUsage adds every delta to its counter in one transaction (a batch of
// counts flushed together). A delta with an empty tenant, month or
// counter, or one holding a NUL byte, matches appliance.ErrInvalid and
// nothing is written.
func (db *DB) AddUsage(deltas []appliance.UsageDelta) error {
	for _, d := range deltas {
		if err := validUsageKey(d.TenantID, d.Month, d.Counter); err != nil {
			return fmt.Errorf("add usage: %w", err)
		}
	}
	if len(deltas) == 0 {
		return nil
	}
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketUsage)
		for _, d := range deltas {
			k := usageKey(d.TenantID, d.Month, d.Counter)
			n := uint64(0)
			if raw := b.Get(k); len(raw) == 8 {
				n = binary.BigEndian.Uint64(raw)
			}
			var v [8]byte
			binary.BigEndian.PutUint64(v[:], n+d.N)
			if err := b.Put(k, v[:]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("add usage: %w", err)
	}
	return nil
}

// Usage returns the stored counters of tenantID for month ("YYYY-MM"), by
// counter name; a counter never written is absent.
func (db *DB) Usage(tenantID, month string) (map[string]uint64, error) {
	if err := validUsageKey(tenantID, month, "x"); err != nil {
		return nil, fmt.Errorf("usage: %w", err)
	}
	out := map[string]uint64{}
	pfx := []byte(tenantID + "\x00" + month + "\x00")
	err := db.bolt.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketUsage).Cursor()
		for k, v := c.Seek(pfx); k != nil && bytes.HasPrefix(k, pfx); k, v = c.Next() {
			if len(v) == 8 {
				out[string(k[len(pfx):])] = binary.BigEndian.Uint64(v)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("usage: %w", err)
	}
	return out, nil
}

// CountUserTowers returns the number of user-registered towers owned by
// the key ownerKeyID (the count PutUserTower checks against the cap).
func (db *DB) CountUserTowers(ownerKeyID string) (int, error) {
	n, pfx := 0, append([]byte(ownerKeyID), 0)
	err := db.bolt.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketTowersOwner).Cursor()
		for k, _ := c.Seek(pfx); k != nil && bytes.HasPrefix(k, pfx); k, _ = c.Next() {
			n++
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("count user towers: %w", err)
	}
	return n, nil
}
