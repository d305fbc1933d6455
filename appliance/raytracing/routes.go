package raytracing

import (
	"context"
	"fmt"
	"math"
	"strings"

	"linkplan/appliance"
	"linkplan/appliance/planner"
)

// towerLink is the link of tower t to the receiver with the planner's
// budget: the tower's EIRP (ERP + 2.15 dB) or the assumed one, its sector
// pattern toward the receiver, and its caveats.
func towerLink(t *appliance.Tower, rx Site, gain, cable, threshold, assumedEIRP float64) Link {
	l := Link{TowerID: t.ID, Operator: t.Operator, Tx: Site{Lat: t.Lat, Lon: t.Lon, HeightM: t.HeightM}, Rx: rx, Budget: true,
		RxGainDBi: gain, CableLossDB: cable, RxThresholdDBm: threshold}
	if t.HasERP() {
		l.EIRPDBm = t.ERPDBm + 2.15
	} else {
		l.EIRPDBm, l.EIRPAssumed = assumedEIRP, true
		l.Warnings = append(l.Warnings, appliance.Warning{Code: appliance.WarnEIRPAssumed,
			Message: fmt.Sprintf("the tower has no ERP in its source: an EIRP of %.1f dBm is assumed; every level moves dB for dB with the real EIRP", assumedEIRP)})
	}
	if t.Synthetic {
		l.Warnings = append(l.Warnings, appliance.Warning{Code: appliance.WarnSyntheticTower, Message: "the tower is synthetic sample data, not real infrastructure"})
	}
	l.PatternLossDB = planner.PatternLossDB(t.AzimuthDeg, t.Pos().BearingDeg(rx.pos()))
	if t.HeightM <= 0 {
		l.Tx.HeightM = 30 // the planner's height of a tower without one
	}
	return l
}

// SubmitAnalyzeLink is engine "raytrace" on POST /analyze_link: the towers
// visible to the tenant within MaxDistanceKm of the receiver (of
// Operator, when given) that lie within the layer's traced frame, the
// nearest MaxLinks of them, each a link with the request's budget. The
// towers beyond the frame are counted in a warning.
func (s *Service) SubmitAnalyzeLink(ctx context.Context, k *appliance.APIKey, req appliance.LinkRequest, layerID string, opt appliance.RaytraceOptions, warnings []appliance.Warning) (*appliance.Job, error) {
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
		if t.Pos().DistanceM(req.Receiver) < 1 {
			continue
		}
		if len(links) == MaxLinks {
			more++
			continue
		}
		links = append(links, towerLink(t, rx, req.RxGainDBi, req.CableLossDB, req.RxThresholdDBm, req.AssumedEIRPDBm))
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
	if t.Pos().DistanceM(req.Receiver) < 1 {
		return nil, appliance.Invalid("receiver", "is within 1 m of the tower: no path to analyse")
	}
	rx := Site{Lat: req.Receiver.Lat, Lon: req.Receiver.Lon, HeightM: req.RxHeightM}
	l := towerLink(t, rx, req.RxGainDBi, req.CableLossDB, req.RxThresholdDBm, req.AssumedEIRPDBm)
	return s.SubmitLinks(ctx, k, LinkRequest{Route: RouteAnalyze, LayerID: layerID, FreqMHz: req.FreqMHz, Options: opt, Links: []Link{l}, Warnings: warnings})
}

// SubmitCase is engine "raytrace" on POST /coverage/engines/predict: the
// loss of one path between two terminals (no budget).
func (s *Service) SubmitCase(ctx context.Context, k *appliance.APIKey, tx, rx Site, freqMHz float64, layerID string, opt appliance.RaytraceOptions) (*appliance.Job, error) {
	if err := allowed(k); err != nil {
		return nil, err
	}
	if tx.pos().DistanceM(rx.pos()) < 0.01 {
		return nil, appliance.Invalid("rx", "is at the transmitter: no path to trace")
	}
	return s.SubmitLinks(ctx, k, LinkRequest{Route: RouteEnginesPredict, LayerID: layerID, FreqMHz: freqMHz, Options: opt, Links: []Link{{Tx: tx, Rx: rx}}})
}
