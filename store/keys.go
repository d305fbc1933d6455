package store

import (
	"encoding/binary"
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
		return db.appendAuditsTx(tx, audit...)
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

// SealKeyTOTP replaces the TOTP secret of the key keyID by its sealed form:
// the record keeps sealed and loses any clear secret, in one transaction with
// the audit entries. An unknown key is an appliance.ErrNotFound error. When
// a clear secret was dropped, the same transaction marks the file for
// CompactPending: the freed page still holds the clear bytes.
func (db *DB) SealKeyTOTP(keyID, sealed string, audit ...appliance.AuditEntry) error {
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		keys, ids := tx.Bucket(bucketKeys), tx.Bucket(bucketKeyIDs)
		hash := ids.Get([]byte(keyID))
		if hash == nil {
			return fmt.Errorf("key %s: %w", keyID, appliance.ErrNotFound)
		}
		hash = append([]byte(nil), hash...)
		var rec keyRecord
		if err := json.Unmarshal(keys.Get(hash), &rec); err != nil {
			return fmt.Errorf("decode key %s: %w", keyID, err)
		}
		hadClear := rec.TOTPSecret != ""
		rec.TOTPSecret, rec.TOTPSealed = "", sealed
		raw, err := json.Marshal(rec)
		if err != nil {
			return err
		}
		if err := keys.Put(hash, raw); err != nil {
			return err
		}
		if hadClear { // the old record's page still holds it: CompactPending
			if err := tx.Bucket(bucketMeta).Put(keyCompactPending, []byte{1}); err != nil {
				return err
			}
		}
		return db.appendAuditsTx(tx, audit...)
	})
	if err != nil {
		return fmt.Errorf("seal key totp: %w", err)
	}
	return nil
}

// UseTOTPStep records step as the last accepted TOTP time step of the admin
// key keyID, so that a code is accepted once per key and step even across
// restarts. When a step >= step was accepted before it returns false,
// changes nothing but appends replay, the audit entry of the refused
// attempt, in the same transaction.
func (db *DB) UseTOTPStep(keyID string, step uint64, replay appliance.AuditEntry) (bool, error) {
	accepted := false
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketTOTPSteps)
		if last := b.Get([]byte(keyID)); len(last) == 8 && binary.BigEndian.Uint64(last) >= step {
			return db.appendAuditsTx(tx, replay)
		}
		var v [8]byte
		binary.BigEndian.PutUint64(v[:], step)
		if err := b.Put([]byte(keyID), v[:]); err != nil {
			return err
		}
		accepted = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("use totp step: %w", err)
	}
	return accepted, nil
}
