package store

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"

	bolt "go.etcd.io/bbolt"

	"linkplan/appliance"
)

// Buckets of the tenants' calibrations (appliance/calibration, issue 26):
// the opt-in settings (JSON appliance.CalibrationSettings) and the fitted
// calibration (gzip-compressed JSON appliance.TenantCalibration, its areas
// can hold tens of thousands of squares), both keyed by tenant id.
var (
	bucketCalibrationSettings = []byte("calibration_settings")
	bucketCalibrations        = []byte("calibrations")
)

// CalibrationSettings returns a tenant's calibration settings (the zero
// settings, not opted in, when it never set them).
func (db *DB) CalibrationSettings(tenantID string) (appliance.CalibrationSettings, error) {
	out := appliance.CalibrationSettings{TenantID: tenantID}
	err := db.bolt.View(func(tx *bolt.Tx) error {
		raw := tx.Bucket(bucketCalibrationSettings).Get([]byte(tenantID))
		if raw == nil {
			return nil
		}
		return json.Unmarshal(raw, &out)
	})
	if err != nil {
		return appliance.CalibrationSettings{}, fmt.Errorf("calibration settings: %w", err)
	}
	return out, nil
}

// PutCalibrationSettings stores a tenant's settings with the audit entries
// in one transaction; settings that turn calibration off also delete the
// tenant's fitted calibration.
func (db *DB) PutCalibrationSettings(s appliance.CalibrationSettings, audit ...appliance.AuditEntry) error {
	raw, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("put calibration settings: %w", err)
	}
	err = db.bolt.Update(func(tx *bolt.Tx) error {
		if err := tx.Bucket(bucketCalibrationSettings).Put([]byte(s.TenantID), raw); err != nil {
			return err
		}
		if !s.Enabled {
			if err := tx.Bucket(bucketCalibrations).Delete([]byte(s.TenantID)); err != nil {
				return err
			}
		}
		return db.appendAuditsTx(tx, audit...)
	})
	if err != nil {
		return fmt.Errorf("put calibration settings: %w", err)
	}
	return nil
}

// PutCalibration stores a tenant's fitted calibration with the audit
// entries, when the tenant is still opted in (it may have opted out while
// the fit ran): it reports whether it stored it.
func (db *DB) PutCalibration(c *appliance.TenantCalibration, audit ...appliance.AuditEntry) (bool, error) {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if err := json.NewEncoder(zw).Encode(c); err != nil {
		return false, fmt.Errorf("put calibration: encode: %w", err)
	}
	if err := zw.Close(); err != nil {
		return false, fmt.Errorf("put calibration: %w", err)
	}
	stored := false
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		var s appliance.CalibrationSettings
		if raw := tx.Bucket(bucketCalibrationSettings).Get([]byte(c.TenantID)); raw != nil {
			if err := json.Unmarshal(raw, &s); err != nil {
				return err
			}
		}
		if !s.Enabled {
			return nil
		}
		stored = true
		if err := tx.Bucket(bucketCalibrations).Put([]byte(c.TenantID), buf.Bytes()); err != nil {
			return err
		}
		return db.appendAuditsTx(tx, audit...)
	})
	if err != nil {
		return false, fmt.Errorf("put calibration: %w", err)
	}
	return stored, nil
}

// Calibration returns a tenant's fitted calibration, nil when it has none.
func (db *DB) Calibration(tenantID string) (*appliance.TenantCalibration, error) {
	var raw []byte
	err := db.bolt.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket(bucketCalibrations).Get([]byte(tenantID)); v != nil {
			raw = bytes.Clone(v)
		}
		return nil
	})
	if err != nil || raw == nil {
		return nil, err
	}
	c, err := decodeCalibration(raw)
	if err != nil {
		return nil, fmt.Errorf("calibration of tenant %q: %w", tenantID, err)
	}
	return c, nil
}

// Calibrations calls fn with every stored calibration (tenant order) until
// fn returns false.
func (db *DB) Calibrations(fn func(*appliance.TenantCalibration) bool) error {
	var raws [][]byte
	err := db.bolt.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketCalibrations).ForEach(func(_, v []byte) error {
			raws = append(raws, bytes.Clone(v))
			return nil
		})
	})
	if err != nil {
		return fmt.Errorf("calibrations: %w", err)
	}
	for _, raw := range raws {
		c, err := decodeCalibration(raw)
		if err != nil {
			return fmt.Errorf("calibrations: %w", err)
		}
		if !fn(c) {
			return nil
		}
	}
	return nil
}

func decodeCalibration(raw []byte) (*appliance.TenantCalibration, error) {
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	var c appliance.TenantCalibration
	if err := json.NewDecoder(io.LimitReader(zr, 1<<30)).Decode(&c); err != nil {
		return nil, err
	}
	return &c, nil
}
