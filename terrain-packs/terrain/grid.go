package terrain

import (
	"errors"
	"fmt"

	"linkplan/appliance"
)

var _ appliance.GridSampler = (*Layered)(nil)

// ElevationGridM samples the grid of every (lats[r], lons[c]) row by row
// (appliance.GridSampler): each height is the one ElevationM gives there,
// bit for bit, and a point no pack answers gets ok false. The samples of
// the current tile are kept between neighbouring points, and a one-degree
// tile no pack holds is remembered, so that a grid over few tiles costs
// one tile look-up per tile change instead of one per point.
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
	)
	for r, lat := range lats {
		row := r * len(lons)
		for c, lon := range lons {
			q := appliance.LatLon{Lat: lat, Lon: lon}
			t := TileOf(q)
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
