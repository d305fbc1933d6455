package planner

import (
	"context"
	"errors"
	"fmt"
	"math"

	"linkplan/appliance"
)

// ValidatePair checks a pair request and names every bad field.
func ValidatePair(r *appliance.PairRequest) error {
	lr := appliance.LinkRequest{Receiver: r.Receiver, RxHeightM: r.RxHeightM, FreqMHz: r.FreqMHz,
		MaxDistanceKm: 1, RxGainDBi: r.RxGainDBi, CableLossDB: r.CableLossDB, RxThresholdDBm: r.RxThresholdDBm,
		AssumedEIRPDBm: r.AssumedEIRPDBm}
	v := &appliance.ValidationError{}
	var ve *appliance.ValidationError
	if err := Validate(&lr); errors.As(err, &ve) {
		v.Merge(ve)
	}
	if r.TowerID == "" && r.Tower == nil {
		v.Add("tower_id", "either tower_id or tower is required")
	}
	for _, p := range []struct {
		name string
		v    float64
	}{{"time_pct", r.TimePct}, {"location_pct", r.LocationPct}} {
		if math.IsNaN(p.v) || p.v < 0 || p.v >= 100 {
			v.Add(p.name, "must be a percentage 0 < p < 100 (0 or absent: 50), got %g", p.v)
		}
	}
	return v.Err()
}

// AnalyzePair computes the link budget of one tower–receiver pair with the
// requested engine.
func (p *Planner) AnalyzePair(ctx context.Context, req appliance.PairRequest) (*appliance.LinkCandidate, error) {
	if err := ValidatePair(&req); err != nil {
		return nil, fmt.Errorf("analyze pair: %w", err)
	}
	t := req.Tower
	if req.TowerID != "" {
		var ok bool
		if t, ok = p.Towers().Get(req.TowerID); !ok || !t.VisibleTo(req.TenantID) {
			return nil, fmt.Errorf("tower %q: %w", req.TowerID, appliance.ErrNotFound)
		}
	}
	eng, err := p.Engine(req.Engine)
	if err != nil {
		return nil, fmt.Errorf("analyze pair: %w", err)
	}
	if _, err := p.Terrain.ElevationM(req.Receiver); err != nil {
		return nil, fmt.Errorf("analyze pair: receiver terrain: %w", err)
	}
	c := cand{t: t, distM: req.Receiver.DistanceM(t.Pos())}
	if c.distM < 1 {
		return nil, appliance.Invalid("receiver", "is within 1 m of the tower: no path to analyse")
	}
	c.bearRx = req.Receiver.BearingDeg(t.Pos())
	c.bearTx = t.Pos().BearingDeg(req.Receiver)
	if t.HasERP() {
		c.eirp = t.ERPDBm + 2.15
	} else {
		c.eirp, c.assumed = req.AssumedEIRPDBm, true
	}
	if HasRadiator(t) {
		r, w := appliance.TowerRadiator(t, p.Antennas)
		c.rad, c.radWarn = &r, w
	}
	c.pattern = c.horizontalPattern()
	p.calibrate(&c, req.TenantID, eng.ID(), req.FreqMHz, req.Receiver)
	lr := appliance.LinkRequest{Receiver: req.Receiver, RxHeightM: req.RxHeightM, FreqMHz: req.FreqMHz,
		RxGainDBi: req.RxGainDBi, CableLossDB: req.CableLossDB, RxThresholdDBm: req.RxThresholdDBm, IncludeProfile: true}
	lc, err := p.evaluateWith(ctx, eng, lr, c, req.TimePct, req.LocationPct)
	if err != nil {
		return nil, fmt.Errorf("analyze pair: %w", err)
	}
	return &lc, nil
}

// PhysicsConfidence is the documented prior confidence (0..1) of a result
// from a deterministic physics engine, reported as "confidence" when no
// learned model is involved. It is an ordinal grade of the method, not a
// calibrated probability: 0.55 for fspl (SPEC §2.4: the FSPL fallback),
// 0.60 for P.1411 site-general medians, 0.65 for ITM and the hybrid, 0.70
// for P.1812. Calibrated bands come with the learned residual model.
func PhysicsConfidence(id appliance.EngineID) float64 {
	switch id {
	case appliance.EngineP1812:
		return 0.70
	case appliance.EngineITM, appliance.EngineHybrid:
		return 0.65
	case appliance.EngineP1411:
		return 0.60
	}
	return 0.55
}
