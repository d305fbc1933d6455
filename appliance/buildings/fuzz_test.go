package buildings_test

import (
	"archive/zip"
	"bytes"
	"context"
	"os"
	"testing"
	"unicode/utf8"

	"linkplan/appliance/buildings"
)

func zipOf(t testing.TB, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for name, b := range files {
		f, err := w.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(b)
	}
	w.Close()
	return buf.Bytes()
}

// fuzzParse checks that Parse never panics and that what it returns is
// consistent: a nil error comes with buildings, every building has a
// footprint and a positive height.
func fuzzParse(t *testing.T, data []byte) {
	im, err := buildings.Parse(context.Background(), data, buildings.Options{MaxBytes: 1 << 20})
	if err != nil {
		return
	}
	if len(im.Buildings) == 0 {
		t.Fatal("nil error without buildings")
	}
	for _, b := range im.Buildings {
		if len(b.Footprints) == 0 || !(b.HeightM >= buildings.MinBuildingHeightM) || !(b.MinHeightM < b.HeightM) || !utf8.ValidString(b.Class) {
			t.Fatalf("building %+v", b)
		}
	}
}

func seed(f *testing.F, path string, max int) {
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	if len(b) > max {
		b = b[:max]
	}
	f.Add(b)
}

// FuzzGeoJSON fuzzes the GeoJSON importer.
func FuzzGeoJSON(f *testing.F) {
	f.Add([]byte(good))
	f.Add([]byte(`{"type":"FeatureCollection","features":[` + good + `]}`))
	f.Add([]byte(`{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,0]]]]}`))
	f.Add([]byte(`{"type":"MultiPolygon","coordinates":[[` + sqOuter + `,` + sqHole + `],[` + sqSmall + `],[` + sqBeside + `]]}`))
	f.Fuzz(fuzzParse)
}

// FuzzOSMXML fuzzes the OpenStreetMap XML importer.
func FuzzOSMXML(f *testing.F) {
	f.Add([]byte(`<osm><node id="1" lat="-22.9" lon="-43.2"/><node id="2" lat="-22.9" lon="-43.1999"/><node id="3" lat="-22.8999" lon="-43.1999"/><way id="9"><nd ref="1"/><nd ref="2"/><nd ref="3"/><nd ref="1"/><tag k="building" v="yes"/></way></osm>`))
	f.Add([]byte(`<osm><relation id="1"><member type="way" ref="9" role="outer"/><tag k="type" v="multipolygon"/><tag k="building" v="yes"/></relation></osm>`))
	f.Add([]byte(`<osm>` + osmNodes + `<way id="10"><nd ref="1"/><nd ref="2"/><nd ref="3"/><nd ref="4"/><nd ref="1"/><tag k="building" v="yes"/></way><way id="11"><nd ref="5"/><nd ref="6"/><nd ref="7"/><nd ref="8"/><nd ref="5"/><tag k="building:part" v="yes"/><tag k="roof:levels" v="1"/><tag k="building:levels" v="2"/></way><relation id="100"><member type="way" ref="10" role="outline"/><member type="way" ref="11" role="part"/><tag k="type" v="building"/></relation></osm>`))
	f.Fuzz(fuzzParse)
}

// FuzzOSMPBF fuzzes the OpenStreetMap PBF importer (our decoder, pbf.go):
// seeds are the real files (dense nodes with zlib; plain nodes in raw
// blobs; LocationsOnWays), the review's raw_size file and the four
// review inputs that stopped the process through osmpbf.
func FuzzOSMPBF(f *testing.F) {
	seed(f, "testdata/ufla/ufla.osm.pbf", 1<<16)
	seed(f, "testdata/ufla/ufla_nodes_raw.osm.pbf", 1<<14)
	seed(f, "testdata/ufla/ufla_locations.osm.pbf", 1<<16)
	seed(f, "testdata/rawsize.osm.pbf", 1<<16)
	for _, c := range reviewPBFs() {
		f.Add(c.data)
	}
	f.Fuzz(fuzzParse)
}

// FuzzShapefile fuzzes the zipped Shapefile importer (the .shp and .dbf
// readers behind the zip).
func FuzzShapefile(f *testing.F) {
	seed(f, "testdata/ufla/ufla_buildings.shp.zip", 1<<16)
	seed(f, "testdata/shapefile/latin1.zip", 1<<16)
	seed(f, "testdata/shapefile/sirgas.zip", 1<<16)
	f.Fuzz(fuzzParse)
}

// FuzzShapefileParts fuzzes the .shp and .dbf readers directly (a fuzzer
// rarely finds a valid zip around mutated bytes).
func FuzzShapefileParts(f *testing.F) {
	b, err := os.ReadFile("testdata/ufla/ufla_buildings.shp.zip")
	if err != nil {
		f.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		f.Fatal(err)
	}
	parts := map[string][]byte{}
	for _, e := range zr.File {
		rc, _ := e.Open()
		var buf bytes.Buffer
		buf.ReadFrom(rc)
		rc.Close()
		parts[e.Name] = buf.Bytes()
	}
	f.Add(parts["ufla_buildings.shp"][:4000], parts["ufla_buildings.dbf"][:2000])
	f.Fuzz(func(t *testing.T, shp, dbf []byte) {
		fuzzParse(t, zipOf(t, map[string][]byte{"x.shp": shp, "x.dbf": dbf}))
	})
}

// FuzzGzip fuzzes the gzip wrapper around any format.
func FuzzGzip(f *testing.F) {
	f.Add(gz([]byte(good)))
	f.Fuzz(fuzzParse)
}
