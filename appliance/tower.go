package appliance

import (
	"math"
	"strings"
)

// TowerSource says where a tower record came from. Its value is also the id
// prefix of the tower: "anatel:1000017564", "ocid:724-10-40211-13861262".
type TowerSource string

// Tower sources. Regulator and crowd-sourced towers carry different id
// prefixes (SPEC §2.1); user-registered and synthetic towers have their own.
const (
	SourceAnatel     TowerSource = "anatel"    // Anatel (regulator) registry
	SourceOpenCelliD TowerSource = "ocid"      // OpenCelliD crowd-sourced database
	SourceUser       TowerSource = "user"      // registered by a tenant via POST /towers
	SourceSynthetic  TowerSource = "synthetic" // generated sample data, never real
)

// Placement says how a tower's position was obtained.
type Placement string

// Placements, from most to least trustworthy.
const (
	PlacementSurveyed Placement = "surveyed" // coordinates given by the source and validated
	PlacementSnapped  Placement = "snapped"  // moved onto a crowd-sourced tower of the same operator
	PlacementCrowd    Placement = "crowd"    // crowd-sourced estimate (OpenCelliD cell centroid)
	PlacementCentroid Placement = "centroid" // municipality centroid plus deterministic offset
)

// DefaultTowerHeightM is the antenna height above ground, in metres, assumed
// when a source gives none (SPEC §2.1).
const DefaultTowerHeightM = 30.0

// Tower is one transmitter site.
type Tower struct {
	ID       string      // "<source>:<source key>", unique
	Source   TowerSource // where the record came from
	Operator string      // normalised operator name, e.g. "Vivo", "TIM", "Claro"
	Lat      float64     // degrees WGS84
	Lon      float64     // degrees WGS84
	HeightM  float64     // antenna height above ground, metres; DefaultTowerHeightM when unknown

	// ERPDBm is the effective radiated power relative to a half-wave dipole,
	// in dBm. NaN when the source has none (crowd-sourced towers).
	ERPDBm float64
	// AzimuthDeg is the main-lobe bearing, degrees clockwise from north;
	// NaN means omnidirectional (SPEC §2.1).
	AzimuthDeg float64
	// TiltDeg is the mechanical downtilt in degrees, positive down; NaN when
	// unknown. For a regulator record it is the licensed elevation angle
	// (MOSAICO AnguloElevacao) of the strongest emission, taken as the
	// beam's downtilt.
	TiltDeg float64
	// TxPowerDBm (transmitter power at the antenna input, dBm) and
	// TxGainDBi (antenna gain, dBi) are those of the sector whose ERP is
	// ERPDBm, when the source states both (regulator licence records);
	// HasTx says so. Their sum is ERPDBm + 2.15 dB (the EIRP).
	TxPowerDBm, TxGainDBi float64
	HasTx                 bool
	// BeamwidthDeg is the antenna's horizontal 3 dB beamwidth, degrees
	// (MOSAICO AnguloMeiaPotenciaAntena); 0 or NaN when unknown
	// (GenericHBeamwidthDeg, 65°, is assumed).
	BeamwidthDeg float64
	// FrontBackDB is the antenna's front-to-back ratio, dB (MOSAICO
	// FrenteCostaAntena); 0 or NaN when unknown (GenericFrontBackDB, 25 dB).
	FrontBackDB float64
	// AntennaID names the catalogue antenna (appliance/equipment) the
	// tower radiates with, its pattern replacing the generic one; "" when
	// none. Only a tenant's own towers name one.
	AntennaID string

	Placement     Placement // how the position was obtained
	UncertaintyM  float64   // radius, metres, within which the true position lies (about 95 %)
	Synthetic     bool      // true for generated sample towers: never real infrastructure
	Provenance    string    // dataset or file the record came from
	StationNumber string    // regulator station number, when known
	Municipality  string    // municipality name, when known
	Address       string    // street address as the source gives it, when known
	UF            string    // two-letter state code, when known
	IBGECode      string    // 7-digit IBGE municipality code, when known
	Technologies  []string  // e.g. "LTE", "NR", "GSM"
	BandsMHz      []float64 // nominal bands in MHz, when known
	OwnerKeyID    string    // for user-registered towers, the id of the registering key
	OwnerTenantID string    // for user-registered towers, the tenant that owns it (SPEC §5.2 scoping)
	UpdatedUnix   int64     // epoch seconds of the source record, 0 when unknown
}

// Pos returns the tower position.
func (t *Tower) Pos() LatLon { return LatLon{Lat: t.Lat, Lon: t.Lon} }

// HasERP reports whether the tower's ERP is known.
func (t *Tower) HasERP() bool { return !math.IsNaN(t.ERPDBm) }

// Omni reports whether the tower is treated as omnidirectional.
func (t *Tower) Omni() bool { return math.IsNaN(t.AzimuthDeg) }

// known returns x when it is a positive number, else 0.
func known(x float64) float64 {
	if x > 0 {
		return x
	}
	return 0
}

// GenericRadiator returns the tower's generic antenna (Radiator doc): the
// 3GPP sector at the tower's azimuth with its beamwidth and front-to-back
// ratio where known, and, when its tilt is known, the vertical pattern
// tilted by it with the vertical beamwidth from its antenna gain
// (TxGainDBi; 10° when the record has none).
func (t *Tower) GenericRadiator() Radiator {
	g := GenericSector{HBeamwidthDeg: known(t.BeamwidthDeg), FrontBackDB: known(t.FrontBackDB)}
	if gain := t.TxGainDBi; t.HasTx && gain > 0 {
		hbw := g.HBeamwidthDeg
		if hbw == 0 {
			hbw = GenericHBeamwidthDeg
		}
		g.VBeamwidthDeg = VBeamwidthFromGainDeg(gain, hbw)
	}
	return NewGenericRadiator(g, t.AzimuthDeg, t.TiltDeg)
}

// VisibleTo reports whether a tenant may see the tower: public towers
// (regulator, crowd-sourced, synthetic) are visible to all, a user-registered
// tower only to its own tenant. An empty tenantID means an operator view
// that sees everything.
func (t *Tower) VisibleTo(tenantID string) bool {
	return tenantID == "" || t.Source != SourceUser || t.OwnerTenantID == tenantID
}

// TowerID builds the id of a tower from its source and the source's key.
func TowerID(src TowerSource, key string) string { return string(src) + ":" + key }

// SourceOf returns the source encoded in a tower id, or "" when the id has no
// known prefix.
func SourceOf(id string) TowerSource {
	pfx, _, ok := strings.Cut(id, ":")
	if !ok {
		return ""
	}
	switch s := TowerSource(pfx); s {
	case SourceAnatel, SourceOpenCelliD, SourceUser, SourceSynthetic:
		return s
	}
	return ""
}

// TowerIndex answers spatial queries over the current tower catalogue. An
// implementation is an immutable snapshot: concurrent readers never see a
// half-built index.
type TowerIndex interface {
	// Within returns the towers within radiusM metres of p, nearest first.
	Within(p LatLon, radiusM float64) []*Tower
	// Nearest returns up to k towers nearest to p within maxM metres,
	// nearest first.
	Nearest(p LatLon, k int, maxM float64) []*Tower
	// InBox returns the towers inside b ordered by id.
	InBox(b BBox) []*Tower
	// Get returns the tower with the given id.
	Get(id string) (*Tower, bool)
	// Len returns the number of towers.
	Len() int
}

// TowerVisitor is implemented by tower indexes that can visit the towers
// within radiusM metres of p in no particular order, with each tower's
// great-circle distance from p (metres, LatLon.DistanceM), without
// building and sorting a slice: the hot path of link analysis, which ranks
// the candidates its own way.
type TowerVisitor interface {
	VisitWithin(p LatLon, radiusM float64, fn func(t *Tower, distM float64))
}
