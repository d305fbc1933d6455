package packer

import (
	"fmt"

	"linkplan/terrain-packs/clutter"
	"linkplan/terrain-packs/terrain"
)

// clutterMethod names how land cover is made; change it when the
// resampling or the MapBiomas mapping changes so that Resume does not
// reuse parts made the old way.
const clutterMethod = "mapbiomas-c6|clutter.ResampleTile-v1"

// touches reports whether the footprint of g overlaps tile t or touches
// its edges (whose samples the tile holds).
func (g *geoSource) touches(t terrain.TileID) bool {
	return g.minLat <= float64(t.Lat+1) && g.maxLat >= float64(t.Lat) &&
		g.minLon <= float64(t.Lon+1) && g.maxLon >= float64(t.Lon)
}

// makeClutter makes the land-cover entry (offset not laid out) and payload
// of tile j.tile, whose heights are of kind: Water on sea tiles, else the
// classes of j.cover resampled onto the (spd+1)² height grid, the first
// input with a known class winning at each sample; uniform tiles (one
// class everywhere, Unknown included) have no payload.
func makeClutter(j job, kind terrain.Kind, spd int, enc *terrain.Encoder) (terrain.ClutterEntry, []byte, error) {
	n := spd + 1
	if kind == terrain.KindSea {
		return uniformClutter(uint8(clutter.Water), n), nil, nil
	}
	classes, err := tileClasses(j, spd)
	if err != nil {
		return terrain.ClutterEntry{}, nil, err
	}
	return encodeClutter(classes, n, enc)
}

// tileClasses resamples the land-cover inputs of j onto its tile.
func tileClasses(j job, spd int) ([]uint8, error) {
	n := spd + 1
	classes := make([]uint8, n*n)
	t := j.tile
	for _, g := range j.cover {
		f, img, err := openImage(g.path, g.epsg)
		if err != nil {
			return nil, fmt.Errorf("land cover: %w", err)
		}
		cs, err := clutter.ResampleTile(img, float64(t.Lat), float64(t.Lon), float64(t.Lat+1), float64(t.Lon+1), n)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("land cover %s: %w", g.path, err)
		}
		for i, c := range cs {
			if classes[i] == uint8(clutter.Unknown) {
				classes[i] = uint8(c)
			}
		}
	}
	return classes, nil
}

func uniformClutter(class uint8, n int) terrain.ClutterEntry {
	e := terrain.ClutterEntry{Codec: terrain.ClutterUniform, Class: class}
	e.Counts[class] = uint32(n * n)
	return e
}

// encodeClutter counts the classes and codes them (uniform when one class
// holds every sample).
func encodeClutter(classes []uint8, n int, enc *terrain.Encoder) (terrain.ClutterEntry, []byte, error) {
	var e terrain.ClutterEntry
	for _, c := range classes {
		if int(c) >= terrain.ClutterClasses {
			return e, nil, fmt.Errorf("land cover: class %d", c)
		}
		e.Counts[c]++
	}
	if e.Counts[classes[0]] == uint32(n*n) {
		return uniformClutter(classes[0], n), nil, nil
	}
	payload, err := enc.EncodeClutter(nil, classes)
	if err != nil {
		return e, nil, err
	}
	e.Codec, e.Length, e.CRC = terrain.ClutterZstd, int64(len(payload)), terrain.Checksum(payload)
	return e, payload, nil
}
