package terrain

import (
	"errors"
	"fmt"
	"math"

	"linkplan/appliance"
)

var _ appliance.GridSampler = (*Layered)(nil)

// ElevationGridM samples the grid of every (lats[r], lons[c]) row by row
// (appliance.GridSampler): each height is the one ElevationM gives there,
// bit for bit, and a point no pack answers gets ok false.
//
// Points of the tile last read from the first pack are interpolated
// directly, with the cell row and fraction computed once per grid row
// and the cell column and fraction once per grid column (the arithmetic
// of cell, split by axis); every other point goes through the layered
// look-up with the current tile kept, and a one-degree tile no pack holds
// is remembered, so that a grid over few tiles costs one tile look-up per
// tile change instead of one per point.
func (l *Layered) ElevationGridM(lats, lons []float64, heightsM []float64, ok []bool) error {
	n := len(lats) * len(lons)
	if len(heightsM) < n || len(ok) < n {
		return fmt.Errorf("sample elevation grid of %d×%d points into %d heights and %d flags: %w",
			len(lats), len(lons), len(heightsM), len(ok), appliance.ErrInvalid)
	}
	var (
		ref    tileRef
		absent TileID
		known  bool // absent holds a tile no pack has
		miss   *appliance.TileMissingError
		first  *Pack
		spd    int
	)
	// The columns' tile longitude, cell column and fraction on the first
	// pack's grid.
	colTile := make([]int, len(lons))
	colCell := make([]int, len(lons))
	colFrac := make([]float64, len(lons))
	colOK := make([]bool, len(lons))
	if len(l.packs) > 0 {
		first, spd = l.packs[0], l.packs[0].hdr.SamplesPerDegree
	}
	for c, lon := range lons {
		colOK[c] = !math.IsNaN(lon) && lon >= -180 && lon <= 180
		colTile[c] = TileOf(appliance.LatLon{Lon: lon}).Lon
		if first != nil {
			colCell[c], colFrac[c] = cellAxis((lon-float64(colTile[c]))*float64(spd), spd)
		}
	}
	for r, lat := range lats {
		row := r * len(lons)
		rowOK := !math.IsNaN(lat) && lat >= -90 && lat <= 90
		tileLat := TileOf(appliance.LatLon{Lat: lat}).Lat
		var rowCell int
		var rowFrac float64
		if first != nil {
			rowCell, rowFrac = cellAxis((float64(tileLat+1)-lat)*float64(spd), spd)
		}
		for c, lon := range lons {
			t := TileID{Lat: tileLat, Lon: colTile[c]}
			if rowOK && colOK[c] && ref.owner == first && first != nil && ref.id == t {
				// What first.elevation does with ref, without the look-up.
				if h, hit := interpolate(ref.samples, spd+1, rowCell*(spd+1)+colCell[c], weights(colFrac[c], rowFrac)); hit {
					heightsM[row+c], ok[row+c] = h, true
					continue
				}
			}
			q := appliance.LatLon{Lat: lat, Lon: lon}
			// A point on a south or west tile edge may be answered by the
			// neighbour tile: only interior points skip the look-up.
			if known && t == absent && q.Lat != float64(t.Lat) && q.Lon != float64(t.Lon) {
				heightsM[row+c], ok[row+c] = 0, false
				continue
			}
			h, _, _, err := l.elevation(q, &ref)
			switch {
			case err == nil:
				heightsM[row+c], ok[row+c] = h, true
			case errors.As(err, &miss):
				heightsM[row+c], ok[row+c] = 0, false
				if !l.HasTile(t) {
					absent, known = t, true
				}
			default:
				return fmt.Errorf("sample elevation grid: %w", err)
			}
		}
	}
	return nil
}
