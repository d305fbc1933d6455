package coverage

import (
	"fmt"
	"math"
	"time"

	"linkplan/appliance"
)

// RowTiles reports the tiles of a raster computed in rows from north to
// south (a Computer's): Done(rows) reports, in row-major order and once
// each, every tile whose pixel rows are all among the first rows.
type RowTiles struct {
	// Servers, when set, is the index per pixel of r the tiles carry
	// (TileDone.Servers; a ServersComputer's).
	Servers []int32
	r       *Raster
	onTile  func(TileDone)
	next    int // next tile index, row-major
}

// NewRowTiles returns the reporter of r's tiles to onTile (nil: none).
func NewRowTiles(r *Raster, onTile func(TileDone)) *RowTiles {
	return &RowTiles{r: r, onTile: onTile}
}

// Done records that rows 0..rows−1 (from the north) are final.
func (t *RowTiles) Done(rows int) {
	cols := t.r.TileCols()
	for t.next < t.r.TileRows()*cols {
		tile := t.r.TileAt(t.next/cols, t.next%cols)
		if tile.Y0+tile.H > rows {
			return
		}
		if t.onTile != nil {
			td := tileDone(t.r, tile)
			td.Servers = t.Servers
			t.onTile(td)
		}
		t.next++
	}
}

// ComputedSummary is the summary of a computed map: the pixel figures of
// r (every pixel is in the map: InRadiusPixels = Pixels), the caveats of
// req (finishCaveats) followed by the computation's own warnings, the
// engine version and the elapsed time. ThresholdDBm is
// DefaultThresholdDBm.
func ComputedSummary(r *Raster, req Request, engineVersion string, warnings []appliance.Warning, elapsed time.Duration) Summary {
	s := Summary{Pixels: r.Width * r.Height, InRadiusPixels: r.Width * r.Height, ThresholdDBm: DefaultThresholdDBm,
		MinDBm: math.NaN(), MaxDBm: math.NaN(), Engine: req.Engine, EngineVersion: engineVersion, ElapsedMS: elapsed.Milliseconds()}
	s.addPixels(r)
	// A computed map's engine evaluates each pixel at its centre, on its
	// own paths (the raytrace engine: TestMapEqualsPoint in
	// engines/raytrace), never from a radial.
	s.Pixel = PixelInfo{Mode: PixelModeExact,
		Receiver:     fmt.Sprintf("the pixel centre, %g m above ground (isotropic, 0 dBi), the antenna pattern at its own bearing", req.RxHeightM),
		Profile:      "its own: the engine evaluates the receiver at the pixel centre itself (for raytrace, every traced path from the transmitter to it), no radial",
		Within1DBPct: 100, Within3DBPct: 100, MaxAbsDB: 0,
		Source: "by construction: a pixel is the engine's point answer at the pixel centre (engines/raytrace TestMapEqualsPoint)"}
	s.finishCaveats([]Request{req})
	s.Warnings = append(s.Warnings, warnings...)
	return s
}
