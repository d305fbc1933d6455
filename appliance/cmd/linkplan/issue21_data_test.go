//go:build systemtools

package main_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// catalogTestdata holds real Anatel and OpenCelliD exports (PROVENANCE.md).
const catalogTestdata = "../../../appliance/catalog/testdata"

// maturityManifest is the data_manifest of GET /platform/maturity.
type maturityManifest struct {
	Complete     bool `json:"complete"`
	TerrainPacks []struct {
		Name       string  `json:"name"`
		Status     string  `json:"status"`
		SHA256     string  `json:"sha256"`
		Bytes      int64   `json:"bytes"`
		ModifiedAt *string `json:"modified_at"`
		Tiles      int     `json:"tiles"`
	} `json:"terrain_packs"`
	TowerSources []struct {
		Name        string  `json:"name"`
		Status      string  `json:"status"`
		SHA256      string  `json:"sha256"`
		ModifiedAt  *string `json:"modified_at"`
		LastRefresh *struct {
			SHA256     string `json:"sha256"`
			Format     string `json:"format"`
			Towers     int    `json:"towers"`
			SameAsFile *bool  `json:"same_as_file"`
		} `json:"last_refresh"`
	} `json:"tower_sources"`
}

func fileSHA256(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// dataManifest polls GET /platform/maturity until its data_manifest is
// complete (the files are hashed in the background).
func dataManifest(t *testing.T, s *server, key string) maturityManifest {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := s.call(t, "GET", "/platform/maturity", map[string]string{"X-API-Key": key}, "")
		if r.status != 200 {
			t.Fatalf("maturity: %d %s", r.status, r.body)
		}
		var m struct {
			DataManifest *maturityManifest `json:"data_manifest"`
		}
		if err := json.Unmarshal(r.body, &m); err != nil || m.DataManifest == nil {
			t.Fatalf("maturity: %v %s", err, r.body)
		}
		if m.DataManifest.Complete {
			return *m.DataManifest
		}
		if time.Now().After(deadline) {
			t.Fatalf("data manifest not complete within 30 s: %s", r.body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestIssue21_NationalDataManifest: the path from public files to a
// national appliance, on the binary with real files: a directory of DEM
// tiles (two SRTM3 tiles and a TOPODATA GeoTIFF) built into one pack,
// Anatel's open-data "Estações licenciadas" export and an OpenCelliD MCC
// 724 export installed with towers import; GET /platform/maturity then
// names each file with the SHA-256 that sha256sum gives for the download
// (tower sources are installed byte for byte) and for the pack terrain
// build wrote, and says what the catalogue read from each source. A source
// replaced on disk shows its new hash and same_as_file false until the
// next refresh reads it.
func TestIssue21_NationalDataManifest(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	downloads := t.TempDir()
	for _, f := range []struct{ from, name string }{
		{filepath.Join(srtmDir, "S22W043.hgt.zip"), "dem/S22W043.hgt.zip"},
		{filepath.Join(srtmDir, "S23W044.hgt.zip"), "dem/S23W044.hgt.zip"},
		{filepath.Join(srtmDir, "fortaleza-srtm.tif"), "dem/03S39_ZN.tif"},
		{filepath.Join(catalogTestdata, "anatel_estacoes_licenciadas_smp_sample.csv"), "towers/estacoes_licenciadas_smp.csv"},
		{filepath.Join(catalogTestdata, "opencellid_724_sample.csv"), "towers/724.csv"},
	} {
		b, err := os.ReadFile(f.from)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(downloads, f.name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dataDir := t.TempDir()
	pack := filepath.Join(dataDir, "terrain", "brazil.ltp")
	if err := os.MkdirAll(filepath.Dir(pack), 0o700); err != nil {
		t.Fatal(err)
	}
	dems, err := filepath.Glob(filepath.Join(downloads, "dem", "*"))
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, bin, append([]string{"terrain", "build", "--quiet", "--samples-per-degree", "1200", "--out", pack}, dems...)...)
	if code != 0 {
		t.Fatalf("terrain build: exit %d\n%s", code, errOut)
	}
	var built struct {
		Tiles  int    `json:"tiles"`
		SHA256 string `json:"sha256"`
	}
	if err := json.Unmarshal([]byte(out), &built); err != nil || built.Tiles != 3 || built.SHA256 != fileSHA256(t, pack) {
		t.Fatalf("terrain build printed %s (%v); the pack's SHA-256 is %s", out, err, fileSHA256(t, pack))
	}
	towerFiles, err := filepath.Glob(filepath.Join(downloads, "towers", "*.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := runCLI(t, bin, append([]string{"towers", "import", "--data-dir", dataDir}, towerFiles...)...); code != 0 {
		t.Fatalf("towers import: exit %d\n%s", code, errOut)
	}

	s := startServe(t, bin, dataDir, "--terrain", pack)
	raw, err := os.ReadFile(filepath.Join(dataDir, "admin-credentials.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cred struct {
		APIKey string `json:"api_key"`
	}
	if err := json.Unmarshal(raw, &cred); err != nil {
		t.Fatal(err)
	}
	m := dataManifest(t, s, cred.APIKey)
	if len(m.TerrainPacks) != 1 || m.TerrainPacks[0].Name != "brazil.ltp" || m.TerrainPacks[0].SHA256 != built.SHA256 ||
		m.TerrainPacks[0].Tiles != 3 || m.TerrainPacks[0].ModifiedAt == nil {
		t.Errorf("terrain packs: %+v, want brazil.ltp %s", m.TerrainPacks, built.SHA256)
	}
	want := []struct {
		name, download, format string
	}{
		{"724.csv", filepath.Join(downloads, "towers", "724.csv"), "opencellid"},
		{"estacoes_licenciadas_smp.csv", filepath.Join(downloads, "towers", "estacoes_licenciadas_smp.csv"), "anatel-licenciadas"},
	}
	if len(m.TowerSources) != len(want) {
		t.Fatalf("tower sources: %+v", m.TowerSources)
	}
	for i, w := range want {
		got := m.TowerSources[i]
		sum := fileSHA256(t, w.download)
		if got.Name != w.name || got.Status != "ok" || got.SHA256 != sum || got.LastRefresh == nil || got.LastRefresh.SHA256 != sum ||
			got.LastRefresh.Towers == 0 || got.LastRefresh.SameAsFile == nil || !*got.LastRefresh.SameAsFile {
			t.Errorf("tower source %d: %+v (refresh %+v), want %s with the download's SHA-256 %s", i, got, got.LastRefresh, w.name, sum)
		}
		if got.LastRefresh != nil && got.LastRefresh.Format != w.format {
			t.Errorf("tower source %d: format %q, want %s", i, got.LastRefresh.Format, w.format)
		}
	}

	// A newer OpenCelliD export installed under the same name: the file's
	// hash changes at once, the catalogue's at the next refresh.
	newer := filepath.Join(t.TempDir(), "724.csv")
	lines := strings.SplitAfter(string(must(os.ReadFile(want[0].download))), "\n")
	if err := os.WriteFile(newer, []byte(strings.Join(lines[:100], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := runCLI(t, bin, "towers", "import", "--data-dir", dataDir, newer); code != 0 {
		t.Fatalf("towers import of the newer file: exit %d\n%s", code, errOut)
	}
	m = dataManifest(t, s, cred.APIKey)
	got := m.TowerSources[0]
	if got.SHA256 != fileSHA256(t, newer) || got.LastRefresh == nil || got.LastRefresh.SHA256 != fileSHA256(t, want[0].download) ||
		got.LastRefresh.SameAsFile == nil || *got.LastRefresh.SameAsFile {
		t.Errorf("after replacing 724.csv: %+v (refresh %+v)", got, got.LastRefresh)
	}
	if err := s.stop(t); err != nil {
		t.Errorf("stop: %v", err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
