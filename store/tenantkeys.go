package store

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"linkplan/appliance"
)

// A tenant's keys are found by scanning the keys bucket: an appliance holds
// a few thousand keys at most, and the scan reads only their small records.

// keysWhere returns the keys whose record satisfies keep, ordered by
// creation time then id.
func keysWhere(tx *bolt.Tx, keep func(r *keyRecord) bool) ([]*appliance.APIKey, error) {
	var out []*appliance.APIKey
	err := tx.Bucket(bucketKeys).ForEach(func(_, v []byte) error {
		var r keyRecord
		if err := json.Unmarshal(v, &r); err != nil {
			return err
		}
		if keep(&r) {
			out = append(out, r.key())
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool {
		if out[i].CreatedUnix != out[j].CreatedUnix {
			return out[i].CreatedUnix < out[j].CreatedUnix
		}
		return out[i].ID < out[j].ID
	})
	return out, err
}

// KeysOfTenant returns every key of tenantID (revoked and erased ones
// too), oldest first.
func (db *DB) KeysOfTenant(tenantID string) ([]*appliance.APIKey, error) {
	var out []*appliance.APIKey
	err := db.bolt.View(func(tx *bolt.Tx) error {
		var err error
		out, err = keysWhere(tx, func(r *keyRecord) bool { return r.TenantID == tenantID })
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("keys of tenant: %w", err)
	}
	return out, nil
}

// KeysByPrefix returns the keys whose displayed prefix starts with prefix,
// oldest first.
func (db *DB) KeysByPrefix(prefix string) ([]*appliance.APIKey, error) {
	var out []*appliance.APIKey
	err := db.bolt.View(func(tx *bolt.Tx) error {
		var err error
		out, err = keysWhere(tx, func(r *keyRecord) bool { return strings.HasPrefix(r.Prefix, prefix) })
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("keys by prefix: %w", err)
	}
	return out, nil
}

// putKeyTx rewrites the record of an existing key.
func putKeyTx(tx *bolt.Tx, k *appliance.APIKey) error {
	keys := tx.Bucket(bucketKeys)
	if keys.Get([]byte(k.HashHex)) == nil {
		return fmt.Errorf("key %s: %w", k.ID, appliance.ErrNotFound)
	}
	raw, err := json.Marshal(toKeyRecord(k))
	if err != nil {
		return err
	}
	return keys.Put([]byte(k.HashHex), raw)
}

// addKeyTx stores a new key.
func addKeyTx(tx *bolt.Tx, k *appliance.APIKey) error {
	keys, ids := tx.Bucket(bucketKeys), tx.Bucket(bucketKeyIDs)
	if keys.Get([]byte(k.HashHex)) != nil || ids.Get([]byte(k.ID)) != nil {
		return fmt.Errorf("key %s already exists: %w", k.ID, appliance.ErrConflict)
	}
	raw, err := json.Marshal(toKeyRecord(k))
	if err != nil {
		return err
	}
	if err := keys.Put([]byte(k.HashHex), raw); err != nil {
		return err
	}
	return ids.Put([]byte(k.ID), []byte(k.HashHex))
}

// UpdateTenantKeys reads tenantID's keys and applies what decide returns,
// in one transaction, so that the decision (appliance/tenancy: who may
// rotate or revoke what, the last tenant-admin key) sees the keys as they
// are when it commits. decide must be quick: it runs inside the write
// transaction. An Update of a key of another tenant is appliance.ErrInvalid.
func (db *DB) UpdateTenantKeys(tenantID string, decide func(keys []*appliance.APIKey) (appliance.KeyChange, error)) error {
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		keys, err := keysWhere(tx, func(r *keyRecord) bool { return r.TenantID == tenantID })
		if err != nil {
			return err
		}
		ch, err := decide(keys)
		if err != nil {
			return err
		}
		for _, k := range ch.Update {
			if k.TenantID != tenantID {
				return fmt.Errorf("key %s is not of tenant %s: %w", k.ID, tenantID, appliance.ErrInvalid)
			}
			if err := putKeyTx(tx, k); err != nil {
				return err
			}
		}
		for _, k := range ch.Add {
			if k.TenantID != tenantID {
				return fmt.Errorf("key %s is not of tenant %s: %w", k.ID, tenantID, appliance.ErrInvalid)
			}
			if err := addKeyTx(tx, k); err != nil {
				return err
			}
		}
		return db.appendAuditsTx(tx, ch.Audit...)
	})
	if err != nil {
		return fmt.Errorf("update tenant keys: %w", err)
	}
	return nil
}

// TouchKey records that the key with hash hashHex authenticated a request
// at now. Writes are coalesced (bbolt Batch); it is idempotent. An unknown
// key is not an error (it may have been deleted meanwhile).
func (db *DB) TouchKey(hashHex string, now time.Time) error {
	err := db.bolt.Batch(func(tx *bolt.Tx) error {
		keys := tx.Bucket(bucketKeys)
		raw := keys.Get([]byte(hashHex))
		if raw == nil {
			return nil
		}
		var r keyRecord
		if err := json.Unmarshal(raw, &r); err != nil {
			return err
		}
		if r.LastUsedUnix >= now.Unix() {
			return nil
		}
		r.LastUsedUnix = now.Unix()
		out, err := json.Marshal(r)
		if err != nil {
			return err
		}
		return keys.Put([]byte(hashHex), out)
	})
	if err != nil {
		return fmt.Errorf("touch key: %w", err)
	}
	return nil
}
