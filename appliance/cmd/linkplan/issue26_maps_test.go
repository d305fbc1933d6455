//go:build systemtools

package main_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// streamNetMap posts body to path (a map route) and reads its stream to the
// last event: the map id, the last data of each event type and the
// number of tile events.
func streamNetMap(t *testing.T, s *server, key, path, body string) (string, map[string]json.RawMessage, int) {
	t.Helper()
	req, err := http.NewRequest("POST", s.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-API-Key", key)
	req.Header.Set("Content-Type", "application/json")
	res, err := (&http.Client{Timeout: 5 * time.Minute}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %d", path, res.StatusCode)
	}
	evs := map[string]json.RawMessage{}
	tiles := 0
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	typ := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			typ = strings.TrimPrefix(line, "event: ")
			if typ == "tile" {
				tiles++
			}
		case strings.HasPrefix(line, "data: "):
			evs[typ] = json.RawMessage(strings.TrimPrefix(line, "data: "))
			if typ == "summary" || typ == "error" {
				return res.Header.Get("X-Map-Id"), evs, tiles
			}
		}
	}
	t.Fatalf("the stream of %s ended without a summary: %v", path, sc.Err())
	return "", nil, 0
}

// TestIssue26_NetworkMapsEndToEnd: on the binary, an interference map
// (three transmitters, two channels) and a viewshed stream over SSE to
// their summaries; their exports read with gdalinfo (the interference
// GeoTIFF's five bands with their units and caveats, the viewshed's class
// band with VISIBLE_KM2 equal to the summary's visible area) and ogrinfo
// (the SINR contours, the visible areas); after a restart both maps answer
// GET and export the same GeoTIFF bytes.
func TestIssue26_NetworkMapsEndToEnd(t *testing.T) {
	t.Parallel()
	gdal, ogr := lookTool(t, "gdalinfo"), lookTool(t, "ogrinfo")
	bin := binary(t)
	dir := t.TempDir()
	s := startServe(t, bin, dir)
	key := issueKey(t, s, dir, "Pro")
	hdr := map[string]string{"X-API-Key": key}
	tmp := t.TempDir()

	ifID, ievs, itiles := streamNetMap(t, s, key, "/coverage/interference", `{"sites":[`+
		`{"lat":-22.93,"lon":-43.30,"height_m":30,"eirp_dbm":58,"azimuth_deg":0},`+
		`{"lat":-22.93,"lon":-43.30,"height_m":30,"eirp_dbm":58,"azimuth_deg":120},`+
		`{"lat":-22.95,"lon":-43.27,"height_m":25,"eirp_dbm":55,"frequency_mhz":1820}],`+
		`"frequency_mhz":1800,"bandwidth_mhz":20,"radius_km":4,"resolution_m":90,"engine":"itm"}`)
	var isum struct {
		ValidPixels int `json:"valid_pixels"`
		Detail      struct {
			Kind      string `json:"kind"`
			SINRAreas []struct {
				ThresholdDB float64 `json:"threshold_db"`
				AreaKm2     float64 `json:"area_km2"`
			} `json:"sinr_areas"`
			InterferedPixels int `json:"interfered_pixels"`
		} `json:"detail"`
		Warnings []wireWarning `json:"warnings"`
	}
	if err := json.Unmarshal(ievs["summary"], &isum); err != nil || isum.Detail.Kind != "interference" || isum.ValidPixels == 0 || isum.Detail.InterferedPixels == 0 || itiles == 0 {
		t.Fatalf("interference summary %s (error %s), %d tiles: %v", ievs["summary"], ievs["error"], itiles, err)
	}
	export := func(id, format string) []byte {
		r := s.call(t, "GET", "/coverage/heatmap/"+id+"/export?format="+format, hdr, "")
		if r.status != http.StatusOK {
			t.Fatalf("export %s of %s: %d %s", format, id, r.status, r.body)
		}
		return r.body
	}
	gdalJSON := func(path string) (md map[string]string, units []string) {
		out, err := exec.Command(gdal, "-json", path).CombinedOutput()
		if err != nil {
			t.Fatalf("gdalinfo %s: %v\n%s", path, err, out)
		}
		var gi struct {
			Metadata map[string]map[string]string `json:"metadata"`
			Bands    []struct {
				Unit string `json:"unit"`
			} `json:"bands"`
		}
		if err := json.Unmarshal(out, &gi); err != nil {
			t.Fatal(err)
		}
		for _, b := range gi.Bands {
			units = append(units, b.Unit)
		}
		return gi.Metadata[""], units
	}
	itif := export(ifID, "geotiff")
	p := filepath.Join(tmp, "interference.tif")
	if err := os.WriteFile(p, itif, 0o600); err != nil {
		t.Fatal(err)
	}
	md, units := gdalJSON(p)
	if strings.Join(units, ",") != "index,dBm,dBm,dB,dB" || md["NOISE_FIGURE_DB"] != "7" || md["CHANNELS_MHZ"] != "1800/20;1820/20" ||
		md["TRANSMITTERS"] != "3" || md["WARNINGS"] != strings.Join(wireCodes(isum.Warnings), ";") {
		t.Errorf("interference GeoTIFF: bands %v, metadata %v", units, md)
	}
	gj := filepath.Join(tmp, "sinr.geojson")
	if err := os.WriteFile(gj, export(ifID, "geojson"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(ogr, "-ro", "-al", "-q", gj).CombinedOutput()
	if err != nil {
		t.Fatalf("ogrinfo: %v\n%s", err, out)
	}
	for _, a := range isum.Detail.SINRAreas {
		if !strings.Contains(string(out), "sinr_db (Real) = "+strconv.FormatFloat(a.ThresholdDB, 'f', -1, 64)+"\n") {
			t.Errorf("the SINR contours lack %g dB:\n%.2000s", a.ThresholdDB, out)
		}
	}
	shz := filepath.Join(tmp, "sinr.zip")
	if err := os.WriteFile(shz, export(ifID, "shapefile"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(ogr, "-ro", "-al", "-so", "/vsizip/"+shz).CombinedOutput(); err != nil || !strings.Contains(string(out), "Feature Count: 4") {
		t.Errorf("ogrinfo of the Shapefile: %v\n%s", err, out)
	}

	vsID, vevs, vtiles := streamNetMap(t, s, key, "/coverage/viewshed",
		`{"site":{"lat":-22.93,"lon":-43.30,"height_m":30},"frequency_mhz":5800,"radius_km":4,"resolution_m":90,"rx_height_m":5}`)
	var vsum struct {
		Detail struct {
			Kind        string  `json:"kind"`
			VisibleKm2  float64 `json:"visible_km2"`
			InRadiusKm2 float64 `json:"in_radius_km2"`
		} `json:"detail"`
	}
	if err := json.Unmarshal(vevs["summary"], &vsum); err != nil || vsum.Detail.Kind != "viewshed" || !(vsum.Detail.VisibleKm2 > 0) || vtiles == 0 {
		t.Fatalf("viewshed summary %s (error %s): %v", vevs["summary"], vevs["error"], err)
	}
	vtif := export(vsID, "geotiff")
	p = filepath.Join(tmp, "viewshed.tif")
	if err := os.WriteFile(p, vtif, 0o600); err != nil {
		t.Fatal(err)
	}
	md, units = gdalJSON(p)
	if len(units) != 1 || units[0] != "class" || md["VISIBLE_KM2"] != strconv.FormatFloat(vsum.Detail.VisibleKm2, 'f', -1, 64) {
		t.Errorf("viewshed GeoTIFF: bands %v, metadata %v (summary visible %g km²)", units, md, vsum.Detail.VisibleKm2)
	}
	vj := filepath.Join(tmp, "viewshed.geojson")
	if err := os.WriteFile(vj, export(vsID, "geojson"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err = exec.Command(ogr, "-ro", "-al", "-q", vj).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "visibility (String) = los\n") || !strings.Contains(string(out), "visibility (String) = fresnel_60\n") {
		t.Errorf("ogrinfo of the visible areas: %v\n%.2000s", err, out)
	}
	t.Logf("interference: %d valid pixels, %d interfered, SINR areas %+v; viewshed: visible %.3f of %.3f km²",
		isum.ValidPixels, isum.Detail.InterferedPixels, isum.Detail.SINRAreas, vsum.Detail.VisibleKm2, vsum.Detail.InRadiusKm2)

	// a restart keeps both maps: the same GeoTIFF bytes
	if err := s.stop(t); err != nil {
		t.Fatalf("stop: %v", err)
	}
	s = startServe(t, bin, dir)
	for id, tif := range map[string][]byte{ifID: itif, vsID: vtif} {
		r := s.call(t, "GET", "/coverage/heatmap/"+id, hdr, "")
		if r.status != http.StatusOK || !bytes.Contains(r.body, []byte(`"state":"done"`)) || !bytes.Contains(r.body, []byte(`"detail"`)) {
			t.Fatalf("GET %s after the restart: %d %s", id, r.status, r.body)
		}
		if got := export(id, "geotiff"); !bytes.Equal(got, tif) {
			t.Errorf("map %s: the GeoTIFF after the restart differs (%d vs %d bytes)", id, len(got), len(tif))
		}
	}
}
