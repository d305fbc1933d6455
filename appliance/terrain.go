package appliance

// PathProfile is the terrain along a great-circle path, sampled at equal
// steps from the transmitter (index 0) to the receiver (last index).
type PathProfile struct {
	// DistancesM holds the distance of each sample from the first, metres,
	// strictly increasing, starting at 0.
	DistancesM []float64
	// HeightsM holds the ground height of each sample, metres above mean
	// sea level.
	HeightsM []float64
	// Sea marks samples that lie on sea (open water) when the terrain source
	// knows it; nil when unknown.
	Sea []bool
}

// Len returns the number of samples.
func (p *PathProfile) Len() int { return len(p.DistancesM) }

// LengthM returns the path length in metres.
func (p *PathProfile) LengthM() float64 {
	if len(p.DistancesM) == 0 {
		return 0
	}
	return p.DistancesM[len(p.DistancesM)-1]
}

// Terrain answers elevation queries. Implementations return a
// *TileMissingError (matching ErrTerrainMissing) for a point no loaded pack
// covers; they never fall back to sea level (SPEC §8.6).
type Terrain interface {
	// ElevationM returns the ground height at p, metres above mean sea level.
	ElevationM(p LatLon) (float64, error)
	// Profile samples the great circle from a to b every stepM metres (the
	// last step may be shorter so that b is the last sample).
	Profile(a, b LatLon, stepM float64) (*PathProfile, error)
}
