package coverage

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"linkplan/appliance"
)

// Viewshed (issue 26 scope 3): which pixels around a site see its antenna.
//
// The grid and the radials are a heatmap's (package doc, "Grid" and
// "Radial sweep"): each pixel within the radius belongs to the radial
// nearest its bearing and to that radial's sample nearest its distance
// (sample 1 at least), and its answer is the path check of /analyze (the
// fspl geometry every engine's result carries: appliance.LinkPrediction's
// LOSClear and FresnelOK) on the radial's prefix profile ending at that
// sample, the receiver ViewshedRequest.RxHeightM above it:
//
//	LOS          every intermediate sample j of the prefix has
//	             clearance > 0, clearance = ray − ground with
//	             ray = tipT + (tipR − tipT)·d_j/d and
//	             ground = h_j + d_j·(d − d_j)/(2·k·a), a = 6 371 000 m
//	Fresnel 60 % min over j of clearance / F1 ≥ 0.6, F1 = √(λ·d_j·(d−d_j)/d)
//
// with the arithmetic of engines/fspl (Engine.Compute) term for term, so
// that at k = 4/3 (the default, ViewshedRequest.KFactor 0) the answer is
// bit for bit /analyze's on that profile. An obstruction found by the
// running maximum of the curved-earth elevation slope
// (h_j − d_j²/(2ka) − tipT)/d_j against the receiver's by more than 1e-9
// skips the per-sample loop (a pixel nearer a tie runs it).
//
// Missing terrain cuts a radial as for a heatmap: pixels beyond its last
// point with terrain are no-data, counted and named in the summary.
//
// Viewshed pixel classes (ViewshedResult.Class).
const (
	ViewBlocked uint8 = 0   // terrain cuts the ray
	ViewLOS     uint8 = 1   // line of sight, less than 60 % of F1 clear
	ViewFresnel uint8 = 2   // line of sight and 60 % of F1 clear
	ViewNoData  uint8 = 255 // outside the radius, or terrain missing
)

// Viewshed defaults and limits.
const (
	DefaultViewshedK  = 4.0 / 3.0 // effective Earth radius factor of the viewshed (the /analyze geometry's)
	MinViewshedK      = 0.5
	MaxViewshedK      = 10.0
	viewshedEarthM    = 6371000.0 // engines/radio.EarthRadiusM
	viewshedLightMS   = 299792458.0
	fresnelClearRatio = 0.6
	slopeTieMargin    = 1e-9
)

// ViewshedRequest is one viewshed.
type ViewshedRequest struct {
	Site        appliance.LatLon // WGS84 degrees
	HeightM     float64          // antenna height above ground at the site, metres
	RxHeightM   float64          // receiver height above ground at each pixel, metres
	FreqMHz     float64          // frequency of the Fresnel zone, MHz
	RadiusM     float64          // metres
	ResolutionM float64          // wanted pixel size, metres (the heatmap grid rule)
	// KFactor is the effective Earth radius factor; 0 means
	// DefaultViewshedK (4/3).
	KFactor float64
}

// Validate checks the request with the heatmap's limits and names every
// bad field. Its error matches appliance.ErrInvalid.
func (r ViewshedRequest) Validate() error {
	cr := r.coverageRequest()
	v := &appliance.ValidationError{}
	if err := cr.Validate(); err != nil {
		if ve, ok := err.(*appliance.ValidationError); ok {
			v.Fields = append(v.Fields, ve.Fields...)
		}
	}
	if !finite(r.KFactor) || r.KFactor != 0 && (r.KFactor < MinViewshedK || r.KFactor > MaxViewshedK) {
		v.Add("k_factor", "must be 0 (default 4/3) or %g..%g, got %g", MinViewshedK, MaxViewshedK, r.KFactor)
	}
	return v.Err()
}

func (r ViewshedRequest) coverageRequest() Request {
	return Request{Tx: r.Site, TxHeightM: r.HeightM, EIRPDBm: 0, AzimuthDeg: math.NaN(), FreqMHz: r.FreqMHz,
		RadiusM: r.RadiusM, RxHeightM: r.RxHeightM, ResolutionM: r.ResolutionM}
}

// ViewshedResult is a finished viewshed.
type ViewshedResult struct {
	Grid *Raster // the grid (DBm nil)
	// Class is, per pixel (row-major from the north-west), ViewBlocked,
	// ViewLOS, ViewFresnel or ViewNoData.
	Class   []uint8
	Summary ViewshedSummary
}

// ViewshedSummary describes a finished viewshed.
type ViewshedSummary struct {
	Pixels, InRadiusPixels   int
	BlockedPixels, LOSPixels int // LOSPixels counts ViewLOS and ViewFresnel
	FresnelPixels            int // ViewFresnel
	NoDataMissingTerrain     int
	MissingTiles             []string
	VisibleKm2               float64 // area of the LOS pixels, km²
	FresnelClearKm2          float64 // area of the ViewFresnel pixels, km²
	InRadiusKm2              float64 // area of the pixels within the radius, km²
	KFactor                  float64
	Radials                  int
	ProfileStepM             float64 // metres
	ProfiledRadials          int
	VoidFilledRadials        int
	VoidFilledSamples        int
	VoidMaxSpanM             float64 // metres
	Warnings                 []appliance.Warning
	ElapsedMS                int64
}

// Viewshed computes the viewshed of req. Errors: appliance.ErrInvalid
// naming the field, appliance.ErrTerrainMissing without terrain at the
// site, context errors.
func (s *Service) Viewshed(ctx context.Context, req ViewshedRequest, opts Options) (*ViewshedResult, error) {
	start := time.Now()
	if err := req.Validate(); err != nil {
		return nil, fmt.Errorf("viewshed: %w", err)
	}
	if _, err := s.terrain.ElevationM(req.Site); err != nil {
		return nil, fmt.Errorf("viewshed: site ground: %w", err)
	}
	k := req.KFactor
	if k == 0 {
		k = DefaultViewshedK
	}
	cr := req.coverageRequest()
	p := s.newPlan(cr, opts, nil, gridFor(cr))
	r := p.raster
	class := make([]uint8, r.Width*r.Height)
	for i := range class {
		class[i] = ViewNoData
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = min(8, max(1, len(p.radials)/64))
	}
	errs := make([]error, len(p.radials))
	next := make(chan int)
	done := make(chan struct{})
	for range workers {
		go func() {
			defer func() { done <- struct{}{} }()
			for kk := range next {
				errs[kk] = s.safeViewshedRadial(ctx, p, kk, k, req, class)
			}
		}()
	}
	for kk := range p.radials {
		if ctx.Err() != nil {
			break
		}
		next <- kk
		if opts.OnProgress != nil && kk%64 == 0 {
			opts.OnProgress(kk, len(p.radials))
		}
	}
	close(next)
	for range workers {
		<-done
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("viewshed: %w", err)
	}
	for _, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("viewshed: %w", err)
		}
	}
	sum := ViewshedSummary{Pixels: len(class), KFactor: k, Radials: len(p.radials), ProfileStepM: p.stepM}
	tiles := map[string]bool{}
	for kk := range p.radials {
		rd := &p.radials[kk]
		sum.InRadiusPixels += len(rd.pix)
		sum.NoDataMissingTerrain += rd.noDataMissing
		for _, t := range rd.missingTiles {
			if !tiles[t] {
				tiles[t] = true
				sum.MissingTiles = append(sum.MissingTiles, t)
			}
		}
		if rd.profiled {
			sum.ProfiledRadials++
			if rd.voidSamples > 0 {
				sum.VoidFilledRadials++
				sum.VoidFilledSamples += rd.voidSamples
				sum.VoidMaxSpanM = math.Max(sum.VoidMaxSpanM, rd.voidSpanM)
			}
		}
		for _, px := range rd.pix {
			sum.InRadiusKm2 += r.PixelAreaKm2(int(px) / r.Width)
		}
	}
	slices.Sort(sum.MissingTiles)
	for row := range r.Height {
		area := r.PixelAreaKm2(row)
		for _, c := range class[row*r.Width : (row+1)*r.Width] {
			switch c {
			case ViewBlocked:
				sum.BlockedPixels++
			case ViewLOS, ViewFresnel:
				sum.LOSPixels++
				sum.VisibleKm2 += area
				if c == ViewFresnel {
					sum.FresnelPixels++
					sum.FresnelClearKm2 += area
				}
			}
		}
	}
	sum.Warnings = []appliance.Warning{}
	if sum.VoidFilledRadials > 0 {
		sum.Warnings = append(sum.Warnings, appliance.Warning{Code: appliance.WarnVoidFilledTerrain, Message: fmt.Sprintf(
			"%d of the %d radials cross terrain interpolated across voids of the source DEM (%d samples, largest interpolated span %.0f m): the real ground there can be much higher, so visibility behind it can be optimistic",
			sum.VoidFilledRadials, sum.Radials, sum.VoidFilledSamples, sum.VoidMaxSpanM)})
	}
	if sum.NoDataMissingTerrain > 0 {
		sum.Warnings = append(sum.Warnings, appliance.Warning{Code: appliance.WarnMissingTerrain, Message: fmt.Sprintf(
			"%d pixels within the radius have no answer: terrain toward them is in no loaded pack (%s)",
			sum.NoDataMissingTerrain, joinTiles(sum.MissingTiles))})
	}
	sum.ElapsedMS = time.Since(start).Milliseconds()
	shape := *r
	return &ViewshedResult{Grid: &shape, Class: class, Summary: sum}, nil
}

func joinTiles(ts []string) string {
	if len(ts) == 0 {
		return "unnamed tiles"
	}
	if len(ts) > 8 {
		return fmt.Sprintf("%s and %d more", joinComma(ts[:8]), len(ts)-8)
	}
	return joinComma(ts)
}

func joinComma(ts []string) string {
	out := ""
	for i, t := range ts {
		if i > 0 {
			out += ", "
		}
		out += t
	}
	return out
}

func (s *Service) safeViewshedRadial(ctx context.Context, p *plan, k int, kf float64, req ViewshedRequest, class []uint8) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("radial %d: %w", k, &PanicError{Value: v})
		}
	}()
	return s.viewshedRadial(ctx, p, k, kf, req, class)
}

// viewshedRadial answers the pixels of radial k (doc above).
func (s *Service) viewshedRadial(ctx context.Context, p *plan, k int, kf float64, req ViewshedRequest, class []uint8) error {
	rd := &p.radials[k]
	if len(rd.pix) == 0 || ctx.Err() != nil {
		return ctx.Err()
	}
	end := req.Site.Destination(rd.bearingDeg, req.RadiusM)
	prof, missing, err := s.reachableProfile(req.Site, end, p.stepM)
	if err != nil {
		return fmt.Errorf("radial %d (bearing %.4f°): %w", k, rd.bearingDeg, err)
	}
	if missing != "" {
		rd.missingTiles = append(rd.missingTiles, missing)
	}
	if prof == nil {
		rd.noDataMissing = len(rd.pix)
		return nil
	}
	rd.profiled = true
	rd.voidSamples, rd.voidSpanM = prof.VoidStats()
	n := prof.Len()
	spacing := prof.LengthM() / float64(n-1)
	// the sample of each pixel, and the samples in use
	sample := make([]int32, len(rd.pix))
	ans := make([]int8, n) // per used sample: −1 unused, else its class
	for i := range ans {
		ans[i] = -1
	}
	for j, d := range rd.dist {
		if missing != "" && d > prof.LengthM() {
			sample[j] = -1
			continue
		}
		i := min(max(int(math.Round(d/spacing)), 1), n-1)
		sample[j] = int32(i)
		ans[i] = 0
	}
	dist, h := prof.DistancesM, prof.HeightsM
	tipT := h[0] + req.HeightM
	lambda := viewshedLightMS / (req.FreqMHz * 1e6)
	twoKA := 2 * (kf * viewshedEarthM)
	maxSlope := math.Inf(-1) // max over intermediate samples 1..i−1
	for i := 1; i < n; i++ {
		if ans[i] == 0 {
			d := dist[i]
			tipR := h[i] + req.RxHeightM
			si := (tipR - d*d/twoKA - tipT) / d
			switch {
			case maxSlope > si+slopeTieMargin:
				ans[i] = int8(ViewBlocked)
			default:
				ans[i] = int8(prefixClass(dist, h, i, tipT, tipR, lambda, twoKA, maxSlope < si-slopeTieMargin))
			}
		}
		if i < n-1 {
			dj := dist[i]
			maxSlope = math.Max(maxSlope, (h[i]-dj*dj/twoKA-tipT)/dj)
		}
	}
	for j, px := range rd.pix {
		i := sample[j]
		if i < 0 {
			rd.noDataMissing++
			s.noteMissing(p.raster, rd, px)
			continue
		}
		class[px] = uint8(ans[i])
	}
	return nil
}

// prefixClass is the /analyze path check of the prefix ending at sample i
// (engines/fspl Engine.Compute's loop, term for term). losKnown says the
// slope test already proved the line of sight, so that the loop may stop
// at the first sample under 60 % of F1.
func prefixClass(dist, h []float64, i int, tipT, tipR, lambda, twoKA float64, losKnown bool) uint8 {
	d := dist[i]
	minRatio := math.Inf(1)
	for j := 1; j < i; j++ {
		d1 := dist[j]
		d2 := d - d1
		if d1 <= 0 || d2 <= 0 {
			continue
		}
		ray := tipT + (tipR-tipT)*d1/d
		ground := h[j] + d1*d2/twoKA
		clear := ray - ground
		if clear <= 0 {
			return ViewBlocked
		}
		f1 := math.Sqrt(lambda * d1 * d2 / d)
		if r := clear / f1; r < minRatio {
			minRatio = r
			if losKnown && minRatio < fresnelClearRatio {
				return ViewLOS
			}
		}
	}
	if minRatio >= fresnelClearRatio {
		return ViewFresnel
	}
	return ViewLOS
}
