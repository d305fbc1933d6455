//go:build systemtools

package main_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/terrain-packs/sample"
	"linkplan/terrain-packs/terrain"
)

// srtmDir holds the real SRTM3 tiles of the terrain packer's tests (see its
// PROVENANCE.md); they are read in place rather than copied.
const srtmDir = "../../../terrain-packs/testdata"

// runCLI runs the binary and returns stdout, stderr and the exit code.
func runCLI(t *testing.T, bin string, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("run %v: %v", args, err)
	}
	return stdout.String(), stderr.String(), code
}

func TestVersionAndUsage(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stdout string // exact, when not empty
		stderr string // substring, when not empty
	}{
		{"version", []string{"version"}, 0, "linkplan " + e2eVersion + "\n", ""},
		{"--version", []string{"--version"}, 0, "linkplan " + e2eVersion + "\n", ""},
		{"no command", nil, 2, "", "usage: linkplan"},
		{"unknown command", []string{"frobnicate"}, 2, "", `unknown command "frobnicate"`},
		{"terrain without subcommand", []string{"terrain"}, 2, "", "a subcommand is required"},
		{"serve with a bad flag", []string{"serve", "--no-such-flag"}, 2, "", "no-such-flag"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, bin, c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d\nstdout %s\nstderr %s", code, c.code, out, errOut)
			}
			if c.stdout != "" && out != c.stdout {
				t.Errorf("stdout %q, want %q", out, c.stdout)
			}
			if c.stderr != "" && !strings.Contains(errOut, c.stderr) {
				t.Errorf("stderr lacks %q:\n%s", c.stderr, errOut)
			}
		})
	}
}

// TestTerrainCLI builds a pack from the real SRTM3 tile S23W044 with
// `linkplan terrain build` and checks info, elevation and verify on it. The
// elevations are compared with the embedded sample pack, which the packer
// built from the same tile: the two must agree sample for sample.
func TestTerrainCLI(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	dir := t.TempDir()
	pack := filepath.Join(dir, "rio-city.ltp")
	out, errOut, code := runCLI(t, bin, "terrain", "build", "--out", pack, "--quiet", filepath.Join(srtmDir, "S23W044.hgt.zip"))
	if code != 0 {
		t.Fatalf("build: exit %d\n%s", code, errOut)
	}
	var stats struct {
		Tiles     int    `json:"tiles"`
		LandTiles int    `json:"land_tiles"`
		FileBytes int64  `json:"file_bytes"`
		SHA256    string `json:"sha256"`
	}
	if err := json.Unmarshal([]byte(out), &stats); err != nil {
		t.Fatalf("build output: %v\n%s", err, out)
	}
	fi, err := os.Stat(pack)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Tiles != 1 || stats.LandTiles != 1 || stats.FileBytes != fi.Size() || len(stats.SHA256) != 64 {
		t.Errorf("build stats %+v, file %d bytes", stats, fi.Size())
	}

	t.Run("info", func(t *testing.T) {
		out, errOut, code := runCLI(t, bin, "terrain", "info", pack)
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, errOut)
		}
		var info terrain.Info
		if err := json.Unmarshal([]byte(out), &info); err != nil {
			t.Fatal(err)
		}
		want := terrain.Bounds{MinLat: -23, MinLon: -44, MaxLat: -22, MaxLon: -43}
		if info.TileCount != 1 || info.LandTiles != 1 || info.Bounds != want || info.SamplesPerDegree != 1200 || info.FileBytes != fi.Size() {
			t.Errorf("info %+v", info)
		}
		if len(info.Tiles) != 1 || info.Tiles[0].Name != "S23W044" || info.Tiles[0].Kind != "land" {
			t.Fatalf("tiles %+v", info.Tiles)
		}
		// The embedded pack holds the same tile from the same source.
		ref, err := terrain.OpenBytes(sample.Pack())
		if err != nil {
			t.Fatal(err)
		}
		for _, rt := range ref.Info().Tiles {
			if rt.Name == "S23W044" && (rt.MinM != info.Tiles[0].MinM || rt.MaxM != info.Tiles[0].MaxM) {
				t.Errorf("min/max %d/%d m, embedded pack %d/%d m", info.Tiles[0].MinM, info.Tiles[0].MaxM, rt.MinM, rt.MaxM)
			}
		}
	})

	t.Run("elevation", func(t *testing.T) {
		ref, err := terrain.OpenBytes(sample.Pack())
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name     string
			lat, lon float64
		}{
			{"Corcovado", -22.9519, -43.2105},
			{"Pão de Açúcar", -22.9492, -43.1565},
			{"Guanabara Bay", -22.85, -43.17},
			{"Pico da Tijuca", -22.9378, -43.2858},
			{"tile corner", -23.0, -44.0},
		} {
			t.Run(c.name, func(t *testing.T) {
				// "--" ends the flags: without it the flag package takes a
				// negative latitude (all of Brazil) for a flag (reported).
				out, errOut, code := runCLI(t, bin, "terrain", "elevation", "--pack", pack, "--", fmt.Sprint(c.lat), fmt.Sprint(c.lon))
				if code != 0 {
					t.Fatalf("exit %d\n%s", code, errOut)
				}
				h, err := ref.ElevationM(appliance.LatLon{Lat: c.lat, Lon: c.lon})
				if err != nil {
					t.Fatal(err)
				}
				// The CLI prints one decimal: equal to the reference rounded
				// the same way (tolerance 0.05 m).
				if want := fmt.Sprintf("%.1f\n", h); out != want {
					t.Errorf("elevation %q, embedded pack %q", out, want)
				}
			})
		}
		for _, c := range []struct {
			name   string
			args   []string
			code   int
			stderr string
		}{
			{"outside the pack", []string{"--pack", pack, "--", "-25.4", "-49.2"}, 1, "S26W050"},
			{"latitude off the globe", []string{"--pack", pack, "--", "-95", "-43.2"}, 2, "LAT LON must be degrees"},
			{"not a number", []string{"--pack", pack, "--", "x", "-43.2"}, 2, "LAT LON must be degrees"},
			{"no pack", []string{"--", "-22.9", "-43.2"}, 2, "--pack and LAT LON are required"},
			{"missing pack file", []string{"--pack", filepath.Join(dir, "nope.ltp"), "--", "-22.9", "-43.2"}, 1, "nope.ltp"},
		} {
			t.Run(c.name, func(t *testing.T) {
				_, errOut, code := runCLI(t, bin, append([]string{"terrain", "elevation"}, c.args...)...)
				if code != c.code || !strings.Contains(errOut, c.stderr) {
					t.Errorf("exit %d (want %d), stderr %q (want %q)", code, c.code, errOut, c.stderr)
				}
			})
		}
	})

	t.Run("verify", func(t *testing.T) {
		out, errOut, code := runCLI(t, bin, "terrain", "verify", pack)
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, errOut)
		}
		var rep struct {
			TilesChecked  int    `json:"tiles_checked"`
			SHA256        string `json:"sha256"`
			ManifestFound bool   `json:"manifest_found"`
			ManifestOK    bool   `json:"manifest_ok"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		if rep.TilesChecked != 1 || rep.SHA256 != stats.SHA256 || !rep.ManifestFound || !rep.ManifestOK {
			t.Errorf("report %+v, build sha256 %s", rep, stats.SHA256)
		}
	})

	t.Run("verify a corrupted copy", func(t *testing.T) {
		raw, err := os.ReadFile(pack)
		if err != nil {
			t.Fatal(err)
		}
		bad := filepath.Join(t.TempDir(), "bad.ltp")
		raw[len(raw)/2] ^= 0xFF // inside the tile payload
		if err := os.WriteFile(bad, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		_, errOut, code := runCLI(t, bin, "terrain", "verify", bad)
		if code != 1 || !strings.Contains(errOut, "terrain verify") {
			t.Errorf("exit %d, stderr %q", code, errOut)
		}
	})

	t.Run("build usage errors", func(t *testing.T) {
		_, errOut, code := runCLI(t, bin, "terrain", "build", filepath.Join(srtmDir, "S23W044.hgt.zip"))
		if code != 2 || !strings.Contains(errOut, "--out") {
			t.Errorf("no --out: exit %d, %q", code, errOut)
		}
		_, errOut, code = runCLI(t, bin, "terrain", "build", "--out", filepath.Join(dir, "x.ltp"), "--quiet", filepath.Join(dir, "not-a-tile.txt"))
		if code != 1 {
			t.Errorf("bad input: exit %d, %q", code, errOut)
		}
	})
}

// TestIssue20_TerrainBuildSkipsNonDEM: `terrain build --out PACK DIR/*`
// over a tile directory as users have them (two real SRTM3 tiles of the
// packer's testdata beside their licence and provenance files, a checksum
// file and a subdirectory) builds the tiles and skips every other input
// with a note; before, the first README stopped the build. A glob with no
// DEM at all is a usage error.
func TestIssue20_TerrainBuildSkipsNonDEM(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	dir := t.TempDir()
	for _, name := range []string{"S22W043.hgt.zip", "S23W044.hgt.zip", "PROVENANCE.md", "LICENSE.asmyasnikov-srtm.MIT.txt"} {
		raw, err := os.ReadFile(filepath.Join(srtmDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "S23W044.hgt.zip.md5"), []byte("0123456789abcdef0123456789abcdef  S23W044.hgt.zip\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "old"), 0o755); err != nil {
		t.Fatal(err)
	}
	inputs, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	pack := filepath.Join(t.TempDir(), "dir.ltp")
	out, errOut, code := runCLI(t, bin, append([]string{"terrain", "build", "--quiet", "--out", pack}, inputs...)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	var stats struct {
		Tiles int `json:"tiles"`
	}
	if err := json.Unmarshal([]byte(out), &stats); err != nil || stats.Tiles != 2 {
		t.Fatalf("stats %+v (%v)\n%s", stats, err, out)
	}
	for _, in := range inputs {
		dem := strings.HasSuffix(in, ".hgt.zip")
		if noted := strings.Contains(errOut, "note: skipping "+in+": "); noted == dem {
			t.Errorf("%s: DEM %v, notes:\n%s", filepath.Base(in), dem, errOut)
		}
	}
	if len(inputs) != 6 {
		t.Errorf("inputs %q", inputs)
	}
	_, errOut, code = runCLI(t, bin, "terrain", "build", "--quiet", "--out", pack+"2", filepath.Join(dir, "PROVENANCE.md"))
	if code != 2 || !strings.Contains(errOut, "none of the 1 inputs is a DEM") {
		t.Errorf("no DEM: exit %d\n%s", code, errOut)
	}
}
