package p1812

// DeltaBullingtonPair exposes the fused two-radius delta-Bullington pass of
// Predict to the external tests and benchmarks.
func DeltaBullingtonPair(d, h, rr []float64, hts, hrs, hstd, hsrd, ae, ab, f, omega float64,
	pol Polarization) (r50, rb DeltaBullingtonResult) {
	return deltaBullingtonPair(d, h, rr, hts, hrs, hstd, hsrd, ae, ab, f, omega, SpeedOfLightMps/(f*1e9), pol)
}
