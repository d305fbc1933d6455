package terrain

import (
	"fmt"
	"math"

	"linkplan/appliance"
)

// SamplePath calls yield(i, heightM) for each index i of idx, in that
// order, heightM being the height of sample i of path: Profile(path.A,
// path.B, stepM).HeightsM[i] bit for bit, for the path
// appliance.NewProfilePath(path.A, path.B, stepM) gives. It stops when
// yield returns false, or at the first sample that fails, with the error
// Profile gives for it (a *appliance.TileMissingError for a point no
// pack covers). The planner's sparse bounds sample single indices of a
// path with it, in the order that proves a tower out soonest.
func (p *Pack) SamplePath(path *appliance.ProfilePath, idx []int, yield func(i int, heightM float64) bool) error {
	var ref tileRef // kept between samples; a direct call keeps it off the heap
	for _, i := range idx {
		if err := checkIndex(path, i); err != nil {
			return err
		}
		h, _, _, err := p.elevation(path.Point(i), &ref)
		if err != nil {
			return sampleError(path, i, err)
		}
		if !yield(i, h) {
			return nil
		}
	}
	return nil
}

// SamplePath is Pack.SamplePath, each sample from the first pack that has
// it (as Profile).
func (l *Layered) SamplePath(path *appliance.ProfilePath, idx []int, yield func(i int, heightM float64) bool) error {
	var ref tileRef
	for _, i := range idx {
		if err := checkIndex(path, i); err != nil {
			return fmt.Errorf("layered: %w", err)
		}
		h, _, _, err := l.elevation(path.Point(i), &ref)
		if err != nil {
			return fmt.Errorf("layered: %w", sampleError(path, i, err))
		}
		if !yield(i, h) {
			return nil
		}
	}
	return nil
}

func checkIndex(path *appliance.ProfilePath, i int) error {
	if i < 0 || i > path.Steps {
		return fmt.Errorf("profile sample %d of a path of %d: %w", i, path.Steps+1, appliance.ErrInvalid)
	}
	return nil
}

// sampleError is Profile's error for sample i.
func sampleError(path *appliance.ProfilePath, i int, err error) error {
	return fmt.Errorf("profile sample %d at %.1f m: %w", i, path.DistanceM(i), err)
}

// CoversPath reports whether every sample of path has a height in the
// pack: when true, no SamplePath or Profile call on the path fails. It is
// conservative: every tile that a box around the path's end points (wide
// enough for the great circle's bulge between them) touches must be held
// as sea or as land without NoData samples that decodes; a path near a
// missing tile, a void tile or a tile with NoData samples reports false
// even when its samples miss them.
func (p *Pack) CoversPath(path *appliance.ProfilePath) bool {
	return coversPath(path, []*Pack{p})
}

// CoversPath is Pack.CoversPath over the layered packs: each tile of the
// box must be held by at least one of them, and soundly (as Pack's) by
// every one that holds it.
func (l *Layered) CoversPath(path *appliance.ProfilePath) bool { return coversPath(path, l.packs) }

// pathBoxMarginDeg returns a margin, degrees, by which the latitude (and
// longitude) of every point of the great-circle arc of angular length δ
// radians between end points of latitude at most maxAbsLatDeg stays
// within the end points' range: the arc's largest latitude excess over
// its ends is about δ²/8·tan φ, and the margin is more than four times
// that, plus rounding.
func pathBoxMarginDeg(δ, maxAbsLatDeg float64) float64 {
	t := math.Tan((maxAbsLatDeg*math.Pi/180 + δ))
	return δ*δ*(1+t)/2*180/math.Pi + 1e-7
}

func coversPath(path *appliance.ProfilePath, packs []*Pack) bool {
	a, b := path.A, path.B
	if !a.Valid() || !b.Valid() || len(packs) == 0 {
		return false
	}
	δ := path.LengthM / appliance.EarthRadiusM
	maxAbs := math.Max(math.Abs(a.Lat), math.Abs(b.Lat))
	if maxAbs > 80 || δ > 0.1 || math.Abs(a.Lon-b.Lon) > 90 {
		return false // near a pole, long or across the antimeridian: not worth a proof
	}
	m := pathBoxMarginDeg(δ, maxAbs)
	lat0, lat1 := int(math.Floor(math.Min(a.Lat, b.Lat)-m)), int(math.Floor(math.Max(a.Lat, b.Lat)+m))
	lon0, lon1 := int(math.Floor(math.Min(a.Lon, b.Lon)-m)), int(math.Floor(math.Max(a.Lon, b.Lon)+m))
	for lat := lat0; lat <= lat1; lat++ {
		for lon := lon0; lon <= lon1; lon++ {
			held := false
			for _, p := range packs {
				ok, sound := p.soundTile(TileID{Lat: lat, Lon: lon})
				if ok && !sound {
					return false
				}
				held = held || ok
			}
			if !held {
				return false
			}
		}
	}
	return true
}

// soundTile reports whether the pack holds t and, if so, whether every
// point of t gets a height from it: a sea tile, or a land tile that
// decodes and has no NoData sample. A land tile's answer is kept (the
// tile does not change), except after an error reading it, which the
// next call retries.
func (p *Pack) soundTile(t TileID) (held, sound bool) {
	i, ok := p.byTile[t]
	if !ok {
		return false, false
	}
	switch p.entries[i].Kind {
	case KindSea:
		return true, true
	case KindLand:
		v := p.sound[i].Load()
		if v == 0 {
			d, err := p.heights(t)
			if err != nil {
				return true, false
			}
			v = 2
			if !d.noData {
				v = 1
			}
			p.sound[i].Store(v)
		}
		return true, v == 1
	}
	return true, false
}
