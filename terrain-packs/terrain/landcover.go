package terrain

import (
	"errors"
	"fmt"
	"math"

	"linkplan/appliance"
	"linkplan/terrain-packs/clutter"
)

var (
	_ appliance.ClutterMap = (*Pack)(nil)
	_ appliance.ClutterMap = (*Layered)(nil)
)

// ErrNoClutterLayer is returned (wrapped) by ClutterAt and ReadClutter on
// a pack built without land-cover inputs: it has no land-cover layer and
// never guesses a class. It matches appliance.ErrUnavailable.
var ErrNoClutterLayer = fmt.Errorf("terrain pack has no land-cover (clutter) layer: %w", appliance.ErrUnavailable)

// HasClutter reports whether the pack has the land-cover layer (a
// version-3 pack built with land-cover inputs).
func (p *Pack) HasClutter() bool { return p.hdr.Clutter }

// ReadClutter reads, checks and decodes the land-cover classes of tile t,
// bypassing the cache: (SamplesPerDegree+1)² values (0 unknown, 1…10 the
// clutter.Class values), row-major, north row first, on the grid of the
// heights. It returns an error matching ErrNoClutterLayer when the pack
// has no land-cover layer, a *appliance.TileMissingError when it lacks t,
// and an error matching ErrCorrupt for a damaged payload (checksum, zstd
// frame, length, a value above 10, or class counts that differ from the
// index's).
func (p *Pack) ReadClutter(t TileID) ([]uint8, error) {
	if !p.hdr.Clutter {
		return nil, fmt.Errorf("read land cover of %s: %w", t, ErrNoClutterLayer)
	}
	i, ok := p.byTile[t]
	if !ok {
		return nil, &appliance.TileMissingError{Tile: t.Name()}
	}
	e := p.entries[i].Clutter
	n := p.hdr.TileSamples()
	if e.Codec == ClutterUniform {
		out := make([]uint8, n*n)
		if e.Class != 0 {
			for k := range out {
				out[k] = e.Class
			}
		}
		return out, nil
	}
	payload, err := p.payload(e.Offset, e.Length, e.CRC)
	if err != nil {
		return nil, fmt.Errorf("read land cover of %s: %w", t, err)
	}
	c, err := p.dec.decodeClutter(payload, n, &e.Counts)
	if err != nil {
		return nil, fmt.Errorf("decode land cover of %s: %w", t, err)
	}
	return c, nil
}

// clutterRef lets Profile keep the current land-cover tile between
// samples.
type clutterRef struct {
	owner   *Pack
	id      TileID
	classes []uint8
}

// ClutterAt returns the land cover at q: the class of the nearest sample
// of the land-cover layer (samples lie on the height grid, 3″ ≈ 92 m
// apart on SRTM3 packs), its label ("Forest"; "Unknown" for class 0) and
// its representative clutter height in metres (clutter.Class.HeightM).
//
// Class 0 "Unknown" (0 m) with a nil error means the pack has the layer
// but no land-cover source covered q (or the source said "not observed"):
// it is never replaced by a guess. On a pack without the layer ClutterAt
// returns an error matching ErrNoClutterLayer (and appliance.ErrUnavailable);
// for a point in a tile the pack lacks, a *appliance.TileMissingError; for
// an invalid position, an error matching appliance.ErrInvalid. Sea tiles
// are Water.
func (p *Pack) ClutterAt(q appliance.LatLon) (appliance.ClutterInfo, error) {
	if !q.Valid() {
		return appliance.ClutterInfo{}, appliance.Invalid("position", "%v is not a valid WGS84 position", q)
	}
	c, err := p.clutterClass(q, nil)
	if err != nil {
		return appliance.ClutterInfo{}, err
	}
	return clutterInfo(c), nil
}

func clutterInfo(c uint8) appliance.ClutterInfo {
	k := clutter.Class(c)
	return appliance.ClutterInfo{Class: c, Label: k.String(), HeightM: k.HeightM()}
}

// clutterClass returns the land-cover class of the sample nearest to the
// valid position q.
func (p *Pack) clutterClass(q appliance.LatLon, ref *clutterRef) (uint8, error) {
	if !p.hdr.Clutter {
		return 0, fmt.Errorf("land cover at %v: %w", q, ErrNoClutterLayer)
	}
	t := TileOf(q)
	var classes []uint8
	if ref != nil && ref.owner == p && ref.id == t {
		classes = ref.classes
	} else {
		var i int
		var ok bool
		if t, i, ok = p.locate(q); !ok {
			return 0, &appliance.TileMissingError{Tile: t.Name()}
		}
		e := p.entries[i].Clutter
		if e.Codec == ClutterUniform {
			return e.Class, nil
		}
		d, err := p.cache.get(cacheKey{tile: t, layer: layerClutter}, func() (tileData, error) {
			c, err := p.ReadClutter(t)
			return tileData{classes: c}, err
		})
		if err != nil {
			return 0, fmt.Errorf("land cover at %v: %w", q, err)
		}
		classes = d.classes
		if ref != nil {
			ref.owner, ref.id, ref.classes = p, t, classes
		}
	}
	return classes[nearestSample(p.hdr.SamplesPerDegree, t, q)], nil
}

// nearestSample returns the index of the sample of tile t (spd+1 per side)
// nearest to q, which lies in t or on its edge.
func nearestSample(spd int, t TileID, q appliance.LatLon) int {
	r := int(math.Round((float64(t.Lat+1) - q.Lat) * float64(spd)))
	c := int(math.Round((q.Lon - float64(t.Lon)) * float64(spd)))
	r = min(max(r, 0), spd)
	c = min(max(c, 0), spd)
	return r*(spd+1) + c
}

// HasClutter reports whether at least one of the layered packs has the
// land-cover layer.
func (l *Layered) HasClutter() bool {
	for _, p := range l.packs {
		if p.hdr.Clutter {
			return true
		}
	}
	return false
}

// ClutterAt returns the land cover at q from the first pack (in priority
// order) that holds q's tile, has the land-cover layer and knows a class
// there (see Pack.ClutterAt). When the packs with the layer that hold the
// tile all say Unknown, the answer is class 0 "Unknown"; when the packs
// holding the tile have no layer, an error matching ErrNoClutterLayer
// (and appliance.ErrUnavailable) naming the tile; when no pack holds it, a
// *appliance.TileMissingError.
func (l *Layered) ClutterAt(q appliance.LatLon) (appliance.ClutterInfo, error) {
	if !q.Valid() {
		return appliance.ClutterInfo{}, appliance.Invalid("position", "%v is not a valid WGS84 position", q)
	}
	c, err := l.clutterClass(q, nil)
	if err != nil {
		return appliance.ClutterInfo{}, fmt.Errorf("layered: %w", err)
	}
	return clutterInfo(c), nil
}

func (l *Layered) clutterClass(q appliance.LatLon, ref *clutterRef) (uint8, error) {
	unknown, noLayer := false, false
	for _, p := range l.packs {
		if _, _, ok := p.locate(q); !ok {
			continue
		}
		if !p.hdr.Clutter {
			noLayer = true
			continue
		}
		c, err := p.clutterClass(q, ref)
		var miss *appliance.TileMissingError
		switch {
		case errors.As(err, &miss):
			continue
		case err != nil:
			return 0, err
		case c != uint8(clutter.Unknown):
			return c, nil
		}
		unknown = true
	}
	switch {
	case unknown:
		return 0, nil
	case noLayer:
		return 0, fmt.Errorf("land cover at %v: the packs holding tile %s: %w", q, TileOf(q), ErrNoClutterLayer)
	}
	return 0, &appliance.TileMissingError{Tile: TileOf(q).Name()}
}
