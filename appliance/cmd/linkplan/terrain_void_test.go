//go:build systemtools

package main_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"linkplan/terrain-packs/packer"
	"linkplan/terrain-packs/sample"
	"linkplan/terrain-packs/terrain"
)

// TestTerrainBuildPriorityInputs_Finding1 (issue 7, finding 1): terrain
// build takes its inputs in priority order; a DEM listed after the SRTM
// tile fills the SRTM voids it covers (here the SYNTHETIC 396 m peak at Pão
// de Açúcar of terrain-packs/testdata, not a survey), those samples are
// measured, the rest stay void-filled and marked; info reports the counts
// and elevation warns on stderr where the height was interpolated.
func TestTerrainBuildPriorityInputs_Finding1(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	dir := t.TempDir()
	srtm := filepath.Join(srtmDir, "S23W044.hgt.zip")
	peak := filepath.Join(srtmDir, "sugarloaf-synthetic-peak.tif")
	cases := []struct {
		name      string
		inputs    []string
		filled    int64
		fromLower int64
		sugarloaf float64 // at least, metres
		warns     bool
	}{
		{"SRTM alone", []string{srtm}, 3789, 0, 0, true},
		{"SRTM, then the synthetic peak", []string{srtm, peak}, 3600, 189, 380, false},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pack := filepath.Join(dir, strconv.Itoa(i)+".ltp")
			out, errOut, code := runCLI(t, bin, append([]string{"terrain", "build", "--quiet", "--out", pack}, tc.inputs...)...)
			if code != 0 {
				t.Fatalf("build: exit %d\n%s", code, errOut)
			}
			var st packer.Stats
			if err := json.Unmarshal([]byte(out), &st); err != nil {
				t.Fatal(err)
			}
			if !st.VoidMask || st.FilledSamples != tc.filled || st.MeasuredFromLower != tc.fromLower {
				t.Fatalf("stats: void mask %v, %d filled, %d from lower inputs; want %d, %d", st.VoidMask, st.FilledSamples, st.MeasuredFromLower, tc.filled, tc.fromLower)
			}
			out, errOut, code = runCLI(t, bin, "terrain", "info", pack)
			if code != 0 {
				t.Fatalf("info: exit %d\n%s", code, errOut)
			}
			var info terrain.Info
			if err := json.Unmarshal([]byte(out), &info); err != nil {
				t.Fatal(err)
			}
			if info.Version != terrain.VersionV4 || !info.VoidMask || info.FilledSamples != tc.filled ||
				len(info.Tiles) != 1 || info.Tiles[0].VoidMask == nil || info.Tiles[0].VoidMask.VoidFilled != tc.filled {
				t.Fatalf("info %+v", info)
			}
			out, errOut, code = runCLI(t, bin, "terrain", "elevation", "--pack", pack, "-22.9486", "-43.1567")
			if code != 0 {
				t.Fatalf("elevation: exit %d\n%s", code, errOut)
			}
			h, err := strconv.ParseFloat(strings.TrimSpace(out), 64)
			if err != nil || h < tc.sugarloaf {
				t.Fatalf("elevation %q (%v), want at least %.0f m", out, err, tc.sugarloaf)
			}
			if got := strings.Contains(errOut, "void-filled"); got != tc.warns {
				t.Fatalf("stderr %q: void warning %v, want %v", errOut, got, tc.warns)
			}
		})
	}
	t.Run("without the void mask", func(t *testing.T) {
		pack := filepath.Join(dir, "old.ltp")
		if _, errOut, code := runCLI(t, bin, "terrain", "build", "--quiet", "--no-void-mask", "--out", pack, srtm); code != 0 {
			t.Fatalf("build: exit %d\n%s", code, errOut)
		}
		out, _, _ := runCLI(t, bin, "terrain", "info", pack)
		var info terrain.Info
		if err := json.Unmarshal([]byte(out), &info); err != nil {
			t.Fatal(err)
		}
		if info.Version != terrain.VersionV2 || info.VoidMask || info.FilledSamples != 3789 {
			t.Fatalf("info: version %d, void mask %v, %d filled", info.Version, info.VoidMask, info.FilledSamples)
		}
		// The pack cannot say whether the height is void-filled: it says so.
		out, errOut, code := runCLI(t, bin, "terrain", "elevation", "--pack", pack, "-22.9486", "-43.1567")
		if _, err := strconv.ParseFloat(strings.TrimSpace(out), 64); code != 0 || err != nil || !strings.Contains(errOut, "no void mask") {
			t.Fatalf("elevation: exit %d, stdout %q, stderr %q; want a height and the no-void-mask warning", code, out, errOut)
		}
	})
}

// TestTerrainElevationChecksBeforePrinting (issue 7, finding 1 review):
// terrain elevation prints nothing on stdout when the void check fails (a
// corrupt void mask under a readable height), so no height goes out
// without its void warning.
func TestTerrainElevationChecksBeforePrinting(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	good := filepath.Join(t.TempDir(), "rio.ltp")
	if err := os.WriteFile(good, sample.Pack(), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := terrain.Open(good)
	if err != nil {
		t.Fatal(err)
	}
	e, ok := p.Entry(terrain.TileID{Lat: -23, Lon: -44})
	p.Close()
	if !ok || e.Void.Codec != terrain.VoidZstdBitmap {
		t.Fatalf("S23W044 void entry %+v, want a mask payload", e.Void)
	}
	b := bytes.Clone(sample.Pack())
	b[e.Void.Offset+e.Void.Length/2] ^= 0xff // the mask's CRC32C no longer matches
	bad := filepath.Join(t.TempDir(), "rio-bad-mask.ltp")
	if err := os.WriteFile(bad, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		pack string
		ok   bool
	}{
		{"intact pack prints the height", good, true},
		{"corrupt void mask prints nothing", bad, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, bin, "terrain", "elevation", "--pack", tc.pack, "-22.9486", "-43.1567")
			t.Logf("exit %d, stdout %q, stderr %q", code, out, errOut)
			if (code == 0) != tc.ok || (out != "") != tc.ok {
				t.Fatalf("exit %d, stdout %q; want success %v with output only then", code, out, tc.ok)
			}
			if !tc.ok && !strings.Contains(errOut, "void mask") {
				t.Fatalf("stderr %q does not name the void mask", errOut)
			}
		})
	}
}
