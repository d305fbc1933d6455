package buildings

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/paulmach/osm"
	"github.com/paulmach/osm/osmpbf"
	"github.com/paulmach/osm/osmxml"
	"google.golang.org/protobuf/encoding/protowire"

	"linkplan/appliance"
)

// The decoder (pbf.go) is hand-written, so it is checked against two
// independent implementations on real files made by osmium-tool
// (testdata/README.md): github.com/paulmach/osm/osmpbf for the files it
// can read (dense nodes), and the OpenStreetMap XML of the same extract
// read by osmxml for every file.

// osmElems is what a decoder returns, in file order, in a form that can
// be compared.
type osmElems struct {
	nodes []osmNode
	ways  []*osm.Way
	rels  []*osm.Relation
}

func readTestFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// ours decodes a PBF with decodePBF.
func ours(t *testing.T, data []byte) osmElems {
	t.Helper()
	ctx := context.Background()
	c := &osmCollect{o: &osm.OSM{}, sorted: true}
	if err := decodePBF(ctx, data, newRun(ctx, int64(len(data)), Options{}.withDefaults()), c); err != nil {
		t.Fatal(err)
	}
	return osmElems{nodes: c.nodes, ways: c.o.Ways, rels: c.o.Relations}
}

// theirs reads a file with an osm.Scanner (osmpbf or osmxml).
func theirs(t *testing.T, sc osm.Scanner) osmElems {
	t.Helper()
	defer sc.Close()
	var e osmElems
	for sc.Scan() {
		switch o := sc.Object().(type) {
		case *osm.Node:
			e.nodes = append(e.nodes, osmNode{id: o.ID, lat: o.Lat, lon: o.Lon})
		case *osm.Way:
			e.ways = append(e.ways, o)
		case *osm.Relation:
			e.rels = append(e.rels, o)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return e
}

func tagList(tags osm.Tags) []string {
	var out []string
	for _, tg := range tags {
		out = append(out, tg.Key+"="+tg.Value)
	}
	return out
}

// sameElems reports the first difference between two decodings: nodes
// (id, lat and lon within 1e-9°), ways (id, tags, node refs and, with
// locs, the way's own node locations) and relations (id, tags, members
// with type, ref and role). Without nodes, only the ways and relations
// are compared.
func sameElems(a, b osmElems, nodes, locs bool) error {
	near := func(x, y float64) bool { return math.Abs(x-y) <= 1e-9 }
	if nodes {
		if len(a.nodes) != len(b.nodes) {
			return fmt.Errorf("%d nodes, want %d", len(a.nodes), len(b.nodes))
		}
		for i, n := range a.nodes {
			m := b.nodes[i]
			if n.id != m.id || !near(n.lat, m.lat) || !near(n.lon, m.lon) {
				return fmt.Errorf("node %d: %+v, want %+v", i, n, m)
			}
		}
	}
	if len(a.ways) != len(b.ways) {
		return fmt.Errorf("%d ways, want %d", len(a.ways), len(b.ways))
	}
	for i, w := range a.ways {
		v := b.ways[i]
		if w.ID != v.ID || !reflect.DeepEqual(tagList(w.Tags), tagList(v.Tags)) || !reflect.DeepEqual(w.Nodes.NodeIDs(), v.Nodes.NodeIDs()) {
			return fmt.Errorf("way %d: %d %v %v, want %d %v %v", i, w.ID, w.Tags, w.Nodes.NodeIDs(), v.ID, v.Tags, v.Nodes.NodeIDs())
		}
		if locs {
			for j, wn := range w.Nodes {
				if !near(wn.Lat, v.Nodes[j].Lat) || !near(wn.Lon, v.Nodes[j].Lon) {
					return fmt.Errorf("way %d node %d: %+v, want %+v", w.ID, j, wn, v.Nodes[j])
				}
			}
		}
	}
	if len(a.rels) != len(b.rels) {
		return fmt.Errorf("%d relations, want %d", len(a.rels), len(b.rels))
	}
	for i, r := range a.rels {
		s := b.rels[i]
		if r.ID != s.ID || !reflect.DeepEqual(tagList(r.Tags), tagList(s.Tags)) || len(r.Members) != len(s.Members) {
			return fmt.Errorf("relation %d: %d %v %d members, want %d %v %d", i, r.ID, r.Tags, len(r.Members), s.ID, s.Tags, len(s.Members))
		}
		for j, m := range r.Members {
			n := s.Members[j]
			if m.Type != n.Type || m.Ref != n.Ref || m.Role != n.Role {
				return fmt.Errorf("relation %d member %d: %s %d %q, want %s %d %q", r.ID, j, m.Type, m.Ref, m.Role, n.Type, n.Ref, n.Role)
			}
		}
	}
	return nil
}

// withWayLocations returns an XML decoding with copies of its ways that
// carry their nodes' locations, as a LocationsOnWays file has them
// (missing, an absent node's location is osmium's undefined location).
func withWayLocations(e osmElems, missing osmNode) osmElems {
	at := map[osm.NodeID]osmNode{}
	for _, n := range e.nodes {
		at[n.id] = n
	}
	out := e
	out.ways = nil
	for _, w := range e.ways {
		c := *w
		c.Nodes = append(osm.WayNodes(nil), w.Nodes...)
		for j := range c.Nodes {
			n, ok := at[c.Nodes[j].ID]
			if !ok {
				n = missing
			}
			c.Nodes[j].Lat, c.Nodes[j].Lon = n.lat, n.lon
		}
		out.ways = append(out.ways, &c)
	}
	return out
}

// TestPBFDecoderMatchesReferences decodes every .pbf of testdata with our
// decoder and compares it with osmpbf (where osmpbf can read it) and with
// the extract's XML read by osmxml.
func TestPBFDecoderMatchesReferences(t *testing.T) {
	cases := []struct {
		file, xml string
		osmpbf    bool // osmpbf reads it (it panics on plain nodes)
		allNodes  bool // the file holds every node of the XML
		locs      bool // LocationsOnWays
	}{
		{file: "testdata/ufla/ufla.osm.pbf", xml: "testdata/ufla/ufla.osm.gz", osmpbf: true, allNodes: true},
		{file: "testdata/dortmund/TUDO_2018.osm.pbf", xml: "testdata/dortmund/TUDO_2018.osm.gz", osmpbf: true, allNodes: true},
		{file: "testdata/ufla/ufla_nodes_raw.osm.pbf", xml: "testdata/ufla/ufla.osm.gz", allNodes: true},
		{file: "testdata/ufla/ufla_locations.osm.pbf", xml: "testdata/ufla/ufla.osm.gz", osmpbf: true, locs: true},
	}
	// Every PBF of testdata is compared here or refused by
	// TestIssue24_PBFReviewInputs.
	all, _ := filepath.Glob("testdata/*/*.pbf")
	top, _ := filepath.Glob("testdata/*.pbf")
	all = append(all, top...)
	listed := map[string]bool{"testdata/rawsize.osm.pbf": true}
	for _, c := range cases {
		listed[c.file] = true
	}
	for _, f := range all {
		if !listed[f] {
			t.Errorf("%s is compared with no reference", f)
		}
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			data := readTestFile(t, c.file)
			got := ours(t, data)
			if c.osmpbf {
				want := theirs(t, osmpbf.New(context.Background(), bytes.NewReader(data), 1))
				if err := sameElems(got, want, true, c.locs); err != nil {
					t.Errorf("against osmpbf: %v", err)
				}
			}
			xml := theirs(t, osmxml.New(context.Background(), bytes.NewReader(readTestFile(t, c.xml))))
			if c.locs {
				xml = withWayLocations(xml, osmNode{})
			}
			if err := sameElems(got, xml, c.allNodes, c.locs); err != nil {
				t.Errorf("against the XML: %v", err)
			}
			t.Logf("%s: %d nodes, %d ways (%d node refs), %d relations (%d members); osmpbf compared: %v",
				c.file, len(got.nodes), len(got.ways), countRefs(got.ways), len(got.rels), countMembers(got.rels), c.osmpbf)
		})
	}
}

func countRefs(ws []*osm.Way) int {
	n := 0
	for _, w := range ws {
		n += len(w.Nodes)
	}
	return n
}

func countMembers(rs []*osm.Relation) int {
	n := 0
	for _, r := range rs {
		n += len(r.Members)
	}
	return n
}

// TestIssue24_PBFLayerEqualsXML: the building layer imported from each
// PBF equals the one imported from the XML of the same extract (UFLA 90
// buildings, TU Dortmund as many as its XML gives).
func TestIssue24_PBFLayerEqualsXML(t *testing.T) {
	cases := []struct{ pbf, xml string }{
		{"testdata/ufla/ufla.osm.pbf", "testdata/ufla/ufla.osm.gz"},
		{"testdata/ufla/ufla_nodes_raw.osm.pbf", "testdata/ufla/ufla.osm.gz"},
		{"testdata/ufla/ufla_locations.osm.pbf", "testdata/ufla/ufla.osm.gz"},
		{"testdata/dortmund/TUDO_2018.osm.pbf", "testdata/dortmund/TUDO_2018.osm.gz"},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.pbf), func(t *testing.T) {
			parse := func(path string) *Import {
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				im, err := Parse(context.Background(), b, Options{})
				if err != nil {
					t.Fatal(err)
				}
				return im
			}
			p, x := parse(c.pbf), parse(c.xml)
			if p.Format != "osm-pbf" || x.Format != "osm-xml" {
				t.Fatalf("formats %s %s", p.Format, x.Format)
			}
			worst, err := sameBuildings(p.Buildings, x.Buildings)
			if err != nil {
				t.Errorf("%d buildings from the PBF, %d from the XML: %v", len(p.Buildings), len(x.Buildings), err)
			}
			if p.Refused != x.Refused || !reflect.DeepEqual(p.Refusals, x.Refusals) || !reflect.DeepEqual(p.Warnings, x.Warnings) {
				t.Errorf("refusals %d %v warnings %v, XML %d %v %v", p.Refused, p.Refusals, p.Warnings, x.Refused, x.Refusals, x.Warnings)
			}
			if c.xml == "testdata/ufla/ufla.osm.gz" && len(p.Buildings) != 90 {
				t.Errorf("%d UFLA buildings, want 90", len(p.Buildings))
			}
			t.Logf("%s: %d buildings, %d refused, as from %s (vertices within %.1e°)", c.pbf, len(p.Buildings), p.Refused, c.xml, worst)
		})
	}
}

// TestPBFNodeOrder: nodes decoded out of id order are sorted before the
// ways look them up (a PBF need not be sorted).
func TestPBFNodeOrder(t *testing.T) {
	c := &osmCollect{o: &osm.OSM{}, sorted: true}
	for _, id := range []osm.NodeID{3, 1, 2} {
		if err := c.addNode(id, float64(id), 0); err != nil {
			t.Fatal(err)
		}
	}
	c.o.Ways = []*osm.Way{{ID: 1, Nodes: osm.WayNodes{{ID: 1}, {ID: 2}, {ID: 3}}}}
	o := c.result()
	ids := []float64{}
	for _, n := range o.Nodes {
		ids = append(ids, n.Lat)
	}
	if c.sorted || !sort.Float64sAreSorted(ids) || len(ids) != 3 {
		t.Errorf("nodes %v (sorted flag %v)", ids, c.sorted)
	}
}

// sameBuildings compares two layers: every field equal, the vertices
// within 1e-9° (the XML's decimal degrees and the PBF's nanodegree
// integers may round to neighbouring float64 values).
func sameBuildings(a, b []appliance.Building) (worst float64, err error) {
	if len(a) != len(b) {
		return 0, fmt.Errorf("%d buildings, want %d", len(a), len(b))
	}
	for i := range a {
		x, y := a[i], b[i]
		fx, fy := x.Footprints, y.Footprints
		x.Footprints, y.Footprints = nil, nil
		if !reflect.DeepEqual(x, y) || len(fx) != len(fy) {
			return 0, fmt.Errorf("building %d: %+v, want %+v", i, x, y)
		}
		for j := range fx {
			rx, ry := append([][]appliance.LatLon{fx[j].Outer}, fx[j].Holes...), append([][]appliance.LatLon{fy[j].Outer}, fy[j].Holes...)
			if len(rx) != len(ry) {
				return 0, fmt.Errorf("building %s part %d: %d rings, want %d", x.ID, j, len(rx), len(ry))
			}
			for k := range rx {
				if len(rx[k]) != len(ry[k]) {
					return 0, fmt.Errorf("building %s part %d ring %d: %d vertices, want %d", x.ID, j, k, len(rx[k]), len(ry[k]))
				}
				for v := range rx[k] {
					d := max(math.Abs(rx[k][v].Lat-ry[k][v].Lat), math.Abs(rx[k][v].Lon-ry[k][v].Lon))
					if d > 1e-9 {
						return 0, fmt.Errorf("building %s part %d ring %d vertex %d: %+v, want %+v", x.ID, j, k, v, rx[k][v], ry[k][v])
					}
					worst = max(worst, d)
				}
			}
		}
	}
	return worst, nil
}

// TestPBFGranularityAndOffsets: a block with granularity 1000
// nanodegrees and lat/lon offsets (osmium always writes 100 and 0)
// decodes to osmpbf's coordinates, dense and way locations alike.
func TestPBFGranularityAndOffsets(t *testing.T) {
	tag := func(num protowire.Number, typ protowire.Type) []byte { return protowire.AppendTag(nil, num, typ) }
	bytesF := func(num protowire.Number, v []byte) []byte {
		return protowire.AppendBytes(tag(num, protowire.BytesType), v)
	}
	varF := func(num protowire.Number, v uint64) []byte {
		return protowire.AppendVarint(tag(num, protowire.VarintType), v)
	}
	packed := func(vs ...int64) []byte {
		var b []byte
		for _, v := range vs {
			b = protowire.AppendVarint(b, protowire.EncodeZigZag(v))
		}
		return b
	}
	frame := func(typ string, block []byte) []byte {
		blob := bytesF(1, block)
		hdr := append(bytesF(1, []byte(typ)), varF(3, uint64(len(blob)))...)
		out := []byte{0, 0, byte(len(hdr) >> 8), byte(len(hdr))}
		return append(append(out, hdr...), blob...)
	}
	st := bytesF(1, append(bytesF(1, nil), bytesF(1, []byte("building"))...))
	dense := bytesF(2, bytes.Join([][]byte{bytesF(1, packed(5, 1, 1)), bytesF(8, packed(-21000, 7, -3)), bytesF(9, packed(44000, -11, 2))}, nil))
	way := bytesF(3, bytes.Join([][]byte{varF(1, 9), bytesF(2, []byte{1}), bytesF(3, []byte{0}), bytesF(8, packed(5, 1, 1)), bytesF(9, packed(-21000, 7, -3)), bytesF(10, packed(44000, -11, 2))}, nil))
	block := bytes.Join([][]byte{st, bytesF(2, append(dense, way...)), varF(17, 1000), varF(19, uint64(1<<64-123456789)), varF(20, 987654321)}, nil)
	data := append(frame("OSMHeader", bytesF(4, []byte("OsmSchema-V0.6"))), frame("OSMData", block)...)
	got := ours(t, data)
	want := theirs(t, osmpbf.New(context.Background(), bytes.NewReader(data), 1))
	if err := sameElems(got, want, true, true); err != nil {
		t.Fatal(err)
	}
	if n := got.nodes[0]; math.Abs(n.lat-(-123456789-21000*1000)*1e-9) > 1e-12 || math.Abs(n.lon-(987654321+44000*1000)*1e-9) > 1e-12 {
		t.Errorf("first node at %v %v", n.lat, n.lon)
	}
	t.Logf("%d nodes, way %d with %d located refs, as osmpbf reads them", len(got.nodes), got.ways[0].ID, len(got.ways[0].Nodes))
}

// BenchmarkPBFDecode decodes the TU Dortmund PBF (161 KB) with our
// decoder and with osmpbf.
func BenchmarkPBFDecode(b *testing.B) {
	data, err := os.ReadFile("testdata/dortmund/TUDO_2018.osm.pbf")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.Run("ours", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			c := &osmCollect{o: &osm.OSM{}, sorted: true}
			if err := decodePBF(ctx, data, newRun(ctx, int64(len(data)), Options{}.withDefaults()), c); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("osmpbf", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sc := osmpbf.New(ctx, bytes.NewReader(data), 1)
			n := 0
			for sc.Scan() {
				n++
			}
			if sc.Err() != nil || n == 0 {
				b.Fatal(sc.Err())
			}
			sc.Close()
		}
	})
}
