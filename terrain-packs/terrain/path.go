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

func coversPath(path *appliance.ProfilePath, packs []*Pack) bool {
	if len(packs) == 0 {
		return false
	}
	box, ok := appliance.ArcBox(path.A, path.B, path.LengthM)
	return ok && len(gaps(box, packs, nil)) == 0
}

// Gaps appends to dst the boxes, degrees, of the tiles that b touches
// and the pack does not hold soundly (as CoversPath: missing, void, with
// NoData samples, or unreadable) and returns it: every point of b outside
// them has a height, so a path whose appliance.ArcBox meets none of them
// is covered. An invalid b, or one touching more than maxGapTiles tiles,
// is one gap, itself. The planner checks the paths of a search with it:
// the disc of the search (appliance.DiscBox) first, then each path only
// against the gaps found there.
func (p *Pack) Gaps(b appliance.BBox, dst []appliance.BBox) []appliance.BBox {
	return gaps(b, []*Pack{p}, dst)
}

// Gaps is Pack.Gaps over the layered packs: a tile is a gap unless at
// least one of them holds it and every one that holds it holds it
// soundly (as CoversPath).
func (l *Layered) Gaps(b appliance.BBox, dst []appliance.BBox) []appliance.BBox {
	return gaps(b, l.packs, dst)
}

// maxGapTiles bounds the tiles a box may touch (a 0.1 rad disc at 80° of
// latitude touches about 13 × 67): beyond, the box is one gap.
const maxGapTiles = 1024

func gaps(b appliance.BBox, packs []*Pack, dst []appliance.BBox) []appliance.BBox {
	ok := b.MinLat <= b.MaxLat && b.MinLon <= b.MaxLon && b.MinLat >= -90 && b.MaxLat <= 90 && b.MinLon >= -180 && b.MaxLon <= 180
	if !ok {
		return append(dst, b)
	}
	lat0, lat1 := int(math.Floor(b.MinLat)), int(math.Floor(b.MaxLat))
	lon0, lon1 := int(math.Floor(b.MinLon)), int(math.Floor(b.MaxLon))
	if (lat1-lat0+1)*(lon1-lon0+1) > maxGapTiles {
		return append(dst, b)
	}
	for lat := lat0; lat <= lat1; lat++ {
		for lon := lon0; lon <= lon1; lon++ {
			if !soundAcross(TileID{Lat: lat, Lon: lon}, packs) {
				dst = append(dst, appliance.BBox{MinLat: float64(lat), MinLon: float64(lon), MaxLat: float64(lat + 1), MaxLon: float64(lon + 1)})
			}
		}
	}
	return dst
}

// soundAcross reports whether at least one pack holds t and every pack
// that holds it holds it soundly.
func soundAcross(t TileID, packs []*Pack) bool {
	held := false
	for _, p := range packs {
		ok, sound := p.soundTile(t)
		if ok && !sound {
			return false
		}
		held = held || ok
	}
	return held
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
