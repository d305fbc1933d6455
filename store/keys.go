package store

import (
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"linkplan/appliance"
)

// PutKey stores a new API key record, and audit entries in the same
// transaction. A key with the same hash or id is an appliance.ErrConflict.
func (db *DB) PutKey(k *appliance.APIKey, audit ...appliance.AuditEntry) error {
	raw, err := json.Marshal(toKeyRecord(k))
	if err != nil {
		return fmt.Errorf("put key: encode: %w", err)
	}
	err = db.bolt.Update(func(tx *bolt.Tx) error {
		keys, ids := tx.Bucket(bucketKeys), tx.Bucket(bucketKeyIDs)
		if keys.Get([]byte(k.HashHex)) != nil || ids.Get([]byte(k.ID)) != nil {
			return fmt.Errorf("key %s already exists: %w", k.ID, appliance.ErrConflict)
		}
		if err := keys.Put([]byte(k.HashHex), raw); err != nil {
			return err
		}
		if err := ids.Put([]byte(k.ID), []byte(k.HashHex)); err != nil {
			return err
		}
		for _, e := range audit {
			db.stamp(&e)
			if _, err := appendAuditTx(tx, e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("put key: %w", err)
	}
	return nil
}

// KeyByHash returns the key whose SHA-256 hash (hex) is hashHex, or an
// appliance.ErrNotFound error.
func (db *DB) KeyByHash(hashHex string) (*appliance.APIKey, error) {
	var rec keyRecord
	err := db.bolt.View(func(tx *bolt.Tx) error {
		raw := tx.Bucket(bucketKeys).Get([]byte(hashHex))
		if raw == nil {
			return appliance.ErrNotFound
		}
		return json.Unmarshal(raw, &rec)
	})
	if err != nil {
		return nil, fmt.Errorf("get key: %w", err)
	}
	return rec.key(), nil
}

// CountKeys returns the number of stored keys.
func (db *DB) CountKeys() (int, error) {
	n := 0
	err := db.bolt.View(func(tx *bolt.Tx) error {
		n = tx.Bucket(bucketKeys).Stats().KeyN
		return nil
	})
	return n, err
}
