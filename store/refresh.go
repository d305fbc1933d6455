package store

import (
	"encoding/binary"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"linkplan/appliance"
)

// MaxRefreshRecords bounds the refresh history; older records are pruned.
const MaxRefreshRecords = 5000

// AppendTowerRefresh records one tower source refresh and prunes the history
// to MaxRefreshRecords entries.
func (db *DB) AppendTowerRefresh(r appliance.TowerRefresh) error {
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketRefreshes)
		s, err := b.NextSequence()
		if err != nil {
			return err
		}
		r.Seq = s
		raw, err := json.Marshal(r)
		if err != nil {
			return err
		}
		var k [8]byte
		binary.BigEndian.PutUint64(k[:], s)
		if err := b.Put(k[:], raw); err != nil {
			return err
		}
		// Keep the newest MaxRefreshRecords: delete every key below the
		// cutoff sequence (only the few oldest, never a full walk).
		if s <= MaxRefreshRecords {
			return nil
		}
		var cut [8]byte
		binary.BigEndian.PutUint64(cut[:], s-MaxRefreshRecords+1)
		c := b.Cursor()
		for key, _ := c.First(); key != nil && string(key) < string(cut[:]); key, _ = c.First() {
			if err := c.Delete(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("append tower refresh: %w", err)
	}
	return nil
}

// TowerRefreshes returns up to limit refresh records, newest first.
func (db *DB) TowerRefreshes(limit int) ([]appliance.TowerRefresh, error) {
	var out []appliance.TowerRefresh
	err := db.bolt.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketRefreshes).Cursor()
		for k, v := c.Last(); k != nil && (limit <= 0 || len(out) < limit); k, v = c.Prev() {
			var r appliance.TowerRefresh
			if err := json.Unmarshal(v, &r); err != nil {
				return err
			}
			out = append(out, r)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read tower refreshes: %w", err)
	}
	return out, nil
}
