package basemap

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"sync"

	"linkplan/appliance"
)

// Sun position of the hillshade, degrees.
const (
	SunAzimuthDeg  = 315 // clockwise from north: light from the north-west
	SunAltitudeDeg = 45  // above the horizon
)

// gridSide is the side of the sampled height grid: the tile's pixel
// centres plus a one-pixel border, so that Horn's 3×3 window is complete
// at the tile's edges and neighbouring tiles join without a seam.
const gridSide = TileSizePx + 2

// Exaggeration returns the vertical exaggeration of the hillshade at zoom
// z: 1 from zoom 12 on (a pixel is about 38 m on the equator, finer than
// SRTM3's 90 m grid), and 2^((12−z)/2) below it, at most 8 (zoom 6 and
// less), because a pixel then spans kilometres and real slopes averaged
// over it are too gentle to shade.
func Exaggeration(z int) float64 {
	if z >= 12 {
		return 1
	}
	return min(8, math.Pow(2, float64(12-z)/2))
}

// greyPalette maps a hillshade pixel's index to its colour: index 0 is
// transparent (no terrain), index i in 1..255 the opaque grey of level i.
func greyPalette() color.Palette {
	p := make(color.Palette, 256)
	p[0] = color.NRGBA{}
	for i := 1; i < 256; i++ {
		p[i] = color.NRGBA{R: uint8(i), G: uint8(i), B: uint8(i), A: 255}
	}
	return p
}

// renderer draws the tiles of both layers from terrain.
type renderer struct {
	terrain appliance.Terrain
	grid    appliance.GridSampler // nil: one ElevationM call per point
	voids   appliance.VoidMap     // nil: the terrain knows no voids
	grey    color.Palette         // hillshade
	tint    color.Palette         // elevation
	empty   []byte                // the PNG of a tile without terrain
	sun     [3]float64            // unit vector towards the sun: east, north, up
	pool    sync.Pool             // *scratch
	enc     png.Encoder           // reuses its compressor through encoderPool
}

// encoderPool lends the PNG encoder its buffers and compressor between
// renders (png.EncoderBufferPool).
type encoderPool struct{ p sync.Pool }

func (e *encoderPool) Get() *png.EncoderBuffer {
	b, _ := e.p.Get().(*png.EncoderBuffer)
	return b
}

func (e *encoderPool) Put(b *png.EncoderBuffer) { e.p.Put(b) }

// scratch is the working memory of one render.
type scratch struct {
	lats, lons []float64 // gridSide each
	heightsM   []float64 // gridSide², row-major from the north-west
	ok         []bool
	pix        []uint8 // TileSizePx², palette indexes
}

func newRenderer(ter appliance.Terrain) (*renderer, error) {
	r := &renderer{terrain: ter, grey: greyPalette(), tint: tintPalette()}
	r.enc.BufferPool = &encoderPool{}
	if g, ok := ter.(appliance.GridSampler); ok {
		r.grid = g
	}
	if v, ok := ter.(appliance.VoidMap); ok {
		r.voids = v
	}
	az, alt := SunAzimuthDeg*math.Pi/180, SunAltitudeDeg*math.Pi/180
	r.sun = [3]float64{math.Sin(az) * math.Cos(alt), math.Cos(az) * math.Cos(alt), math.Sin(alt)}
	r.pool.New = func() any {
		return &scratch{lats: make([]float64, gridSide), lons: make([]float64, gridSide),
			heightsM: make([]float64, gridSide*gridSide), ok: make([]bool, gridSide*gridSide), pix: make([]uint8, TileSizePx*TileSizePx)}
	}
	// A one-colour palette makes the empty tile a 1-bit PNG of a few
	// dozen bytes.
	empty := image.NewPaletted(image.Rect(0, 0, TileSizePx, TileSizePx), color.Palette{color.NRGBA{}})
	var buf bytes.Buffer
	if err := png.Encode(&buf, empty); err != nil {
		return nil, fmt.Errorf("encode the empty tile: %w", err)
	}
	r.empty = buf.Bytes()
	return r, nil
}

// render returns the PNG of tile t of layer l: shaded or tinted terrain,
// transparent where the terrain has no height, or the shared empty PNG
// when no pixel has one.
func (r *renderer) render(l Layer, t Tile) ([]byte, error) {
	s := r.pool.Get().(*scratch)
	defer r.pool.Put(s)
	world := float64(TileSizePx) * float64(uint(1)<<t.Z) // the world's width, pixels
	for i := range gridSide {
		s.lons[i] = wrapLon(lonOfX((float64(t.X*TileSizePx+i-1) + 0.5) / world))
		s.lats[i] = latOfY((float64(t.Y*TileSizePx+i-1) + 0.5) / world)
	}
	if err := r.sample(s); err != nil {
		return nil, fmt.Errorf("render tile %s: %w", t, err)
	}
	found, pal := false, r.grey
	switch l {
	case LayerHillshade:
		found = r.shade(s, t.Z, world)
	case LayerElevation:
		found, pal = tintPixels(s), r.tint
	case LayerSurface:
		var err error
		if found, err = r.surfacePixels(s, t); err != nil {
			return nil, fmt.Errorf("render tile %s: %w", t, err)
		}
		pal = surfacePalette
	default:
		return nil, fmt.Errorf("render tile %s: layer %q: %w", t, l, appliance.ErrInvalid)
	}
	if !found {
		return r.empty, nil
	}
	img := &image.Paletted{Pix: s.pix, Stride: TileSizePx, Rect: image.Rect(0, 0, TileSizePx, TileSizePx), Palette: pal}
	var buf bytes.Buffer
	buf.Grow(32 << 10)
	if err := r.enc.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("encode tile %s: %w", t, err)
	}
	return buf.Bytes(), nil
}

// sample fills s.heightsM and s.ok at the grid of s.lats × s.lons: in one
// call when the terrain samples grids, else one ElevationM call per point.
func (r *renderer) sample(s *scratch) error {
	if r.grid != nil {
		return r.grid.ElevationGridM(s.lats, s.lons, s.heightsM, s.ok)
	}
	for i, lat := range s.lats {
		for j, lon := range s.lons {
			k := i*gridSide + j
			h, err := r.terrain.ElevationM(appliance.LatLon{Lat: lat, Lon: lon})
			switch {
			case errors.Is(err, appliance.ErrTerrainMissing):
				s.heightsM[k], s.ok[k] = 0, false
			case err != nil:
				return err
			default:
				s.heightsM[k], s.ok[k] = h, true
			}
		}
	}
	return nil
}

// shade writes the palette index of every pixel to s.pix by Horn's method
// and reports whether any pixel has terrain. A pixel without a height is
// transparent; a missing neighbour of a pixel with one takes that pixel's
// height (the edge of the terrain is shaded as if flat across it).
func (r *renderer) shade(s *scratch, z int, world float64) bool {
	exag := Exaggeration(z)
	found := false
	for py := range TileSizePx {
		gr := py + 1
		// A Web Mercator pixel is square on the ground, its side shrinking
		// with the cosine of the latitude.
		cellM := 2 * math.Pi * EarthRadiusM * math.Cos(s.lats[gr]*math.Pi/180) / world
		for px := range TileSizePx {
			k := gr*gridSide + px + 1
			if !s.ok[k] {
				s.pix[py*TileSizePx+px] = 0
				continue
			}
			found = true
			e := s.heightsM[k]
			at := func(d int) float64 {
				if s.ok[k+d] {
					return s.heightsM[k+d]
				}
				return e
			}
			// The 3×3 window, north row first:  a b c / d e f / g h i.
			a, b, c := at(-gridSide-1), at(-gridSide), at(-gridSide+1)
			d, f := at(-1), at(1)
			g, h, i := at(gridSide-1), at(gridSide), at(gridSide+1)
			dzdx := ((c + 2*f + i) - (a + 2*d + g)) / (8 * cellM) * exag // rise towards the east
			dzdy := ((a + 2*b + c) - (g + 2*h + i)) / (8 * cellM) * exag // rise towards the north
			// The surface normal is (−dzdx, −dzdy, 1), normalised; the
			// shade is its cosine with the direction of the sun.
			lit := (-dzdx*r.sun[0] - dzdy*r.sun[1] + r.sun[2]) / math.Sqrt(dzdx*dzdx+dzdy*dzdy+1)
			lit = min(max(lit, 0), 1)
			s.pix[py*TileSizePx+px] = 1 + uint8(math.Round(lit*254))
		}
	}
	return found
}
