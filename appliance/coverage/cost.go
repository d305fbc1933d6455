package coverage

import (
	"math"
)

// Terms of EstimateMemBytes (package doc, "Memory"), bytes.
const (
	estRasterPerPixel = 4  // the float32 raster, per pixel of the rectangle
	estPlanPerPixel   = 16 // newPlan's band lists (pixel int32, radial int32, distance float64), per pixel of the rectangle, while radials are assigned
	estListPerPixel   = 12 // the radials' own lists (pixel int32, distance float64), per pixel within the radius
	estBestPerPixel   = 9  // a best-server map's strongest level (float32), server (int32) and in-radius flag, per pixel of the union
	estPerRadial      = 192
	estPerSample      = 256 // one worker's profile, prefix sums and losses, per sample of a radial
	estBase           = 4 << 20
	// estGCSlack covers what the collector has not reclaimed yet (newPlan's
	// band lists are garbage when the raster is allocated).
	estGCSlack = 1.1
)

// EstimateMemBytes returns the estimated peak memory of computing reqs
// (one request, or a best-server map of several) on workers goroutines,
// bytes: the raster and the per-pixel lists of the plan, the radials'
// records and progress events, and each worker's radial buffers (package
// doc, "Memory"), plus a tenth for the collector's slack. Tile events cost nothing: their pixels are encoded from
// the raster when a stream reads them. It is an upper bound of the Go heap
// the computation holds, checked in BenchmarkEstimateMemBytes.
func EstimateMemBytes(reqs []Request, best bool, workers int) int64 {
	if len(reqs) == 0 {
		return 0
	}
	shape := Shape(reqs, best)
	px := float64(shape.Width) * float64(shape.Height)
	midLat := shape.North - float64(shape.Height)*shape.PixelLatDeg/2
	pxLatM := shape.PixelLatDeg * 3600 * ArcSecondM
	pxLonM := shape.PixelLonDeg * 3600 * ArcSecondM * math.Cos(midLat*math.Pi/180)
	pixM := math.Min(pxLatM, pxLonM)
	est := float64(estBase) + estPlanPerPixel*px + estRasterPerPixel*px
	maxSamples := 0.0
	for _, r := range reqs {
		inRadius := math.Min(px, math.Pi*r.RadiusM*r.RadiusM/(pxLatM*pxLonM))
		est += estListPerPixel*inRadius + estPerRadial*float64(Radials(r.RadiusM, pixM))
		maxSamples = math.Max(maxSamples, r.RadiusM/math.Max(MinProfileStepM, math.Min(DefaultTerrainSpacingM, pixM))+2)
	}
	if best {
		est += estBestPerPixel * px
	}
	est += float64(max(1, workers)) * estPerSample * maxSamples
	return int64(math.Ceil(est * estGCSlack))
}
