package basemap

import (
	"image/color"
	"math"
)

// Layer names a tile layer.
type Layer string

// Tile layers.
const (
	// LayerHillshade is shaded relief in greys (Horn's method).
	LayerHillshade Layer = "hillshade"
	// LayerElevation is height above mean sea level in colours
	// (TintStops).
	LayerElevation Layer = "elevation"
	// LayerSurface tells water, void-filled ground and ground without
	// terrain from measured land (surface.go): an overlay, transparent over
	// measured land.
	LayerSurface Layer = "surface"
)

// Valid reports whether l is a known layer.
func (l Layer) Valid() bool { return l == LayerHillshade || l == LayerElevation || l == LayerSurface }

// TintStop is one colour of the elevation tint at one height.
type TintStop struct {
	HeightM float64 // metres above mean sea level
	Color   color.NRGBA
}

// TintStops returns the elevation palette: heights between two stops take
// the colour interpolated linearly (per RGB channel) between them; heights
// below the first stop take its colour, above the last stop the last
// colour. Pixels are quantised to TintSteps levels from TintMinM to
// TintMaxM: level i in 0..TintSteps−1 shows the colour at
// TintMinM + i·(TintMaxM−TintMinM)/(TintSteps−1), about 11.8 m a level.
// The stops run from lowland green through yellow and browns to grey and
// white near Brazil's highest peak (Pico da Neblina, 2 995 m).
func TintStops() []TintStop {
	return []TintStop{
		{0, color.NRGBA{R: 0x6f, G: 0xa0, B: 0x60, A: 0xff}},    // lowland green
		{200, color.NRGBA{R: 0xa8, G: 0xc4, B: 0x70, A: 0xff}},  // light green
		{500, color.NRGBA{R: 0xe0, G: 0xd8, B: 0x88, A: 0xff}},  // pale yellow
		{1000, color.NRGBA{R: 0xd0, G: 0xa8, B: 0x68, A: 0xff}}, // tan
		{1500, color.NRGBA{R: 0xb0, G: 0x80, B: 0x58, A: 0xff}}, // brown
		{2200, color.NRGBA{R: 0xa0, G: 0x78, B: 0x68, A: 0xff}}, // dark brown
		{2700, color.NRGBA{R: 0xc8, G: 0xc8, B: 0xc8, A: 0xff}}, // grey
		{3000, color.NRGBA{R: 0xff, G: 0xff, B: 0xff, A: 0xff}}, // white
	}
}

// Range and steps of the elevation tint.
const (
	TintMinM  = 0.0    // metres: the first level
	TintMaxM  = 3000.0 // metres: the last level
	TintSteps = 255    // levels (palette indexes 1..255; 0 is transparent)
)

// TintColor returns the colour of height hM, metres, before quantisation.
func TintColor(hM float64) color.NRGBA {
	stops := TintStops()
	if hM <= stops[0].HeightM {
		return stops[0].Color
	}
	for i := 1; i < len(stops); i++ {
		a, b := stops[i-1], stops[i]
		if hM <= b.HeightM {
			f := (hM - a.HeightM) / (b.HeightM - a.HeightM)
			mix := func(x, y uint8) uint8 { return uint8(math.Round(float64(x) + f*(float64(y)-float64(x)))) }
			return color.NRGBA{R: mix(a.Color.R, b.Color.R), G: mix(a.Color.G, b.Color.G), B: mix(a.Color.B, b.Color.B), A: 0xff}
		}
	}
	return stops[len(stops)-1].Color
}

// tintPalette maps an elevation pixel's index to its colour: index 0 is
// transparent (no terrain), index 1+i the colour of level i.
func tintPalette() color.Palette {
	p := make(color.Palette, TintSteps+1)
	p[0] = color.NRGBA{}
	for i := range TintSteps {
		p[1+i] = TintColor(TintMinM + float64(i)*(TintMaxM-TintMinM)/(TintSteps-1))
	}
	return p
}

// tintIndex is the palette index of height hM, metres.
func tintIndex(hM float64) uint8 {
	f := (hM - TintMinM) / (TintMaxM - TintMinM)
	return 1 + uint8(math.Round(min(max(f, 0), 1)*(TintSteps-1)))
}

// tintPixels writes the elevation palette index of every pixel (the height
// at its centre) to s.pix and reports whether any pixel has terrain.
func tintPixels(s *scratch) bool {
	found := false
	for py := range TileSizePx {
		for px := range TileSizePx {
			k := (py+1)*gridSide + px + 1
			if !s.ok[k] {
				s.pix[py*TileSizePx+px] = 0
				continue
			}
			found = true
			s.pix[py*TileSizePx+px] = tintIndex(s.heightsM[k])
		}
	}
	return found
}
