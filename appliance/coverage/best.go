package coverage

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"linkplan/appliance"
)

// MaxBestServers is the most transmitters of one best-server map.
const MaxBestServers = 1000

// BestResult is a best-server (composite) map: per pixel the strongest
// transmitter and its level.
type BestResult struct {
	// Raster holds the strongest level per pixel, dBm (NaN: no transmitter
	// has a value there).
	Raster *Raster
	// Server holds, per pixel of Raster, the index in the request slice of
	// the strongest transmitter (the lowest index on a tie), −1 for no-data.
	Server []int32
	// Summary adds up Raster; its no-data, missing-tile, evaluation and
	// radial figures are the totals over the transmitters.
	Summary Summary
	// PerServer is the summary of each transmitter's own map on the union
	// grid, in request order.
	PerServer []Summary
}

// ComputeBest computes the map of every request on one grid and keeps,
// per pixel, the strongest. The grid follows the rule of the package doc
// for the union of the radius boxes, with the pixel size of the union's
// central latitude; every request must have the same ResolutionM. The
// transmitters are computed one after the other (each on opts.Workers
// goroutines), so the result is deterministic; OnProgress counts the
// radials of all of them, and OnTile reports every tile, in row-major
// order, once all transmitters are done. Errors are those of Compute, with
// the index of the transmitter ("sites[i]…" fields for bad requests).
func (s *Service) ComputeBest(ctx context.Context, reqs []Request, opts Options) (*BestResult, error) {
	start := time.Now()
	v := &appliance.ValidationError{}
	if len(reqs) == 0 || len(reqs) > MaxBestServers {
		v.Add("sites", "must hold 1..%d transmitters, got %d", MaxBestServers, len(reqs))
	}
	for i, r := range reqs {
		if err := r.Validate(); err != nil {
			if ve, ok := err.(*appliance.ValidationError); ok {
				for _, f := range ve.Fields {
					v.Add("sites["+strconv.Itoa(i)+"]."+f.Field, "%s", f.Reason)
				}
			}
		} else if r.ResolutionM != reqs[0].ResolutionM {
			v.Add("sites["+strconv.Itoa(i)+"].resolution_m", "must equal the first site's %g m, got %g", reqs[0].ResolutionM, r.ResolutionM)
		}
	}
	if err := v.Err(); err != nil {
		return nil, fmt.Errorf("coverage compute best: %w", err)
	}
	g := unionGrid(reqs)
	best := g.raster()
	server := make([]int32, len(best.DBm))
	for i := range server {
		server[i] = -1
	}
	th := opts.ThresholdDBm
	if th == 0 {
		th = DefaultThresholdDBm
	}
	out := &BestResult{Raster: best, Server: server, PerServer: make([]Summary, len(reqs))}
	plans := make([]*plan, len(reqs))
	total := 0
	for i, req := range reqs {
		eng, err := s.engines(req.Engine)
		if err != nil {
			return nil, fmt.Errorf("coverage compute best: site %d: %w", i, err)
		}
		if _, err := s.terrain.ElevationM(req.Tx); err != nil {
			return nil, fmt.Errorf("coverage compute best: site %d: transmitter ground: %w", i, err)
		}
		plans[i] = s.newPlan(req, opts, eng, g)
		total += len(plans[i].radials)
	}
	doneBefore := 0
	for i, p := range plans {
		inner := Options{Workers: opts.Workers, TerrainSpacingM: opts.TerrainSpacingM, ThresholdDBm: th}
		if opts.Units != nil {
			u := *opts.Units
			u.Unit.Run += "/" + strconv.Itoa(i) // one run per transmitter
			inner.Units = &u
		}
		if opts.OnProgress != nil {
			inner.OnProgress = func(done, _ int) { opts.OnProgress(doneBefore+done, total) }
		}
		p.allocate()
		if err := s.run(ctx, p, inner); err != nil {
			return nil, fmt.Errorf("coverage compute best: site %d: %w", i, err)
		}
		doneBefore += len(p.radials)
		out.PerServer[i] = p.summary(inner)
		if err := p.allRefused(out.PerServer[i]); err != nil {
			return nil, fmt.Errorf("coverage compute best: site %d: %w", i, err)
		}
		for k := range p.radials {
			for _, px := range p.radials[k].pix {
				v := p.raster.DBm[px]
				if v == v && (server[px] < 0 || v > best.DBm[px]) {
					best.DBm[px], server[px] = v, int32(i)
				}
			}
		}
		p.raster = nil // free the transmitter's raster
	}
	sum := Summary{Pixels: best.Width * best.Height, ThresholdDBm: th, MinDBm: math.NaN(), MaxDBm: math.NaN(),
		Engine: reqs[0].Engine}
	tiles := map[string]bool{}
	inRadius := make([]bool, len(best.DBm))
	for i, ps := range out.PerServer {
		for k := range plans[i].radials {
			for _, px := range plans[i].radials[k].pix {
				inRadius[px] = true
			}
		}
		sum.NoDataMissingTerrain += ps.NoDataMissingTerrain
		sum.NoDataOutsideEnvelope += ps.NoDataOutsideEnvelope
		sum.Radials += ps.Radials
		sum.Evaluations += ps.Evaluations
		sum.ProfiledRadials += ps.ProfiledRadials
		sum.VoidFilledRadials += ps.VoidFilledRadials
		sum.VoidFilledSamples += ps.VoidFilledSamples
		sum.VoidMaxSpanM = math.Max(sum.VoidMaxSpanM, ps.VoidMaxSpanM)
		sum.NoLandCoverRadials += ps.NoLandCoverRadials
		sum.ProfileStepM = ps.ProfileStepM
		if ps.Engine != sum.Engine {
			sum.Engine = ""
		}
		if sum.EngineVersion == "" {
			sum.EngineVersion = ps.EngineVersion
		} else if ps.EngineVersion != "" && ps.EngineVersion != sum.EngineVersion {
			sum.EngineVersion = "mixed"
		}
		for _, t := range ps.MissingTiles {
			if !tiles[t] {
				tiles[t] = true
				sum.MissingTiles = append(sum.MissingTiles, t)
			}
		}
	}
	for _, in := range inRadius {
		if in {
			sum.InRadiusPixels++
		}
	}
	slices.Sort(sum.MissingTiles)
	sum.addPixels(best)
	sum.finishCaveats(reqs)
	sum.ElapsedMS = time.Since(start).Milliseconds()
	out.Summary = sum
	if opts.OnTile != nil {
		for _, t := range best.Tiles() {
			td := tileDone(best, t)
			td.Servers = out.Server
			opts.OnTile(td)
		}
	}
	return out, nil
}

// unionGrid is the grid of a best-server map (package doc, "Grid"): the
// union of the radius boxes, with the pixel size of its central latitude.
func unionGrid(reqs []Request) grid {
	union := appliance.Around(reqs[0].Tx, reqs[0].RadiusM)
	for _, r := range reqs[1:] {
		b := appliance.Around(r.Tx, r.RadiusM)
		union.MinLat, union.MaxLat = math.Min(union.MinLat, b.MinLat), math.Max(union.MaxLat, b.MaxLat)
		union.MinLon, union.MaxLon = math.Min(union.MinLon, b.MinLon), math.Max(union.MaxLon, b.MaxLon)
	}
	latSec, lonSec := PixelArcSeconds(reqs[0].ResolutionM, (union.MinLat+union.MaxLat)/2)
	return newGrid(union, latSec, lonSec)
}

// Shape returns the raster geometry (DBm nil) that Compute (one request)
// or ComputeBest (best) gives for reqs, without computing anything.
func Shape(reqs []Request, best bool) *Raster {
	g := gridFor(reqs[0])
	if best {
		g = unionGrid(reqs)
	}
	return &Raster{West: float64(g.westSec) / 3600, North: float64(g.northSec) / 3600,
		PixelLonDeg: float64(g.pxLonSec) / 3600, PixelLatDeg: float64(g.pxLatSec) / 3600, Width: g.width, Height: g.height}
}
