package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	bolt "go.etcd.io/bbolt"

	"linkplan/appliance"
)

// The equipment catalogue (issue 25, schema version 12): a tenant's radios
// and antennas, each bucket keyed by tenant id + 0x00 + record id, the
// value the record as JSON. Records are counted per tenant inside the write
// transaction, so concurrent creations cannot pass a cap.

// radioRecord is the stored shape of a radio (schema version 12).
type radioRecord struct {
	ID          string                   `json:"id"`
	TenantID    string                   `json:"tenant_id"`
	Name        string                   `json:"name"`
	Make        string                   `json:"make,omitempty"`
	Model       string                   `json:"model,omitempty"`
	Notes       string                   `json:"notes,omitempty"`
	Bands       []appliance.FreqRange    `json:"bands"`
	Channels    []appliance.RadioChannel `json:"channels"`
	ACSDB       float64                  `json:"acs_db,omitempty"` // absent in records before it existed: 0, not stated
	CreatedUnix int64                    `json:"created_unix"`
	UpdatedUnix int64                    `json:"updated_unix"`
}

// antennaRecord is the stored shape of an antenna (schema version 12).
type antennaRecord struct {
	ID                string                  `json:"id"`
	TenantID          string                  `json:"tenant_id"`
	Name              string                  `json:"name"`
	Make              string                  `json:"make,omitempty"`
	Model             string                  `json:"model,omitempty"`
	Notes             string                  `json:"notes,omitempty"`
	GainDBi           float64                 `json:"gain_dbi"`
	FreqMHz           float64                 `json:"freq_mhz,omitempty"`
	MinMHz            float64                 `json:"min_mhz,omitempty"`
	MaxMHz            float64                 `json:"max_mhz,omitempty"`
	Polarization      string                  `json:"polarization,omitempty"`
	ElectricalTiltDeg float64                 `json:"electrical_tilt_deg"`
	HBeamwidthDeg     float64                 `json:"h_beamwidth_deg"`
	VBeamwidthDeg     float64                 `json:"v_beamwidth_deg"`
	FrontToBackDB     float64                 `json:"front_to_back_db"`
	HAngles           []float64               `json:"h_angles_deg"`
	HAtt              []float64               `json:"h_att_db"`
	VAngles           []float64               `json:"v_angles_deg"`
	VAtt              []float64               `json:"v_att_db"`
	Source            appliance.PatternSource `json:"source"`
	Warnings          []appliance.Warning     `json:"warnings,omitempty"`
	CreatedUnix       int64                   `json:"created_unix"`
	UpdatedUnix       int64                   `json:"updated_unix"`
}

func toRadioRecord(r *appliance.Radio) radioRecord {
	return radioRecord{ID: r.ID, TenantID: r.TenantID, Name: r.Name, Make: r.Make, Model: r.Model, Notes: r.Notes,
		Bands: r.Bands, Channels: r.Channels, ACSDB: r.ACSDB, CreatedUnix: r.CreatedUnix, UpdatedUnix: r.UpdatedUnix}
}

func (r radioRecord) radio() *appliance.Radio {
	return &appliance.Radio{ID: r.ID, TenantID: r.TenantID, Name: r.Name, Make: r.Make, Model: r.Model, Notes: r.Notes,
		Bands: r.Bands, Channels: r.Channels, ACSDB: r.ACSDB, CreatedUnix: r.CreatedUnix, UpdatedUnix: r.UpdatedUnix}
}

func toAntennaRecord(a *appliance.Antenna) antennaRecord {
	return antennaRecord{ID: a.ID, TenantID: a.TenantID, Name: a.Name, Make: a.Make, Model: a.Model, Notes: a.Notes,
		GainDBi: a.GainDBi, FreqMHz: a.FreqMHz, MinMHz: a.MinMHz, MaxMHz: a.MaxMHz, Polarization: a.Polarization,
		ElectricalTiltDeg: a.ElectricalTiltDeg, HBeamwidthDeg: a.HBeamwidthDeg, VBeamwidthDeg: a.VBeamwidthDeg,
		FrontToBackDB: a.FrontToBackDB, HAngles: a.Pattern.H.AnglesDeg, HAtt: a.Pattern.H.AttDB,
		VAngles: a.Pattern.V.AnglesDeg, VAtt: a.Pattern.V.AttDB, Source: a.Source, Warnings: a.Warnings,
		CreatedUnix: a.CreatedUnix, UpdatedUnix: a.UpdatedUnix}
}

func (r antennaRecord) antenna() *appliance.Antenna {
	return &appliance.Antenna{ID: r.ID, TenantID: r.TenantID, Name: r.Name, Make: r.Make, Model: r.Model, Notes: r.Notes,
		GainDBi: r.GainDBi, FreqMHz: r.FreqMHz, MinMHz: r.MinMHz, MaxMHz: r.MaxMHz, Polarization: r.Polarization,
		ElectricalTiltDeg: r.ElectricalTiltDeg, HBeamwidthDeg: r.HBeamwidthDeg, VBeamwidthDeg: r.VBeamwidthDeg,
		FrontToBackDB: r.FrontToBackDB,
		Pattern: appliance.AntennaPattern{H: appliance.PatternCut{AnglesDeg: r.HAngles, AttDB: r.HAtt},
			V: appliance.PatternCut{AnglesDeg: r.VAngles, AttDB: r.VAtt}},
		Source: r.Source, Warnings: r.Warnings, CreatedUnix: r.CreatedUnix, UpdatedUnix: r.UpdatedUnix}
}

// equipmentWrite says how putEquipment treats an existing record.
type equipmentWrite int

const (
	// equipmentCreate stores a new record: an existing id is an
	// appliance.ErrConflict, and the tenant's cap is checked.
	equipmentCreate equipmentWrite = iota
	// equipmentReplace replaces an existing record (keeping its creation
	// time): a missing one is an appliance.ErrNotFound.
	equipmentReplace
)

func equipmentKey(tenantID, id string) []byte { return ownerKey(tenantID, id) }

// putEquipment writes raw under tenantID/id in bucket, by mode, with the
// cap maxPerTenant (< 0: none) on creation and the audit entries.
func (db *DB) putEquipment(bucket []byte, what, tenantID, id string, raw func(created int64) ([]byte, error), mode equipmentWrite, maxPerTenant int, audit []appliance.AuditEntry) error {
	return db.bolt.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucket)
		k := equipmentKey(tenantID, id)
		old := b.Get(k)
		var created int64
		switch {
		case mode == equipmentCreate && old != nil:
			return fmt.Errorf("%s %s already exists: %w", what, id, appliance.ErrConflict)
		case mode == equipmentReplace && old == nil:
			return fmt.Errorf("%s %q: %w", what, id, appliance.ErrNotFound)
		case mode == equipmentReplace:
			var c struct {
				CreatedUnix int64 `json:"created_unix"`
			}
			if err := json.Unmarshal(old, &c); err != nil {
				return fmt.Errorf("%s %s: decode: %w", what, id, err)
			}
			created = c.CreatedUnix
		}
		if mode == equipmentCreate && maxPerTenant >= 0 {
			if n := countPrefix(b, append([]byte(tenantID), 0)); n >= maxPerTenant {
				return fmt.Errorf("the tenant's limit of %d %ss is reached: %w", maxPerTenant, what, appliance.ErrQuota)
			}
		}
		v, err := raw(created)
		if err != nil {
			return fmt.Errorf("%s %s: encode: %w", what, id, err)
		}
		if err := b.Put(k, v); err != nil {
			return err
		}
		return db.appendAuditsTx(tx, audit...)
	})
}

func countPrefix(b *bolt.Bucket, pfx []byte) int {
	n := 0
	c := b.Cursor()
	for k, _ := c.Seek(pfx); k != nil && bytes.HasPrefix(k, pfx); k, _ = c.Next() {
		n++
	}
	return n
}

// CreateRadio stores r as a new radio of its tenant, within maxPerTenant
// radios of that tenant (< 0: no cap; appliance.ErrQuota), with the audit
// entries in one transaction. An existing id is an appliance.ErrConflict.
func (db *DB) CreateRadio(r *appliance.Radio, maxPerTenant int, audit ...appliance.AuditEntry) error {
	return db.putRadio(r, equipmentCreate, maxPerTenant, audit)
}

// ReplaceRadio replaces the stored radio r.ID of r.TenantID by r, keeping
// its creation time (written into r), with the audit entries in one
// transaction. A missing one is an appliance.ErrNotFound.
func (db *DB) ReplaceRadio(r *appliance.Radio, audit ...appliance.AuditEntry) error {
	return db.putRadio(r, equipmentReplace, -1, audit)
}

func (db *DB) putRadio(r *appliance.Radio, mode equipmentWrite, maxPerTenant int, audit []appliance.AuditEntry) error {
	err := db.putEquipment(bucketRadios, "radio", r.TenantID, r.ID, func(created int64) ([]byte, error) {
		if mode == equipmentReplace {
			r.CreatedUnix = created
		}
		return json.Marshal(toRadioRecord(r))
	}, mode, maxPerTenant, audit)
	if err != nil {
		return fmt.Errorf("put radio: %w", err)
	}
	return nil
}

// Radio returns a tenant's radio, or an appliance.ErrNotFound error.
func (db *DB) Radio(tenantID, id string) (*appliance.Radio, error) {
	var rec radioRecord
	if err := db.getEquipment(bucketRadios, "radio", tenantID, id, &rec); err != nil {
		return nil, err
	}
	return rec.radio(), nil
}

// Radios returns a tenant's radios ordered by id.
func (db *DB) Radios(tenantID string) ([]*appliance.Radio, error) {
	var out []*appliance.Radio
	err := db.listEquipment(bucketRadios, tenantID, func(v []byte) error {
		var rec radioRecord
		if err := json.Unmarshal(v, &rec); err != nil {
			return err
		}
		out = append(out, rec.radio())
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list radios: %w", err)
	}
	return out, nil
}

// DeleteRadio deletes a tenant's radio with the audit entries, or returns
// an appliance.ErrNotFound error.
func (db *DB) DeleteRadio(tenantID, id string, audit ...appliance.AuditEntry) error {
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketRadios)
		k := equipmentKey(tenantID, id)
		if b.Get(k) == nil {
			return fmt.Errorf("radio %q: %w", id, appliance.ErrNotFound)
		}
		if err := b.Delete(k); err != nil {
			return err
		}
		return db.appendAuditsTx(tx, audit...)
	})
	if err != nil {
		return fmt.Errorf("delete radio: %w", err)
	}
	return nil
}

// CreateAntenna stores a as a new antenna of its tenant (as CreateRadio).
func (db *DB) CreateAntenna(a *appliance.Antenna, maxPerTenant int, audit ...appliance.AuditEntry) error {
	return db.putAntenna(a, equipmentCreate, maxPerTenant, audit)
}

// ReplaceAntenna replaces the stored antenna a.ID of a.TenantID by a (as
// ReplaceRadio).
func (db *DB) ReplaceAntenna(a *appliance.Antenna, audit ...appliance.AuditEntry) error {
	return db.putAntenna(a, equipmentReplace, -1, audit)
}

func (db *DB) putAntenna(a *appliance.Antenna, mode equipmentWrite, maxPerTenant int, audit []appliance.AuditEntry) error {
	err := db.putEquipment(bucketAntennas, "antenna", a.TenantID, a.ID, func(created int64) ([]byte, error) {
		if mode == equipmentReplace {
			a.CreatedUnix = created
		}
		return json.Marshal(toAntennaRecord(a))
	}, mode, maxPerTenant, audit)
	if err != nil {
		return fmt.Errorf("put antenna: %w", err)
	}
	return nil
}

// Antenna returns a tenant's antenna, or an appliance.ErrNotFound error.
func (db *DB) Antenna(tenantID, id string) (*appliance.Antenna, error) {
	var rec antennaRecord
	if err := db.getEquipment(bucketAntennas, "antenna", tenantID, id, &rec); err != nil {
		return nil, err
	}
	return rec.antenna(), nil
}

// Antennas returns a tenant's antennas ordered by id.
func (db *DB) Antennas(tenantID string) ([]*appliance.Antenna, error) {
	var out []*appliance.Antenna
	err := db.listEquipment(bucketAntennas, tenantID, func(v []byte) error {
		var rec antennaRecord
		if err := json.Unmarshal(v, &rec); err != nil {
			return err
		}
		out = append(out, rec.antenna())
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list antennas: %w", err)
	}
	return out, nil
}

// DeleteAntenna deletes a tenant's antenna with the audit entries. An
// antenna one of the tenant's towers names (Tower.AntennaID) is not
// deleted: the error matches appliance.ErrConflict and names up to five
// of those towers. A missing one is an appliance.ErrNotFound.
func (db *DB) DeleteAntenna(tenantID, id string, audit ...appliance.AuditEntry) error {
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketAntennas)
		k := equipmentKey(tenantID, id)
		if b.Get(k) == nil {
			return fmt.Errorf("antenna %q: %w", id, appliance.ErrNotFound)
		}
		var users []string
		err := tx.Bucket(bucketTowers).ForEach(func(_, v []byte) error {
			var r towerRecord
			if err := json.Unmarshal(v, &r); err != nil {
				return err
			}
			if r.AntennaID == id && r.OwnerTenantID == tenantID {
				users = append(users, r.ID)
			}
			return nil
		})
		if err != nil {
			return err
		}
		if len(users) > 0 {
			sort.Strings(users)
			return fmt.Errorf("antenna %s is mounted on %d of the tenant's towers (%s): %w", id, len(users), joinFirst(users, 5), appliance.ErrConflict)
		}
		if err := b.Delete(k); err != nil {
			return err
		}
		return db.appendAuditsTx(tx, audit...)
	})
	if err != nil {
		return fmt.Errorf("delete antenna: %w", err)
	}
	return nil
}

func joinFirst(s []string, n int) string {
	out := ""
	for i, x := range s {
		if i == n {
			return out + ", …"
		}
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}

func (db *DB) getEquipment(bucket []byte, what, tenantID, id string, dst any) error {
	err := db.bolt.View(func(tx *bolt.Tx) error {
		raw := tx.Bucket(bucket).Get(equipmentKey(tenantID, id))
		if raw == nil {
			return fmt.Errorf("%s %q: %w", what, id, appliance.ErrNotFound)
		}
		return json.Unmarshal(raw, dst)
	})
	if err != nil {
		return fmt.Errorf("get %s: %w", what, err)
	}
	return nil
}

func (db *DB) listEquipment(bucket []byte, tenantID string, fn func(v []byte) error) error {
	return db.bolt.View(func(tx *bolt.Tx) error {
		pfx := append([]byte(tenantID), 0)
		c := tx.Bucket(bucket).Cursor()
		for k, v := c.Seek(pfx); k != nil && bytes.HasPrefix(k, pfx); k, v = c.Next() {
			if err := fn(v); err != nil {
				return err
			}
		}
		return nil
	})
}
