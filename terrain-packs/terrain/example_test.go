package terrain_test

import (
	"errors"
	"fmt"

	"linkplan/appliance"
	"linkplan/terrain-packs/sample"
	"linkplan/terrain-packs/terrain"
)

func Example() {
	p, err := terrain.OpenBytes(sample.Pack(), terrain.WithCacheBytes(64<<20))
	if err != nil {
		panic(err)
	}
	defer p.Close()

	h, _ := p.ElevationM(appliance.LatLon{Lat: -22.4583, Lon: -43.0278}) // Pedra do Sino
	fmt.Printf("Pedra do Sino: %.0f m\n", h)

	_, err = p.ElevationM(appliance.LatLon{Lat: -23.55, Lon: -46.63}) // São Paulo
	var miss *appliance.TileMissingError
	fmt.Println(errors.As(err, &miss), miss.Tile)

	in := p.Info()
	fmt.Printf("%d tiles, %d samples per degree, %.0f %% of raw\n", in.TileCount, in.SamplesPerDegree, 100*in.CompressionRatio)
	// Output:
	// Pedra do Sino: 2132 m
	// true S24W047
	// 2 tiles, 1200 samples per degree, 33 % of raw
}

// ExampleLayered_ClutterAt stacks a pack with the land-cover layer (the
// committed v3 test pack: real MapBiomas land cover on N00W052) over the
// embedded Rio sample, which has none: land cover comes from the first pack
// that knows it, and a point only the sample holds says that the layer is
// missing instead of guessing.
func ExampleLayered_ClutterAt() {
	v3, err := terrain.Open("testdata/v3-clutter-crop.ltp")
	if err != nil {
		panic(err)
	}
	defer v3.Close()
	rio, err := terrain.OpenBytes(sample.Pack())
	if err != nil {
		panic(err)
	}
	defer rio.Close()
	l := terrain.NewLayered(v3, rio)

	c, err := l.ClutterAt(appliance.LatLon{Lat: 0.6, Lon: -51.6}) // Amapá
	fmt.Println(c.Class, c.Label, c.HeightM, err)

	_, err = l.ClutterAt(appliance.LatLon{Lat: -21.98, Lon: -42.37}) // Cantagalo, only in the sample
	fmt.Println(errors.Is(err, appliance.ErrUnavailable), errors.Is(err, terrain.ErrNoClutterLayer))
	// Output:
	// 1 Forest 20 <nil>
	// true true
}
