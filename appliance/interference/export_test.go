package interference

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/coverage"
	"linkplan/appliance/geoexport"
	"linkplan/appliance/tooltest"
)

func tool(t *testing.T, name string, args ...string) string {
	t.Helper()
	bin := tooltest.Need(t, name, "gdal-bin")
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}

// TestIssue26_InterferenceExportsGDAL: the 3-transmitter map as a 5-band
// GeoTIFF read by gdalinfo (bands, units, descriptions, warnings) and its
// SINR contours as GeoJSON and KMZ read by ogrinfo.
func TestIssue26_InterferenceExportsGDAL(t *testing.T) {
	ter, reg := rioTerrain(t), registry(t)
	res, err := New(ter, reg.Get).Compute(context.Background(), threeTransmitters(appliance.EngineFSPL), coverage.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tif := filepath.Join(dir, "interference.tif")
	f, err := os.Create(tif)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteGeoTIFF(f, res); err != nil {
		t.Fatal(err)
	}
	f.Close()
	info := tool(t, "gdalinfo", "-stats", tif)
	for _, want := range []string{"Size is " + strconv.Itoa(res.Grid.Width) + ", " + strconv.Itoa(res.Grid.Height), "Band 5 Block", "Type=Float32",
		"Description = SINR", "Description = C/I", "Unit Type: dBm", "Unit Type: dB\n", "WARNINGS=void_filled_terrain;no_land_cover;acs_assumed",
		"NOISE_FIGURE_DB=7", "CHANNELS_MHZ=5500/20;5520/20", "NoData Value=nan", "PIXEL_MODE=default", "PIXEL_WITHIN_1DB_PCT=100",
		"PIXEL_RECEIVER=the pixel centre, 10 m above ground"} {
		if !strings.Contains(info, want) {
			t.Errorf("gdalinfo lacks %q:\n%s", want, info)
		}
	}
	for _, fm := range []geoexport.Format{geoexport.FormatGeoJSON, geoexport.FormatKMZ} {
		p := filepath.Join(dir, "contours."+string(fm))
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := WriteContours(f, fm, res, nil); err != nil {
			t.Fatal(err)
		}
		f.Close()
		out := tool(t, "ogrinfo", "-al", "-so", p)
		if !strings.Contains(out, "Feature Count: 4") || !strings.Contains(out, "sinr_db") && fm == geoexport.FormatGeoJSON {
			t.Errorf("ogrinfo of %s:\n%s", fm, out)
		}
		t.Logf("%s: %d bytes", fm, fileSize(t, p))
	}
}

func fileSize(t *testing.T, p string) int64 {
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}
