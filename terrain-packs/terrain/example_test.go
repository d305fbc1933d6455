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
