package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/raytracing"
	"linkplan/engines/raytrace"
)

// rtOptions is the "options" a raytrace job's result or map's summary
// states.
type rtOptions struct {
	MaxReflections        *int     `json:"max_reflections"`
	Diffraction           *bool    `json:"diffraction"`
	DiffuseScattering     *float64 `json:"diffuse_scattering"`
	ReflectionDiffraction *bool    `json:"reflection_diffraction"`
	ScatteringReflections *bool    `json:"scattering_reflections"`
	ClutterBeyondExtent   *bool    `json:"clutter_beyond_extent"`
	Sum                   *string  `json:"sum"`
}

func (o rtOptions) String() string {
	s := func(p any) string {
		switch v := p.(type) {
		case *int:
			if v != nil {
				return fmt.Sprint(*v)
			}
		case *bool:
			if v != nil {
				return fmt.Sprint(*v)
			}
		case *float64:
			if v != nil {
				return fmt.Sprint(*v)
			}
		case *string:
			if v != nil {
				return *v
			}
		}
		return "absent"
	}
	return fmt.Sprintf("reflections=%s diffraction=%s S=%s sr=%s rd=%s clutter=%s sum=%s", s(o.MaxReflections), s(o.Diffraction),
		s(o.DiffuseScattering), s(o.ScatteringReflections), s(o.ReflectionDiffraction), s(o.ClutterBeyondExtent), s(o.Sum))
}

// TestIssue24_RaytraceOptionsFields: the "raytrace" member of the three
// analysis routes takes diffuse_scattering, scattering_reflections,
// reflection_diffraction and clutter_beyond_extent; each reaches the job's options and the job's
// result states them (the service's defaults, the validated set, when
// absent); bad values are refused with 422 naming the field.
func TestIssue24_RaytraceOptionsFields(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	ent := h.keys["enterprise"]
	layer := uploadBlock(t, h, ent)
	f := raytrace.NewFrame(appliance.LatLon{Lat: rtLat, Lon: rtLon})
	rx, tx := f.ToLatLon(5, -5), f.ToLatLon(-150, 140)
	bodies := map[string]struct{ url, body string }{
		"analyze": {"/analyze", fmt.Sprintf(`{"tower":{"lat":%.6f,"lon":%.6f,"height_m":30,"power":40},"receiver":{"lat":%.6f,"lon":%.6f,"height_m":1.5},"frequency_mhz":3500,"engine":"raytrace","raytrace":{"layer_id":%q%%s}}`,
			tx.Lat, tx.Lon, rx.Lat, rx.Lon, layer)},
		"analyze_link": {"/analyze_link", fmt.Sprintf(`{"receiver":{"lat":%.6f,"lon":%.6f,"height_m":1.5},"frequency_mhz":1800,"max_distance_km":3,"engine":"raytrace","raytrace":{"layer_id":%q%%s}}`,
			rx.Lat, rx.Lon, layer)},
		"engines_predict": {"/coverage/engines/predict", fmt.Sprintf(`{"tx":{"lat":%.6f,"lon":%.6f,"height_m":30},"rx":{"lat":%.6f,"lon":%.6f,"height_m":1.5},"frequency_mhz":3500,"engine":"raytrace","raytrace":{"layer_id":%q%%s}}`,
			tx.Lat, tx.Lon, rx.Lat, rx.Lon, layer)},
	}
	def := raytracing.DefaultOptions()
	for _, tc := range []struct {
		name, route, extra string
		s                  float64
		sr, rd, clutter    bool
		refl               int
	}{
		{"defaults on analyze", "analyze", "", def.DiffuseScattering, true, true, true, 2},
		{"defaults on analyze_link", "analyze_link", "", def.DiffuseScattering, true, true, true, 2},
		{"defaults on engines predict", "engines_predict", "", def.DiffuseScattering, true, true, true, 2},
		{"all named on analyze", "analyze", `,"diffuse_scattering":0.25,"scattering_reflections":false,"reflection_diffraction":false,"clutter_beyond_extent":false`, 0.25, false, false, false, 2},
		{"all named on analyze_link", "analyze_link", `,"diffuse_scattering":0,"reflection_diffraction":true,"clutter_beyond_extent":false,"max_reflections":1`, 0, false, true, false, 1},
		{"all named on engines predict", "engines_predict", `,"diffuse_scattering":1,"scattering_reflections":true,"reflection_diffraction":false,"clutter_beyond_extent":true`, 1, true, false, true, 2},
		{"diffraction off turns the default reflection–diffraction off", "engines_predict", `,"diffraction":false`, def.DiffuseScattering, true, false, true, 2},
		{"no reflections turn the default reflection–diffraction off", "analyze", `,"max_reflections":0`, def.DiffuseScattering, true, false, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := bodies[tc.route]
			res := h.do(t, "POST", b.url, ent, nil, fmt.Sprintf(b.body, tc.extra))
			if res.status != http.StatusAccepted {
				t.Fatalf("status %d: %s", res.status, res.body)
			}
			done := waitFor(t, h, ent, decodeInto[jobAnswer](t, res).ID)
			if done.State != "succeeded" || done.Result == nil {
				t.Fatalf("job %+v", done)
			}
			dl := h.do(t, "GET", done.Result.DownloadURL, ent, nil, "")
			var out struct {
				Route   string    `json:"route"`
				Options rtOptions `json:"options"`
			}
			if err := json.Unmarshal(dl.body, &out); err != nil {
				t.Fatalf("%v: %s", err, dl.body)
			}
			o := out.Options
			if out.Route != tc.route || o.DiffuseScattering == nil || *o.DiffuseScattering != tc.s || o.ReflectionDiffraction == nil || *o.ReflectionDiffraction != tc.rd ||
				o.ScatteringReflections == nil || *o.ScatteringReflections != tc.sr ||
				o.ClutterBeyondExtent == nil || *o.ClutterBeyondExtent != tc.clutter || o.MaxReflections == nil || *o.MaxReflections != tc.refl ||
				o.Sum == nil || *o.Sum != "coherent" {
				t.Fatalf("route %s, options %v; want S=%g sr=%v rd=%v clutter=%v reflections=%d sum=coherent", out.Route, o, tc.s, tc.sr, tc.rd, tc.clutter, tc.refl)
			}
		})
	}

	for _, tc := range []struct{ name, route, extra, field string }{
		{"scattering above 1", "analyze", `,"diffuse_scattering":1.5`, "raytrace.diffuse_scattering"},
		{"negative scattering", "engines_predict", `,"diffuse_scattering":-0.2`, "raytrace.diffuse_scattering"},
		{"scattering not a number", "analyze_link", `,"diffuse_scattering":"0.4"`, "raytrace.diffuse_scattering"},
		{"reflection–diffraction without diffraction", "analyze", `,"reflection_diffraction":true,"diffraction":false`, "raytrace.reflection_diffraction"},
		{"reflection–diffraction without reflections", "analyze_link", `,"reflection_diffraction":true,"max_reflections":0`, "raytrace.reflection_diffraction"},
		{"reflection–diffraction not a boolean", "engines_predict", `,"reflection_diffraction":1`, "raytrace.reflection_diffraction"},
		{"clutter not a boolean", "engines_predict", `,"clutter_beyond_extent":"yes"`, "raytrace.clutter_beyond_extent"},
		{"the scattering's reflections without scattering", "analyze", `,"diffuse_scattering":0,"scattering_reflections":true`, "raytrace.scattering_reflections"},
		{"the scattering's reflections not a boolean", "analyze_link", `,"scattering_reflections":"on"`, "raytrace.scattering_reflections"},
		// the range bounds the scattering walls too: checked without diffraction
		{"scattering range zero without diffraction", "analyze", `,"diffraction":false,"diffraction_range_m":0,"diffuse_scattering":0.4`, "raytrace.diffraction_range_m"},
		{"scattering range negative without diffraction", "analyze_link", `,"diffraction":false,"diffraction_range_m":-250,"diffuse_scattering":0.4`, "raytrace.diffraction_range_m"},
		{"scattering range too far without diffraction", "engines_predict", `,"diffraction":false,"diffraction_range_m":1e300,"diffuse_scattering":0.4`, "raytrace.diffraction_range_m"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := bodies[tc.route]
			res := h.do(t, "POST", b.url, ent, nil, fmt.Sprintf(b.body, tc.extra))
			if res.status != http.StatusUnprocessableEntity || !strings.Contains(string(res.body), `"field":"`+tc.field+`"`) {
				t.Fatalf("status %d, want 422 naming %s: %s", res.status, tc.field, res.body)
			}
		})
	}
}

// TestIssue24_RaytraceMapOptions: POST /coverage/raytrace takes the four
// options; a map states the options it was computed with in its summary
// (the stream's and the kept record's): by default scattering at 0.4 and
// clutter, neither the scattering's reflections nor reflection–diffraction,
// the power sum. A map that asks for reflection–diffraction gets the
// tier's pixel cap divided by raytracing.MapRDCostFactor, one that asks
// for the scattering's reflections the cap divided by MapSRCostFactor
// (422 naming the field and the cap above them); bad values are refused
// naming the field.
func TestIssue24_RaytraceMapOptions(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	ent := h.keys["enterprise"]
	layer := uploadBlock(t, h, ent)
	tx := raytrace.NewFrame(appliance.LatLon{Lat: rtLat, Lon: rtLon}).ToLatLon(-35, 20)
	body := func(radius, res float64, extra string) string {
		return fmt.Sprintf(`{"layer_id":%q,"site":{"lat":%.6f,"lon":%.6f,"height_m":30,"eirp_dbm":55},"frequency_mhz":3500,"radius_m":%g,"resolution_m":%g,"max_reflections":1%s}`,
			layer, tx.Lat, tx.Lon, radius, res, extra)
	}
	capRD := 40000 / raytracing.MapRDCostFactor
	capSR := 40000 / raytracing.MapSRCostFactor
	for _, tc := range []struct {
		name, extra     string
		s               float64
		sr, rd, clutter bool
	}{
		{"defaults", "", raytracing.DefaultDiffuseScattering, false, false, true},
		{"all named", `,"diffuse_scattering":0.2,"scattering_reflections":true,"reflection_diffraction":true,"clutter_beyond_extent":false`, 0.2, true, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := h.do(t, "POST", "/coverage/raytrace", ent, nil, body(30, 10, tc.extra))
			id := res.header.Get("X-Map-Id")
			if res.status != http.StatusOK || id == "" {
				t.Fatalf("%d %s", res.status, res.body)
			}
			evs := parseSSE(t, res.body)
			var sum struct {
				Detail struct {
					Kind    string    `json:"kind"`
					LayerID string    `json:"layer_id"`
					Options rtOptions `json:"options"`
				} `json:"detail"`
			}
			if err := json.Unmarshal([]byte(evs[len(evs)-1].Data), &sum); err != nil || evs[len(evs)-1].Type != "summary" {
				t.Fatalf("last event %s %s: %v", evs[len(evs)-1].Type, evs[len(evs)-1].Data, err)
			}
			check := func(where string, o rtOptions) {
				t.Helper()
				if o.DiffuseScattering == nil || *o.DiffuseScattering != tc.s || o.ReflectionDiffraction == nil || *o.ReflectionDiffraction != tc.rd ||
					o.ScatteringReflections == nil || *o.ScatteringReflections != tc.sr ||
					o.ClutterBeyondExtent == nil || *o.ClutterBeyondExtent != tc.clutter || o.Sum == nil || *o.Sum != "power" || o.MaxReflections == nil || *o.MaxReflections != 1 {
					t.Errorf("%s: options %v; want S=%g sr=%v rd=%v clutter=%v sum=power reflections=1", where, o, tc.s, tc.sr, tc.rd, tc.clutter)
				}
			}
			if sum.Detail.Kind != "raytrace" || sum.Detail.LayerID != layer {
				t.Errorf("summary detail %s", evs[len(evs)-1].Data)
			}
			check("summary event", sum.Detail.Options)
			// The kept record (GET /coverage/heatmap/{id}) states them too.
			st := h.do(t, "GET", "/coverage/heatmap/"+id, ent, nil, "")
			var rec struct {
				Summary *struct {
					Detail struct {
						Options rtOptions `json:"options"`
					} `json:"detail"`
				} `json:"summary"`
			}
			if err := json.Unmarshal(st.body, &rec); err != nil || rec.Summary == nil {
				t.Fatalf("record %d %s: %v", st.status, st.body, err)
			}
			check("map record", rec.Summary.Detail.Options)
		})
	}

	// The reduced cap: a square of side (√capRD + 2) pixels of 5 m is just
	// over it (and far under the tier's 40 000); one of √capRD − 2 under it.
	over := 5 * (float64(isqrt(capRD)) + 2) / 2
	under := 5 * (float64(isqrt(capRD)) - 2) / 2
	overSR := 5 * (float64(isqrt(capSR)) + 2) / 2
	underSR := 5 * (float64(isqrt(capSR)) - 2) / 2
	for _, tc := range []struct {
		name, body string
		status     int
		field      string
	}{
		{"reflection–diffraction over the reduced cap", body(over, 5, `,"reflection_diffraction":true`), 422, "reflection_diffraction"},
		{"the same map without it", body(over, 5, ``), 200, ""},
		// (edges within 1 m only: the cap counts pixels, whatever they cost)
		{"reflection–diffraction under the reduced cap", body(under, 5, `,"reflection_diffraction":true,"diffraction_range_m":1`), 200, ""},
		{"reflection–diffraction without diffraction", body(30, 10, `,"reflection_diffraction":true,"diffraction":false`), 422, "reflection_diffraction"},
		{"reflection–diffraction without reflections", strings.Replace(body(30, 10, `,"reflection_diffraction":true`), `"max_reflections":1`, `"max_reflections":0`, 1), 422, "reflection_diffraction"},
		{"the scattering's reflections over the reduced cap", body(overSR, 5, `,"scattering_reflections":true`), 422, "scattering_reflections"},
		// (tiles within 1 m only: the cap counts pixels, whatever they cost)
		{"the scattering's reflections under the reduced cap", body(underSR, 5, `,"scattering_reflections":true,"diffraction_range_m":1`), 200, ""},
		{"the scattering's reflections without scattering", body(30, 10, `,"scattering_reflections":true,"diffuse_scattering":0`), 422, "scattering_reflections"},
		{"scattering above 1", body(30, 10, `,"diffuse_scattering":2`), 422, "diffuse_scattering"},
		{"clutter not a boolean", body(30, 10, `,"clutter_beyond_extent":0`), 422, "clutter_beyond_extent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := h.do(t, "POST", "/coverage/raytrace", ent, nil, tc.body)
			if res.status != tc.status || tc.field != "" && !strings.Contains(string(res.body), `"field":"`+tc.field+`"`) {
				t.Fatalf("status %d, want %d naming %q: %.600s", res.status, tc.status, tc.field, res.body)
			}
			if tc.status == 200 {
				if evs := parseSSE(t, res.body); len(evs) == 0 || evs[len(evs)-1].Type != "summary" {
					t.Fatalf("the map did not finish: %.600s", res.body)
				}
			}
			if tc.status == 422 && tc.name == "reflection–diffraction over the reduced cap" && !strings.Contains(string(res.body), fmt.Sprint(capRD)) {
				t.Errorf("the refusal does not state the cap of %d pixels: %s", capRD, res.body)
			}
			if tc.status == 422 && tc.name == "the scattering's reflections over the reduced cap" && !strings.Contains(string(res.body), fmt.Sprint(capSR)) {
				t.Errorf("the refusal does not state the cap of %d pixels: %s", capSR, res.body)
			}
		})
	}
}

func isqrt(n int) int {
	r := 0
	for (r+1)*(r+1) <= n {
		r++
	}
	return r
}
