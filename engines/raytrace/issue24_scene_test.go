package raytrace_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/buildings"
	"linkplan/engines/raytrace"
)

// squareBuilding is a square of side m metres at (x, y) metres from
// origin, h metres tall.
func squareBuilding(origin appliance.LatLon, id string, x, y, m, h float64) appliance.Building {
	f := raytrace.NewFrame(origin)
	return appliance.Building{ID: id, HeightM: h, HeightSource: appliance.HeightTagged, Footprints: []appliance.Footprint{{Outer: []appliance.LatLon{
		f.ToLatLon(x, y), f.ToLatLon(x+m, y), f.ToLatLon(x+m, y+m), f.ToLatLon(x, y+m)}}}}
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// TestIssue24_SceneBounds: NewScene asserts the layer bounds the importer
// applies (an error wrapping appliance.ErrInvalid, not a panic nor a
// gigabyte): the extent (two 10 m squares 100 km apart built 156 MB of
// grids), the wall tiles (forty 2 km × 2 km × 999 m squares: 35.6 M tiles).
// It prints the memory of one such square's scene (0.89 M tiles), from
// which a maximal layer's cost follows.
func TestIssue24_SceneBounds(t *testing.T) {
	o := appliance.LatLon{Lat: -22.9, Lon: -43.2}
	far := []appliance.Building{squareBuilding(o, "a", 0, 0, 10, 10), squareBuilding(o, "b", 70000, 70000, 10, 10)}
	if _, err := raytrace.NewScene(raytrace.SceneInput{Buildings: far}); !errors.Is(err, appliance.ErrInvalid) || !strings.Contains(err.Error(), "from the origin") {
		t.Fatalf("buildings 100 km apart: %v", err)
	}
	// absurd heights are refused, not counted into a wrapped tile count
	// (1e20 m made NewScene panic building its tile grid)
	for _, h := range []float64{1e20, math.MaxFloat64, math.NaN(), math.Inf(1), -5} {
		b := squareBuilding(o, "h", 0, 0, 20, 10)
		b.HeightM = h
		if _, err := raytrace.NewScene(raytrace.SceneInput{Buildings: []appliance.Building{b}}); !errors.Is(err, appliance.ErrInvalid) {
			t.Fatalf("a building %g m tall: %v", h, err)
		}
	}
	var tall []appliance.Building
	for i := range 40 {
		tall = append(tall, squareBuilding(o, fmt.Sprint(i), -1000, -1000, 2000, 999))
	}
	if _, err := raytrace.NewScene(raytrace.SceneInput{Buildings: tall}); !errors.Is(err, appliance.ErrInvalid) || !strings.Contains(err.Error(), "wall tiles") {
		t.Fatalf("forty tall squares: %v", err)
	} else {
		t.Logf("refused: %v", err)
	}
	h0 := heapInUse()
	s, err := raytrace.NewScene(raytrace.SceneInput{Buildings: tall[:1]})
	if err != nil {
		t.Fatal(err)
	}
	used := heapInUse() - h0
	tiles := appliance.MeasureBuildingLayer(tall[:1], s.Frame().Origin).WallTiles
	per := float64(used) / float64(tiles)
	t.Logf("one 2 km × 2 km × 999 m square: %d tiles, scene %d MiB (%.0f bytes per tile); a layer at the %d-tile limit: about %.2f GB",
		tiles, used>>20, per, appliance.BuildingLayerMaxWallTiles, per*appliance.BuildingLayerMaxWallTiles/1e9)
	runtime.KeepAlive(s)
}

// FuzzIssue24_ParseScene runs the importer and then the scene on what it
// keeps, so that the size bounds both apply are fuzzed together: a layer
// Parse accepts must build (NewScene fails only on materials, never on a
// bound Parse let through), and neither may panic.
func FuzzIssue24_ParseScene(f *testing.F) {
	sq := func(m, h float64) string {
		fr := raytrace.NewFrame(appliance.LatLon{Lat: -22.9, Lon: -43.2})
		var c []string
		for _, p := range [][2]float64{{0, 0}, {m, 0}, {m, m}, {0, m}, {0, 0}} {
			q := fr.ToLatLon(p[0], p[1])
			c = append(c, fmt.Sprintf("[%.8f,%.8f]", q.Lon, q.Lat))
		}
		return fmt.Sprintf(`{"type":"Feature","properties":{"height":"%g"},"geometry":{"type":"Polygon","coordinates":[[%s]]}}`, h, strings.Join(c, ","))
	}
	f.Add([]byte(`{"type":"FeatureCollection","features":[` + sq(20, 30) + `,` + sq(2000, 999) + `]}`))
	f.Add([]byte(`{"type":"MultiPolygon","coordinates":[[[[-43.2,-22.9],[-43.1999,-22.9],[-43.1999,-22.8999],[-43.2,-22.9]]],[[[-42.2,-21.9],[-42.1999,-21.9],[-42.1999,-21.8999],[-42.2,-21.9]]]]}`))
	f.Add([]byte(`<osm><node id="1" lat="-22.9" lon="-43.2"/><node id="2" lat="-22.9" lon="-43.1999"/><node id="3" lat="-22.8999" lon="-43.1999"/><way id="9"><nd ref="1"/><nd ref="2"/><nd ref="3"/><nd ref="1"/><tag k="building" v="yes"/><tag k="height" v="900"/></way></osm>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		im, err := buildings.Parse(context.Background(), data, buildings.Options{MaxBytes: 1 << 20})
		if err != nil {
			return
		}
		sz := appliance.MeasureBuildingLayer(im.Buildings, appliance.BuildingLayerCentre(im.Buildings))
		if sz.WallTiles > 1<<20 {
			t.Skip("a scene this large is too slow to build in a fuzz run")
		}
		if _, err := raytrace.NewScene(raytrace.SceneInput{Buildings: im.Buildings}); err != nil {
			t.Fatalf("Parse kept %d buildings (%+v) that NewScene refuses: %v", len(im.Buildings), sz, err)
		}
	})
}
