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
// resolution no finer than MinResolutionM, and an exact map (Request's
// transmitters Exact) within MaxExactPixels counted as an exact
// best-server map is (coverage.ExactPixels summed over the
// transmitters, each with its own radius) (appliance.ErrInvalid naming
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
	if req.exact() {
		px := 0.0
		for _, t := range req.Transmitters {
			px += coverage.ExactPixels(t.RadiusM, t.ResolutionM, 1)
		}
		exactCap(v, tier, caps, px)
	}
	if err := v.Err(); err != nil {
		return fmt.Errorf("interference map: %w", err)
	}
	return nil
}

// exactCap names the field exact when an exact map of px pixels
// (coverage.ExactPixels) exceeds the tier's MaxExactPixels, as
// coverage.Starter does for heatmaps.
func exactCap(v *appliance.ValidationError, tier appliance.Tier, caps coverage.TierCaps, px float64) {
	switch {
	case caps.MaxExactPixels == 0:
		v.Add("exact", "exact maps need the Starter tier or above (key tier %s)", tier)
	case px > float64(caps.MaxExactPixels):
		v.Add("exact", "an exact map of %.0f pixels exceeds the %s tier's cap of %d pixels: use a smaller radius, a coarser resolution or the default mode",
			px, tier, caps.MaxExactPixels)
	}
}

// CheckViewshedCaps checks a viewshed against the tier's heatmap caps:
// radius within MaxRadiusM, resolution no finer than MinResolutionM, and
// an exact viewshed within MaxExactPixels as an exact heatmap of one
// transmitter (coverage.ExactPixels).
func CheckViewshedCaps(tier appliance.Tier, req coverage.ViewshedRequest) error {
	caps := coverage.CapsFor(tier)
	v := &appliance.ValidationError{}
	if req.Exact {
		exactCap(v, tier, caps, coverage.ExactPixels(req.RadiusM, req.ResolutionM, 1))
	}
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
