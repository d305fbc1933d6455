package basemap

import (
	"errors"
	"image/color"

	"linkplan/appliance"
)

// Surface classes of a pixel of the surface layer (its palette indexes).
const (
	SurfaceLand   = 0 // measured land: transparent
	SurfaceWater  = 1 // water: opaque blue
	SurfaceVoid   = 2 // on a hatch line over void-filled ground
	SurfaceNoData = 3 // on a hatch line where no pack has terrain
)

// Colours of the surface layer.
var (
	WaterColor  = color.NRGBA{R: 0xa9, G: 0xc9, B: 0xe6, A: 0xff} // light blue
	VoidColor   = color.NRGBA{R: 0xc0, G: 0x39, B: 0x2b, A: 0xd0} // red hatch
	NoDataColor = color.NRGBA{R: 0x5a, G: 0x64, B: 0x78, A: 0x80} // grey-blue cross-hatch
)

// Hatch periods, pixels of the world at the tile's zoom (so that hatches
// join across tiles): void-filled ground has diagonal lines (/) two
// pixels wide every VoidHatchPx, ground without terrain a one-pixel
// cross-hatch (/ and \) every NoDataHatchPx.
const (
	VoidHatchPx   = 8
	NoDataHatchPx = 12
)

// surfacePalette maps a surface pixel's class to its colour.
var surfacePalette = color.Palette{color.NRGBA{}, WaterColor, VoidColor, NoDataColor}

// SurfaceAt classifies one pixel of the surface layer from what the
// terrain knows there, for the world pixel (gx, gy) of its zoom:
//
//   - no height (no pack covers the point): NoData on the cross-hatch's
//     lines, else Land (transparent);
//   - a height of exactly 0 m: Water (the packs' sea tiles answer 0 m, and
//     SRTM v2.1 sets the ocean to 0 m; a bilinear height is exactly 0 only
//     where every sample around it is);
//   - void-filled (appliance.VoidMap): Void on the hatch's lines, else Land;
//   - otherwise Land.
func SurfaceAt(ok bool, heightM float64, voidFilled bool, gx, gy int) uint8 {
	switch {
	case !ok:
		if (gx+gy)%NoDataHatchPx == 0 || ((gx-gy)%NoDataHatchPx+NoDataHatchPx)%NoDataHatchPx == 0 {
			return SurfaceNoData
		}
		return SurfaceLand
	case heightM == 0:
		return SurfaceWater
	case voidFilled:
		if (gx+gy)%VoidHatchPx < 2 {
			return SurfaceVoid
		}
	}
	return SurfaceLand
}

// surfacePixels writes the surface class of every pixel to s.pix and
// reports whether any pixel is not transparent. The void mask is asked
// only for land pixels on a hatch line.
func (r *renderer) surfacePixels(s *scratch, t Tile) (bool, error) {
	found := false
	x0, y0 := t.X*TileSizePx, t.Y*TileSizePx
	for py := range TileSizePx {
		for px := range TileSizePx {
			k := (py+1)*gridSide + px + 1
			gx, gy := x0+px, y0+py
			void := false
			if r.voids != nil && s.ok[k] && s.heightsM[k] != 0 && (gx+gy)%VoidHatchPx < 2 {
				v, err := r.voids.VoidFilledAt(appliance.LatLon{Lat: s.lats[py+1], Lon: s.lons[px+1]})
				switch {
				case errors.Is(err, appliance.ErrTerrainMissing):
				case err != nil:
					return false, err
				default:
					void = v
				}
			}
			c := SurfaceAt(s.ok[k], s.heightsM[k], void, gx, gy)
			s.pix[py*TileSizePx+px] = c
			found = found || c != SurfaceLand
		}
	}
	return found, nil
}
