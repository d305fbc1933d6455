package buildings_test

import (
	"archive/zip"
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/buildings"
)

// wantFileError checks that err is a 4xx refusal (appliance.ErrInvalid)
// naming the field file and saying want.
func wantFileError(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil {
		t.Fatal("accepted")
	}
	var ve *appliance.ValidationError
	if !errors.Is(err, appliance.ErrInvalid) || !errors.As(err, &ve) || len(ve.Fields) == 0 || ve.Fields[0].Field != "file" {
		t.Fatalf("%v: want appliance.ErrInvalid naming file", err)
	}
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("%v: want %q", err, want)
	}
	t.Logf("refused: %v", err)
}

// pbfBlock frames one blob of type typ.
func pbfBlock(typ string, blob []byte) []byte {
	var bh []byte
	bh = protoBytes(bh, 1, []byte(typ))
	bh = protoVarint(bh, 3, uint64(len(blob)))
	out := binary.BigEndian.AppendUint32(nil, uint32(len(bh)))
	return append(append(out, bh...), blob...)
}

func protoVarint(b []byte, field int, v uint64) []byte {
	b = binary.AppendUvarint(b, uint64(field<<3))
	return binary.AppendUvarint(b, v)
}

func protoBytes(b []byte, field int, x []byte) []byte {
	b = binary.AppendUvarint(b, uint64(field<<3|2))
	b = binary.AppendUvarint(b, uint64(len(x)))
	return append(b, x...)
}

// uflaHeader is the first block (OSMHeader) of the real UFLA PBF.
func uflaHeader(t *testing.T) []byte {
	src := read(t, "testdata/ufla/ufla.osm.pbf")
	hl := binary.BigEndian.Uint32(src)
	h := src[4 : 4+hl]
	for i := 0; i < len(h); {
		key, n := binary.Uvarint(h[i:])
		i += n
		if key == 3<<3 {
			ds, _ := binary.Uvarint(h[i:])
			return src[:4+int(hl)+int(ds)]
		}
		l, n := binary.Uvarint(h[i:])
		i += n + int(l)
	}
	t.Fatal("no datasize in the UFLA header")
	return nil
}

// TestIssue24_PBFRawSize: a 146-byte PBF whose blob claims raw_size 2e9
// made osmpbf panic in its own goroutine (the process died); our decoder
// (pbf.go, in the caller's goroutine) refuses it. Crafted primitive
// blocks that index past the string table or give a relation's parallel
// arrays different lengths are refused the same way.
func TestIssue24_PBFRawSize(t *testing.T) {
	zl := func(b []byte) []byte {
		var buf bytes.Buffer
		w := zlib.NewWriter(&buf)
		w.Write(b)
		w.Close()
		return buf.Bytes()
	}
	raw := func(block []byte) []byte { return pbfBlock("OSMData", protoBytes(nil, 1, block)) }
	st := protoBytes(nil, 1, protoBytes(nil, 1, nil)) // a string table of one "" string
	way := protoBytes(protoBytes(protoVarint(nil, 1, 7), 2, []byte{5}), 3, []byte{5})
	rel := protoBytes(protoBytes(protoBytes(protoVarint(nil, 1, 7), 8, []byte{0, 0}), 9, []byte{2, 2}), 10, []byte{1})
	dupRefs := protoBytes(protoBytes(protoVarint(nil, 1, 8), 8, []byte{2}), 8, []byte{2, 2})
	hdr := uflaHeader(t)
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"review file", read(t, "testdata/rawsize.osm.pbf"), "raw_size 2000000000"},
		{"negative raw_size", append(append([]byte{}, hdr...), pbfBlock("OSMData", protoBytes(binary.AppendUvarint([]byte{2 << 3}, 1<<64-1), 3, zl([]byte("x"))))...), "raw_size -1"},
		{"raw_size lies", append(append([]byte{}, hdr...), pbfBlock("OSMData", protoBytes(protoVarint(nil, 2, 1000), 3, zl([]byte("x"))))...), "decompresses to 1 bytes"},
		{"datasize past the end", append(append([]byte{}, hdr...), pbfBlock("OSMData", make([]byte, 10))[:20]...), "runs past the end"},
		{"key outside the string table", append(append([]byte{}, hdr...), raw(append(append([]byte{}, st...), protoBytes(nil, 2, protoBytes(nil, 3, way))...))...), "key 5 outside the string table of 1"},
		{"relation arrays", append(append([]byte{}, hdr...), raw(append(append([]byte{}, st...), protoBytes(nil, 2, protoBytes(nil, 4, rel))...))...), "different lengths"},
		{"way refs twice", append(append([]byte{}, hdr...), raw(append(append([]byte{}, st...), protoBytes(nil, 2, protoBytes(nil, 3, dupRefs))...))...), "way refs (field 8) appears twice"},
		{"lzma", append(append([]byte{}, hdr...), pbfBlock("OSMData", protoBytes(protoVarint(nil, 2, 1), 4, []byte("x")))...), "lzma is not supported"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := buildings.Parse(context.Background(), c.data, buildings.Options{})
			wantFileError(t, err, c.want)
		})
	}
}

func gzBest(b []byte) []byte { return gz(b) }

// TestIssue24_GzipExpansion: the decompressed size is bounded by
// MaxExpansion × the uploaded size (at least MinExpansionBytes), across
// nested compression, as the package doc says.
func TestIssue24_GzipExpansion(t *testing.T) {
	feat := `{"type":"Feature","properties":{"height":"10"},"geometry":{"type":"Polygon","coordinates":[[[-43.2105,-22.9519],[-43.2103,-22.9519],[-43.2103,-22.9517],[-43.2105,-22.9517],[-43.2105,-22.9519]]]}}`
	doc := `{"type":"FeatureCollection","features":[` + feat + `]` + strings.Repeat(" ", 19<<20) + `}`
	z := gzBest([]byte(doc))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := buildings.Parse(context.Background(), z, buildings.Options{MaxBytes: 1 << 20})
	runtime.ReadMemStats(&after)
	t.Logf("gzip of %d bytes expanding to %d bytes (×%d): %d MiB allocated", len(z), len(doc), len(doc)/len(z), (after.TotalAlloc-before.TotalAlloc)>>20)
	wantFileError(t, err, "gzip stream expands beyond 1048576 bytes")

	// A gzipped zip: each layer alone within the budget, both together
	// beyond it.
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	w, _ := zw.CreateHeader(&zip.FileHeader{Name: "x.shp", Method: zip.Store})
	w.Write(make([]byte, 600<<10))
	zw.Close()
	nested := gz(zb.Bytes())
	_, err = buildings.Parse(context.Background(), nested, buildings.Options{})
	wantFileError(t, err, "zip expands beyond 1048576 bytes")

	// The real files stay well within: UFLA's OSM XML gzip expands 11×.
	if _, err := buildings.Parse(context.Background(), read(t, "testdata/ufla/ufla.osm.gz"), buildings.Options{}); err != nil {
		t.Fatal(err)
	}
}

// peakHeap runs f and returns the largest heap in use seen while it ran
// above the heap before, bytes.
func peakHeap(f func()) uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	base := m.HeapInuse
	var peak atomic.Uint64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	f()
	close(done)
	<-stopped
	if p := peak.Load(); p > base {
		return p - base
	}
	return 0
}

// TestIssue24_OSMXMLStreaming: OpenStreetMap XML is streamed with the
// nodes kept compact (24 bytes each) and counted against MaxOSMNodes;
// prints the peak heap of a 20 MiB file of nodes and one building.
func TestIssue24_OSMXMLStreaming(t *testing.T) {
	var x bytes.Buffer
	x.WriteString(`<osm><node id="1" lat="-22.9" lon="-43.2"/><node id="2" lat="-22.9" lon="-43.1999"/><node id="3" lat="-22.8999" lon="-43.1999"/><way id="9"><nd ref="1"/><nd ref="2"/><nd ref="3"/><nd ref="1"/><tag k="building" v="yes"/></way>`)
	for i := 10; x.Len() < 20<<20; i++ {
		fmt.Fprintf(&x, `<node id="%d" lat="-22.9" lon="-43.2"/>`, i)
	}
	x.WriteString("</osm>")
	var im *buildings.Import
	var err error
	peak := peakHeap(func() {
		im, err = buildings.Parse(context.Background(), x.Bytes(), buildings.Options{MaxBytes: 64 << 20})
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Buildings) != 1 {
		t.Fatalf("%d buildings, want 1", len(im.Buildings))
	}
	t.Logf("%d MiB of OSM XML (%d nodes): peak heap %d MiB above the file", x.Len()>>20, x.Len()/40, peak>>20)
	if peak > 4*uint64(x.Len()) {
		t.Errorf("peak heap %d MiB, more than 4× the %d MiB file", peak>>20, x.Len()>>20)
	}
}

// square is a GeoJSON feature: a square of side m metres at (lat, lon)
// with the height given.
func square(lat, lon, m, height float64) string {
	f := appliance.NewLocalFrame(appliance.LatLon{Lat: lat, Lon: lon})
	var c []string
	for _, p := range [][2]float64{{0, 0}, {m, 0}, {m, m}, {0, m}, {0, 0}} {
		q := f.ToLatLon(p[0], p[1])
		c = append(c, fmt.Sprintf("[%.8f,%.8f]", q.Lon, q.Lat))
	}
	return fmt.Sprintf(`{"type":"Feature","properties":{"height":"%g"},"geometry":{"type":"Polygon","coordinates":[[%s]]}}`, height, strings.Join(c, ","))
}

func collection(feats []string) []byte {
	return []byte(`{"type":"FeatureCollection","features":[` + strings.Join(feats, ",") + `]}`)
}

// TestIssue24_WallTiles: the layer's scattering tiles are bounded
// (appliance.BuildingLayerMaxWallTiles): forty 2 km × 2 km × 999 m squares
// (35.6 M tiles from 9.6 kB) are refused naming the figure; a dense
// district of 20 000 buildings of 20 m × 20 m × 30 m and the real campuses
// are kept.
func TestIssue24_WallTiles(t *testing.T) {
	f := square(-22.9, -43.2, 2000, 999)
	var feats []string
	for range 40 {
		feats = append(feats, f)
	}
	data := collection(feats)
	_, err := buildings.Parse(context.Background(), data, buildings.Options{})
	wantFileError(t, err, "scattering tiles")
	t.Logf("%d-byte file of forty tall squares refused", len(data))

	feats = feats[:0]
	for i := range 20000 {
		feats = append(feats, square(-22.9+float64(i/140)*40/111195, -43.2+float64(i%140)*40/102500, 20, 30))
	}
	im, err := buildings.Parse(context.Background(), collection(feats), buildings.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sz := appliance.MeasureBuildingLayer(im.Buildings, appliance.BuildingLayerCentre(im.Buildings))
	t.Logf("dense district: %d buildings, %d tiles (%.1f km² of walls), %.0f m half-diagonal; limit %d tiles", len(im.Buildings), sz.WallTiles, sz.WallAreaM2/1e6, sz.HalfDiagonalM, appliance.BuildingLayerMaxWallTiles)
	for _, file := range []string{"testdata/dortmund/tudo_buildings.geojson", "testdata/ufla/ufla.osm.gz"} {
		im, err := buildings.Parse(context.Background(), read(t, file), buildings.Options{})
		if err != nil {
			t.Fatal(err)
		}
		sz := appliance.MeasureBuildingLayer(im.Buildings, appliance.BuildingLayerCentre(im.Buildings))
		t.Logf("%s: %d buildings, %d vertices, %d tiles, %.0f m half-diagonal", file, len(im.Buildings), sz.Vertices, sz.WallTiles, sz.HalfDiagonalM)
	}
}

// TestIssue24_LayerExtent: a layer whose bounds' half-diagonal exceeds
// appliance.RaytraceMaxFrameM is refused with a request to split it (two
// 10 m squares 100 km apart were accepted and cost a 156 MB scene grid).
func TestIssue24_LayerExtent(t *testing.T) {
	data := collection([]string{square(-22.9, -43.2, 10, 10), square(-22.9+100/111.195/1.41, -43.2+100/102.5/1.41, 10, 10)})
	_, err := buildings.Parse(context.Background(), data, buildings.Options{})
	wantFileError(t, err, "split the layer")
	data = collection([]string{square(-22.9, -43.2, 10, 10), square(-22.9+20/111.195, -43.2, 10, 10)})
	if _, err := buildings.Parse(context.Background(), data, buildings.Options{}); err != nil {
		t.Fatalf("a layer 20 km tall: %v", err)
	}
}

// ring is a GeoJSON ring: a circle of n vertices and radius r degrees.
func ring(lat, lon, r float64, n int) string {
	var c []string
	for i := 0; i <= n; i++ {
		a := 2 * 3.141592653589793 * float64(i%n) / float64(n)
		c = append(c, fmt.Sprintf("[%.8f,%.8f]", lon+r*cosT(a), lat+r*sinT(a)))
	}
	return "[" + strings.Join(c, ",") + "]"
}

// TestIssue24_FeatureBounds: rings per polygon, parts per feature and
// vertices per feature are bounded per feature (refused alone), and a
// cancelled import stops.
func TestIssue24_FeatureBounds(t *testing.T) {
	good := square(-22.9, -43.2, 20, 10)
	outer := ring(-22.9, -43.2, 0.01, 40)
	var holes []string
	for i := range 70 {
		holes = append(holes, ring(-22.9+0.005*cosT(float64(i)*0.09), -43.2+0.005*sinT(float64(i)*0.09), 0.0001, 4))
	}
	manyHoles := `{"type":"Feature","geometry":{"type":"Polygon","coordinates":[` + outer + "," + strings.Join(holes, ",") + `]}}`
	var parts []string
	for i := range 70 {
		parts = append(parts, "["+ring(-22.8+float64(i)*0.001, -43.2, 0.0002, 4)+"]")
	}
	manyParts := `{"type":"Feature","geometry":{"type":"MultiPolygon","coordinates":[` + strings.Join(parts, ",") + `]}}`
	var big []string
	for i := range 6 {
		big = append(big, ring(-22.9+0.0004*float64(i), -43.19, 0.0001+0.00001*float64(i), 3999))
	}
	bigFeature := `{"type":"Feature","geometry":{"type":"Polygon","coordinates":[` + strings.Join(big, ",") + `]}}`
	start := time.Now()
	im, err := buildings.Parse(context.Background(), collection([]string{good, manyHoles, manyParts, bigFeature}), buildings.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("parsed in %v", time.Since(start))
	want := []string{"71 rings (70 holes), more than the 64", "70 parts, more than the 64", "24000 vertices, more than the 20000"}
	if len(im.Buildings) != 1 || len(im.Refusals) != len(want) {
		t.Fatalf("%d buildings, refusals %v", len(im.Buildings), im.Refusals)
	}
	for i, w := range want {
		if !strings.Contains(im.Refusals[i].Reason, w) {
			t.Errorf("refusal %d: %q, want %q", i, im.Refusals[i].Reason, w)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var feats []string
	for range 3000 {
		feats = append(feats, good)
	}
	if _, err := buildings.Parse(ctx, collection(feats), buildings.Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled import: %v", err)
	}
}
