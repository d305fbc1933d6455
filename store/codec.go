package store

import (
	"math"

	"linkplan/appliance"
)

// optFloat encodes a float where NaN means "unknown" as an absent JSON field.
func optFloat(v float64) *float64 {
	if math.IsNaN(v) {
		return nil
	}
	return &v
}

// optKnown encodes a figure where 0 or NaN means "unknown" as an absent
// JSON field.
func optKnown(v float64) *float64 {
	if !(v > 0) && !(v < 0) {
		return nil
	}
	return &v
}

func fromOpt(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// towerRecord is the stored shape of a tower (schema version 1).
type towerRecord struct {
	ID            string    `json:"id"`
	Source        string    `json:"source"`
	Operator      string    `json:"operator"`
	Lat           float64   `json:"lat"`
	Lon           float64   `json:"lon"`
	HeightM       float64   `json:"height_m"`
	ERPDBm        *float64  `json:"erp_dbm,omitempty"`
	AzimuthDeg    *float64  `json:"azimuth_deg,omitempty"`
	TiltDeg       *float64  `json:"tilt_deg,omitempty"`
	TxPowerDBm    *float64  `json:"tx_power_dbm,omitempty"` // with TxGainDBi, when Tower.HasTx
	TxGainDBi     *float64  `json:"tx_gain_dbi,omitempty"`
	BeamwidthDeg  *float64  `json:"beamwidth_deg,omitempty"` // since schema 12
	FrontBackDB   *float64  `json:"front_back_db,omitempty"` // since schema 12
	AntennaID     string    `json:"antenna_id,omitempty"`    // since schema 12
	Placement     string    `json:"placement"`
	UncertaintyM  float64   `json:"uncertainty_m"`
	Synthetic     bool      `json:"synthetic,omitempty"`
	Provenance    string    `json:"provenance,omitempty"`
	StationNumber string    `json:"station_number,omitempty"`
	Municipality  string    `json:"municipality,omitempty"`
	Address       string    `json:"address,omitempty"`
	UF            string    `json:"uf,omitempty"`
	IBGECode      string    `json:"ibge_code,omitempty"`
	Technologies  []string  `json:"technologies,omitempty"`
	BandsMHz      []float64 `json:"bands_mhz,omitempty"`
	OwnerKeyID    string    `json:"owner_key_id,omitempty"`
	OwnerTenantID string    `json:"owner_tenant_id,omitempty"`
	UpdatedUnix   int64     `json:"updated_unix,omitempty"`
}

func toTowerRecord(t *appliance.Tower) towerRecord {
	var power, gain *float64
	if t.HasTx {
		power, gain = &t.TxPowerDBm, &t.TxGainDBi
	}
	return towerRecord{TxPowerDBm: power, TxGainDBi: gain,
		ID: t.ID, Source: string(t.Source), Operator: t.Operator, Lat: t.Lat, Lon: t.Lon, HeightM: t.HeightM,
		ERPDBm: optFloat(t.ERPDBm), AzimuthDeg: optFloat(t.AzimuthDeg), TiltDeg: optFloat(t.TiltDeg),
		BeamwidthDeg: optKnown(t.BeamwidthDeg), FrontBackDB: optKnown(t.FrontBackDB), AntennaID: t.AntennaID,
		Placement: string(t.Placement), UncertaintyM: t.UncertaintyM, Synthetic: t.Synthetic,
		Provenance: t.Provenance, StationNumber: t.StationNumber, Municipality: t.Municipality, Address: t.Address, UF: t.UF,
		IBGECode: t.IBGECode, Technologies: t.Technologies, BandsMHz: t.BandsMHz, OwnerKeyID: t.OwnerKeyID,
		OwnerTenantID: t.OwnerTenantID, UpdatedUnix: t.UpdatedUnix,
	}
}

func (r towerRecord) tower() *appliance.Tower {
	t := &appliance.Tower{
		ID: r.ID, Source: appliance.TowerSource(r.Source), Operator: r.Operator, Lat: r.Lat, Lon: r.Lon,
		HeightM: r.HeightM, ERPDBm: fromOpt(r.ERPDBm), AzimuthDeg: fromOpt(r.AzimuthDeg), TiltDeg: fromOpt(r.TiltDeg),
		BeamwidthDeg: fromOpt(r.BeamwidthDeg), FrontBackDB: fromOpt(r.FrontBackDB), AntennaID: r.AntennaID,
		Placement: appliance.Placement(r.Placement), UncertaintyM: r.UncertaintyM, Synthetic: r.Synthetic,
		Provenance: r.Provenance, StationNumber: r.StationNumber, Municipality: r.Municipality, Address: r.Address, UF: r.UF,
		IBGECode: r.IBGECode, Technologies: r.Technologies, BandsMHz: r.BandsMHz, OwnerKeyID: r.OwnerKeyID,
		OwnerTenantID: r.OwnerTenantID, UpdatedUnix: r.UpdatedUnix,
	}
	if r.TxPowerDBm != nil && r.TxGainDBi != nil {
		t.TxPowerDBm, t.TxGainDBi, t.HasTx = *r.TxPowerDBm, *r.TxGainDBi, true
	}
	return t
}

// keyRecord is the stored shape of an API key (schema version 1; version 3
// seals the TOTP secret). The clear TOTP secret is never written.
type keyRecord struct {
	ID          string `json:"id"`
	HashHex     string `json:"hash"`
	Prefix      string `json:"prefix"`
	Tier        string `json:"tier"`
	Role        string `json:"role"`
	Owner       string `json:"owner,omitempty"`
	Email       string `json:"email,omitempty"`
	TenantID    string `json:"tenant_id"`
	CreatedUnix int64  `json:"created_unix"`
	RevokedUnix int64  `json:"revoked_unix,omitempty"`
	// TOTPSecret is the clear TOTP secret that records written before
	// schema version 3 hold; it is read, never written (see SealKeyTOTP).
	TOTPSecret string `json:"totp_secret,omitempty"`
	// TOTPSealed is the admin key's TOTP secret sealed under the plain key
	// (appliance.APIKey.TOTPSealed).
	TOTPSealed string `json:"totp_sealed,omitempty"`
	// Since schema version 8 (keys and privacy requests); absent in older
	// records, where an empty tenant role reads as tenant-admin.
	TenantRole     string `json:"tenant_role,omitempty"`
	LastUsedUnix   int64  `json:"last_used_unix,omitempty"`
	GraceUntilUnix int64  `json:"grace_until_unix,omitempty"`
	RotatedTo      string `json:"rotated_to,omitempty"`
}

func toKeyRecord(k *appliance.APIKey) keyRecord {
	return keyRecord{ID: k.ID, HashHex: k.HashHex, Prefix: k.Prefix, Tier: string(k.Tier), Role: string(k.Role),
		Owner: k.Owner, Email: k.Email, TenantID: k.TenantID, CreatedUnix: k.CreatedUnix, RevokedUnix: k.RevokedUnix, TOTPSealed: k.TOTPSealed,
		TenantRole: string(k.TenantRole), LastUsedUnix: k.LastUsedUnix, GraceUntilUnix: k.GraceUntilUnix, RotatedTo: k.RotatedTo}
}

func (r keyRecord) key() *appliance.APIKey {
	return &appliance.APIKey{ID: r.ID, HashHex: r.HashHex, Prefix: r.Prefix, Tier: appliance.Tier(r.Tier),
		Role: appliance.Role(r.Role), Owner: r.Owner, Email: r.Email, TenantID: r.TenantID,
		CreatedUnix: r.CreatedUnix, RevokedUnix: r.RevokedUnix, TOTPSecret: r.TOTPSecret, TOTPSealed: r.TOTPSealed,
		TenantRole: appliance.TenantRole(r.TenantRole), LastUsedUnix: r.LastUsedUnix, GraceUntilUnix: r.GraceUntilUnix, RotatedTo: r.RotatedTo}
}
