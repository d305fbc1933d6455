package coverage

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"linkplan/appliance"
)

// EachMap is one transmitter's map on the shared grid of ComputeEach.
type EachMap struct {
	Index   int     // the request's index
	Raster  *Raster // its level per pixel of the shared grid, dBm (NaN: no data); valid only during the callback
	Summary Summary // the summary of its own map on the shared grid
	// Pixels lists the raster indices within the transmitter's radius
	// (every pixel the sweep assigned to a radial), in radial order.
	Pixels [][]int32
}

// ComputeEach computes the map of each request on one grid, the grid of
// ComputeBest (package doc, "Best-server map"), in the order of order (a
// permutation of the request indices; nil is index order), and hands each
// to fn before computing the next: the raster of reqs[i] is the one
// ComputeBest computes for it, bit for bit. The raster is reused
// afterwards: fn must copy what it keeps. OnProgress counts the radials
// of all the requests; OnTile is not called. It returns the grid (Raster
// with DBm nil). Errors are ComputeBest's.
func (s *Service) ComputeEach(ctx context.Context, reqs []Request, order []int, opts Options, fn func(EachMap) error) (*Raster, error) {
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
	if order == nil {
		order = make([]int, len(reqs))
		for i := range order {
			order[i] = i
		}
	} else if len(order) != len(reqs) {
		v.Add("sites", "order holds %d indices for %d transmitters", len(order), len(reqs))
	}
	if err := v.Err(); err != nil {
		return nil, fmt.Errorf("coverage compute each: %w", err)
	}
	g := unionGrid(reqs)
	th := opts.ThresholdDBm
	if th == 0 {
		th = DefaultThresholdDBm
	}
	plans := make([]*plan, len(reqs))
	total := 0
	for i, req := range reqs {
		eng, err := s.engines(req.Engine)
		if err != nil {
			return nil, fmt.Errorf("coverage compute each: site %d: %w", i, err)
		}
		if _, err := s.terrain.ElevationM(req.Tx); err != nil {
			return nil, fmt.Errorf("coverage compute each: site %d: transmitter ground: %w", i, err)
		}
		plans[i] = s.newPlan(req, opts, eng, g)
		total += len(plans[i].radials)
	}
	shape := *plans[0].raster
	doneBefore := 0
	var buf []float32
	for _, i := range order {
		p := plans[i]
		inner := Options{Workers: opts.Workers, TerrainSpacingM: opts.TerrainSpacingM, ThresholdDBm: th}
		if opts.OnProgress != nil {
			inner.OnProgress = func(done, _ int) { opts.OnProgress(doneBefore+done, total) }
		}
		if buf == nil {
			p.allocate()
			buf = p.raster.DBm
		} else {
			nan := float32(math.NaN())
			for k := range buf {
				buf[k] = nan
			}
			p.raster.DBm = buf
		}
		if err := s.run(ctx, p, inner); err != nil {
			return nil, fmt.Errorf("coverage compute each: site %d: %w", i, err)
		}
		doneBefore += len(p.radials)
		sum := p.summary(inner)
		if err := p.allRefused(sum); err != nil {
			return nil, fmt.Errorf("coverage compute each: site %d: %w", i, err)
		}
		sum.finishCaveats([]Request{p.req})
		pix := make([][]int32, len(p.radials))
		for k := range p.radials {
			pix[k] = p.radials[k].pix
		}
		if err := fn(EachMap{Index: i, Raster: p.raster, Summary: sum, Pixels: pix}); err != nil {
			return nil, err
		}
		p.raster.DBm = nil
		plans[i] = nil // its radial lists may go
	}
	return &shape, nil
}
