package coverage

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"linkplan/appliance"
)

// TierCaps are the limits of one tier's coverage maps (SPEC §4.8: grid
// resolution caps per tier).
type TierCaps struct {
	MaxRadiusM     float64 // largest radius, metres
	MinResolutionM float64 // finest resolution, metres
	MaxServers     int     // transmitters of a best-server map; 0: no best-server maps
	// MaxExactPixels bounds an exact map (Spec.Exact): its pixels within
	// the radius, π·radius²/resolution², times its transmitters; 0: no
	// exact maps. Every pixel then gets its own profile and a
	// point-to-point evaluation: about 5–6.5 (10 km at 3″) to 10–20 (30 km)
	// and 13–28 (50 km) times the default mode's CPU time
	// (BenchmarkIssue22_ExactRatio, Sumaré maps; package doc). Interference
	// maps count their transmitters' pixels the same way, an exact viewshed
	// as one transmitter (appliance/interference CheckCaps,
	// CheckViewshedCaps).
	MaxExactPixels int
}

// CapsFor returns the caps of a tier. Free gets a coarse preview (and,
// through the engine rules of the API, fspl only).
func CapsFor(t appliance.Tier) TierCaps {
	switch t {
	case appliance.TierFree:
		return TierCaps{MaxRadiusM: 5000, MinResolutionM: 250}
	case appliance.TierStarter:
		return TierCaps{MaxRadiusM: 15000, MinResolutionM: 90, MaxServers: 10, MaxExactPixels: 50_000}
	case appliance.TierPro:
		return TierCaps{MaxRadiusM: 30000, MinResolutionM: 90, MaxServers: 50, MaxExactPixels: 250_000}
	case appliance.TierBusiness:
		return TierCaps{MaxRadiusM: 50000, MinResolutionM: 30, MaxServers: 200, MaxExactPixels: 1_000_000}
	case appliance.TierEnterprise, appliance.TierUltra:
		return TierCaps{MaxRadiusM: 100000, MinResolutionM: 30, MaxServers: MaxBestServers, MaxExactPixels: 4_000_000}
	}
	return TierCaps{}
}

// Spec defaults.
const (
	DefaultRadiusM     = 10000.0 // metres
	DefaultRxHeightM   = 10.0    // metres above ground
	DefaultResolutionM = 90.0    // metres (raised to the tier's finest when coarser)
	// DefaultEIRPDBm is the EIRP of a tower without ERP, dBm (the
	// planner's assumed EIRP: 43 dBm + 17 dBi − 2 dB).
	DefaultEIRPDBm = 58.0
)

// Site is an explicit transmitter of a Spec, or a tower resolved to one.
type Site struct {
	Pos          appliance.LatLon
	HeightM      float64 // metres above ground
	EIRPDBm      float64 // dBm
	AzimuthDeg   float64 // NaN: omni
	BeamwidthDeg float64 // 0: the planner's sector
	// TiltDeg is the antenna's mechanical downtilt, degrees, positive
	// down; nil: unknown (the generic sector has no vertical pattern).
	TiltDeg *float64
	// AntennaID names a catalogue antenna (of the key's tenant or a
	// built-in) the site radiates with; "" for the generic sector.
	AntennaID string
	// Radiator is the antenna the map uses when it is more than the
	// generic sector (Starter resolves it); nil otherwise.
	Radiator *appliance.Radiator
	// Transmitter holds a tower's caveats (its id, an assumed EIRP,
	// synthetic, position uncertainty); zero for an explicit site.
	Transmitter Transmitter
}

// Spec is a map as the API asks for it: transmitters by tower id, by an
// explicit site, or (best-server maps) by a box and an operator. Zero
// numbers take the documented defaults.
type Spec struct {
	TowerIDs    []string
	Site        *Site
	BBox        *appliance.BBox // best-server maps: the towers inside
	Operator    string          // with BBox: only this operator's towers (case-insensitive)
	FreqMHz     float64         // MHz, required
	RadiusM     float64         // metres, 0: DefaultRadiusM
	RxHeightM   float64         // metres, 0: DefaultRxHeightM
	ResolutionM float64         // metres, 0: DefaultResolutionM or the tier's finest
	Engine      appliance.EngineID
	// EngineNote explains an engine the API substituted (e.g. auto → fspl
	// for Free); it is kept with the map.
	EngineNote string
	// Exact computes every pixel on its own profile (Request.Exact),
	// within the tier's MaxExactPixels.
	Exact bool
}

// Starter turns specs into maps for a key: it resolves towers in the
// key's scope, applies the tier caps and starts the computation.
type Starter struct {
	Maps   *Maps
	Towers func() appliance.TowerIndex
	// Antennas resolves catalogue antennas (appliance/equipment); nil: a
	// site or tower naming one is refused (site.antenna_id) or radiates
	// its generic antenna.
	Antennas appliance.AntennaCatalogue
	// Audit appends an audit entry (store.DB.AppendAudit); nil: maps are
	// not audited.
	Audit func(e appliance.AuditEntry) (uint64, error)
	// Calibrations gives the tenants' calibrations
	// (appliance/calibration); nil: no map is calibrated.
	Calibrations appliance.Calibrations
	// Terrain, when set, is read under every transmitter before a map
	// starts (CheckTerrain): a transmitter on no loaded terrain is refused
	// up front (422 terrain_missing) instead of failing in the stream.
	Terrain appliance.Terrain
}

// CheckTerrain refuses the map of reqs when a transmitter stands on no
// loaded terrain (an *appliance.TileMissingError naming the tile, which
// matches appliance.ErrTerrainMissing; terrain is never taken as sea
// level). Other terrain errors are left to the computation.
func (s *Starter) CheckTerrain(reqs []Request) error {
	if s.Terrain == nil {
		return nil
	}
	for _, r := range reqs {
		if _, err := s.Terrain.ElevationM(r.Tx); errors.Is(err, appliance.ErrTerrainMissing) {
			who := "the site"
			if r.Transmitter.TowerID != "" {
				who = "tower " + r.Transmitter.TowerID
			}
			return fmt.Errorf("coverage map: %s at %.6f,%.6f: %w", who, r.Tx.Lat, r.Tx.Lon, err)
		}
	}
	return nil
}

// Start starts a single map (best false: one tower id or a site) or a
// best-server map (several tower ids, or a box). A started map is audited
// (coverage.map.start by the actor of ctx, params map_id, kind, engine,
// transmitters) right after it starts: maps live in memory, so there is no
// transaction to share; a map whose entry cannot be written is canceled
// and the start fails.
func (s *Starter) Start(ctx context.Context, k *appliance.APIKey, spec Spec, best bool) (*Map, error) {
	reqs, err := s.Requests(k, spec, best)
	if err != nil {
		return nil, err
	}
	if err := s.CheckTerrain(reqs); err != nil {
		return nil, err
	}
	m, err := s.Maps.StartFor(Owner{TenantID: k.TenantID, Tier: k.Tier, RequestID: appliance.ActorFrom(ctx).RequestID}, reqs, best)
	if err != nil {
		return m, err
	}
	kind := "single"
	if best {
		kind = "best_server"
	}
	return s.audit(ctx, k, m, kind, spec.Engine, len(reqs))
}

// StartComputed starts a computed map of kind (Maps.StartComputedFor:
// reqs describe its transmitters, c computes it) for k and audits it as
// Start does.
func (s *Starter) StartComputed(ctx context.Context, k *appliance.APIKey, kind string, reqs []Request, c Computer) (*Map, error) {
	m, err := s.Maps.StartComputedFor(Owner{TenantID: k.TenantID, Tier: k.Tier, RequestID: appliance.ActorFrom(ctx).RequestID}, kind, reqs, c)
	if err != nil {
		return m, err
	}
	engine := appliance.EngineID("")
	if len(reqs) > 0 {
		engine = reqs[0].Engine
	}
	return s.audit(ctx, k, m, kind, engine, len(reqs))
}

// audit records a started map (coverage.map.start); a map whose entry
// cannot be written is canceled and the start fails.
func (s *Starter) audit(ctx context.Context, k *appliance.APIKey, m *Map, kind string, engine appliance.EngineID, n int) (*Map, error) {
	if s.Audit == nil {
		return m, nil
	}
	e := appliance.ActorFrom(ctx).Entry(appliance.ActionMapStart, k.TenantID, map[string]string{"map_id": m.ID, "kind": kind,
		"engine": string(engine), "transmitters": strconv.Itoa(n)})
	if _, err := s.Audit(e); err != nil {
		m.cancel() // the map stays listed, canceled; nobody learns its id
		return nil, fmt.Errorf("start map: audit: %w", err)
	}
	return m, nil
}

// Requests resolves spec for k into the requests of a map (Start's
// rules: defaults, the tier's caps, towers in the key's scope, antennas,
// the tenant's calibration) without starting it.
func (s *Starter) Requests(k *appliance.APIKey, spec Spec, best bool) ([]Request, error) {
	caps := CapsFor(k.Tier)
	v := &appliance.ValidationError{}
	if spec.RadiusM == 0 {
		spec.RadiusM = math.Min(DefaultRadiusM, caps.MaxRadiusM)
	}
	if spec.RxHeightM == 0 {
		spec.RxHeightM = DefaultRxHeightM
	}
	if spec.ResolutionM == 0 {
		spec.ResolutionM = math.Max(DefaultResolutionM, caps.MinResolutionM)
	}
	if spec.RadiusM > caps.MaxRadiusM {
		v.Add("radius_km", "%g km exceeds the %s tier's cap of %g km", spec.RadiusM/1000, k.Tier, caps.MaxRadiusM/1000)
	}
	if spec.ResolutionM < caps.MinResolutionM {
		v.Add("resolution_m", "%g m is finer than the %s tier allows (%g m)", spec.ResolutionM, k.Tier, caps.MinResolutionM)
	}
	if best && caps.MaxServers == 0 {
		return nil, fmt.Errorf("best-server maps need the Starter tier or above (key tier %s): %w", k.Tier, appliance.ErrForbidden)
	}
	tx, err := s.transmitters(k, spec, best, caps, v)
	if err != nil {
		return nil, err
	}
	if spec.Exact {
		switch px := ExactPixels(spec.RadiusM, spec.ResolutionM, len(tx)); {
		case caps.MaxExactPixels == 0:
			v.Add("exact", "exact maps need the Starter tier or above (key tier %s)", k.Tier)
		case px > float64(caps.MaxExactPixels):
			v.Add("exact", "an exact map of %.0f pixels exceeds the %s tier's cap of %d pixels: use a smaller radius, a coarser resolution or the default mode",
				px, k.Tier, caps.MaxExactPixels)
		}
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	reqs := make([]Request, len(tx))
	var cal *appliance.TenantCalibration
	if s.Calibrations != nil {
		cal = s.Calibrations.Calibration(k.TenantID)
	}
	engine := spec.Engine
	if engine == "" {
		engine = appliance.EngineFSPL
	}
	for i, t := range tx {
		reqs[i] = Request{Tx: t.Pos, TxHeightM: t.HeightM, EIRPDBm: t.EIRPDBm, AzimuthDeg: t.AzimuthDeg, BeamwidthDeg: t.BeamwidthDeg, Radiator: t.Radiator,
			FreqMHz: spec.FreqMHz, RadiusM: spec.RadiusM, RxHeightM: spec.RxHeightM, Engine: spec.Engine, ResolutionM: spec.ResolutionM,
			Transmitter: t.Transmitter, EngineNote: spec.EngineNote, Exact: spec.Exact}
		// The tenant's calibration of this transmitter (never another
		// tenant's: the key's own).
		if ct := cal.For(engine, t.Transmitter.TowerID, t.Pos, spec.FreqMHz); ct != nil {
			reqs[i].Calibration = ct
			reqs[i].Transmitter.Calibration = MapCalibrationOf(ct)
		}
	}
	return reqs, nil
}

// ExactPixels is the size of an exact map for the tier cap: the pixels
// within the radius (metres), π·radius²/resolution² (resolution in
// metres), times the transmitters.
func ExactPixels(radiusM, resolutionM float64, transmitters int) float64 {
	return math.Pi * radiusM * radiusM / (resolutionM * resolutionM) * float64(transmitters)
}

// transmitters resolves the spec's transmitters; field problems go to v.
func (s *Starter) transmitters(k *appliance.APIKey, spec Spec, best bool, caps TierCaps, v *appliance.ValidationError) ([]Site, error) {
	idx := s.Towers()
	site := func(t *appliance.Tower) Site {
		eirp := DefaultEIRPDBm
		if t.HasERP() {
			eirp = t.ERPDBm + 2.15
		}
		st := Site{Pos: t.Pos(), HeightM: t.HeightM, EIRPDBm: eirp, AzimuthDeg: t.AzimuthDeg, Transmitter: TowerTransmitter(t)}
		if t.AntennaID != "" || !math.IsNaN(t.TiltDeg) || t.BeamwidthDeg > 0 || t.FrontBackDB > 0 {
			r, w := appliance.TowerRadiator(t, s.Antennas)
			st.Radiator = &r
			if w != nil {
				st.Transmitter.AntennaWarning = w.Message
			}
		}
		return st
	}
	var out []Site
	switch {
	case !best && spec.Site != nil && len(spec.TowerIDs) == 0:
		st := *spec.Site
		s.siteRadiator(k.TenantID, &st, v)
		return []Site{st}, nil
	case !best && len(spec.TowerIDs) == 1 && spec.Site == nil:
	case !best:
		v.Add("tower_id", "give either tower_id or site")
		return nil, nil
	case spec.BBox != nil && len(spec.TowerIDs) == 0:
		for _, t := range idx.InBox(*spec.BBox) {
			if t.VisibleTo(k.TenantID) && (spec.Operator == "" || strings.EqualFold(t.Operator, spec.Operator)) {
				out = append(out, site(t))
			}
		}
		if len(out) == 0 {
			v.Add("bbox", "no tower in the box for this key%s", map[bool]string{true: " and operator " + spec.Operator, false: ""}[spec.Operator != ""])
		}
		if len(out) > caps.MaxServers {
			v.Add("bbox", "%d towers in the box; the %s tier's best-server maps take at most %d (narrow the box or set operator)", len(out), k.Tier, caps.MaxServers)
		}
		return out, nil
	case len(spec.TowerIDs) > 0 && spec.BBox == nil:
		if len(spec.TowerIDs) > caps.MaxServers {
			v.Add("tower_ids", "%d towers; the %s tier's best-server maps take at most %d", len(spec.TowerIDs), k.Tier, caps.MaxServers)
			return nil, nil
		}
	default:
		v.Add("tower_ids", "give either tower_ids or bbox")
		return nil, nil
	}
	field := "tower_id"
	if best {
		field = "tower_ids"
	}
	for i, id := range spec.TowerIDs {
		t, ok := idx.Get(id)
		if !ok || !t.VisibleTo(k.TenantID) {
			f := field
			if best {
				f += "[" + strconv.Itoa(i) + "]"
			}
			v.Add(f, "unknown tower %q", id)
			continue
		}
		out = append(out, site(t))
	}
	return out, nil
}

// Get returns tenant's map (Maps.Get).
func (s *Starter) Get(tenantID, id string) (*Map, error) { return s.Maps.Get(tenantID, id) }

// siteRadiator resolves an explicit site's antenna: the catalogue antenna
// it names (as tenantID sees it; an unknown one is a field error, a
// directional one needs the azimuth) with its tilt as the mechanical
// downtilt, else the generic sector with its beamwidth and tilt when the
// tilt is given; nothing for the plain generic sector.
func (s *Starter) siteRadiator(tenantID string, st *Site, v *appliance.ValidationError) {
	tilt := math.NaN()
	if st.TiltDeg != nil {
		tilt = *st.TiltDeg
		if !finite(tilt) || tilt < -90 || tilt > 90 {
			v.Add("site.tilt_deg", "must be a downtilt of -90..90 degrees, got %g", tilt)
			return
		}
	}
	switch {
	case st.AntennaID != "":
		if s.Antennas == nil {
			v.Add("site.antenna_id", "the equipment catalogue is not configured on this appliance")
			return
		}
		a, err := s.Antennas.Antenna(tenantID, st.AntennaID)
		if err != nil {
			v.Add("site.antenna_id", "no antenna %q in the catalogue of this tenant (GET /equipment/antennas lists them)", st.AntennaID)
			return
		}
		if a.Directional() && math.IsNaN(st.AzimuthDeg) {
			v.Add("site.azimuth_deg", "is required with the directional antenna %s", st.AntennaID)
			return
		}
		r := a.Radiator(st.AzimuthDeg, tilt)
		st.Radiator = &r
	case !math.IsNaN(tilt):
		r := appliance.NewGenericRadiator(appliance.GenericSector{HBeamwidthDeg: st.BeamwidthDeg}, st.AzimuthDeg, tilt)
		st.Radiator = &r
	}
}
