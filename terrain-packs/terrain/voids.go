package terrain

import (
	"errors"
	"fmt"

	"linkplan/appliance"
)

var (
	_ appliance.VoidMap = (*Pack)(nil)
	_ appliance.VoidMap = (*Layered)(nil)
)

// HasVoidMask reports whether the pack has the void mask (a version-4
// pack built with it). A pack without it knows no voids: VoidFilledAt
// answers false everywhere.
func (p *Pack) HasVoidMask() bool { return p.hdr.VoidMask }

// ReadVoidMask reads, checks and decodes the void mask of tile t,
// bypassing the cache: (SamplesPerDegree+1)² flags, row-major, north row
// first, on the grid of the heights; true marks a sample the packer
// interpolated across a void of the source DEM. A tile without
// void-filled samples, and every tile of a pack without the mask, answers
// all false. It returns a *appliance.TileMissingError when the pack lacks
// t and an error matching ErrCorrupt for a damaged payload (checksum,
// zstd frame, length, padding bits, or a count of set bits that differs
// from the index's).
func (p *Pack) ReadVoidMask(t TileID) ([]bool, error) {
	i, ok := p.byTile[t]
	if !ok {
		return nil, &appliance.TileMissingError{Tile: t.Name()}
	}
	n := p.hdr.TileSamples()
	out := make([]bool, n*n)
	if p.entries[i].Void.Codec == VoidNone {
		return out, nil
	}
	bits, err := p.readVoidBits(t, p.entries[i].Void)
	if err != nil {
		return nil, err
	}
	for k := range out {
		out[k] = bits[k>>3]&(1<<(k&7)) != 0
	}
	return out, nil
}

// readVoidBits reads, checks and decodes the bitmap of a VoidZstdBitmap
// entry of tile t.
func (p *Pack) readVoidBits(t TileID, e VoidEntry) ([]byte, error) {
	payload, err := p.payload(e.Offset, e.Length, e.CRC)
	if err != nil {
		return nil, fmt.Errorf("read void mask of %s: %w", t, err)
	}
	b, err := p.dec.decodeVoidMask(payload, p.hdr.TileSamples(), e.Count)
	if err != nil {
		return nil, fmt.Errorf("decode void mask of %s: %w", t, err)
	}
	return b, nil
}

// voidRef lets Profile keep the current void-mask tile between samples.
type voidRef struct {
	owner *Pack
	id    TileID
	bits  []byte // nil: the tile has no void-filled sample
}

// VoidFilledAt reports whether the height ElevationM answers at q was
// interpolated across a void of the source DEM: true when any of the
// samples with a non-zero weight in the bilinear interpolation at q (up
// to four; one on a sample, two on a grid line) was a void that the packer
// filled by interpolation. Samples taken from a lower-priority measured
// input (packer inputs in priority order) are not void-filled. Sea tiles
// and packs without the void mask answer false; a point ElevationM cannot
// answer gives the same error (a *appliance.TileMissingError, or an error
// matching appliance.ErrInvalid for an invalid position).
func (p *Pack) VoidFilledAt(q appliance.LatLon) (bool, error) {
	_, sea, _, err := p.elevation(q, nil)
	if err != nil || sea {
		return false, err
	}
	return p.voidFilled(q, nil)
}

// VoidStatusAt is VoidFilledAt for readers that must tell measured ground
// from ground the pack cannot vouch for: known is false (and filled false)
// where the pack has no void mask and the index says the tile had samples
// filled by interpolation (Entry.Filled > 0: a pack older than format 4, or
// built with packer.Options.NoVoidMask), so any height there may be an
// interpolation. Sea tiles, and tiles of maskless packs with no filled
// sample, are known and not void-filled. Errors are those of VoidFilledAt.
func (p *Pack) VoidStatusAt(q appliance.LatLon) (filled, known bool, err error) {
	_, sea, _, err := p.elevation(q, nil)
	if err != nil {
		return false, false, err
	}
	if sea {
		return false, true, nil
	}
	return p.voidStatus(q)
}

// voidStatus answers VoidStatusAt for a point whose height p answered from
// a land tile.
func (p *Pack) voidStatus(q appliance.LatLon) (filled, known bool, err error) {
	if !p.hdr.VoidMask {
		t, i, ok := p.locate(q)
		if !ok {
			return false, false, &appliance.TileMissingError{Tile: t.Name()}
		}
		return false, p.entries[i].Filled == 0, nil
	}
	if filled, err = p.voidFilled(q, nil); err != nil {
		return false, false, err
	}
	return filled, true, nil
}

// voidFilled answers VoidFilledAt for a point whose height p answered
// from a land tile.
func (p *Pack) voidFilled(q appliance.LatLon, ref *voidRef) (bool, error) {
	if !p.hdr.VoidMask {
		return false, nil
	}
	t := TileOf(q)
	var bits []byte
	if ref != nil && ref.owner == p && ref.id == t {
		bits = ref.bits
	} else {
		var i int
		var ok bool
		if t, i, ok = p.locate(q); !ok {
			return false, &appliance.TileMissingError{Tile: t.Name()}
		}
		if e := p.entries[i].Void; e.Codec != VoidNone {
			d, err := p.cache.get(cacheKey{tile: t, layer: layerVoids}, func() (tileData, error) {
				b, err := p.readVoidBits(t, e)
				return tileData{voids: b}, err
			})
			if err != nil {
				return false, fmt.Errorf("void mask at %v: %w", q, err)
			}
			bits = d.voids
		}
		if ref != nil {
			ref.owner, ref.id, ref.bits = p, t, bits
		}
	}
	if bits == nil {
		return false, nil
	}
	n := p.hdr.TileSamples()
	i, w := cell(p.hdr.SamplesPerDegree, t, q)
	for k, j := range [4]int{i, i + 1, i + n, i + n + 1} {
		if w[k] > 0 && bits[j>>3]&(1<<(j&7)) != 0 {
			return true, nil
		}
	}
	return false, nil
}

// HasVoidMask reports whether at least one of the layered packs has the
// void mask.
func (l *Layered) HasVoidMask() bool {
	for _, p := range l.packs {
		if p.hdr.VoidMask {
			return true
		}
	}
	return false
}

// VoidFilledAt reports whether the height ElevationM answers at q was
// interpolated across a void (see Pack.VoidFilledAt), asking the pack that
// answers the height there: the first, in priority order, that has it.
func (l *Layered) VoidFilledAt(q appliance.LatLon) (bool, error) {
	_, sea, owner, err := l.elevation(q, nil)
	if err != nil {
		var miss *appliance.TileMissingError
		if errors.As(err, &miss) {
			return false, err
		}
		return false, fmt.Errorf("layered: %w", err)
	}
	if sea {
		return false, nil
	}
	return owner.voidFilled(q, nil)
}

// VoidStatusAt is Pack.VoidStatusAt asking the pack that answers the height
// at q: the first, in priority order, that has it.
func (l *Layered) VoidStatusAt(q appliance.LatLon) (filled, known bool, err error) {
	_, sea, owner, err := l.elevation(q, nil)
	if err != nil {
		var miss *appliance.TileMissingError
		if errors.As(err, &miss) {
			return false, false, err
		}
		return false, false, fmt.Errorf("layered: %w", err)
	}
	if sea {
		return false, true, nil
	}
	return owner.voidStatus(q)
}
