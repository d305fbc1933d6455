package coverage

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"linkplan/appliance"
)

// Viewshed (issue 26 scope 3): which pixels around a site see its antenna.
//
// The grid is a heatmap's (package doc, "Grid"), and each pixel within
// the radius belongs to the radial nearest its bearing (the radials'
// workers answer their pixels; the radial's own profile gives the summary
// its terrain facts: void-filled samples, missing tiles). Its answer is
// the path check of /analyze (the fspl geometry every engine's result
// carries: appliance.LinkPrediction's LOSClear and FresnelOK) for the
// receiver it stands for, ViewshedRequest.RxHeightM above its centre, on
// its own profile from the site to its centre (issue 22: the pixel rule
// of the heatmaps; points within a centimetre of Terrain.Profile's, the
// profile /analyze builds), with d the pixel's distance:
//
//	LOS          every intermediate sample j of the profile has
//	             clearance > 0, clearance = ray − ground with
//	             ray = tipT + (tipR − tipT)·d_j/d and
//	             ground = h_j + d_j·(d − d_j)/(2·k·a), a = 6 371 000 m
//	Fresnel 60 % min over j of clearance / F1 ≥ 0.6, F1 = √(λ·d_j·(d−d_j)/d)
//
// with the arithmetic of engines/fspl (Engine.Compute) term for term, so
// that at k = 4/3 (the default, ViewshedRequest.KFactor 0) the answer is
// /analyze's on that profile.
//
//	| mode    | a pixel's class                                              |
//	|---------|--------------------------------------------------------------|
//	| exact   | the check on Terrain.Profile(site, centre, step): bit for bit |
//	| default | viewshedSweeper (viewshed_sweep.go) through the heatmaps'    |
//	|         | pixel path: only the samples of its own profile whose        |
//	|         | terrain bound could block the ray or spoil 60 % of F1 are    |
//	|         | read (within a centimetre of Terrain.Profile's points); a    |
//	|         | sampled clearance within 5 cm of a threshold, on its own     |
//	|         | Terrain.Profile; a pixel beyond the radial's last terrain    |
//	|         | is no-data when its own line meets a missing tile within 8   |
//	|         | samples (the heatmaps' rule), else on its own profile        |
//	|         | (appliance.RadialProfiler); without a PointSampler and a     |
//	|         | HeightBounder every pixel on its own profile                 |
//
// A pixel whose own profile needs a tile no pack holds is no-data,
// counted and its tile named in the summary.
//
// Measured against /analyze on each pixel's own Terrain.Profile: every
// pixel of the 5 and 10 km Pedra Branca maps identical in both modes,
// with identical summaries (TestIssue22_ViewshedExact), 3,000 random
// pixels of two Rio 10 km maps (TestIssue22_ViewshedPixelTruth), and
// BenchmarkIssue22_ViewshedPixelTruth (the Sumaré site, 50 m mast,
// receivers at 10 m, 900 MHz; 4000 random pixels, seed 22; 29 Nov 2026,
// the shared 2-core machine): rio30 and rio50 at 3″ and rio10 at 1″
// 100 % identical in both modes, at 0.94, 2.71 and 1.11 CPU-s a map by
// default (a profile per pixel before the sweeper: 6.06, 22.99 and 5.98)
// and 9.6, 36.0 and 11.4 exact. BenchmarkIssue22_Viewshed (Pedra Branca,
// 10 km, 90 m): 0.12 CPU-s a map (0.32 with a profile per pixel). The
// former rule (the radial's prefix ending at the sample nearest the
// pixel's distance) was 99.6 %, 97.9 % and 99.07 % identical.
//
// Exact mode (ViewshedRequest.Exact, `exact` on the API) exists so that
// an audit can name the profile a class rests on; it costs 10–13 times
// the default and is capped per tier as an exact heatmap of one
// transmitter is (TierCaps.MaxExactPixels).
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
	// Exact profiles every pixel with Terrain.Profile, the profile
	// /analyze builds, instead of appliance.RadialProfiler (points within
	// a centimetre of it): the class is /analyze's bit for bit (doc
	// above, "Exact mode").
	Exact bool
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
	// Pixel says what a pixel stands for (the mode, the receiver, the
	// profile, the measured agreement with /analyze's path check).
	Pixel     PixelInfo
	Warnings  []appliance.Warning
	ElapsedMS int64
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
	// the default mode's pixel path (viewshed_sweep.go)
	p.eng = viewshedSweeper{lambda: viewshedLightMS / (req.FreqMHz * 1e6), twoKA: 2 * (k * viewshedEarthM)}
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
	sum := ViewshedSummary{Pixels: len(class), KFactor: k, Radials: len(p.radials), ProfileStepM: p.stepM,
		Pixel: viewshedPixelInfo(req, p.stepM)}
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

// viewshedRadial answers the pixels of radial k (doc above): each on its
// own profile; the radial's profile gives the summary its terrain facts.
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
	if prof != nil {
		rd.profiled = true
		rd.voidSamples, rd.voidSpanM = prof.VoidStats()
	}
	lambda := viewshedLightMS / (req.FreqMHz * 1e6)
	twoKA := 2 * (kf * viewshedEarthM)
	r := p.raster
	// The default mode answers the pixels it can through the heatmaps'
	// pixel path (viewshedSweeper); the rest, and every pixel in exact
	// mode, on their own profiles.
	var done, tie []bool
	profileOf := s.terrain.Profile
	if rp, ok := s.terrain.(appliance.RadialProfiler); ok && !req.Exact {
		profileOf = rp.RadialProfile
	}
	if prof != nil && !req.Exact {
		order := make([]int32, 0, len(rd.pix))
		for j, d := range rd.dist {
			if missing == "" || d <= prof.LengthM() {
				order = append(order, int32(j))
			}
		}
		sortByDistance(order, rd.dist, p.stepM)
		cls := make([]float64, len(order))
		state := make([]pixelState, len(order))
		ok, err := s.pixelSweep(ctx, p, k, prof, order, cls, state)
		if err != nil {
			return fmt.Errorf("radial %d (bearing %.4f°): %w", k, rd.bearingDeg, err)
		}
		if ok {
			done, tie = make([]bool, len(rd.pix)), make([]bool, len(rd.pix))
			for o, j := range order {
				switch {
				case state[o] == pixelDone && !math.IsNaN(cls[o]):
					class[rd.pix[j]], done[j] = uint8(cls[o]), true
				case state[o] == pixelFallback:
					tie[j] = true // decided on Terrain.Profile itself
				}
			}
		}
	}
	for j, px := range rd.pix {
		if done != nil && done[j] {
			continue
		}
		if j%ctxEvery == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		c := r.PixelCenter(int(px)/r.Width, int(px)%r.Width)
		if !req.Exact && prof != nil && missing != "" && rd.dist[j] > prof.LengthM() && s.ownBeyondMissing(p, rd, j, prof.LengthM()) {
			// beyond the radial's last terrain and a missing sample
			// right after it on its own line: no-data without profiling
			// (the heatmap's rule, package doc "Missing terrain")
			rd.noDataMissing++
			s.noteMissing(r, rd, px)
			continue
		}
		of := profileOf
		if tie != nil && tie[j] {
			of = s.terrain.Profile
		}
		own, err := of(req.Site, c, p.stepM)
		var tme *appliance.TileMissingError
		if errors.As(err, &tme) {
			rd.noDataMissing++
			if !slices.Contains(rd.missingTiles, tme.Tile) {
				rd.missingTiles = append(rd.missingTiles, tme.Tile)
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("radial %d, pixel %d: terrain profile: %w", k, px, err)
		}
		n := own.Len()
		dist, h := own.DistancesM, own.HeightsM
		class[px] = prefixClass(dist, h, n-1, h[0]+req.HeightM, h[n-1]+req.RxHeightM, lambda, twoKA, false)
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
