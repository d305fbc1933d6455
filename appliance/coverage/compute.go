package coverage

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"linkplan/appliance"
)

// DefaultThresholdDBm is the level of Summary.CoveredKm2AboveThreshold
// when Options.ThresholdDBm is 0, dBm (a typical LTE/Wi-Fi CPE sensitivity,
// the planner's default receiver threshold).
const DefaultThresholdDBm = -95.0

// DefaultTerrainSpacingM is the terrain grid spacing assumed when
// Options.TerrainSpacingM is 0, metres (the 3″ SRTM grid).
const DefaultTerrainSpacingM = 90.0

// MinProfileStepM is the smallest radial profile step, metres.
const MinProfileStepM = 30.0

// EngineLookup returns the engine for an id ("" is the default engine);
// an unknown id is an error matching appliance.ErrInvalid.
type EngineLookup func(id appliance.EngineID) (appliance.Engine, error)

// PrefixSweeper is implemented by engines that compute the loss of every
// prefix of one profile at once. SweepLoss sets lossDB[i] to the engine's
// basic transmission loss, dB, on the prefix profile ending at sample i
// (samples 0..i of in.Profile, the receiver at that sample), for every i
// where use[i] is true, bit-identical to (or within 1e-6 dB of) Predict on
// that prefix; use[0] is never true. A prefix outside the engine's
// validity is NaN in lossDB. len(use) and len(lossDB) equal
// in.Profile.Len(). Its error is Predict's for the same input.
// SweepVersion is the EngineVersion Predict reports for the prefixes it
// answers. The map no longer takes a pixel's value from a radial's prefix
// (package doc, "Pixels"); engines keep it for their own sweeps and tests.
type PrefixSweeper interface {
	SweepLoss(ctx context.Context, in appliance.LinkInput, use []bool, lossDB []float64) error
	SweepVersion() string
}

// Options tune a computation; the zero value is valid.
type Options struct {
	// Workers is the number of radials computed at once; 0 means
	// GOMAXPROCS. The result does not depend on it.
	Workers int
	// TerrainSpacingM is the grid spacing of the terrain, metres; 0 means
	// DefaultTerrainSpacingM.
	TerrainSpacingM float64
	// ThresholdDBm is the level of Summary.CoveredKm2AboveThreshold, dBm;
	// 0 means DefaultThresholdDBm.
	ThresholdDBm float64
	// OnTile is called once per tile, in row-major tile order, as soon as
	// that tile and every tile before it are final. It runs on the
	// goroutine of Compute; the raster's pixels of that tile never change
	// afterwards.
	OnTile func(TileDone)
	// OnProgress is called after every finished radial with the number of
	// finished radials and the total, on the goroutine of Compute.
	OnProgress func(doneRadials, totalRadials int)
	// Units, when set, computes the radials as work units of its executor
	// (units.go) instead of on Workers goroutines; the result is the
	// same bit for bit.
	Units *Units
}

// TileDone reports a finished tile.
type TileDone struct {
	Tile   Tile
	Raster *Raster // the raster the tile belongs to (EncodeTile(Raster, Tile))
	// Servers is, for a best-server map, the strongest transmitter per
	// pixel of the whole Raster (BestResult.Server); nil otherwise.
	Servers     []int32
	ValidPixels int // pixels with a value
	// MinDBm and MaxDBm are the extreme values of the tile, dBm; NaN when
	// it has no valid pixel.
	MinDBm, MaxDBm float64
}

// Summary describes a finished map.
type Summary struct {
	Pixels         int // pixels of the raster (Width·Height)
	InRadiusPixels int // pixels whose centre is within RadiusM of the transmitter
	ValidPixels    int // pixels with a value
	// NoDataMissingTerrain counts pixels within the radius that have no
	// value because terrain toward them is missing; MissingTiles names the
	// missing tiles, sorted.
	NoDataMissingTerrain int
	MissingTiles         []string
	// NoDataOutsideEnvelope counts pixels within the radius the engine
	// refused as outside its validity range (e.g. P.1812 below its minimum
	// distance); they have no value.
	NoDataOutsideEnvelope int
	ThresholdDBm          float64 // dBm
	// CoveredKm2AboveThreshold is the area of the valid pixels at or above
	// ThresholdDBm, km².
	CoveredKm2AboveThreshold float64
	MinDBm, MaxDBm           float64 // extreme pixel values, dBm; NaN without a valid pixel
	ElapsedMS                int64   // wall time of Compute, milliseconds
	Engine                   appliance.EngineID
	EngineVersion            string
	Radials                  int     // radials of the sweep
	ProfileStepM             float64 // requested radial profile step, metres
	Evaluations              int     // engine evaluations (pixels with a profile)
	// Pixel says what a pixel stands for: the receiver, the profile and
	// the measured agreement of the mode (package doc, "Pixels").
	Pixel PixelInfo

	// The terrain under the map (package doc, "Caveats"): radials with a
	// profile, those crossing void-filled samples (with the samples and
	// the longest interpolated run of one radial, metres), and those
	// without a land-cover class.
	ProfiledRadials, VoidFilledRadials, VoidFilledSamples int
	VoidMaxSpanM                                          float64
	NoLandCoverRadials                                    int
	// The caveats of the map (package doc, "Caveats"): the first
	// transmitter's EIRP, dBm; whether any transmitter's EIRP was assumed;
	// the transmitters; and the warnings that apply to the whole map
	// (never nil after Compute and ComputeBest).
	EIRPDBm      float64
	EIRPAssumed  bool
	Transmitters []TransmitterData
	Warnings     []appliance.Warning
	// Detail is a computed map's own summary (its kind's JSON object, e.g.
	// an interference map's SINR areas or a viewshed's visible area); nil
	// for the registry's own maps.
	Detail json.RawMessage `json:",omitempty"`
}

// Result is a finished map.
type Result struct {
	Raster  *Raster
	Summary Summary
	// Servers (a computed map's, optional) is an index per pixel, −1 for
	// no data, streamed as the tiles' servers and kept with the raster
	// (an interference map's best server).
	Servers []int32
	// Bands (a computed map's, optional) are more float32 values per
	// pixel on the raster's grid, NaN for no data, kept with the raster
	// for the exports (Map.Bands).
	Bands [][]float32
}

// Service computes coverage maps. It is safe for concurrent use.
type Service struct {
	terrain appliance.Terrain
	engines EngineLookup
	buffers sync.Map // raster length -> *sync.Pool of buffers for RunUnit
}

// New returns a service over terrain and the engines of lookup.
func New(terrain appliance.Terrain, lookup EngineLookup) *Service {
	return &Service{terrain: terrain, engines: lookup}
}

// radial is one bearing of the sweep and the pixels it owns.
type radial struct {
	bearingDeg float64
	pix        []int32   // raster indices of its pixels, ascending
	dist       []float64 // their distances from the transmitter, metres
	// their bearings' offsets from the radial's: the sine of the angle
	// between the pixel's great circle and the radial's at the
	// transmitter (positive clockwise), and its largest magnitude
	sinOff    []float32
	maxSin    float64
	tiles     []int32 // distinct tiles of its pixels, ascending
	firstTile int32

	// Written by the worker that computes it.
	missingTiles   []string // the first missing tile of the radial, then those under its no-data pixels, distinct
	noDataMissing  int
	noDataEnvelope int
	evaluations    int
	version        string
	profiled       bool    // the radial has a profile (terrain after the transmitter)
	voidSamples    int     // void-filled samples of its profile
	voidSpanM      float64 // longest void-filled run of its profile, metres
	noLandCover    bool    // its profile has no land-cover class
	envelopeErr    error   // first refusal of the engine as outside its validity
	err            error
}

// plan is the fixed geometry of one computation.
type plan struct {
	req     Request
	g       grid
	raster  *Raster // its pixels only after allocate
	radials []radial
	stepM   float64
	eng     appliance.Engine
	scratch sync.Pool // *pixelScratch of the workers
}

// allocate gives the plan's raster its pixels, all no-data: newPlan leaves
// them out, so that a best-server map holds one transmitter's raster at a
// time, not one per transmitter.
func (p *plan) allocate() {
	if p.raster.DBm == nil {
		p.raster.DBm = p.g.raster().DBm
	}
}

// Compute computes the map of req. Its error matches appliance.ErrInvalid
// for a bad request or engine, appliance.ErrTerrainMissing when the
// transmitter itself has no terrain, and context.Canceled (or
// DeadlineExceeded) when ctx ends first.
func (s *Service) Compute(ctx context.Context, req Request, opts Options) (*Result, error) {
	start := time.Now()
	if err := req.Validate(); err != nil {
		return nil, fmt.Errorf("coverage compute: %w", err)
	}
	eng, err := s.engines(req.Engine)
	if err != nil {
		return nil, fmt.Errorf("coverage compute: %w", err)
	}
	if _, err := s.terrain.ElevationM(req.Tx); err != nil {
		return nil, fmt.Errorf("coverage compute: transmitter ground: %w", err)
	}
	p := s.newPlan(req, opts, eng, gridFor(req))
	p.allocate()
	if err := s.run(ctx, p, opts); err != nil {
		return nil, fmt.Errorf("coverage compute: %w", err)
	}
	sum := p.summary(opts)
	if err := p.allRefused(sum); err != nil {
		return nil, fmt.Errorf("coverage compute: %w", err)
	}
	sum.finishCaveats([]Request{req})
	sum.ElapsedMS = time.Since(start).Milliseconds()
	return &Result{Raster: p.raster, Summary: sum}, nil
}

// MinRadialsRadiusM is the radius, metres, below which a map gets as many
// radials as a map of this radius: a pixel's own profile then strays at
// most ~half a pixel·d/MinRadialsRadiusM from its radial, so that the
// terrain statistics the engine takes from the radial are its own (package
// doc, "Pixels"; on the 5 km Sumaré ITM map, 1.6 % of pixels were off by
// more than 1 dB with 352 radials, 0.6 % with 1480).
const MinRadialsRadiusM = 20000

// Radials returns the number of radials for a radius and a pixel size,
// metres: ceil(2π·max(radiusM, MinRadialsRadiusM)/pixelM) rounded up to a
// multiple of 8.
func Radials(radiusM, pixelM float64) int {
	n := int(math.Ceil(2 * math.Pi * max(radiusM, MinRadialsRadiusM) / pixelM))
	return max(8, (n+7)/8*8)
}

// radialsAnySpacing is Radials without MinRadialsRadiusM: ceil(2π·radiusM/
// pixelM) rounded up to a multiple of 8, the radials of an engine that
// implements AnyRadialSpacing.
func radialsAnySpacing(radiusM, pixelM float64) int {
	n := int(math.Ceil(2 * math.Pi * radiusM / pixelM))
	return max(8, (n+7)/8*8)
}

// gridFor returns the grid of one request (package doc, "Grid").
func gridFor(req Request) grid {
	latSec, lonSec := PixelArcSeconds(req.ResolutionM, req.Tx.Lat)
	return newGrid(appliance.Around(req.Tx, req.RadiusM), latSec, lonSec)
}

// newPlan assigns the pixels of grid g within req's radius to radials;
// the plan's raster is g's, without pixels until allocate.
func (s *Service) newPlan(req Request, opts Options, eng appliance.Engine, g grid) *plan {
	r := &Raster{West: float64(g.westSec) / 3600, North: float64(g.northSec) / 3600,
		PixelLonDeg: float64(g.pxLonSec) / 3600, PixelLatDeg: float64(g.pxLatSec) / 3600, Width: g.width, Height: g.height}
	pixM := math.Min(float64(g.pxLatSec)*ArcSecondM, float64(g.pxLonSec)*ArcSecondM*math.Cos(req.Tx.Lat*math.Pi/180))
	spacing := opts.TerrainSpacingM
	if spacing <= 0 {
		spacing = DefaultTerrainSpacingM
	}
	p := &plan{req: req, g: g, raster: r, eng: eng, stepM: math.Max(MinProfileStepM, math.Min(spacing, pixM))}
	n := Radials(req.RadiusM, pixM)
	if a, ok := eng.(AnyRadialSpacing); ok && a.PixelRadialsAnySpacing() {
		n = radialsAnySpacing(req.RadiusM, pixM)
	}
	p.radials = make([]radial, n)
	for k := range p.radials {
		p.radials[k].bearingDeg = 360 * float64(k) / float64(n)
		p.radials[k].firstTile = math.MaxInt32
	}
	tcols := r.TileCols()
	box := appliance.Around(req.Tx, req.RadiusM)
	row0 := max(0, int(math.Floor((r.North-box.MaxLat)/r.PixelLatDeg))-1)
	row1 := min(r.Height, int(math.Ceil((r.North-box.MinLat)/r.PixelLatDeg))+1)
	col0 := max(0, int(math.Floor((box.MinLon-r.West)/r.PixelLonDeg))-1)
	col1 := min(r.Width, int(math.Ceil((box.MaxLon-r.West)/r.PixelLonDeg))+1)
	// Bands of rows on parallel goroutines, each with its own per-radial
	// lists, concatenated in band order: the same ascending pixel lists as
	// one serial pass.
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	nb := max(1, min(workers, (row1-row0)/16))
	// The trigonometry of appliance.LatLon.DistanceM and BearingDeg split
	// into the factors of a column and of a row, multiplied in the same
	// order: the same bits at a fraction of the cost.
	type colTrig struct{ sinHalf, sin, cos float64 }
	cols := make([]colTrig, col1-col0)
	for col := col0; col < col1; col++ {
		dλ := (r.PixelCenter(0, col).Lon - req.Tx.Lon) * math.Pi / 180
		cols[col-col0] = colTrig{math.Sin(dλ / 2), math.Sin(dλ), math.Cos(dλ)}
	}
	φ1 := req.Tx.Lat * math.Pi / 180
	cφ1, sφ1 := math.Cos(φ1), math.Sin(φ1)
	// the haversine term a of a distance well beyond the radius (1e-6
	// relative): pixels above it are out without their arcsine
	aOut := math.Pow(math.Sin(math.Min(math.Pi/2, req.RadiusM*(1+1e-6)/(2*appliance.EarthRadiusM))), 2)
	// Each band lists its in-radius pixels in row-major order with their
	// radial and distance; the radials' lists are then filled band after
	// band from exact counts (ascending pixel order, no reallocation).
	type bandPixels struct {
		pix, k []int32
		dist   []float64
		off    []float32
	}
	bands := make([]bandPixels, nb)
	panics := make([]*PanicError, max(nb, workers))
	var wg sync.WaitGroup
	for b := range nb {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer catch(&panics[b])
			lo, hi := row0+(row1-row0)*b/nb, row0+(row1-row0)*(b+1)/nb
			bp := &bands[b]
			capPx := (hi - lo) * (col1 - col0)
			bp.pix, bp.k, bp.dist = make([]int32, 0, capPx), make([]int32, 0, capPx), make([]float64, 0, capPx)
			bp.off = make([]float32, 0, capPx)
			for row := lo; row < hi; row++ {
				φ2 := r.PixelCenter(row, 0).Lat * math.Pi / 180
				sHalf := math.Sin((φ2 - φ1) / 2)
				rowA := sHalf * sHalf
				cφ2, sφ2 := math.Cos(φ2), math.Sin(φ2)
				c12, s1c2, c1s2 := cφ1*cφ2, sφ1*cφ2, cφ1*sφ2
				for col := col0; col < col1; col++ {
					ct := &cols[col-col0]
					a := rowA + c12*ct.sinHalf*ct.sinHalf
					if a > aOut {
						continue // surely beyond the radius: no arcsine
					}
					d := 2 * appliance.EarthRadiusM * math.Asin(math.Min(1, math.Sqrt(a)))
					if d > req.RadiusM {
						continue
					}
					// the bearing in [0, 360): math.Mod(x, 360) of x in
					// [180, 540] is this one exact (Sterbenz) subtraction
					b := math.Atan2(ct.sin*cφ2, c1s2-s1c2*ct.cos)*180/math.Pi + 360
					if b >= 360 {
						b -= 360
					}
					k := int(math.Round(b*float64(n)/360)) % n
					off := b - 360*float64(k)/float64(n) // within half a radial spacing (b near 360 for k = 0)
					if off > 180 {
						off -= 360
					}
					bp.pix = append(bp.pix, int32(row*r.Width+col))
					bp.k = append(bp.k, int32(k))
					bp.dist = append(bp.dist, d)
					bp.off = append(bp.off, float32(sinSmall(off*math.Pi/180)))
				}
			}
		}()
	}
	wg.Wait()
	rethrow(panics)
	counts := make([]int, n)
	total := 0
	for b := range bands {
		for _, k := range bands[b].k {
			counts[k]++
		}
		total += len(bands[b].k)
	}
	pixAll, distAll, offAll := make([]int32, total), make([]float64, total), make([]float32, total)
	off := 0
	for k := range p.radials {
		p.radials[k].pix = pixAll[off : off : off+counts[k]]
		p.radials[k].dist = distAll[off : off : off+counts[k]]
		p.radials[k].sinOff = offAll[off : off : off+counts[k]]
		off += counts[k]
	}
	// Each goroutine fills the lists of its own range of radials, reading
	// the bands in order: the same lists as one serial pass.
	nw := max(1, min(workers, n/64))
	for w := range nw {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer catch(&panics[w])
			k0, k1 := int32(n*w/nw), int32(n*(w+1)/nw)
			for b := range bands {
				bp := &bands[b]
				for j, k := range bp.k {
					if k < k0 || k >= k1 {
						continue
					}
					rd := &p.radials[k]
					px := bp.pix[j]
					rd.pix = append(rd.pix, px)
					rd.dist = append(rd.dist, bp.dist[j])
					rd.sinOff = append(rd.sinOff, bp.off[j])
					rd.maxSin = max(rd.maxSin, math.Abs(float64(bp.off[j])))
					row, col := int(px)/r.Width, int(px)%r.Width
					t := int32((row/TileSize)*tcols + col/TileSize)
					if nt := len(rd.tiles); nt == 0 || rd.tiles[nt-1] != t && !slices.Contains(rd.tiles, t) {
						rd.tiles = append(rd.tiles, t)
					}
				}
			}
			for k := k0; k < k1; k++ {
				rd := &p.radials[k]
				slices.Sort(rd.tiles)
				if len(rd.tiles) > 0 {
					rd.firstTile = rd.tiles[0]
				}
			}
		}()
	}
	wg.Wait()
	rethrow(panics)
	return p
}

// sinSmall is math.Sin, by its series for the small angles of the
// pixels' offsets from their radials (to an ulp or two below 0.02 rad).
func sinSmall(x float64) float64 {
	if math.Abs(x) >= 0.02 {
		return math.Sin(x)
	}
	x2 := x * x
	return x * (1 - x2/6*(1-x2/20))
}

// run computes every radial on opts.Workers goroutines and emits tiles.
func (s *Service) run(ctx context.Context, p *plan, opts Options) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	n := len(p.radials)
	// Radials in the order that finishes tiles row-major first.
	order := make([]int, n)
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(p.radials[a].firstTile, p.radials[b].firstTile) })
	r := p.raster
	ntiles := r.TileRows() * r.TileCols()
	pending := make([]int, ntiles)
	for k := range p.radials {
		for _, t := range p.radials[k].tiles {
			pending[t]++
		}
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, n)
	var next atomic.Int64
	done := make(chan int, n)
	var wg sync.WaitGroup
	var unitErr error
	if opts.Units != nil {
		// The radials go out as units; each one's index comes back on
		// done once its result is merged.
		workers = 0
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.runUnits(ctx, p, opts.Units, order, done); err != nil {
				unitErr = err
				cancel()
			}
		}()
	}
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				k := order[i]
				p.radials[k].err = s.safeSweep(ctx, p, k)
				if p.radials[k].err == nil {
					p.calibrateRadial(k)
				}
				done <- k
			}
		}()
	}
	go func() { wg.Wait(); close(done) }()
	nextTile, finished := 0, 0
	var firstErr error
	for k := range done {
		rd := &p.radials[k]
		if rd.err != nil {
			if firstErr == nil {
				firstErr = rd.err
				cancel()
			}
			continue
		}
		if firstErr != nil {
			continue
		}
		finished++
		for _, t := range rd.tiles {
			pending[t]--
		}
		for nextTile < ntiles && pending[nextTile] == 0 {
			if opts.OnTile != nil {
				opts.OnTile(tileDone(r, r.TileAt(nextTile/r.TileCols(), nextTile%r.TileCols())))
			}
			nextTile++
		}
		if opts.OnProgress != nil {
			opts.OnProgress(finished, n)
		}
	}
	if firstErr != nil {
		return firstErr
	}
	if unitErr != nil && !errors.Is(unitErr, context.Canceled) {
		return unitErr
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	for ; nextTile < ntiles; nextTile++ { // tiles no radial touches
		if opts.OnTile != nil {
			opts.OnTile(tileDone(r, r.TileAt(nextTile/r.TileCols(), nextTile%r.TileCols())))
		}
	}
	return nil
}

func tileDone(r *Raster, t Tile) TileDone {
	td := TileDone{Tile: t, Raster: r, MinDBm: math.NaN(), MaxDBm: math.NaN()}
	for y := t.Y0; y < t.Y0+t.H; y++ {
		for _, v := range r.DBm[y*r.Width+t.X0 : y*r.Width+t.X0+t.W] {
			if v != v {
				continue
			}
			f := float64(v)
			if td.ValidPixels == 0 || f < td.MinDBm {
				td.MinDBm = f
			}
			if td.ValidPixels == 0 || f > td.MaxDBm {
				td.MaxDBm = f
			}
			td.ValidPixels++
		}
	}
	return td
}

// ctxEvery is how many engine evaluations run between context checks.
const ctxEvery = 16

// PanicError is a panic of a computation goroutine, recovered: the
// computation fails with it instead of the process (the map registry logs
// it once, with its stack, and counts it).
type PanicError struct {
	Value any    // the value given to panic
	Stack []byte // the stack of the goroutine that panicked
}

func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// safeSweep is sweep with its panic recovered into a *PanicError.
func (s *Service) safeSweep(ctx context.Context, p *plan, k int) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("radial %d: %w", k, &PanicError{Value: v, Stack: debug.Stack()})
		}
	}()
	return s.sweep(ctx, p, k)
}

// catch recovers a panic of a helper goroutine into *dst, for the caller
// to raise again on its own goroutine (rethrow) once the helpers are done.
func catch(dst **PanicError) {
	if v := recover(); v != nil {
		*dst = &PanicError{Value: v, Stack: debug.Stack()}
	}
}

// rethrow panics on the calling goroutine with the first recovered panic
// of its helpers (the caller runs under the registry's recover).
func rethrow(ps []*PanicError) {
	for _, p := range ps {
		if p != nil {
			panic(p)
		}
	}
}

// sweep computes radial k: its profile (cut before missing terrain) and
// the value of every pixel it owns at the receiver the pixel stands for
// (package doc, "Pixels"). It writes only the raster pixels of radial k
// and the radial's own fields.
func (s *Service) sweep(ctx context.Context, p *plan, k int) error {
	rd := &p.radials[k]
	if len(rd.pix) == 0 {
		return nil
	}
	req := p.req
	end := req.Tx.Destination(rd.bearingDeg, req.RadiusM)
	prof, missing, err := s.reachableProfile(req.Tx, end, p.stepM)
	if err != nil {
		return fmt.Errorf("radial %d (bearing %.4f°): %w", k, rd.bearingDeg, err)
	}
	if missing != "" {
		rd.missingTiles = append(rd.missingTiles, missing)
	}
	nan := float32(math.NaN())
	if prof == nil { // terrain missing right after the transmitter
		for _, px := range rd.pix {
			p.raster.DBm[px] = nan
			s.noteMissing(p.raster, rd, px)
		}
		rd.noDataMissing = len(rd.pix)
		return nil
	}
	rd.profiled, rd.noLandCover = true, noLandCover(prof.PathProfile)
	rd.voidSamples, rd.voidSpanM = prof.VoidStats()
	// The pixels in order of distance (the engine's running state carries
	// from one to the next); those beyond the radial's last point with
	// terrain come last, each on its own profile (which may pass beside
	// the missing tile: no-data only when it does not).
	order := make([]int32, 0, len(rd.pix))
	var beyond []int32
	for j, d := range rd.dist {
		if missing != "" && d > prof.LengthM() && !req.Exact {
			beyond = append(beyond, int32(j))
			continue
		}
		order = append(order, int32(j))
	}
	sortByDistance(order, rd.dist, p.stepM)
	reached := len(order)
	order = append(order, beyond...)
	loss := make([]float64, len(order))
	state := make([]pixelState, len(order))
	for o := reached; o < len(order); o++ {
		state[o] = pixelFallback
		if s.ownBeyondMissing(p, rd, int(order[o]), prof.LengthM()) {
			state[o], loss[o] = pixelMissing, math.NaN()
		}
	}
	own := req.Exact
	if !own {
		done, err := s.pixelSweep(ctx, p, k, prof, order[:reached], loss[:reached], state[:reached])
		if err != nil {
			return fmt.Errorf("radial %d (bearing %.4f°): %w", k, rd.bearingDeg, err)
		}
		own = !done
	}
	for o, j := range order {
		if state[o] == pixelMissing || !own && state[o] != pixelFallback {
			continue
		}
		if rd.evaluations%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if loss[o], state[o], err = s.ownPixel(ctx, p, rd, int(j), req.Exact); err != nil {
			return fmt.Errorf("radial %d (bearing %.4f°): %w", k, rd.bearingDeg, err)
		}
	}
	// An antenna with a vertical pattern loses toward each pixel by the
	// elevation at which it sees the receiver at the pixel centre (package
	// doc, "Antenna pattern"); the generic sector has none.
	vertical := req.Radiator != nil && req.Radiator.HasVertical()
	zt := prof.HeightsM[0] + req.TxHeightM
	for o, j := range order {
		px := rd.pix[j]
		if state[o] != pixelMissing {
			rd.evaluations++
		}
		switch {
		case state[o] == pixelMissing:
			p.raster.DBm[px] = nan
			rd.noDataMissing++
			s.noteMissing(p.raster, rd, px)
		case math.IsNaN(loss[o]):
			p.raster.DBm[px] = nan
			rd.noDataEnvelope++
		default:
			// the pattern at the pixel's own bearing, as /analyze_link
			// takes it for a receiver there
			b := rd.bearingDeg + math.Asin(float64(rd.sinOff[j]))*180/math.Pi
			pattern := req.PatternLossDB(b)
			if vertical {
				c := p.raster.PixelCenter(int(px)/p.raster.Width, int(px)%p.raster.Width)
				g, err := s.terrain.ElevationM(c)
				if err != nil {
					return fmt.Errorf("radial %d (bearing %.4f°): pixel %d ground: %w", k, rd.bearingDeg, px, err)
				}
				pattern = req.PatternLossAtDB(b, appliance.ElevationDownDeg(zt, g+req.RxHeightM, rd.dist[j]))
			}
			p.raster.DBm[px] = float32(req.EIRPDBm - pattern - loss[o])
		}
	}
	return nil
}

// ownBeyondMissing reports whether pixel j of radial rd, beyond the
// radial's last point with terrain (lastM metres from the transmitter),
// has no terrain at one of the first samples of its own profile beyond
// that distance: its own profile then has none either, and the pixel is
// no-data without profiling it. (Only pixels whose own line passes beside
// the missing tile are profiled.)
func (s *Service) ownBeyondMissing(p *plan, rd *radial, j int, lastM float64) bool {
	d := rd.dist[j]
	n := appliance.ProfileSteps(d, p.stepM)
	xi := d / n
	b := rd.bearingDeg + math.Asin(float64(rd.sinOff[j]))*180/math.Pi
	// the radial was cut up to a few samples before its first missing
	// point (reachableProfile)
	// from the farthest: a pixel deep behind the missing tile is decided by
	// one probe
	first := math.Floor(lastM/xi) + 1
	for i := math.Min(n, math.Floor((lastM+beyondProbes*p.stepM)/xi)); i >= first; i-- {
		if _, err := s.terrain.ElevationM(p.req.Tx.Destination(b, i*xi)); err != nil && isMissing(err) {
			return true
		}
	}
	return false
}

// beyondProbes is how many profile steps beyond a radial's cut
// ownBeyondMissing looks for missing terrain on a pixel's own line.
const beyondProbes = 8

// sortByDistance sorts order (indices into dist) by distance, stable: by
// buckets of stepM metres, then by insertion within them.
func sortByDistance(order []int32, dist []float64, stepM float64) {
	if len(order) < 2 {
		return
	}
	maxB := 0
	for _, j := range order {
		maxB = max(maxB, int(dist[j]/stepM))
	}
	counts := make([]int32, maxB+2)
	for _, j := range order {
		counts[int(dist[j]/stepM)+1]++
	}
	for b := 1; b < len(counts); b++ {
		counts[b] += counts[b-1]
	}
	sorted := make([]int32, len(order))
	for _, j := range order {
		b := int(dist[j] / stepM)
		sorted[counts[b]] = j
		counts[b]++
	}
	for i := 1; i < len(sorted); i++ {
		for k := i; k > 0 && dist[sorted[k]] < dist[sorted[k-1]]; k-- {
			sorted[k], sorted[k-1] = sorted[k-1], sorted[k]
		}
	}
	copy(order, sorted)
}

// pixelState is how a pixel's loss was found.
type pixelState uint8

const (
	pixelDone     pixelState = iota // loss holds the engine's loss (NaN: refused as outside its validity)
	pixelFallback                   // the engine left it: computed on the pixel's own profile
	pixelMissing                    // the pixel's own profile has no terrain somewhere: no-data
)

// ownPixel computes pixel j of radial rd on its own profile,
// Terrain.Profile(tx, pixel centre, step) when exact, else the same
// profile sampled through appliance.RadialProfiler (points within a
// centimetre). A refusal as outside the engine's validity is NaN.
func (s *Service) ownPixel(ctx context.Context, p *plan, rd *radial, j int, exact bool) (float64, pixelState, error) {
	req := p.req
	px := int(rd.pix[j])
	c := p.raster.PixelCenter(px/p.raster.Width, px%p.raster.Width)
	profileOf := s.terrain.Profile
	if rp, ok := s.terrain.(appliance.RadialProfiler); ok && !exact {
		profileOf = rp.RadialProfile
	}
	prof, err := profileOf(req.Tx, c, p.stepM)
	var tme *appliance.TileMissingError
	switch {
	case errors.As(err, &tme):
		return math.NaN(), pixelMissing, nil
	case err != nil:
		return 0, 0, fmt.Errorf("pixel %d: terrain profile: %w", px, err)
	}
	in := appliance.LinkInput{Tx: req.Tx, Rx: c, TxHeightM: req.TxHeightM, RxHeightM: req.RxHeightM,
		FreqMHz: req.FreqMHz, Profile: prof, TimePct: req.TimePct, LocationPct: req.LocationPct}
	var loss float64
	var version string
	if lp, ok := p.eng.(LossPredictor); ok {
		loss, err = lp.PredictLossDB(ctx, in)
		version = lp.PixelVersion()
	} else {
		var pred appliance.LinkPrediction
		pred, err = p.eng.Predict(ctx, in)
		loss, version = pred.PathLossDB, pred.EngineVersion
	}
	switch {
	case errors.Is(err, appliance.ErrOutsideEnvelope):
		if rd.envelopeErr == nil {
			rd.envelopeErr = err
		}
		return math.NaN(), pixelDone, nil
	case err != nil:
		return 0, 0, fmt.Errorf("pixel %d: %w", px, err)
	}
	if rd.version == "" {
		rd.version = version
	}
	return loss, pixelDone, nil
}

// calibrateRadial adds the tenant's calibration (Request.Calibration,
// set by Starter: the one hook of the coverage maps) to every valid pixel
// of radial k, its correction at the pixel's centre. It runs in the
// process that owns the map, after the radial is computed here or merged
// from a unit, so that a map computed by workers is calibrated the same,
// bit for bit.
func (p *plan) calibrateRadial(k int) {
	cal := p.req.Calibration
	if cal == nil {
		return
	}
	r := p.raster
	for _, px := range p.radials[k].pix {
		v := r.DBm[px]
		if math.IsNaN(float64(v)) {
			continue
		}
		r.DBm[px] = float32(float64(v) + cal.At(p.req.Tx, r.PixelCenter(int(px)/r.Width, int(px)%r.Width)).OffsetDB)
	}
}

// noteMissing adds to the radial's missing tiles the tile under no-data
// pixel px when no pack holds it (a pixel behind a missing tile may itself
// lie on terrain).
func (s *Service) noteMissing(r *Raster, rd *radial, px int32) {
	_, err := s.terrain.ElevationM(r.PixelCenter(int(px)/r.Width, int(px)%r.Width))
	var tme *appliance.TileMissingError
	if errors.As(err, &tme) && !slices.Contains(rd.missingTiles, tme.Tile) {
		rd.missingTiles = append(rd.missingTiles, tme.Tile)
	}
}

// SampleRx returns the receiver position of sample i of an n-sample radial
// profile ending at end: end itself for the last sample, else the point at
// fraction i/(n−1) of the great circle gc from the transmitter to end.
func SampleRx(gc *appliance.GreatCircle, end appliance.LatLon, i, n int) appliance.LatLon {
	if i == n-1 {
		return end
	}
	return gc.At(float64(i) / float64(n-1))
}

// radialProfile is a radial's profile and its last point.
type radialProfile struct {
	*appliance.PathProfile
	endPoint appliance.LatLon
}

// reachableProfile returns the profile from tx to end, or, when terrain
// on the way is missing, the profile from tx to the last point before the
// first missing one (probed at the profile's own sample points), with the
// missing tile's name; nil when not even the first step is covered.
func (s *Service) reachableProfile(tx, end appliance.LatLon, stepM float64) (*radialProfile, string, error) {
	profileOf := s.terrain.Profile
	if rp, ok := s.terrain.(appliance.RadialProfiler); ok {
		profileOf = rp.RadialProfile
	}
	prof, err := profileOf(tx, end, stepM)
	if err == nil {
		return &radialProfile{prof, end}, "", nil
	}
	var tme *appliance.TileMissingError
	if !errors.As(err, &tme) {
		return nil, "", fmt.Errorf("terrain profile: %w", err)
	}
	name := tme.Tile
	gc := tx.GreatCircleTo(end)
	steps := int(math.Ceil(tx.DistanceM(end) / stepM))
	j := 1
	for ; j <= steps; j++ {
		if _, err := s.terrain.ElevationM(gc.At(float64(j) / float64(steps))); err != nil {
			if errors.As(err, &tme) {
				name = tme.Tile
				break
			}
			return nil, "", fmt.Errorf("terrain elevation: %w", err)
		}
	}
	// The last covered probe is j−1; a profile to it may still touch the
	// missing tile through interpolation, so step back until it does not.
	for last := j - 1; last >= 1; last-- {
		cut := gc.At(float64(last) / float64(steps))
		prof, err := profileOf(tx, cut, stepM)
		if err == nil {
			return &radialProfile{prof, cut}, name, nil
		}
		if !errors.As(err, &tme) {
			return nil, "", fmt.Errorf("terrain profile: %w", err)
		}
	}
	return nil, name, nil
}

// summary adds up the finished raster in pixel order.
func (p *plan) summary(opts Options) Summary {
	r := p.raster
	th := opts.ThresholdDBm
	if th == 0 {
		th = DefaultThresholdDBm
	}
	s := Summary{Pixels: r.Width * r.Height, ThresholdDBm: th, MinDBm: math.NaN(), MaxDBm: math.NaN(),
		Engine: p.eng.ID(), Radials: len(p.radials), ProfileStepM: p.stepM, Pixel: pixelInfo(p.req, p.stepM)}
	tiles := map[string]bool{}
	for k := range p.radials {
		rd := &p.radials[k]
		s.InRadiusPixels += len(rd.pix)
		s.NoDataMissingTerrain += rd.noDataMissing
		s.NoDataOutsideEnvelope += rd.noDataEnvelope
		s.Evaluations += rd.evaluations
		s.addTerrain(rd)
		for _, t := range rd.missingTiles {
			if !tiles[t] {
				tiles[t] = true
				s.MissingTiles = append(s.MissingTiles, t)
			}
		}
		if s.EngineVersion == "" {
			s.EngineVersion = rd.version
		}
	}
	slices.Sort(s.MissingTiles)
	s.addPixels(r)
	return s
}

// addTerrain adds the terrain facts of radial rd.
func (s *Summary) addTerrain(rd *radial) {
	if !rd.profiled {
		return
	}
	s.ProfiledRadials++
	if rd.voidSamples > 0 {
		s.VoidFilledRadials++
		s.VoidFilledSamples += rd.voidSamples
		s.VoidMaxSpanM = math.Max(s.VoidMaxSpanM, rd.voidSpanM)
	}
	if rd.noLandCover {
		s.NoLandCoverRadials++
	}
}

// addPixels adds the valid pixels of r (count, extremes, covered area at
// s.ThresholdDBm) in pixel order.
func (s *Summary) addPixels(r *Raster) {
	th := s.ThresholdDBm
	for row := range r.Height {
		area := r.PixelAreaKm2(row)
		for _, v := range r.DBm[row*r.Width : (row+1)*r.Width] {
			if v != v {
				continue
			}
			f := float64(v)
			if s.ValidPixels == 0 || f < s.MinDBm {
				s.MinDBm = f
			}
			if s.ValidPixels == 0 || f > s.MaxDBm {
				s.MaxDBm = f
			}
			s.ValidPixels++
			if f >= th {
				s.CoveredKm2AboveThreshold += area
			}
		}
	}
}

// allRefused returns the engine's first refusal (in radial order) when
// the engine refused every pixel as outside its validity (a frequency or
// antenna height out of its range): such a map would be all no-data, so
// the request fails instead, matching appliance.ErrOutsideEnvelope.
func (p *plan) allRefused(s Summary) error {
	if s.ValidPixels > 0 || s.NoDataOutsideEnvelope == 0 {
		return nil
	}
	for k := range p.radials {
		if err := p.radials[k].envelopeErr; err != nil {
			return fmt.Errorf("every pixel is outside the validity of engine %s: %w", p.eng.ID(), err)
		}
	}
	return nil
}
