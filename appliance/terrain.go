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
	// ClutterClass holds the land-cover class of each sample (the values of
	// terrain-packs/clutter.Class: 1 Forest … 10 Other, 0 unknown); nil when
	// the terrain has no land-cover layer.
	ClutterClass []uint8
	// ClutterHeightsM holds the representative clutter height of each
	// sample, metres (ITU-R P.1812 R); nil when the terrain has no
	// land-cover layer.
	ClutterHeightsM []float64
	// VoidFilled marks samples whose height was interpolated across a void
	// of the source DEM (at least one grid sample with a non-zero
	// interpolation weight there was a filled void, not a measurement); nil
	// when the terrain knows of no void on the path.
	// A void-filled height can be far below the real ground (an SRTM void
	// on a steep peak), so results that used one must say so.
	VoidFilled []bool
}

// VoidStats summarises the void-filled samples of a profile: how many
// there are and the longest run of consecutive void-filled samples along
// the path, metres. A run of k samples covers k sample spacings: the
// distance from its first to its last sample plus one spacing (half a
// spacing each side), so a single void-filled sample spans one spacing,
// never 0 m. The spacing is the profile's mean sample spacing
// ((last distance − first distance) / (samples − 1), metres; profiles are
// equally spaced), 0 for a one-sample profile. Both are 0 when VoidFilled
// is nil.
func (p *PathProfile) VoidStats() (count int, maxSpanM float64) {
	stepM := 0.0
	if n := len(p.DistancesM); n > 1 {
		stepM = (p.DistancesM[n-1] - p.DistancesM[0]) / float64(n-1)
	}
	start := -1
	for i, v := range p.VoidFilled {
		if v {
			count++
			if start < 0 {
				start = i
			}
			if span := p.DistancesM[i] - p.DistancesM[start] + stepM; span > maxSpanM {
				maxSpanM = span
			}
		} else {
			start = -1
		}
	}
	return count, maxSpanM
}

// VoidMap answers whether the height at a point was interpolated across a
// void of the source DEM. Terrains that keep a void mask implement it
// beside Terrain; the answer for a point no pack covers is the same
// *TileMissingError ElevationM returns.
type VoidMap interface {
	VoidFilledAt(p LatLon) (bool, error)
}

// ClutterInfo is the land cover at one point.
type ClutterInfo struct {
	Class   uint8   // terrain-packs/clutter.Class value, 0 unknown
	Label   string  // class name, e.g. "Urban"
	HeightM float64 // representative clutter height, metres
}

// ClutterMap answers land-cover queries. A terrain without a land-cover
// layer returns an error matching ErrUnavailable that says so: it never
// guesses a class.
type ClutterMap interface {
	ClutterAt(p LatLon) (ClutterInfo, error)
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
	// Profile samples the great circle from a to b at n+1 equally spaced
	// points, n = ceil(d/stepM): the spacing d/n is at most stepM, and a and
	// b are the first and last samples.
	Profile(a, b LatLon, stepM float64) (*PathProfile, error)
}

// RadialProfiler is implemented by terrain that can sample a profile at
// positions within a centimetre of Profile's (ProfilePath.FastPoints)
// for less trigonometry: the same distances, heights, sea and land-cover
// marks of points a centimetre away. The coverage sweep samples its
// radials with it.
type RadialProfiler interface {
	RadialProfile(a, b LatLon, stepM float64) (*PathProfile, error)
}

// SparseProfiler is implemented by terrain that can return a subsequence
// of the profile Profile(a, b, stepM) would give: the samples of index 0,
// every, 2·every, … and always the last one, with bit-identical distances
// and heights. Sea, ClutterClass and VoidFilled are nil in a sparse
// profile. The planner uses it to prove that a path cannot rank before
// it samples the whole path (appliance/planner, "Pruning").
type SparseProfiler interface {
	ProfileEvery(a, b LatLon, stepM float64, every int) (*PathProfile, error)
}

// SparseRefiner is implemented by a SparseProfiler that can build a
// sparse profile from a coarser one of the same path: ProfileEveryFrom
// returns ProfileEvery(a, b, stepM, every) bit for bit, copying the
// samples that prev, ProfileEvery(a, b, stepM, prevEvery) with prevEvery
// a multiple of every, already holds instead of sampling them again. A
// prev that does not have the shape of that profile is ignored. The
// planner's coarse-to-fine sparse bounds use it.
type SparseRefiner interface {
	ProfileEveryFrom(prev *PathProfile, prevEvery int, a, b LatLon, stepM float64, every int) (*PathProfile, error)
}

// PointSampler is implemented by terrain that can sample many arbitrary
// points faster than one ElevationM call each. The coverage map samples
// the points of a pixel's own profile with it.
type PointSampler interface {
	// PointSession returns a sampler that keeps the current tile between
	// points and calls, for one goroutine.
	PointSession() PointSession
}

// PointSession samples arbitrary points (PointSampler).
type PointSession interface {
	// ElevationsM writes the height at pts[i], metres above mean sea
	// level, bit-identical to ElevationM(pts[i]), to heightsM[i], and
	// whether pts[i] lies on a sea tile to sea[i] (sea may be nil). The
	// first point no loaded pack covers aborts with its
	// *TileMissingError.
	ElevationsM(pts []LatLon, heightsM []float64, sea []bool) error
}

// Bound kinds of HeightBounder: what a strip touches.
const (
	BoundLand    = 1 << iota // a tile with samples
	BoundSea                 // a sea tile (height 0 m)
	BoundMissing             // a tile (or a NoData sample) no pack answers: the bound is +Inf
)

// Strip is the points within HalfWidthM metres to either side of the
// segment from A to B: A + f·(B−A) + ℓ·n for f in [0, 1] and |ℓ| ≤
// HalfWidthM, n the unit normal of the segment in the local metric of its
// middle latitude φ (a degree of latitude EarthRadiusM·π/180 metres, of
// longitude that times cos φ).
type Strip struct {
	A, B       LatLon
	HalfWidthM float64 // metres
}

// HeightBounder is implemented by terrain that can bound its heights over
// strips from its grid samples alone: every ElevationM is an
// interpolation of the grid samples around it. The coverage map proves
// with it which samples of a pixel's own profile cannot be a horizon.
type HeightBounder interface {
	// MaxElevationsM writes to maxM[i] a height, metres, that
	// ElevationM(q) does not exceed for any q in strips[i] (+Inf where a
	// point of the strip has no terrain), and to kinds[i] the Bound* bits
	// of the tiles the strip touches.
	MaxElevationsM(strips []Strip, maxM []float64, kinds []uint8) error
}

// GridSampler is implemented by terrain that can sample a latitude ×
// longitude grid in one call, faster than one ElevationM call per point
// (it keeps the current tile between neighbouring samples). Each height is
// bit-identical to ElevationM at the same point. The hillshade renderer
// (appliance/basemap) uses it: the pixel centres of a Web Mercator tile
// are such a grid, since a pixel row has one latitude and a pixel column
// one longitude.
type GridSampler interface {
	// ElevationGridM writes the height at (lats[r], lons[c]), metres above
	// mean sea level, to heightsM[r*len(lons)+c] and true to
	// ok[r*len(lons)+c]; a point no loaded pack covers gets ok false (not
	// an error, where ElevationM says *TileMissingError). heightsM and ok
	// must hold len(lats)·len(lons) values. Any other error (an invalid
	// position, a corrupt tile) aborts the call.
	ElevationGridM(lats, lons []float64, heightsM []float64, ok []bool) error
}
