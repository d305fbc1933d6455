package store

import (
	"bytes"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"linkplan/appliance"
)

func ownerKey(owner, id string) []byte {
	return append(append([]byte(owner), 0), id...)
}

// PutUserTower stores a user-registered tower owned by t.OwnerKeyID, and
// audit entries in the same transaction. When maxPerOwner >= 0 and the owner
// already has that many towers, it returns an appliance.ErrQuota error and
// writes nothing. An existing id is an appliance.ErrConflict.
func (db *DB) PutUserTower(t *appliance.Tower, maxPerOwner int, audit ...appliance.AuditEntry) error {
	raw, err := json.Marshal(toTowerRecord(t))
	if err != nil {
		return fmt.Errorf("put tower: encode: %w", err)
	}
	err = db.bolt.Update(func(tx *bolt.Tx) error {
		towers, owners := tx.Bucket(bucketTowers), tx.Bucket(bucketTowersOwner)
		if towers.Get([]byte(t.ID)) != nil {
			return fmt.Errorf("tower %s already exists: %w", t.ID, appliance.ErrConflict)
		}
		if maxPerOwner >= 0 {
			n, pfx := 0, append([]byte(t.OwnerKeyID), 0)
			c := owners.Cursor()
			for k, _ := c.Seek(pfx); k != nil && bytes.HasPrefix(k, pfx); k, _ = c.Next() {
				n++
			}
			if n >= maxPerOwner {
				return fmt.Errorf("towers per key limit of %d reached: %w", maxPerOwner, appliance.ErrQuota)
			}
		}
		if err := towers.Put([]byte(t.ID), raw); err != nil {
			return err
		}
		if err := owners.Put(ownerKey(t.OwnerKeyID, t.ID), nil); err != nil {
			return err
		}
		return db.appendAuditsTx(tx, audit...)
	})
	if err != nil {
		return fmt.Errorf("put tower: %w", err)
	}
	return nil
}

// UserTowers returns every user-registered tower, ordered by id.
func (db *DB) UserTowers() ([]*appliance.Tower, error) {
	var out []*appliance.Tower
	err := db.bolt.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketTowers).ForEach(func(_, v []byte) error {
			var r towerRecord
			if err := json.Unmarshal(v, &r); err != nil {
				return err
			}
			out = append(out, r.tower())
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list user towers: %w", err)
	}
	return out, nil
}
