package raytracing

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"linkplan/appliance"
	"linkplan/appliance/planner"
)

// towerLink is the link of tower t to the receiver with the planner's
// budget: the tower's EIRP (ERP + 2.15 dB) or the assumed one, its
// antenna's loss toward the receiver (the planner's: the catalogue
// antenna, tilt, beamwidth and front-to-back ratio of its record as its
// appliance.Radiator, at the direct bearing and at the elevation its
// antenna sees the receiver's from; else the generic sector, which has
// no vertical pattern), and its caveats (planner.TowerWarnings; an
// unreadable catalogue antenna: antenna_unavailable).
func (s *Service) towerLink(t *appliance.Tower, rx Site, gain, cable, threshold, assumedEIRP float64) Link {
	l := Link{TowerID: t.ID, Operator: t.Operator, Tx: Site{Lat: t.Lat, Lon: t.Lon, HeightM: t.HeightM}, Rx: rx, Budget: true,
		RxGainDBi: gain, CableLossDB: cable, RxThresholdDBm: threshold}
	if t.HeightM <= 0 {
		l.Tx.HeightM = 30 // the planner's height of a tower without one
	}
	if t.HasERP() {
		l.EIRPDBm = t.ERPDBm + 2.15
	} else {
		l.EIRPDBm, l.EIRPAssumed = assumedEIRP, true
	}
	distM := t.Pos().DistanceM(rx.pos())
	l.Warnings = planner.TowerWarnings(t, l.EIRPAssumed, l.EIRPDBm, distM/1000)
	l.Standing = planner.TowerStanding(t, distM/1000).String()
	bearing := t.Pos().BearingDeg(rx.pos())
	elev := s.elevationDownDeg(t.Pos(), l.Tx.HeightM, rx.pos(), rx.HeightM)
	l.TowerElevationDeg = &elev
	switch {
	case planner.HasRadiator(t):
		r, w := appliance.TowerRadiator(t, s.Antennas)
		l.PatternLossDB, l.Antenna = r.LossDB(bearing, elev), r.Label()
		if w != nil {
			l.Warnings = append(l.Warnings, *w)
		}
	case math.IsNaN(t.AzimuthDeg):
		l.Antenna = "omnidirectional"
	default:
		l.PatternLossDB, l.Antenna = planner.PatternLossDB(t.AzimuthDeg, bearing), planner.LegacySector
	}
	return l
}

// elevationDownDeg is the angle below the horizontal at which an antenna
// hTx metres above the ground at tx sees one hRx metres above the ground
// at rx, degrees (appliance.ElevationDownDeg, k = 4/3), on the terrain;
// where the terrain gives no height at either end, on flat ground, as the
// layer's scene then is.
func (s *Service) elevationDownDeg(tx appliance.LatLon, hTx float64, rx appliance.LatLon, hRx float64) float64 {
	g := s.ground(tx)
	return appliance.ElevationDownDeg(g.at(tx)+hTx, g.at(rx)+hRx, tx.DistanceM(rx))
}

// groundFrom reads the ground heights of the elevations from one
// transmitter: the terrain's, or flat ground where it has none (at the
// transmitter: every receiver at 0 m as the transmitter; at a receiver:
// that receiver level with the transmitter's ground).
type groundFrom struct {
	t    Ground
	txM  float64
	flat bool
}

// ground returns the ground reader of a transmitter at tx.
func (s *Service) ground(tx appliance.LatLon) *groundFrom {
	g := &groundFrom{t: s.Terrain, flat: s.Terrain == nil}
	if !g.flat {
		z, err := s.Terrain.ElevationM(tx)
		g.txM, g.flat = z, err != nil
	}
	return g
}

// at is the ground at p, metres.
func (g *groundFrom) at(p appliance.LatLon) float64 {
	if g.flat {
		return 0
	}
	z, err := g.t.ElevationM(p)
	if err != nil {
		return g.txM // no height at p: level with the transmitter's ground
	}
	return z
}

// SubmitAnalyzeLink is engine "raytrace" on POST /analyze_link: the towers
// visible to the tenant within MaxDistanceKm of the receiver (of
// Operator, when given) that lie within the layer's traced frame, the
// nearest MaxLinks of them, each a link with the request's budget. The
// towers beyond the frame are counted in a warning. given lists the
// optional request members the caller gave (by their JSON names);
// max_alternatives and include (every traced tower is a link; its paths,
// not a profile, are the answer) are each named in a parameter_ignored
// warning when given.
func (s *Service) SubmitAnalyzeLink(ctx context.Context, k *appliance.APIKey, req appliance.LinkRequest, layerID string, opt appliance.RaytraceOptions, warnings []appliance.Warning, given []string) (*appliance.Job, error) {
	if err := allowed(k); err != nil {
		return nil, err
	}
	if err := planner.Validate(&req); err != nil {
		return nil, err
	}
	ly, err := s.layerOf(ctx, k, k.TenantID, layerID, "raytrace.layer_id")
	if err != nil {
		return nil, err
	}
	f := ly.frame
	v := &appliance.ValidationError{}
	inFrame(v, "receiver", f, req.Receiver)
	if err := v.Err(); err != nil {
		return nil, err
	}
	rx := Site{Lat: req.Receiver.Lat, Lon: req.Receiver.Lon, HeightM: req.RxHeightM}
	var links []Link
	beyond, more := 0, 0
	for _, t := range s.Towers().Within(req.Receiver, req.MaxDistanceKm*1000) {
		if !t.VisibleTo(k.TenantID) || req.Operator != "" && !strings.EqualFold(t.Operator, req.Operator) {
			continue
		}
		if x, y := f.ToLocal(t.Pos()); math.Hypot(x, y) > appliance.RaytraceMaxFrameM {
			beyond++
			continue
		}
		if _, _, close := tooClose(s.Terrain, Site{Lat: t.Lat, Lon: t.Lon, HeightM: t.HeightM}, rx, req.FreqMHz); close {
			continue // within a wavelength (plus 0.5 m) of the receiver: nothing to trace
		}
		if len(links) == MaxLinks {
			more++
			continue
		}
		links = append(links, s.towerLink(t, rx, req.RxGainDBi, req.CableLossDB, req.RxThresholdDBm, req.AssumedEIRPDBm))
	}
	if beyond > 0 {
		warnings = append(warnings, appliance.Warning{Code: WarnTowersBeyondLayer, Message: fmt.Sprintf(
			"%d towers within max_distance_km lie more than %g m from the building layer's centre and were not traced", beyond, appliance.RaytraceMaxFrameM)})
	}
	if more > 0 {
		warnings = append(warnings, appliance.Warning{Code: WarnTowersLimited, Message: fmt.Sprintf(
			"the %d nearest towers were traced; %d farther ones were not (at most %d a job)", MaxLinks, more, MaxLinks)})
	}
	if len(links) == 0 {
		return nil, appliance.Invalid("receiver", "no tower visible to this key within max_distance_km (%g km) of the receiver lies within the building layer's traced frame", req.MaxDistanceKm)
	}
	if slices.Contains(given, "max_alternatives") {
		warnings = append(warnings, appliance.Warning{Code: appliance.WarnParameterIgnored, Message: fmt.Sprintf(
			"the raytrace engine returns every traced tower as a link, ranked (best names the best): max_alternatives %d was ignored", req.MaxAlternatives)})
	}
	if slices.Contains(given, "include") {
		warnings = append(warnings, appliance.Warning{Code: appliance.WarnParameterIgnored,
			Message: `the raytrace engine answers with each link's traced paths, not a terrain profile's path check: include ["profile"] was ignored`})
	}
	return s.SubmitLinks(ctx, k, LinkRequest{Route: RouteAnalyzeLink, LayerID: layerID, FreqMHz: req.FreqMHz, Options: opt, Links: links, Warnings: warnings})
}

// Warning codes of raytrace link jobs.
const (
	WarnTowersBeyondLayer = "raytrace_towers_beyond_layer"
	WarnTowersLimited     = "raytrace_towers_limited"
)

// SubmitPair is engine "raytrace" on POST /analyze: one tower (by id,
// visible to the tenant, or given in the request) to one receiver, with
// the budget.
func (s *Service) SubmitPair(ctx context.Context, k *appliance.APIKey, req appliance.PairRequest, layerID string, opt appliance.RaytraceOptions, warnings []appliance.Warning) (*appliance.Job, error) {
	if err := allowed(k); err != nil {
		return nil, err
	}
	if err := planner.ValidatePair(&req); err != nil {
		return nil, err
	}
	t := req.Tower
	if req.TowerID != "" {
		var ok bool
		if t, ok = s.Towers().Get(req.TowerID); !ok || !t.VisibleTo(k.TenantID) {
			return nil, fmt.Errorf("tower %q: %w", req.TowerID, appliance.ErrNotFound)
		}
	}
	if t == nil {
		return nil, appliance.Invalid("tower_id", "either tower_id or tower is required")
	}
	if sep, limit, close := tooClose(s.Terrain, Site{Lat: t.Lat, Lon: t.Lon, HeightM: t.HeightM}, Site{Lat: req.Receiver.Lat, Lon: req.Receiver.Lon, HeightM: req.RxHeightM}, req.FreqMHz); close {
		return nil, appliance.Invalid("receiver", "%s", tooCloseReason(sep, limit))
	}
	for _, p := range []struct {
		name string
		v    float64
	}{{"time_pct", req.TimePct}, {"location_pct", req.LocationPct}} {
		if p.v != 0 { // 0: absent
			warnings = append(warnings, appliance.Warning{Code: appliance.WarnParameterIgnored, Message: fmt.Sprintf(
				"the raytrace engine traces the paths of one geometry, without time or location variability: %s %g was ignored", p.name, p.v)})
		}
	}
	rx := Site{Lat: req.Receiver.Lat, Lon: req.Receiver.Lon, HeightM: req.RxHeightM}
	l := s.towerLink(t, rx, req.RxGainDBi, req.CableLossDB, req.RxThresholdDBm, req.AssumedEIRPDBm)
	return s.SubmitLinks(ctx, k, LinkRequest{Route: RouteAnalyze, LayerID: layerID, FreqMHz: req.FreqMHz, Options: opt, Links: []Link{l}, Warnings: warnings})
}

// SubmitCase is engine "raytrace" on POST /coverage/engines/predict: the
// loss of one path between two terminals (no budget). The case's members
// the engine has no use for (c.Tuning: time_pct, location_pct, step_m and
// the other engines' parameters) are each named in a parameter_ignored
// warning the result carries.
func (s *Service) SubmitCase(ctx context.Context, k *appliance.APIKey, c appliance.EngineCaseSummary, layerID string, opt appliance.RaytraceOptions) (*appliance.Job, error) {
	if err := allowed(k); err != nil {
		return nil, err
	}
	tx := Site{Lat: c.Tx.Lat, Lon: c.Tx.Lon, HeightM: c.TxHeightM}
	rx := Site{Lat: c.Rx.Lat, Lon: c.Rx.Lon, HeightM: c.RxHeightM}
	if sep, limit, close := tooClose(s.Terrain, tx, rx, c.FrequencyMHz); close {
		return nil, appliance.Invalid("rx", "%s", tooCloseReason(sep, limit))
	}
	var warnings []appliance.Warning
	for _, name := range c.Tuning {
		why := "it has no use for the other engines' parameters"
		switch name {
		case "time_pct", "location_pct":
			why = "one geometry's paths have no time or location variability"
		case "step_m":
			why = "it traces over the scene's terrain heightfield, not a sampled profile"
		}
		warnings = append(warnings, appliance.Warning{Code: appliance.WarnParameterIgnored, Message: fmt.Sprintf(
			"the raytrace engine ignored %s: %s", name, why)})
	}
	return s.SubmitLinks(ctx, k, LinkRequest{Route: RouteEnginesPredict, LayerID: layerID, FreqMHz: c.FrequencyMHz, Options: opt, Links: []Link{{Tx: tx, Rx: rx}}, Warnings: warnings})
}
