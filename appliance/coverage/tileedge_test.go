package coverage

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"linkplan/appliance"
	"linkplan/engines"
	"linkplan/terrain-packs/packer"
	"linkplan/terrain-packs/terrain"
)

// edgePack builds a pack of S23W044 (the real SRTM3 tile committed in
// terrain-packs/testdata) and, as its east and south neighbours, two land
// tiles made from it by mirroring across the shared edge (S23W043: column
// c is S23W044's column 1200−c; S24W044: row r is its row 1200−r), so
// that the neighbours are land whose edge rows and columns equal
// S23W044's, as SRTM's overlapping edges are. With sea true the neighbours
// are declared sea instead (the bench-splat pack). Nothing here is
// invented terrain beyond the mirror.
func edgePack(t testing.TB, sea bool) *terrain.Pack {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join("..", "..", "terrain-packs", "testdata", "S23W044.hgt.zip")
	s, spd, err := packer.ReadHGT(src)
	if err != nil {
		t.Fatal(err)
	}
	n := spd + 1
	write := func(name string, at func(r, c int) int16) string {
		b := make([]byte, 2*n*n)
		for r := range n {
			for c := range n {
				binary.BigEndian.PutUint16(b[2*(r*n+c):], uint16(at(r, c)))
			}
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	inputs := []string{src}
	opts := packer.Options{}
	if sea {
		opts.SeaTiles = []string{"S23W043", "S24W044", "S24W043"}
	} else {
		inputs = append(inputs,
			write("S23W043.hgt", func(r, c int) int16 { return s[r*n+(n-1-c)] }),
			write("S24W044.hgt", func(r, c int) int16 { return s[(n-1-r)*n+c] }),
			write("S24W043.hgt", func(r, c int) int16 { return s[(n-1-r)*n+(n-1-c)] }))
	}
	out := filepath.Join(dir, "edge.ltp")
	if _, err := packer.Build(context.Background(), out, inputs, opts); err != nil {
		t.Fatal(err)
	}
	p, err := terrain.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// TestIssue22_TileEdgeStrip is the tile-edge finding of issue 22 scope 5:
// on a map whose circle crosses the south and east edges of S23W044, the
// pixels of the one-pixel strips along those edges agree with their
// point-to-point answer like every other pixel, between two land tiles
// and between land and declared sea. Every pixel of the 6 km map is
// compared; the strip's pixels are also reported on their own. The
// heights the map samples (RadialProfile, the point sessions of the
// pixels' own samples) equal ElevationM's on the edge itself.
func TestIssue22_TileEdgeStrip(t *testing.T) {
	reg, err := engines.New(engines.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, sea := range []bool{false, true} {
		ter := edgePack(t, sea)
		svc := New(ter, reg.Get)
		kind := "land-land"
		if sea {
			kind = "land-sea"
		}
		// the edges themselves: a point on the lat −23 and lon −43 lines
		for _, q := range []appliance.LatLon{{Lat: -23, Lon: -43.06}, {Lat: -22.97, Lon: -43}, {Lat: -23 + 1e-9, Lon: -43.02}} {
			h, err := ter.ElevationM(q)
			if err != nil {
				t.Fatal(err)
			}
			tx := appliance.LatLon{Lat: -22.96, Lon: -43.04}
			prof, err := ter.RadialProfile(tx, q, 90)
			if err != nil {
				t.Fatal(err)
			}
			if last := prof.HeightsM[prof.Len()-1]; math.Abs(last-h) > 1e-9 {
				t.Errorf("%s: %v: RadialProfile ends at %v m, ElevationM %v m", kind, q, last, h)
			}
		}
		for _, id := range []appliance.EngineID{appliance.EngineFSPL, appliance.EngineITM} {
			for _, exact := range []bool{false, true} {
				req := Request{Tx: appliance.LatLon{Lat: -22.96, Lon: -43.04}, TxHeightM: 30, EIRPDBm: 58, AzimuthDeg: math.NaN(),
					FreqMHz: 900, RadiusM: 6000, RxHeightM: 10, ResolutionM: 90, Engine: id, Exact: exact}
				res, err := svc.Compute(context.Background(), req, Options{Workers: 2})
				if err != nil {
					t.Fatal(err)
				}
				r := res.Raster
				mode := "default"
				if exact {
					mode = "exact"
				}
				all := pixelsToCheck(r, []Request{req}, 0, nil)
				var strip []int
				for _, px := range all {
					row, col := px/r.Width, px%r.Width
					c := r.PixelCenter(row, col)
					if math.Abs(c.Lat+23) < r.PixelLatDeg || math.Abs(c.Lon+43) < r.PixelLonDeg {
						strip = append(strip, px)
					}
				}
				step := []float64{res.Summary.ProfileStepM}
				whole := measureAgreement(t, ter, reg.Get, []Request{req}, r, step, all, mode, fmt.Sprintf("edge6-%s-%s", kind, id))
				a := measureAgreement(t, ter, reg.Get, []Request{req}, r, step, strip, mode, fmt.Sprintf("edge6-strip-%s-%s", kind, id))
				if sea && !exact && id == appliance.EngineITM {
					// Known gap: beside a tile declared sea (the
					// bench-splat pack, not the appliance's packs), the
					// itm default mode takes the terrain statistics of
					// radials that cross 0 m sea samples: 99.1 % within
					// 1 dB, 99.89 % within 3 dB on this map.
					t.Log(whole)
					t.Log(a)
					if whole.pct1() < 98.5 || whole.pct3() < 99.8 || a.pct3() < 99.5 || whole.Mismatched+a.Mismatched > 0 {
						t.Errorf("%s / %s: below the land-sea bounds (98.5 %% within 1 dB, 99.8 %% within 3 dB; strip 99.5 %% within 3 dB)", whole, a)
					}
				} else {
					checkAgreement(t, whole)
					checkAgreement(t, a)
				}
				if a.Pixels < 100 {
					t.Errorf("only %d strip pixels", a.Pixels)
				}
			}
		}
	}
}
