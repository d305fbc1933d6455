package api_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"linkplan/appliance"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "antennas", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func fieldsOf(t *testing.T, res *response) []string {
	t.Helper()
	var body struct {
		Error struct {
			Fields []appliance.FieldError `json:"fields"`
		} `json:"error"`
	}
	if err := json.Unmarshal(res.body, &body); err != nil {
		t.Fatalf("error body: %v %s", err, res.body)
	}
	var out []string
	for _, f := range body.Error.Fields {
		out = append(out, f.Field)
	}
	return out
}

// TestEquipmentRoutes walks the catalogue routes: built-ins, a radio's
// life, antennas from figures, from a table and from files (JSON and
// multipart), and the refusals (422 naming the fields or the file's line,
// 403 for built-ins, 404, 409, 413, 415).
func TestEquipmentRoutes(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	pro := h.keys["pro"]
	res := h.do(t, "GET", "/equipment/radios", pro, nil, "")
	if res.status != 200 || res.json(t)["total"].(float64) != 3 {
		t.Fatalf("built-in radios: %d %s", res.status, res.body)
	}
	// a radio's life
	res = h.do(t, "POST", "/equipment/radios", pro, nil, isoRadioBody)
	if res.status != http.StatusCreated {
		t.Fatalf("create radio: %d %s", res.status, res.body)
	}
	id := res.json(t)["id"].(string)
	if res = h.do(t, "GET", "/equipment/radios/"+id, pro, nil, ""); res.status != 200 || !strings.Contains(string(res.body), `"sensitivity_dbm":-90`) {
		t.Errorf("get radio: %d %s", res.status, res.body)
	}
	if res.json(t)["acs_db"] != nil {
		t.Errorf("a radio that states no selectivity: acs_db %v, want null", res.json(t)["acs_db"])
	}
	// the adjacent-channel selectivity (issue 26: interference reads it)
	withACS := strings.Replace(isoRadioBody, `{"name"`, `{"acs_db":45,"name"`, 1)
	if res = h.do(t, "PUT", "/equipment/radios/"+id, pro, nil, withACS); res.status != 200 || res.json(t)["acs_db"] != 45.0 {
		t.Errorf("radio with acs_db: %d %s", res.status, res.body)
	}
	if res = h.do(t, "PUT", "/equipment/radios/"+id, pro, nil, strings.Replace(withACS, `"acs_db":45`, `"acs_db":-3`, 1)); res.status != 422 ||
		strings.Join(fieldsOf(t, res), ",") != "acs_db" {
		t.Errorf("negative acs_db: %d %s", res.status, res.body)
	}
	bad := strings.Replace(isoRadioBody, `"min_mhz":5470`, `"min_mhz":6000`, 1)
	bad = strings.Replace(bad, `"tx_power_dbm":25`, `"tx_power_dbm":99`, 1)
	if res = h.do(t, "PUT", "/equipment/radios/"+id, pro, nil, bad); res.status != 422 ||
		strings.Join(fieldsOf(t, res), ",") != "bands[0],channels[0].modes[0].tx_power_dbm" {
		t.Errorf("bad update: %d %s", res.status, res.body)
	}
	if res = h.do(t, "PUT", "/equipment/radios/"+id, pro, nil, strings.Replace(isoRadioBody, "B's radio", "renamed", 1)); res.status != 200 || res.json(t)["name"] != "renamed" {
		t.Errorf("update: %d %s", res.status, res.body)
	}
	if res = h.do(t, "PUT", "/equipment/radios/builtin:wifi5-2x2", pro, nil, isoRadioBody); res.status != 403 {
		t.Errorf("update of a built-in: %d %s", res.status, res.body)
	}
	if res = h.do(t, "DELETE", "/equipment/radios/"+id, pro, nil, ""); res.status != 200 {
		t.Errorf("delete: %d %s", res.status, res.body)
	}
	if res = h.do(t, "GET", "/equipment/radios/"+id, pro, nil, ""); res.status != 404 {
		t.Errorf("after delete: %d", res.status)
	}
	// antennas: figures, a table, files
	res = h.do(t, "POST", "/equipment/antennas", pro, nil, `{"name":"WISP sector","gain_dbi":16,"parametric":{"model":"3gpp-sector","h_beamwidth_deg":90,"electrical_tilt_deg":3}}`)
	if m := res.json(t); res.status != 201 || m["h_beamwidth_deg"].(float64) != 90 || m["electrical_tilt_deg"].(float64) != 3 || m["pattern"] == nil {
		t.Errorf("parametric: %d %.300s", res.status, res.body)
	}
	table := `{"name":"T","gain_dbi":10,"pattern":{"horizontal":{"angles_deg":[0,45,90,135,180,225,270,315],"attenuation_db":[0,1.5,3,10,20,10,3,1.5]},"vertical":{"angles_deg":[0,45,90,135,180,225,270,315],"attenuation_db":[0,10,30,25,20,25,30,10]}}}`
	if res = h.do(t, "POST", "/equipment/antennas", pro, nil, table); res.status != 201 || res.json(t)["h_beamwidth_deg"].(float64) != 180 {
		t.Errorf("table: %d %s", res.status, res.body)
	}
	if res = h.do(t, "POST", "/equipment/antennas", pro, nil, `{"name":"x","gain_dbi":10,"pattern":{"horizontal":{"angles_deg":[0,1],"attenuation_db":[0]},"vertical":{"angles_deg":[0,45,90,135,180,225,270,315],"attenuation_db":[0,1,2,3,4,5,6,7]}}}`); res.status != 422 ||
		strings.Join(fieldsOf(t, res), ",") != "pattern.horizontal" {
		t.Errorf("bad table: %d %s", res.status, res.body)
	}
	pln := readTestdata(t, "B800A065-18-4E.pln")
	body, _ := json.Marshal(map[string]any{"file_name": "B800A065-18-4E.pln", "content_base64": base64.StdEncoding.EncodeToString(pln)})
	res = h.do(t, "POST", "/equipment/antennas/import", pro, nil, string(body))
	if m := res.json(t); res.status != 201 || m["name"] != "B800A065-18-4E" || m["gain_dbi"].(float64) != 15.75 || m["electrical_tilt_deg"].(float64) != 4 {
		t.Errorf("import (base64): %d %.400s", res.status, res.body)
	}
	antID := res.json(t)["id"].(string)
	// multipart, a Radio Mobile file with its gain
	mp := func(fields map[string]string, file string, data []byte) (string, map[string]string) {
		var b bytes.Buffer
		w := multipart.NewWriter(&b)
		for k, v := range fields {
			_ = w.WriteField(k, v)
		}
		if file != "" {
			fw, _ := w.CreateFormFile("file", file)
			_, _ = fw.Write(data)
		}
		_ = w.Close()
		return b.String(), map[string]string{"Content-Type": w.FormDataContentType()}
	}
	ant := readTestdata(t, "crc-covlib_generic_antenna.ant")
	mb, hdr := mp(map[string]string{"gain_dbi": "14", "name": "Generic RM"}, "generic.ant", ant)
	if res = h.do(t, "POST", "/equipment/antennas/import", pro, hdr, mb); res.status != 201 || res.json(t)["h_beamwidth_deg"].(float64) != 60 {
		t.Errorf("import (multipart): %d %.300s", res.status, res.body)
	}
	mb, hdr = mp(nil, "generic.ant", ant)
	if res = h.do(t, "POST", "/equipment/antennas/import", pro, hdr, mb); res.status != 422 || fieldsOf(t, res)[0] != "gain_dbi" {
		t.Errorf("Radio Mobile without gain: %d %s", res.status, res.body)
	}
	broken, _ := json.Marshal(map[string]any{"file_name": "b.pln", "content_base64": base64.StdEncoding.EncodeToString([]byte(strings.Replace(string(pln), "5\t0.1", "5\tzero", 1)))})
	if res = h.do(t, "POST", "/equipment/antennas/import", pro, nil, string(broken)); res.status != 422 || fieldsOf(t, res)[0] != "file" || !strings.Contains(string(res.body), "line 16") {
		t.Errorf("malformed file: %d %s", res.status, res.body)
	}
	if res = h.do(t, "POST", "/equipment/antennas/import", pro, map[string]string{"Content-Type": "text/plain"}, string(pln)); res.status != 415 {
		t.Errorf("text/plain: %d %s", res.status, res.body)
	}
	big, _ := json.Marshal(map[string]any{"file_name": "b.pln", "content_base64": strings.Repeat("QUFB", 5<<18)})
	if res = h.do(t, "POST", "/equipment/antennas/import", pro, nil, string(big)); res.status != 413 {
		t.Errorf("5 MiB: %d", res.status)
	}
	// lists: no cuts unless asked
	res = h.do(t, "GET", "/equipment/antennas", pro, nil, "")
	var list struct {
		Antennas []map[string]any `json:"antennas"`
		Total    int              `json:"total"`
	}
	if err := json.Unmarshal(res.body, &list); err != nil || list.Total != 8+4 || list.Antennas[0]["pattern"] != nil {
		t.Logf("%d antennas", list.Total)
		t.Errorf("list: %v %.300s", err, res.body)
	}
	if res = h.do(t, "GET", "/equipment/antennas?include=pattern", pro, nil, ""); !strings.Contains(string(res.body), `"angles_deg"`) {
		t.Error("include=pattern gives no cuts")
	}
	if res = h.do(t, "GET", "/equipment/antennas?include=all", pro, nil, ""); res.status != 422 {
		t.Errorf("include=all: %d", res.status)
	}
	// a mounted antenna stays
	res = h.do(t, "POST", "/towers", pro, nil, fmt.Sprintf(`{"operator":"Mounted","lat":-22.92,"lon":-43.2,"azimuth":10,"antenna_id":%q}`, antID))
	if res.status != 201 || res.json(t)["antenna_id"] != antID {
		t.Fatalf("tower with antenna: %d %s", res.status, res.body)
	}
	if res = h.do(t, "DELETE", "/equipment/antennas/"+antID, pro, nil, ""); res.status != 409 {
		t.Errorf("delete of a mounted antenna: %d %s", res.status, res.body)
	}
	// a directional antenna needs the azimuth; an unknown one is refused
	if res = h.do(t, "POST", "/towers", pro, nil, fmt.Sprintf(`{"operator":"M","lat":-22.92,"lon":-43.2,"antenna_id":%q}`, antID)); res.status != 422 || fieldsOf(t, res)[0] != "azimuth" {
		t.Errorf("no azimuth: %d %s", res.status, res.body)
	}
	if res = h.do(t, "POST", "/towers", pro, nil, `{"operator":"M","lat":-22.92,"lon":-43.2,"azimuth":1,"antenna_id":"ant_nope"}`); res.status != 422 || fieldsOf(t, res)[0] != "antenna_id" {
		t.Errorf("unknown antenna: %d %s", res.status, res.body)
	}
	if res = h.do(t, "POST", "/towers", pro, nil, `{"operator":"M","lat":-22.92,"lon":-43.2,"antenna_id":"builtin:omni-10dbi"}`); res.status != 201 {
		t.Errorf("a built-in omni without azimuth: %d %s", res.status, res.body)
	}
}

// pln4E returns the horizontal and vertical cuts of the Amphenol 4E file
// (1° steps), read here line by line.
func pln4E(t *testing.T) (hcut, vcut [360]float64) {
	t.Helper()
	lines := strings.Split(string(readTestdata(t, "B800A065-18-4E.pln")), "\n")
	var cur *[360]float64
	for _, l := range lines {
		f := strings.Fields(l)
		switch {
		case len(f) != 2:
		case f[0] == "HORIZONTAL":
			cur = &hcut
		case f[0] == "VERTICAL":
			cur = &vcut
		case cur != nil:
			a, err1 := strconv.Atoi(f[0])
			x, err2 := strconv.ParseFloat(f[1], 64)
			if err1 != nil || err2 != nil {
				t.Fatalf("line %q", l)
			}
			cur[a] = x
		}
	}
	return hcut, vcut
}

// TestIssue25_TiltAndAzimuthOnRealRioTower: the real Anatel station 1000029007
// (Rio Centro), on the embedded terrain, with antennas given to copies of
// it registered by a tenant at its position and height, answers
// /analyze_link with the pattern losses computed here by hand for a
// receiver 3 km due east (10 m mast):
//
//   - pointing at the receiver, untilted: no loss (the reference margin);
//   - pointing at it, 6° mechanical downtilt, gain unknown (θ3 = 10°):
//     12·((θ − 6)/10)², θ the angle below the horizontal from the antenna
//     tip to the receiver's (atan of the height difference over the
//     distance, plus d/(2·k·a));
//   - pointing 90° away, untilted: 12·(90/65)² = 23.006 dB;
//   - pointing 40° away, 6° down, 17 dBi (θ3 = 31000·10^−1.7/65 =
//     9.517°): H + (25 − H)/25·min(12·(θ′/θ3)², 20), H = 12·(40/65)²,
//     sin θ′ = sin θ·cos 6° − cos θ·cos 40°·sin 6°;
//   - the Amphenol B800A065-18 4E file at the receiver's bearing: its
//     horizontal 0.2 dB at 0° plus its vertical cut at θ (linear between
//     the file's 0° and 1° values), weighted by R = (H(181°) − 0.2)/H(181°);
//
// each margin being the reference's less that loss.
func TestIssue25_TiltAndAzimuthOnRealRioTower(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	pro := h.keys["pro"]
	res := h.do(t, "GET", "/towers/anatel:1000029007", pro, nil, "")
	if res.status != 200 {
		t.Fatalf("the real tower: %d %s", res.status, res.body)
	}
	real := res.json(t)
	tw := appliance.LatLon{Lat: real["lat"].(float64), Lon: real["lon"].(float64)}
	height := real["height"].(float64)
	rx := tw.Destination(90, 3000)
	bearing := tw.BearingDeg(rx)
	d := tw.DistanceM(rx)
	_, antID := storeEquipment(t, h, pro) // the 4E file
	register := func(op string, extra string) {
		t.Helper()
		body := fmt.Sprintf(`{"operator":%q,"lat":%v,"lon":%v,"height":%v,"power":50%s}`, op, tw.Lat, tw.Lon, height, extra)
		if res := h.do(t, "POST", "/towers", pro, nil, body); res.status != 201 {
			t.Fatalf("register %s: %d %s", op, res.status, res.body)
		}
	}
	register("Ref", fmt.Sprintf(`,"azimuth":%v`, bearing))
	register("Tilt", fmt.Sprintf(`,"azimuth":%v,"tilt":6`, bearing))
	register("Away", fmt.Sprintf(`,"azimuth":%v`, math.Mod(bearing+90, 360)))
	register("Both", fmt.Sprintf(`,"azimuth":%v,"tilt":6,"gain_dbi":17`, bearing-40))
	register("File", fmt.Sprintf(`,"azimuth":%v,"antenna_id":%q`, bearing, antID))
	best := func(op string) map[string]any {
		t.Helper()
		body := fmt.Sprintf(`{"receiver":{"lat":%v,"lon":%v,"height":10},"frequency_mhz":1800,"max_distance_km":5,"operator":%q}`, rx.Lat, rx.Lon, op)
		res := h.do(t, "POST", "/analyze_link", pro, nil, body)
		if res.status != 200 {
			t.Fatalf("%s: %d %s", op, res.status, res.body)
		}
		b, _ := res.json(t)["best_tower"].(map[string]any)
		if b == nil {
			t.Fatalf("%s: no best tower: %s", op, res.body)
		}
		return b
	}
	ref := best("Ref")
	gt := ref["tower_ground_elevation_m"].(float64)
	gr := func() float64 {
		res := h.do(t, "GET", fmt.Sprintf("/terrain/point?lat=%v&lon=%v", rx.Lat, rx.Lon), pro, nil, "")
		return res.json(t)["elevation_m"].(float64)
	}()
	theta := (math.Atan((gt+height-gr-10)/d) + d/(2*6371000.0*4/3)) * 180 / math.Pi
	rad := math.Pi / 180
	hBoth := 12 * (40.0 / 65) * (40.0 / 65)
	thP := math.Asin(math.Sin(theta*rad)*math.Cos(6*rad)-math.Cos(theta*rad)*math.Cos(40*rad)*math.Sin(6*rad)) / rad
	th3 := 31000 * math.Pow(10, -1.7) / 65
	hc, vc := pln4E(t)
	vAt := vc[0] + (vc[1]-vc[0])*theta // 0 < θ < 1°
	if theta <= 0 || theta >= 1 {
		t.Fatalf("θ = %g°: the 4E interpolation below assumes 0..1°", theta)
	}
	rFile := (hc[181] - 0.2) / hc[181]
	if hc[0] != 0.2 || hc[1] != 0 {
		t.Fatalf("the 4E file's horizontal cut starts %g, %g", hc[0], hc[1])
	}
	cases := []struct {
		op, antenna string
		loss        float64
	}{
		{"Ref", "generic 65° sector", 0},
		{"Tilt", "generic 65° sector, 10° vertical beamwidth, 6° mechanical downtilt", 12 * ((theta - 6) / 10) * ((theta - 6) / 10)},
		{"Away", "generic 65° sector", 12 * (90.0 / 65) * (90.0 / 65)},
		{"Both", "generic 65° sector, 9.52° vertical beamwidth, 6° mechanical downtilt", hBoth + (25-hBoth)/25*math.Min(12*(thP/th3)*(thP/th3), 20)},
		{"File", "B800A065-18-4E", 0.2 + rFile*vAt},
	}
	refMargin := ref["link_margin_db"].(float64)
	for _, c := range cases {
		b := best(c.op)
		if got := b["antenna_pattern_loss_db"].(float64); math.Abs(got-c.loss) > 0.002 {
			t.Errorf("%s: pattern loss %.3f dB, by hand %.3f dB", c.op, got, c.loss)
		}
		if got := refMargin - b["link_margin_db"].(float64); math.Abs(got-c.loss) > 0.002 {
			t.Errorf("%s: the margin drops %.3f dB, by hand %.3f dB", c.op, got, c.loss)
		}
		if got := b["tower_elevation_deg"].(float64); math.Abs(got-theta) > 0.001 {
			t.Errorf("%s: elevation %.4f°, by hand %.4f°", c.op, got, theta)
		}
		if b["antenna"] != c.antenna {
			t.Errorf("%s: antenna %q, want %q", c.op, b["antenna"], c.antenna)
		}
		t.Logf("%s: %.3f dB (θ = %.3f°)", c.op, c.loss, theta)
	}
	// POST /analyze on the tilted tower answers the same.
	body := fmt.Sprintf(`{"tower":{"lat":%v,"lon":%v,"height":%v,"power":50,"azimuth":%v,"tilt":6},"receiver":{"lat":%v,"lon":%v,"height":10},"frequency_mhz":1800}`,
		tw.Lat, tw.Lon, height, bearing, rx.Lat, rx.Lon)
	res = h.do(t, "POST", "/analyze", pro, nil, body)
	if res.status != 200 || math.Abs(res.json(t)["antenna_pattern_loss_db"].(float64)-cases[1].loss) > 0.002 {
		t.Errorf("/analyze: %d %.300s", res.status, res.body)
	}
}

// TestEquipmentIsolationOnComputeRoutes: another tenant's catalogue
// antenna reads as unknown on the compute routes that name one (a map
// site, an ad hoc tower of /analyze): 422 naming the field, nothing of
// the antenna in the answer; its owner gets the map and the analysis.
func TestEquipmentIsolationOnComputeRoutes(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	_, antA := storeEquipment(t, h, h.keys["pro"])
	mapBody := `{"site":{"lat":-22.93,"lon":-43.30,"height_m":30,"eirp_dbm":58,"azimuth_deg":90,"tilt_deg":2,"antenna_id":"` + antA + `"},"frequency_mhz":1800,"radius_km":1,"resolution_m":250}`
	pairBody := fmt.Sprintf(`{"tower":{"lat":-22.95,"lon":-43.21,"azimuth":90,"tilt":2,"antenna_id":%q},"receiver":{"lat":-22.94,"lon":-43.2},"frequency_mhz":1800}`, antA)
	for _, c := range []struct {
		name, url, body, field string
	}{
		{"map", "/coverage/heatmap", mapBody, "site.antenna_id"},
		{"analyze", "/analyze", pairBody, "tower.antenna_id"},
	} {
		res := h.do(t, "POST", c.url, h.keys["internal"], nil, c.body)
		if res.status != 422 || !slicesContains(fieldsOf(t, res), c.field) || strings.Contains(string(res.body), "B800A065") {
			t.Errorf("%s as B: %d %s", c.name, res.status, res.body)
		}
	}
	if res := h.do(t, "POST", "/coverage/heatmap", h.keys["pro"], nil, mapBody); res.status != http.StatusAccepted && res.status != 200 && res.status != 201 {
		t.Errorf("map as A: %d %s", res.status, res.body)
	}
	if res := h.do(t, "POST", "/analyze", h.keys["pro"], nil, pairBody); res.status != 200 || !strings.Contains(string(res.body), `"antenna":"B800A065-18-4E, 2° mechanical downtilt"`) {
		t.Errorf("analyze as A: %d %.400s", res.status, res.body)
	}
}

func slicesContains(s []string, x string) bool {
	for _, e := range s {
		if e == x {
			return true
		}
	}
	return false
}
