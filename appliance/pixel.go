package appliance

// PixelRadial is one radial of a coverage sweep with the pixels it owns,
// as an engine that computes a map pixel by pixel (coverage's
// PixelSweeper) sees it. A pixel stands for a receiver at its centre; its
// own profile is Terrain.Profile(transmitter, pixel centre, StepM): Steps
// equal steps of DistM/Steps metres on the great circle to the centre,
// the last sample at the centre itself.
//
// The radial's profile (the LinkInput's Profile, equally spaced,
// SpacingM apart) passes within half a radial spacing of each of its
// pixels: sample j of a pixel's own profile, s = j·DistM/Steps metres from
// the transmitter, lies s·SinOff metres to the right of the radial, beside
// the radial's point s·CosOff metres from the transmitter (its foot).
// UpperM[i] bounds the ground height of every such sample whose foot lies
// in segment i of the radial (between samples i and i+1, from i·SpacingM
// to (i+1)·SpacingM): no sample of a pixel's own profile is higher, so a
// sample whose bound cannot make it a horizon (or the highest obstacle)
// need not be sampled; Exact samples the others.
type PixelRadial struct {
	SpacingM float64   // the radial profile's spacing, metres
	UpperM   []float64 // per segment of the radial, metres above mean sea level (+Inf: unknown)
	Pixels   []PixelQuery
	// Exact writes to heightsM[k] the ground height of sample js[k] of
	// pixel p's own profile (its position within a centimetre of
	// Profile's), metres above mean sea level. An error means the pixel's
	// own profile has no terrain there: its value is no-data.
	Exact func(p int, js []int32, heightsM []float64) error
	// Fallback is set by the engine for each pixel it leaves to the
	// caller, who then computes it on the pixel's own profile.
	Fallback []bool
}

// PixelQuery is one pixel of a PixelRadial.
type PixelQuery struct {
	Rx      LatLon  // the pixel centre, WGS84 degrees
	DistM   float64 // great-circle distance from the transmitter to Rx, metres
	Steps   int     // steps of the pixel's own profile (ProfileSteps(DistM, step))
	GroundM float64 // ground height at Rx, metres above mean sea level
	// SinOff and CosOff are the sine and cosine of the angle at the
	// transmitter between the pixel's great circle and the radial's
	// (positive: the pixel lies to the right, clockwise).
	SinOff, CosOff float64
	// SeaKnown says whether AnySea is known: false when the corridor of
	// the pixel's own profile touches a sea tile, so that only the
	// pixel's own samples could tell whether its profile crosses sea.
	SeaKnown, AnySea bool
}
