package terrain_test

import (
	"errors"
	"testing"

	"linkplan/appliance"
	"linkplan/terrain-packs/packer"
	"linkplan/terrain-packs/terrain"
)

// cropVoids returns, for the 31×31 crop of realCrop, which samples were
// voids in the SRTM source (../testdata/S23W044.hgt.zip).
func cropVoids(t testing.TB) []bool {
	t.Helper()
	s, _, err := packer.ReadHGT("../testdata/S23W044.hgt.zip")
	if err != nil {
		t.Fatal(err)
	}
	out := make([]bool, 0, 31*31)
	for r := 0; r <= 1200; r += 40 {
		for c := 0; c <= 1200; c += 40 {
			out = append(out, s[r*1201+c] == terrain.NoData)
		}
	}
	return out
}

// checkCrop compares the crop read from a committed golden with the crop
// of today's sample pack: every measured sample must match; samples that
// were voids in the SRTM source (one, in the Serra dos Órgãos) are
// estimates of the fill method the golden was written with, which may
// have changed since.
func checkCrop(t testing.TB, got, crop []int16) {
	t.Helper()
	voids := cropVoids(t)
	if len(got) != len(crop) {
		t.Fatalf("%d samples, want %d", len(got), len(crop))
	}
	for i := range crop {
		if got[i] != crop[i] && !voids[i] {
			t.Fatalf("measured sample %d = %d, want %d", i, got[i], crop[i])
		}
	}
}

// voidGrid is a 5×5 tile (spd 4) whose sample (1,1) was a void.
func voidGrid() ([]int16, []bool) {
	s := make([]int16, 25)
	for i := range s {
		s[i] = int16(10 * i)
	}
	m := make([]bool, 25)
	m[1*5+1] = true
	return s, m
}

func voidPack(t testing.TB) *terrain.Pack {
	t.Helper()
	s, m := voidGrid()
	b := makeVoidPack(t, 4, terrain.CodecPredictive, false, []synthTile{
		{id: tRio, kind: terrain.KindLand, samples: s, voids: m},
		{id: tSea, kind: terrain.KindSea},
		{id: tVoi, kind: terrain.KindVoid},
		{id: terrain.TileID{Lat: -22, Lon: -44}, kind: terrain.KindLand, samples: s}, // measured everywhere
	})
	p, err := terrain.OpenBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// TestVoidFilledAt: a point is void-filled when any sample with a non-zero
// bilinear weight was a void. Tile S23W044 (spd 4, 0.25° per sample) has
// its void at row 1, column 1: latitude -22.25, longitude -43.75.
func TestVoidFilledAt(t *testing.T) {
	p := voidPack(t)
	if !p.HasVoidMask() || p.Header().Version != terrain.VersionV4 {
		t.Fatalf("version %d, void mask %v", p.Header().Version, p.HasVoidMask())
	}
	cases := []struct {
		name    string
		at      appliance.LatLon
		want    bool
		missing string // the tile of the *appliance.TileMissingError expected
		invalid bool
	}{
		{"on the void sample", appliance.LatLon{Lat: -22.25, Lon: -43.75}, true, "", false},
		{"inside a cell touching it", appliance.LatLon{Lat: -22.1, Lon: -43.9}, true, "", false},
		{"inside the cell south-east of it", appliance.LatLon{Lat: -22.4, Lon: -43.6}, true, "", false},
		{"on a grid line next to it", appliance.LatLon{Lat: -22.25, Lon: -43.6}, true, "", false},
		{"on the north edge above it (zero weight)", appliance.LatLon{Lat: -22, Lon: -43.75}, false, "", false},
		{"on a measured sample next to it", appliance.LatLon{Lat: -22.5, Lon: -43.5}, false, "", false},
		{"a cell away from it", appliance.LatLon{Lat: -22.6, Lon: -43.4}, false, "", false},
		{"a tile with no void", appliance.LatLon{Lat: -21.3, Lon: -43.7}, false, "", false},
		{"sea tile", appliance.LatLon{Lat: -22.5, Lon: -42.5}, false, "", false},
		{"void tile", appliance.LatLon{Lat: -23.5, Lon: -43.5}, false, "S24W044", false},
		{"missing tile", appliance.LatLon{Lat: -10, Lon: -50}, false, "S10W050", false},
		{"invalid position", appliance.LatLon{Lat: 91, Lon: 0}, false, "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := p.VoidFilledAt(tc.at)
			// VoidStatusAt agrees on a pack with the mask: always known.
			f, known, serr := p.VoidStatusAt(tc.at)
			if f != got || known != (err == nil) || (serr == nil) != (err == nil) {
				t.Fatalf("VoidStatusAt = %v, %v, %v; VoidFilledAt %v, %v", f, known, serr, got, err)
			}
			var miss *appliance.TileMissingError
			switch {
			case tc.missing != "":
				if !errors.As(err, &miss) || miss.Tile != tc.missing {
					t.Fatalf("err = %v, want tile %s missing", err, tc.missing)
				}
			case tc.invalid:
				if !errors.Is(err, appliance.ErrInvalid) {
					t.Fatalf("err = %v, want ErrInvalid", err)
				}
			case err != nil || got != tc.want:
				t.Fatalf("VoidFilledAt = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
	mask, err := p.ReadVoidMask(tRio)
	if err != nil {
		t.Fatal(err)
	}
	_, want := voidGrid()
	for i := range want {
		if mask[i] != want[i] {
			t.Fatalf("mask sample %d = %v", i, mask[i])
		}
	}
	if e, _ := p.Entry(tRio); e.Filled != 1 || e.Void.Count != 1 || e.Void.Codec != terrain.VoidZstdBitmap {
		t.Fatalf("entry %+v", e)
	}
	in := p.Info()
	if !in.VoidMask || in.FilledSamples != 1 || in.VoidFilledTiles != 1 || in.VoidMaskBytes == 0 {
		t.Fatalf("info %+v", in)
	}
}

// TestVoidProfile: Profile marks the samples VoidFilledAt marks, and is
// nil when the path crosses no void-filled sample.
func TestVoidProfile(t *testing.T) {
	p := voidPack(t)
	cases := []struct {
		name      string
		a, b      appliance.LatLon
		wantVoids bool
	}{
		{"across the void", appliance.LatLon{Lat: -22.25, Lon: -43.95}, appliance.LatLon{Lat: -22.25, Lon: -43.05}, true},
		{"along the south of the tile", appliance.LatLon{Lat: -22.9, Lon: -43.95}, appliance.LatLon{Lat: -22.9, Lon: -43.05}, false},
		{"into the sea tile", appliance.LatLon{Lat: -22.8, Lon: -43.2}, appliance.LatLon{Lat: -22.8, Lon: -42.8}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			prof, err := p.Profile(tc.a, tc.b, 500)
			if err != nil {
				t.Fatal(err)
			}
			if (prof.VoidFilled != nil) != tc.wantVoids {
				t.Fatalf("VoidFilled = %v, want voids %v", prof.VoidFilled, tc.wantVoids)
			}
			d := tc.a.DistanceM(tc.b)
			count := 0
			for i := range prof.DistancesM {
				q := tc.a.Intermediate(tc.b, prof.DistancesM[i]/d)
				if i == prof.Len()-1 {
					q = tc.b
				}
				want, err := p.VoidFilledAt(q)
				if err != nil {
					t.Fatal(err)
				}
				got := prof.VoidFilled != nil && prof.VoidFilled[i]
				if got != want {
					t.Fatalf("sample %d: VoidFilled %v, VoidFilledAt %v", i, got, want)
				}
				if got {
					count++
				}
			}
			if n, span := prof.VoidStats(); n != count || (n == 0 && span != 0) {
				t.Fatalf("VoidStats = %d, %v; want %d samples", n, span, count)
			}
		})
	}
}

// TestLayeredVoids: the pack that answers the height answers the void
// flag; a pack without the mask knows no voids.
func TestLayeredVoids(t *testing.T) {
	masked := voidPack(t)
	old := smallPack(t, terrain.VersionV2, terrain.CodecPredictive) // S23W044 without a mask
	at := appliance.LatLon{Lat: -22.25, Lon: -43.75}
	cases := []struct {
		name string
		l    *terrain.Layered
		want bool
	}{
		{"masked pack first", terrain.NewLayered(masked, old), true},
		{"pack without a mask first answers the height", terrain.NewLayered(old, masked), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.l.VoidFilledAt(at)
			if err != nil || got != tc.want {
				t.Fatalf("VoidFilledAt = %v, %v; want %v", got, err, tc.want)
			}
			prof, err := tc.l.Profile(appliance.LatLon{Lat: -22.25, Lon: -43.95}, appliance.LatLon{Lat: -22.25, Lon: -43.05}, 500)
			if err != nil || (prof.VoidFilled != nil) != tc.want {
				t.Fatalf("profile voids %v, %v; want %v", prof.VoidFilled, err, tc.want)
			}
		})
	}
	l := terrain.NewLayered(old, masked)
	if !l.HasVoidMask() {
		t.Fatal("HasVoidMask false with a masked pack")
	}
	// S22W044 is only in the masked pack: it answers, measured.
	if v, err := l.VoidFilledAt(appliance.LatLon{Lat: -21.5, Lon: -43.5}); err != nil || v {
		t.Fatalf("S22W044: %v, %v", v, err)
	}
	var miss *appliance.TileMissingError
	if _, err := l.VoidFilledAt(appliance.LatLon{Lat: 10, Lon: 10}); !errors.As(err, &miss) || miss.Tile != "N10E010" {
		t.Fatalf("missing tile: %v", err)
	}
	if _, err := l.VoidFilledAt(appliance.LatLon{Lat: 0, Lon: 200}); !errors.Is(err, appliance.ErrInvalid) {
		t.Fatalf("invalid: %v", err)
	}
}

// TestVoidMaskCorrupt: a damaged void-mask payload or entry is an error
// matching ErrCorrupt, never a guessed flag.
func TestVoidMaskCorrupt(t *testing.T) {
	s, m := voidGrid()
	good := makeVoidPack(t, 4, terrain.CodecPredictive, false, []synthTile{{id: tRio, kind: terrain.KindLand, samples: s, voids: m}})
	p, err := terrain.OpenBytes(good)
	if err != nil {
		t.Fatal(err)
	}
	e, _ := p.Entry(tRio)
	p.Close()
	voidIdx := terrain.HeaderSize + terrain.EntrySize
	cases := []struct {
		name   string
		patch  func(b []byte)
		onOpen bool
	}{
		{"payload byte flipped", func(b []byte) { b[e.Void.Offset] ^= 0x40 }, false},
		{"count differs from the tile's filled", func(b []byte) { b[voidIdx+4] = 2; refreshCRCs(b) }, true},
		{"unknown codec", func(b []byte) { b[voidIdx] = 7; refreshCRCs(b) }, true},
		{"reserved byte", func(b []byte) { b[voidIdx+2] = 1; refreshCRCs(b) }, true},
		{"payload outside the file", func(b []byte) { b[voidIdx+16] = 0xff; b[voidIdx+17] = 0xff; refreshCRCs(b) }, true},
		{"index checksum", func(b []byte) { b[voidIdx+20] ^= 1 }, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := append([]byte(nil), good...)
			tc.patch(b)
			p, err := terrain.OpenBytes(b)
			if tc.onOpen {
				if !errors.Is(err, terrain.ErrCorrupt) {
					t.Fatalf("OpenBytes err = %v, want ErrCorrupt", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			if _, err := p.ReadVoidMask(tRio); !errors.Is(err, terrain.ErrCorrupt) {
				t.Fatalf("ReadVoidMask err = %v, want ErrCorrupt", err)
			}
			if v, err := p.VoidFilledAt(appliance.LatLon{Lat: -22.25, Lon: -43.75}); !errors.Is(err, terrain.ErrCorrupt) {
				t.Fatalf("VoidFilledAt = %v, %v; want ErrCorrupt", v, err)
			}
		})
	}
}

// TestReadsV4Golden reads a committed version-4 pack so that later readers
// keep reading it: the real 31×31 crops of S23W044 (its one sample that was
// an SRTM void marked in the mask) and S22W043 (no void: no mask payload),
// a sea tile and a void tile, with the land-cover layer (uniform Unknown)
// so that both optional indexes are present.
func TestReadsV4Golden(t *testing.T) {
	const path = "testdata/v4-voids-crop.ltp"
	crop := realCrop(t)
	voids := cropVoids(t)
	interior := realCropOf(t, terrain.TileID{Lat: -22, Lon: -43})
	p := openGolden(t, path, func() []byte {
		return makeVoidPack(t, 30, terrain.CodecPredictive, true, []synthTile{
			{id: tRio, kind: terrain.KindLand, samples: crop, voids: voids},
			{id: terrain.TileID{Lat: -22, Lon: -43}, kind: terrain.KindLand, samples: interior},
			{id: tSea, kind: terrain.KindSea, class: 8},
			{id: tVoi, kind: terrain.KindVoid},
		})
	})
	if p.Header().Version != terrain.VersionV4 || !p.HasVoidMask() || !p.HasClutter() {
		t.Fatalf("golden is version %d, void mask %v, clutter %v", p.Header().Version, p.HasVoidMask(), p.HasClutter())
	}
	got, err := p.ReadTile(tRio)
	if err != nil {
		t.Fatal(err)
	}
	checkCrop(t, got, crop)
	mask, err := p.ReadVoidMask(tRio)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i := range voids {
		if mask[i] != voids[i] {
			t.Fatalf("mask sample %d = %v, SRTM void %v", i, mask[i], voids[i])
		}
		if mask[i] {
			n++
		}
	}
	// Sample (14, 29) of the crop: latitude -22 - 560/1200, longitude
	// -44 + 1160/1200, in the Serra dos Órgãos.
	if n != 1 || !mask[14*31+29] {
		t.Fatalf("%d void-filled samples in the crop, want 1 at (14, 29)", n)
	}
	if v, err := p.VoidFilledAt(appliance.LatLon{Lat: -22 - 560.0/1200, Lon: -44 + 1160.0/1200}); err != nil || !v {
		t.Fatalf("VoidFilledAt on the void = %v, %v", v, err)
	}
	if e, _ := p.Entry(terrain.TileID{Lat: -22, Lon: -43}); e.Void.Codec != terrain.VoidNone || e.Void.Length != 0 {
		t.Fatalf("S22W043 void entry %+v, want none without payload", e.Void)
	}
}

// realCropOf returns every 40th sample of tile id of the sample pack.
func realCropOf(t testing.TB, id terrain.TileID) []int16 {
	t.Helper()
	p := openSample(t)
	s, err := p.ReadTile(id)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]int16, 0, 31*31)
	for r := 0; r <= 1200; r += 40 {
		for c := 0; c <= 1200; c += 40 {
			out = append(out, s[r*1201+c])
		}
	}
	return out
}

// TestReadsV2Golden reads a committed version-2 pack (the real 31×31 crop
// of S23W044 with codec 2 and a void tile; until format 4 the embedded
// sample pack was the version-2 file the tests read) so that every later
// reader keeps reading v2 files.
func TestReadsV2Golden(t *testing.T) {
	const path = "testdata/v2-rio-crop.ltp"
	crop := realCrop(t)
	p := openGolden(t, path, func() []byte {
		return makePack(t, 30, terrain.CodecPredictive, terrain.VersionV2, []synthTile{
			{id: tRio, kind: terrain.KindLand, samples: crop},
			{id: tVoi, kind: terrain.KindVoid},
		})
	})
	if p.Header().Version != terrain.VersionV2 || p.HasVoidMask() || p.HasClutter() {
		t.Fatalf("golden is version %d, void mask %v, clutter %v", p.Header().Version, p.HasVoidMask(), p.HasClutter())
	}
	got, err := p.ReadTile(tRio)
	if err != nil {
		t.Fatal(err)
	}
	checkCrop(t, got, crop)
	// A version-2 pack knows no voids: its interpolated sample reads as
	// measured.
	if v, err := p.VoidFilledAt(appliance.LatLon{Lat: -22 - 560.0/1200, Lon: -44 + 1160.0/1200}); err != nil || v {
		t.Fatalf("VoidFilledAt = %v, %v; want false (no mask)", v, err)
	}
	// Its index counts no filled sample (the golden was laid out without),
	// so the pack vouches for the height: known, not void-filled.
	if f, known, err := p.VoidStatusAt(appliance.LatLon{Lat: -22 - 560.0/1200, Lon: -44 + 1160.0/1200}); err != nil || f || !known {
		t.Fatalf("VoidStatusAt = %v, %v, %v; want false, true (no filled sample in the index)", f, known, err)
	}
}
