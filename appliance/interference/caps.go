package interference

import (
	"fmt"
	"strconv"

	"linkplan/appliance"
	"linkplan/appliance/coverage"
)

// CheckCaps checks an interference map against the tier's map caps
// (coverage.CapsFor, those of best-server maps): at most MaxServers
// transmitters (a tier without best-server maps has no interference maps:
// appliance.ErrForbidden), each radius within MaxRadiusM and the
// resolution no finer than MinResolutionM (appliance.ErrInvalid naming
// the field).
func CheckCaps(tier appliance.Tier, req Request) error {
	caps := coverage.CapsFor(tier)
	if caps.MaxServers == 0 {
		return fmt.Errorf("interference map: the %s tier has no multi-transmitter maps: %w", tier, appliance.ErrForbidden)
	}
	v := &appliance.ValidationError{}
	if n := len(req.Transmitters); n > caps.MaxServers {
		v.Add("sites", "%d transmitters exceed the %s tier's cap of %d", n, tier, caps.MaxServers)
	}
	for i, t := range req.Transmitters {
		f := "sites[" + strconv.Itoa(i) + "]."
		if t.RadiusM > caps.MaxRadiusM {
			v.Add(f+"radius_km", "%g km exceeds the %s tier's cap of %g km", t.RadiusM/1000, tier, caps.MaxRadiusM/1000)
		}
		if t.ResolutionM < caps.MinResolutionM {
			v.Add(f+"resolution_m", "%g m is finer than the %s tier allows (%g m)", t.ResolutionM, tier, caps.MinResolutionM)
		}
	}
	if err := v.Err(); err != nil {
		return fmt.Errorf("interference map: %w", err)
	}
	return nil
}

// CheckViewshedCaps checks a viewshed against the tier's heatmap caps:
// radius within MaxRadiusM, resolution no finer than MinResolutionM.
func CheckViewshedCaps(tier appliance.Tier, req coverage.ViewshedRequest) error {
	caps := coverage.CapsFor(tier)
	v := &appliance.ValidationError{}
	if req.RadiusM > caps.MaxRadiusM {
		v.Add("radius_km", "%g km exceeds the %s tier's cap of %g km", req.RadiusM/1000, tier, caps.MaxRadiusM/1000)
	}
	if req.ResolutionM < caps.MinResolutionM {
		v.Add("resolution_m", "%g m is finer than the %s tier allows (%g m)", req.ResolutionM, tier, caps.MinResolutionM)
	}
	if err := v.Err(); err != nil {
		return fmt.Errorf("viewshed: %w", err)
	}
	return nil
}
