package buildings_test

import (
	"context"
	"strings"
	"testing"

	"linkplan/appliance/buildings"
)

// TestIssue24_DroppedRings: osmgeojson leaves out, without a word, an
// inner way of a multi-outer building multipolygon that lies in no outer
// ring, and an outer way that joins into no closed ring while others do.
// The import keeps the building as assembled and says what was dropped
// and where (warning buildings_rings_dropped); a whole relation is named
// once however many of its ways were dropped.
func TestIssue24_DroppedRings(t *testing.T) {
	const nodes = `<node id="1" lat="-22.9" lon="-43.2"/><node id="2" lat="-22.9" lon="-43.199"/><node id="3" lat="-22.899" lon="-43.199"/><node id="4" lat="-22.899" lon="-43.2"/>` +
		`<node id="5" lat="-22.8998" lon="-43.1998"/><node id="6" lat="-22.8998" lon="-43.1995"/><node id="7" lat="-22.8995" lon="-43.1995"/><node id="8" lat="-22.8995" lon="-43.1998"/>` +
		`<node id="21" lat="-22.9" lon="-43.19"/><node id="22" lat="-22.9" lon="-43.189"/><node id="23" lat="-22.899" lon="-43.189"/><node id="24" lat="-22.899" lon="-43.19"/>` +
		`<node id="31" lat="-22.95" lon="-43.25"/><node id="32" lat="-22.95" lon="-43.2495"/><node id="33" lat="-22.9495" lon="-43.2495"/><node id="34" lat="-22.9495" lon="-43.25"/>` +
		`<node id="41" lat="-22.91" lon="-43.21"/><node id="42" lat="-22.91" lon="-43.209"/><node id="43" lat="-22.909" lon="-43.209"/>` +
		`<way id="10"><nd ref="1"/><nd ref="2"/><nd ref="3"/><nd ref="4"/><nd ref="1"/></way>` +
		`<way id="20"><nd ref="21"/><nd ref="22"/><nd ref="23"/><nd ref="24"/><nd ref="21"/></way>` +
		`<way id="12"><nd ref="5"/><nd ref="6"/><nd ref="7"/><nd ref="8"/><nd ref="5"/></way>` +
		`<way id="30"><nd ref="31"/><nd ref="32"/><nd ref="33"/><nd ref="34"/><nd ref="31"/></way>` +
		`<way id="40"><nd ref="41"/><nd ref="42"/><nd ref="43"/></way>`
	rel := func(id string, members ...string) string {
		s := `<relation id="` + id + `">`
		for _, m := range members {
			role, ref, _ := strings.Cut(m, ":")
			s += `<member type="way" ref="` + ref + `" role="` + role + `"/>`
		}
		return s + `<tag k="type" v="multipolygon"/><tag k="building" v="yes"/></relation>`
	}
	for _, c := range []struct {
		name      string
		relations string
		parts     int // footprints of the building
		holes     int // in all its footprints
		warning   string
	}{
		{"two outers, the inner in the first", rel("100", "outer:10", "outer:20", "inner:12"), 2, 1, ""},
		{"an inner in no outer", rel("100", "outer:10", "outer:20", "inner:12", "inner:30"), 2, 1,
			"1 inner way in no outer ring (the courtyard is solid in the scene); in relation/100."},
		{"an outer that does not close", rel("100", "outer:10", "outer:20", "outer:40"), 2, 0,
			"1 outer way that joined into no closed ring (that part of the building is missing); in relation/100."},
		{"both, in two relations", rel("100", "outer:10", "outer:20", "inner:30", "outer:40") + rel("101", "outer:10", "outer:20", "inner:30"), 2, 0,
			"2 inner ways in no outer ring (the courtyard is solid in the scene); 1 outer way that joined into no closed ring (that part of the building is missing); in relation/100, relation/101."},
	} {
		t.Run(c.name, func(t *testing.T) {
			im, err := buildings.Parse(context.Background(), []byte(`<osm>`+nodes+c.relations+`</osm>`), buildings.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(im.Buildings) == 0 || im.Buildings[0].ID != "relation/100" {
				t.Fatalf("buildings %+v, refusals %+v", im.Buildings, im.Refusals)
			}
			b := im.Buildings[0]
			holes := 0
			for _, fp := range b.Footprints {
				holes += len(fp.Holes)
			}
			if len(b.Footprints) != c.parts || holes != c.holes {
				t.Errorf("%d footprints, %d holes; want %d, %d", len(b.Footprints), holes, c.parts, c.holes)
			}
			warned := ""
			for _, w := range im.Warnings {
				if w.Code == "buildings_rings_dropped" {
					warned = w.Message
				}
			}
			if (c.warning == "") != (warned == "") || !strings.HasSuffix(warned, c.warning) {
				t.Errorf("warning %q, want one ending %q", warned, c.warning)
			}
			t.Logf("%d buildings, warnings %v", len(im.Buildings), im.Warnings)
		})
	}
}
