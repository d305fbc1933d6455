package basemap_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/basemap"
)

const degEps = 1e-9 // degrees

func TestTileBounds(t *testing.T) {
	for _, tc := range []struct {
		name                     string
		tile                     basemap.Tile
		west, south, east, north float64
	}{
		{"the world", basemap.Tile{Z: 0, X: 0, Y: 0}, -180, -85.0511287798066, 180, 85.0511287798066},
		{"zoom 1 north-west", basemap.Tile{Z: 1, X: 0, Y: 0}, -180, 0, 0, 85.0511287798066},
		{"zoom 1 south-east", basemap.Tile{Z: 1, X: 1, Y: 1}, 0, -85.0511287798066, 180, 0},
		// 66.51326044311186° is the latitude of the zoom-2 row boundary.
		{"zoom 2 row 1", basemap.Tile{Z: 2, X: 1, Y: 1}, -90, 0, 0, 66.51326044311186},
		{"zoom 2 row 2", basemap.Tile{Z: 2, X: 2, Y: 2}, 0, -66.51326044311186, 90, 0},
		// OpenStreetMap's tile over Rio de Janeiro's centre at zoom 12.
		{"Rio de Janeiro z12", basemap.Tile{Z: 12, X: 1556, Y: 2316}, -43.2421875, -22.99885159414291, -43.154296875, -22.917922936146034},
		{"last tile of zoom 15", basemap.Tile{Z: 15, X: 32767, Y: 32767}, 179.989013671875, -85.0511287798066, 180, -85.05018093458116},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, s, e, n := tc.tile.Bounds()
			for _, c := range []struct {
				edge      string
				got, want float64
			}{{"west", w, tc.west}, {"south", s, tc.south}, {"east", e, tc.east}, {"north", n, tc.north}} {
				if math.Abs(c.got-c.want) > degEps {
					t.Errorf("%s edge %.12f, want %.12f", c.edge, c.got, c.want)
				}
			}
			if math.Abs(basemap.MaxLatDeg-85.0511287798066) > degEps {
				t.Errorf("MaxLatDeg %.12f", basemap.MaxLatDeg)
			}
		})
	}
}

func TestTileAt(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    appliance.LatLon
		z    int
		want basemap.Tile
	}{
		{"Rio de Janeiro z12", appliance.LatLon{Lat: -22.95, Lon: -43.21}, 12, basemap.Tile{Z: 12, X: 1556, Y: 2316}},
		{"Brasília z10", appliance.LatLon{Lat: -15.7939, Lon: -47.8828}, 10, basemap.Tile{Z: 10, X: 375, Y: 557}},
		{"null island z1", appliance.LatLon{Lat: 0, Lon: 0}, 1, basemap.Tile{Z: 1, X: 1, Y: 1}},
		{"north pole clamps to row 0", appliance.LatLon{Lat: 90, Lon: 0}, 3, basemap.Tile{Z: 3, X: 4, Y: 0}},
		{"south pole clamps to the last row", appliance.LatLon{Lat: -90, Lon: 179.999}, 3, basemap.Tile{Z: 3, X: 7, Y: 7}},
		{"antimeridian east clamps to the last column", appliance.LatLon{Lat: 10, Lon: 180}, 2, basemap.Tile{Z: 2, X: 3, Y: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := basemap.TileAt(tc.p, tc.z); got != tc.want {
				t.Errorf("TileAt(%v, %d) = %s, want %s", tc.p, tc.z, got, tc.want)
			}
		})
	}
}

// TestTileRoundTrip: the centre of a random tile's bounds lies in that
// tile, and its bounds touch its neighbours'.
func TestTileRoundTrip(t *testing.T) {
	seed := uint64(20261126)
	if s := os.Getenv("SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("SEED=%q: %v", s, err)
		}
		seed = v
	}
	t.Logf("seed %d (set SEED= to repeat)", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	for range 2000 {
		z := rng.IntN(basemap.MaxZoom + 1)
		tl := basemap.Tile{Z: z, X: rng.IntN(1 << z), Y: rng.IntN(1 << z)}
		w, s, e, n := tl.Bounds()
		if !(w < e && s < n) {
			t.Fatalf("%s: bounds %g %g %g %g", tl, w, s, e, n)
		}
		if got := basemap.TileAt(appliance.LatLon{Lat: (s + n) / 2, Lon: (w + e) / 2}, z); got != tl {
			t.Fatalf("centre of %s is in %s", tl, got)
		}
		if tl.X+1 < 1<<z {
			if w2, _, _, _ := (basemap.Tile{Z: z, X: tl.X + 1, Y: tl.Y}).Bounds(); w2 != e {
				t.Fatalf("%s: east edge %g, next west edge %g", tl, e, w2)
			}
		}
		if tl.Y+1 < 1<<z {
			if _, _, _, n2 := (basemap.Tile{Z: z, X: tl.X, Y: tl.Y + 1}).Bounds(); n2 != s {
				t.Fatalf("%s: south edge %g, next north edge %g", tl, s, n2)
			}
		}
	}
}

func TestParseTile(t *testing.T) {
	for _, tc := range []struct {
		name    string
		z, x, y string
		want    basemap.Tile
		fields  []string // bad fields, in order; nil: valid
	}{
		{"world", "0", "0", "0", basemap.Tile{}, nil},
		{"Rio z12", "12", "1556", "2316", basemap.Tile{Z: 12, X: 1556, Y: 2316}, nil},
		{"last tile of the last zoom", "15", "32767", "32767", basemap.Tile{Z: 15, X: 32767, Y: 32767}, nil},
		{"leading zeros", "012", "01556", "02316", basemap.Tile{Z: 12, X: 1556, Y: 2316}, nil},
		{"zoom above the range", "16", "0", "0", basemap.Tile{}, []string{"z"}},
		{"negative zoom", "-1", "0", "0", basemap.Tile{}, []string{"z"}},
		{"x past the last column", "3", "8", "0", basemap.Tile{}, []string{"x"}},
		{"y past the last row", "3", "0", "8", basemap.Tile{}, []string{"y"}},
		{"x and y past the range", "0", "1", "1", basemap.Tile{}, []string{"x", "y"}},
		{"negative x", "3", "-1", "0", basemap.Tile{}, []string{"x"}},
		{"plus sign", "3", "+1", "0", basemap.Tile{}, []string{"x"}},
		{"fraction", "3", "1.5", "0", basemap.Tile{}, []string{"x"}},
		{"empty row", "3", "1", "", basemap.Tile{}, []string{"y"}},
		{"words", "zoom", "x", "y", basemap.Tile{}, []string{"z", "x", "y"}},
		{"bad zoom, good x and y", "99", "1", "2", basemap.Tile{}, []string{"z"}},
		{"huge number", "3", "99999999999999999999", "0", basemap.Tile{}, []string{"x"}},
		{"spaces", " 3", "1", "0", basemap.Tile{}, []string{"z"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := basemap.ParseTile(tc.z, tc.x, tc.y)
			if tc.fields == nil {
				if err != nil || got != tc.want {
					t.Fatalf("ParseTile = %s, %v; want %s", got, err, tc.want)
				}
				return
			}
			var ae *basemap.AddressError
			if !errors.As(err, &ae) || !errors.Is(err, appliance.ErrInvalid) {
				t.Fatalf("error %v (%T), want *AddressError matching ErrInvalid", err, err)
			}
			var names []string
			for _, f := range ae.Fields.Fields {
				names = append(names, f.Field)
			}
			if len(names) != len(tc.fields) {
				t.Fatalf("bad fields %v, want %v", names, tc.fields)
			}
			for i := range names {
				if names[i] != tc.fields[i] {
					t.Fatalf("bad fields %v, want %v", names, tc.fields)
				}
			}
		})
	}
}

func FuzzParseTile(f *testing.F) {
	for _, s := range [][3]string{{"0", "0", "0"}, {"12", "1556", "2316"}, {"15", "32767", "32767"}, {"16", "0", "0"}, {"3", "-1", "+2"}, {"", "", ""}, {"1e3", "0x10", "٣"}} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, z, x, y string) {
		tl, err := basemap.ParseTile(z, x, y)
		if err != nil {
			var ae *basemap.AddressError
			if !errors.As(err, &ae) || ae.Fields.Len() == 0 {
				t.Fatalf("error without fields: %v", err)
			}
			return
		}
		if !tl.Valid() {
			t.Fatalf("ParseTile(%q, %q, %q) = %s, not a valid tile", z, x, y, tl)
		}
		if again, err := basemap.ParseTile(strconv.Itoa(tl.Z), strconv.Itoa(tl.X), strconv.Itoa(tl.Y)); err != nil || again != tl {
			t.Fatalf("%s does not parse back: %s, %v", tl, again, err)
		}
	})
}

func TestMatchETag(t *testing.T) {
	const etag = `"hs1-00112233445566778899"`
	for _, tc := range []struct {
		name, header string
		want         bool
	}{
		{"absent", "", false},
		{"exact", etag, true},
		{"weak form", "W/" + etag, true},
		{"any", "*", true},
		{"in a list", `"other", ` + etag + `, "third"`, true},
		{"other tags", `"other", W/"third"`, false},
		{"unquoted", `hs1-00112233445566778899`, false},
		{"prefix only", `"hs1-0011"`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := basemap.MatchETag(tc.header, etag); got != tc.want {
				t.Errorf("MatchETag(%q) = %v, want %v", tc.header, got, tc.want)
			}
		})
	}
}

func FuzzMatchETag(f *testing.F) {
	for _, s := range []string{"", "*", `"a"`, `W/"a", "b"`, `,,,`, "W/"} {
		f.Add(s, `"a"`)
	}
	f.Fuzz(func(t *testing.T, header, etag string) {
		if etag == "" || etag == "W/" {
			if basemap.MatchETag(header, etag) && !containsStar(header) {
				t.Fatalf("empty etag matched %q", header)
			}
			return
		}
		if strings.TrimSpace(etag) != etag || strings.Contains(etag, ",") {
			return // not an entity tag (RFC 9110: quoted, no spaces or commas)
		}
		if !basemap.MatchETag(header+", "+etag, etag) {
			t.Fatalf("a list ending in %q does not match it", etag)
		}
	})
}

func containsStar(h string) bool { return strings.Contains(h, "*") }
