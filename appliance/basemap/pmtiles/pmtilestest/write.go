// Package pmtilestest writes small PMTiles version 3 archives for tests:
// every tile in the root directory, directories and metadata gzipped,
// identical tiles stored once (the spec's run lengths and shared
// offsets). package pmtiles' tests check that go-pmtiles reads what it
// writes.
package pmtilestest

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"sort"

	"linkplan/appliance/basemap/pmtiles"
)

// Tile is one tile to write.
type Tile struct {
	Z, X, Y int
	Data    []byte
}

// Options describe the archive.
type Options struct {
	Type        pmtiles.TileType
	Compression pmtiles.Compression // of the tiles; 0: none
	// Bounds: west, south, east, north, WGS84 degrees.
	Bounds   [4]float64
	Metadata map[string]any // written as the JSON metadata (nil: {})
}

// Write returns the archive of tiles.
func Write(tiles []Tile, opt Options) ([]byte, error) {
	if len(tiles) == 0 {
		return nil, fmt.Errorf("write PMTiles: no tiles")
	}
	type item struct {
		id   uint64
		data []byte
	}
	items := make([]item, len(tiles))
	minZ, maxZ := 255, 0
	for i, t := range tiles {
		if t.Z < 0 || t.Z > pmtiles.MaxZoom || t.X < 0 || t.Y < 0 || t.X >= 1<<t.Z || t.Y >= 1<<t.Z || len(t.Data) == 0 {
			return nil, fmt.Errorf("write PMTiles: bad tile %d/%d/%d (%d bytes)", t.Z, t.X, t.Y, len(t.Data))
		}
		items[i] = item{pmtiles.TileID(t.Z, t.X, t.Y), t.Data}
		minZ, maxZ = min(minZ, t.Z), max(maxZ, t.Z)
	}
	sort.Slice(items, func(i, j int) bool { return items[i].id < items[j].id })
	type ent struct {
		id, off   uint64
		length    uint32
		runLength uint32
	}
	var data bytes.Buffer
	stored := map[string]uint64{} // content → offset
	var es []ent
	for i, it := range items {
		if i > 0 && it.id == items[i-1].id {
			return nil, fmt.Errorf("write PMTiles: tile id %d twice", it.id)
		}
		if n := len(es); n > 0 && es[n-1].id+uint64(es[n-1].runLength) == it.id && bytes.Equal(items[i-1].data, it.data) {
			es[n-1].runLength++
			continue
		}
		off, ok := stored[string(it.data)]
		if !ok {
			off = uint64(data.Len())
			stored[string(it.data)] = off
			data.Write(it.data)
		}
		es = append(es, ent{id: it.id, off: off, length: uint32(len(it.data)), runLength: 1})
	}
	var dir bytes.Buffer
	put := func(v uint64) { dir.Write(binary.AppendUvarint(nil, v)) }
	put(uint64(len(es)))
	last := uint64(0)
	for _, e := range es {
		put(e.id - last)
		last = e.id
	}
	for _, e := range es {
		put(uint64(e.runLength))
	}
	for _, e := range es {
		put(uint64(e.length))
	}
	for i, e := range es {
		if i > 0 && e.off == es[i-1].off+uint64(es[i-1].length) {
			put(0)
		} else {
			put(e.off + 1)
		}
	}
	meta := opt.Metadata
	if meta == nil {
		meta = map[string]any{}
	}
	js, err := json.Marshal(meta)
	if err != nil {
		return nil, fmt.Errorf("write PMTiles metadata: %w", err)
	}
	root, metaZ := gz(dir.Bytes()), gz(js)
	tc := opt.Compression
	if tc == pmtiles.CompressionUnknown {
		tc = pmtiles.CompressionNone
	}
	h := make([]byte, pmtiles.HeaderBytes)
	copy(h, "PMTiles")
	h[7] = 3
	le := binary.LittleEndian
	rootOff := uint64(pmtiles.HeaderBytes)
	metaOff := rootOff + uint64(len(root))
	leafOff := metaOff + uint64(len(metaZ))
	dataOff := leafOff
	for i, v := range []uint64{rootOff, uint64(len(root)), metaOff, uint64(len(metaZ)), leafOff, 0, dataOff, uint64(data.Len()),
		uint64(len(items)), uint64(len(es)), uint64(len(stored))} {
		le.PutUint64(h[8+8*i:], v)
	}
	h[96] = 1 // clustered: tiles in id order
	h[97], h[98], h[99], h[100], h[101] = byte(pmtiles.CompressionGzip), byte(tc), byte(opt.Type), byte(minZ), byte(maxZ)
	e7 := func(d float64) uint32 { return uint32(int32(math.Round(d * 1e7))) }
	le.PutUint32(h[102:], e7(opt.Bounds[0]))
	le.PutUint32(h[106:], e7(opt.Bounds[1]))
	le.PutUint32(h[110:], e7(opt.Bounds[2]))
	le.PutUint32(h[114:], e7(opt.Bounds[3]))
	h[118] = byte(minZ)
	le.PutUint32(h[119:], e7((opt.Bounds[0]+opt.Bounds[2])/2))
	le.PutUint32(h[123:], e7((opt.Bounds[1]+opt.Bounds[3])/2))
	out := append(h, root...)
	out = append(out, metaZ...)
	return append(out, data.Bytes()...), nil
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = w.Write(b)
	_ = w.Close()
	return buf.Bytes()
}
