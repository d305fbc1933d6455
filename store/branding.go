package store

import (
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"linkplan/appliance"
)

// brandingRecord is the stored shape of a tenant's branding (schema
// version 7). The logo is stored as uploaded (JSON base64).
type brandingRecord struct {
	TenantID       string `json:"tenant_id"`
	DisplayName    string `json:"display_name,omitempty"`
	LogoMediaType  string `json:"logo_media_type,omitempty"`
	Logo           []byte `json:"logo,omitempty"`
	PrimaryColor   string `json:"primary_color,omitempty"`
	SupportContact string `json:"support_contact,omitempty"`
	ReportFooter   string `json:"report_footer,omitempty"`
	UpdatedUnix    int64  `json:"updated_unix"`
	UpdatedBy      string `json:"updated_by,omitempty"`
}

// PutBranding stores (replaces) the branding of b.TenantID, with the audit
// entries in the same transaction.
func (db *DB) PutBranding(b *appliance.Branding, audit ...appliance.AuditEntry) error {
	raw, err := json.Marshal(brandingRecord(*b))
	if err != nil {
		return fmt.Errorf("put branding: encode: %w", err)
	}
	err = db.bolt.Update(func(tx *bolt.Tx) error {
		if err := tx.Bucket(bucketBranding).Put([]byte(b.TenantID), raw); err != nil {
			return err
		}
		return db.appendAuditsTx(tx, audit...)
	})
	if err != nil {
		return fmt.Errorf("put branding: %w", err)
	}
	return nil
}

// Branding returns the branding of a tenant, or an appliance.ErrNotFound
// error when it has none.
func (db *DB) Branding(tenantID string) (*appliance.Branding, error) {
	var rec brandingRecord
	err := db.bolt.View(func(tx *bolt.Tx) error {
		raw := tx.Bucket(bucketBranding).Get([]byte(tenantID))
		if raw == nil {
			return fmt.Errorf("tenant %q has no branding: %w", tenantID, appliance.ErrNotFound)
		}
		return json.Unmarshal(raw, &rec)
	})
	if err != nil {
		return nil, fmt.Errorf("get branding: %w", err)
	}
	b := appliance.Branding(rec)
	return &b, nil
}

// TenantExists reports whether some key belongs to tenantID.
func (db *DB) TenantExists(tenantID string) (bool, error) {
	found := false
	err := db.bolt.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketKeys).ForEach(func(_, v []byte) error {
			var rec keyRecord
			if err := json.Unmarshal(v, &rec); err != nil {
				return err
			}
			found = found || rec.TenantID == tenantID
			return nil
		})
	})
	if err != nil {
		return false, fmt.Errorf("tenant exists: %w", err)
	}
	return found, nil
}
