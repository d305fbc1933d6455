package radio

import "math"

// SpeedOfLightMS is the speed of light in vacuum, m/s.
const SpeedOfLightMS = 299792458.0

// EarthRadiusM is the mean Earth radius a used by the k-factor geometry, metres.
const EarthRadiusM = 6371000.0

// WavelengthM returns the free-space wavelength λ = c/f in metres for a
// frequency in MHz.
func WavelengthM(freqMHz float64) float64 {
	return SpeedOfLightMS / (freqMHz * 1e6)
}

// FreeSpaceLossDB returns the basic free-space transmission loss in dB of
// ITU-R P.525: 32.4 + 20·log10(f/MHz) + 20·log10(d/km).
func FreeSpaceLossDB(freqMHz, distKm float64) float64 {
	return 32.4 + 20*math.Log10(freqMHz) + 20*math.Log10(distKm)
}

// FreeSpaceLossExactDB returns the basic free-space transmission loss in dB
// evaluated exactly as 20·log10(4πd/λ) with c = SpeedOfLightMS (equivalent to
// a constant of 32.4478 in the P.525 form).
func FreeSpaceLossExactDB(freqMHz, distKm float64) float64 {
	return 20 * math.Log10(4*math.Pi*distKm*1e3/WavelengthM(freqMHz))
}

// KnifeEdgeLossDB returns the single knife-edge diffraction loss J(ν) in dB of
// ITU-R P.526 eq. (26), computed exactly from the Fresnel integrals:
//
//	J(ν) = −20·log10( √((1−C(ν)−S(ν))² + (C(ν)−S(ν))²) / 2 )
//
// J(0) = 6.0206 dB; J is negative (a gain) where the field oscillates for
// ν < about −0.7 and tends to 0 as ν → −∞.
func KnifeEdgeLossDB(nu float64) float64 {
	c, s := FresnelIntegrals(nu)
	a := 1 - c - s
	b := c - s
	return -20 * math.Log10(math.Sqrt(a*a+b*b)/2)
}

// KnifeEdgeLossApproxDB returns the approximation of J(ν) in dB of ITU-R P.526
// eq. (31), the form P.1812 and P.452 use:
// 6.9 + 20·log10(√((ν−0.1)²+1) + ν − 0.1) for ν > −0.78, otherwise 0.
func KnifeEdgeLossApproxDB(nu float64) float64 {
	if !(nu > -0.78) {
		return 0
	}
	v := nu - 0.1
	return 6.9 + 20*math.Log10(math.Sqrt(v*v+1)+v)
}

// FresnelRadiusM returns the radius in metres of the first Fresnel zone,
// √(λ·d1·d2/(d1+d2)), at a point d1M metres from one terminal and d2M metres
// from the other, for a frequency in MHz.
func FresnelRadiusM(freqMHz, d1M, d2M float64) float64 {
	return math.Sqrt(WavelengthM(freqMHz) * d1M * d2M / (d1M + d2M))
}

// EffectiveEarthRadiusM returns the effective Earth radius k·a in metres, with
// a = EarthRadiusM (6 371 km) and k the dimensionless k-factor.
func EffectiveEarthRadiusM(k float64) float64 {
	return k * EarthRadiusM
}

// EarthBulgeM returns the height in metres of the effective Earth's surface
// above the chord joining the two terminals' sea-level points, at a point
// d1M metres from one end and d2M metres from the other: d1·d2/(2·k·a).
func EarthBulgeM(d1M, d2M, k float64) float64 {
	return d1M * d2M / (2 * EffectiveEarthRadiusM(k))
}

// KnifeEdgeNu returns the dimensionless diffraction parameter of ITU-R P.526
// eq. (27), ν = h·√(2/λ·(1/d1 + 1/d2)), for an obstacle whose tip is hM metres
// above the straight ray (negative when below it), d1M and d2M metres from the
// two terminals, at a frequency in MHz.
func KnifeEdgeNu(hM, d1M, d2M, freqMHz float64) float64 {
	return hM * math.Sqrt(2/WavelengthM(freqMHz)*(1/d1M+1/d2M))
}
