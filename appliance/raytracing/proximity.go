package raytracing

import (
	"fmt"
	"math"

	"linkplan/appliance"
)

// speedOfLightMS is the speed of light in vacuum, m/s.
const speedOfLightMS = 299792458

// minSeparationMarginM is added to one wavelength in tooClose: the engine
// refuses a receiver within one wavelength of the transmitter on its own
// sampled ground, which may differ from the terrain read here by a few
// decimetres, and a queued link must never be refused when it runs.
const minSeparationMarginM = 0.5

// tooClose reports whether a link's ends are too close to trace: within
// one wavelength plus minSeparationMarginM, in 3D over the ground (the
// far-field ray model does not hold there), and the separation, metres,
// and the limit. ground nil: flat. At a frequency outside the engine's
// range nothing is too close: the frequency is refused on its own.
func tooClose(ground Ground, tx, rx Site, freqMHz float64) (sepM, limitM float64, close bool) {
	if !(freqMHz >= appliance.RaytraceMinFreqMHz && freqMHz <= appliance.RaytraceMaxFreqMHz) {
		return 0, 0, false // the frequency is refused on its own
	}
	limitM = speedOfLightMS/(freqMHz*1e6) + minSeparationMarginM
	dz := tx.HeightM - rx.HeightM
	if ground != nil {
		gt, errT := ground.ElevationM(tx.pos())
		gr, errR := ground.ElevationM(rx.pos())
		if errT == nil && errR == nil && !math.IsNaN(gt) && !math.IsNaN(gr) {
			dz += gt - gr
		}
	}
	sepM = math.Hypot(tx.pos().DistanceM(rx.pos()), dz)
	return sepM, limitM, sepM < limitM
}

// tooCloseReason is the reason of a refusal by tooClose.
func tooCloseReason(sepM, limitM float64) string {
	return fmt.Sprintf("is %.2f m from the transmitter, within one wavelength plus %g m (%.2f m): the ray model (far field) does not apply", sepM, minSeparationMarginM, limitM)
}
