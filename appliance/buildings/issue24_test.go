package buildings_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"linkplan/appliance/buildings"
)

// Rings of the geometry tests, GeoJSON coordinates (longitude, latitude):
// a 100 m square building, two 20 m courtyards that overlap, and a part
// beside it.
const (
	sqOuter  = `[[-43.2,-22.9],[-43.199,-22.9],[-43.199,-22.899],[-43.2,-22.899],[-43.2,-22.9]]`
	sqHole   = `[[-43.1996,-22.8996],[-43.1994,-22.8996],[-43.1994,-22.8994],[-43.1996,-22.8994],[-43.1996,-22.8996]]`
	sqHole2  = `[[-43.1995,-22.8995],[-43.1993,-22.8995],[-43.1993,-22.8993],[-43.1995,-22.8993],[-43.1995,-22.8995]]`
	sqSmall  = `[[-43.19955,-22.89955],[-43.19945,-22.89955],[-43.19945,-22.89945],[-43.19955,-22.89945],[-43.19955,-22.89955]]`
	sqBeside = `[[-43.198,-22.9],[-43.1975,-22.9],[-43.1975,-22.8995],[-43.198,-22.9]]`
	sqFar    = `[[-43.1,-22.9],[-43.0995,-22.9],[-43.0995,-22.8995],[-43.1,-22.9]]`
)

// TestIssue24_OverlappingHolesAndParts: holes are checked against each
// other and the parts of a multipolygon against each other; a bad
// feature is refused alone with a reason, and the valid shapes next to
// them (a holed polygon, a part in another's courtyard) stay accepted.
func TestIssue24_OverlappingHolesAndParts(t *testing.T) {
	cases := []struct{ name, geometry, reason string }{
		{"identical holes", `{"type":"Polygon","coordinates":[` + sqOuter + `,` + sqHole + `,` + sqHole + `]}`, "holes 1 and 2 overlap"},
		{"overlapping holes", `{"type":"Polygon","coordinates":[` + sqOuter + `,` + sqHole + `,` + sqHole2 + `]}`, "holes 1 and 2 overlap"},
		{"hole inside a hole", `{"type":"Polygon","coordinates":[` + sqOuter + `,` + sqSmall + `,` + sqHole + `]}`, "hole 1 lies inside hole 2"},
		{"duplicated parts", `{"type":"MultiPolygon","coordinates":[[` + sqOuter + `],[` + sqOuter + `]]}`, "parts 1 and 2 overlap"},
		{"overlapping parts", `{"type":"MultiPolygon","coordinates":[[` + sqOuter + `],[` + sqHole + `],[` + sqBeside + `]]}`, "part 2 lies inside part 1"},
		{"part across a courtyard", `{"type":"MultiPolygon","coordinates":[[` + sqOuter + `,` + sqHole + `],[` + sqHole2 + `]]}`, "parts 1 and 2 overlap"},
		{"one hole", `{"type":"Polygon","coordinates":[` + sqOuter + `,` + sqHole + `]}`, ""},
		{"two separate holes", `{"type":"Polygon","coordinates":[` + sqOuter + `,` + sqSmall + `,` + `[[-43.1999,-22.8999],[-43.1998,-22.8999],[-43.1998,-22.8998],[-43.1999,-22.8999]]` + `]}`, ""},
		{"part in a courtyard", `{"type":"MultiPolygon","coordinates":[[` + sqOuter + `,` + sqHole + `],[` + sqSmall + `],[` + sqBeside + `]]}`, ""},
		{"parts far apart", `{"type":"MultiPolygon","coordinates":[[` + sqOuter + `],[` + sqFar + `]]}`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fc := `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":` + c.geometry + `},` + good + `]}`
			im, err := buildings.Parse(context.Background(), []byte(fc), buildings.Options{})
			if err != nil {
				t.Fatalf("the file was refused whole: %v", err)
			}
			if c.reason == "" {
				if len(im.Buildings) != 2 || im.Refused != 0 {
					t.Fatalf("want both features kept, got %d buildings, refusals %v", len(im.Buildings), im.Refusals)
				}
				return
			}
			if len(im.Buildings) != 1 || im.Buildings[0].ID != "good" {
				t.Fatalf("want only the good feature kept, got %d buildings", len(im.Buildings))
			}
			if im.Refused != 1 || im.Refusals[0].Feature != "feature/0" || !strings.Contains(im.Refusals[0].Reason, c.reason) {
				t.Fatalf("want feature/0 refused with %q, got %+v", c.reason, im.Refusals)
			}
			t.Logf("refused: %s", im.Refusals[0].Reason)
		})
	}
}

// circle is a GeoJSON ring of n vertices, radius r degrees.
func circle(lon, lat, r float64, n int) string {
	var sb strings.Builder
	sb.WriteString("[")
	for i := 0; i <= n; i++ {
		a := 2 * math.Pi * float64(i%n) / float64(n)
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, "[%.8f,%.8f]", lon+r*math.Cos(a), lat+r*math.Sin(a))
	}
	sb.WriteString("]")
	return sb.String()
}

// BenchmarkIssue24_ValidateBigPolygon: a polygon whose outer ring and 20
// holes have 3999 vertices each (the ring cap is 4000), and a
// multipolygon of 20 such parts: the edge sweep keeps the pairwise checks
// near linear.
func BenchmarkIssue24_ValidateBigPolygon(b *testing.B) {
	rings := []string{circle(-43.2, -22.9, 0.009, 3999)}
	for i := 0; i < 20; i++ {
		a := float64(i) * 2 * math.Pi / 20
		rings = append(rings, circle(-43.2+0.005*math.Cos(a), -22.9+0.005*math.Sin(a), 0.0007, 3999))
	}
	var parts []string
	for i := 0; i < 20; i++ {
		parts = append(parts, "["+circle(-43.2+0.001*float64(i), -22.9, 0.0004, 3999)+"]")
	}
	for _, c := range []struct{ name, js string }{
		{"holes", `{"type":"Polygon","coordinates":[` + strings.Join(rings, ",") + `]}`},
		{"parts", `{"type":"MultiPolygon","coordinates":[` + strings.Join(parts, ",") + `]}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				st := time.Now()
				im, err := buildings.Parse(context.Background(), []byte(c.js), buildings.Options{})
				if err != nil || len(im.Buildings) != 1 {
					b.Fatalf("want the feature kept: %v %+v", err, im)
				}
				if i == 0 {
					b.Logf("%s: %d bytes validated in %v", c.name, len(c.js), time.Since(st))
				}
			}
		})
	}
}
