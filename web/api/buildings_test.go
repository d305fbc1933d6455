package api_test

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"linkplan/appliance"
)

// riosBlock is a GeoJSON layer of two buildings in Rio (inside the
// embedded terrain pack): one tagged, one by storeys, plus a point the
// import refuses.
func riosBlock() string {
	sq := func(lon, lat, d float64) string {
		return fmt.Sprintf(`[[[%g,%g],[%g,%g],[%g,%g],[%g,%g],[%g,%g]]]`, lon, lat, lon+d, lat, lon+d, lat+d, lon, lat+d, lon, lat)
	}
	return `{"type":"FeatureCollection","features":[` +
		`{"type":"Feature","id":"a","properties":{"height":"30","building":"office"},"geometry":{"type":"Polygon","coordinates":` + sq(-43.2105, -22.9519, 0.0003) + `}},` +
		`{"type":"Feature","id":"b","properties":{"building:levels":"4","building":"industrial"},"geometry":{"type":"Polygon","coordinates":` + sq(-43.2095, -22.9519, 0.0002) + `}},` +
		`{"type":"Feature","id":"p","properties":{},"geometry":{"type":"Point","coordinates":[-43.21,-22.95]}}]}`
}

type layerDetail struct {
	Layer struct {
		ID                string                     `json:"id"`
		Name              string                     `json:"name"`
		Format            string                     `json:"format"`
		Compressed        bool                       `json:"compressed"`
		SizeBytes         int64                      `json:"size_bytes"`
		Buildings         int                        `json:"buildings"`
		Refused           int                        `json:"refused"`
		HeightsAssumed    int                        `json:"heights_assumed"`
		HeightsFromLevels int                        `json:"heights_from_levels"`
		Material          string                     `json:"material"`
		ClassMaterials    map[string]string          `json:"class_materials"`
		Refusals          []appliance.FeatureRefusal `json:"refusals"`
		Bounds            [4]float64                 `json:"bounds"`
	} `json:"layer"`
	Index appliance.BuildingIndex `json:"index"`
}

// TestBuildingLayers walks the building-layer routes: upload (GeoJSON on
// the Rio terrain, the real UFLA campus as gzipped OSM XML), list, inspect,
// delete; the tier gate, the per-tier size cap, bad parameters and files,
// and the quota picture.
func TestBuildingLayers(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	ent := h.keys["enterprise"]

	res := h.do(t, "POST", "/buildings/layers?name=Rio+block&class_materials=industrial:metal", ent, map[string]string{"Content-Type": "application/geo+json"}, riosBlock())
	if res.status != http.StatusCreated {
		t.Fatalf("upload: %d %s", res.status, res.body)
	}
	rio := decodeInto[layerDetail](t, res)
	if rio.Layer.Buildings != 2 || rio.Layer.Refused != 1 || rio.Layer.HeightsFromLevels != 1 || rio.Layer.Format != "geojson" ||
		len(rio.Layer.Refusals) != 1 || rio.Layer.Refusals[0].Feature != "p" || rio.Layer.ClassMaterials["industrial"] != "metal" {
		t.Fatalf("layer: %s", res.body)
	}
	if rio.Index.Walls != 8 || rio.Index.Roofs != 2 || rio.Index.Cached || !strings.HasPrefix(rio.Index.Ground, "terrain packs") || len(rio.Index.SceneHash) != 64 {
		t.Fatalf("index: %+v", rio.Index)
	}

	ufla, err := os.ReadFile("../../appliance/buildings/testdata/ufla/ufla.osm.gz")
	if err != nil {
		t.Fatal(err)
	}
	res = h.do(t, "POST", "/buildings/layers?name=UFLA&material=brick", ent, map[string]string{"Content-Type": "application/gzip"}, string(ufla))
	if res.status != http.StatusCreated {
		t.Fatalf("upload UFLA: %d %s", res.status, res.body)
	}
	u := decodeInto[layerDetail](t, res)
	if u.Layer.Buildings != 90 || u.Layer.Format != "osm-xml" || !u.Layer.Compressed || u.Layer.Material != "brick" || u.Layer.HeightsAssumed != 66 ||
		!strings.Contains(u.Index.Ground, "flat ground") {
		t.Fatalf("UFLA: %s", res.body)
	}
	t.Logf("UFLA campus (Lavras-MG): %d buildings, %d walls, %d roofs, %d edges, index built in %.1f ms; ground: %s",
		u.Index.Buildings, u.Index.Walls, u.Index.Roofs, u.Index.Edges, u.Index.BuildMS, u.Index.Ground)

	list := decodeInto[struct {
		Layers []struct {
			ID        string `json:"id"`
			SizeBytes int64  `json:"size_bytes"`
		} `json:"layers"`
		Usage struct {
			Layers, LayersLimit int
			Bytes               int64 `json:"bytes"`
			BytesLimit          int64 `json:"bytes_limit"`
		} `json:"usage"`
	}](t, h.do(t, "GET", "/buildings/layers", ent, nil, ""))
	if len(list.Layers) != 2 || (list.Layers[0].ID != rio.Layer.ID && list.Layers[1].ID != rio.Layer.ID) || list.Usage.Bytes != list.Layers[0].SizeBytes+list.Layers[1].SizeBytes || list.Usage.BytesLimit != 256<<20 {
		t.Fatalf("list: %+v", list)
	}
	got := decodeInto[layerDetail](t, h.do(t, "GET", "/buildings/layers/"+u.Layer.ID, ent, nil, ""))
	if !got.Index.Cached || got.Index.SceneHash != u.Index.SceneHash || got.Layer.Bounds[0] > -44.98 {
		t.Fatalf("inspect: %+v", got)
	}

	cases := []struct {
		name, key, url, body string
		status               int
		want                 string
	}{
		{"pro tier", h.keys["pro"], "/buildings/layers?name=x", riosBlock(), http.StatusForbidden, "Enterprise or Ultra"},
		{"free tier upload", h.keys["free"], "/buildings/layers?name=x", riosBlock(), http.StatusForbidden, "Enterprise or Ultra"},
		{"free tier list: its own, none", h.keys["free"], "/buildings/layers", "", http.StatusOK, `"layers":[]`},
		{"unknown material", ent, "/buildings/layers?name=x&material=marble", riosBlock(), http.StatusUnprocessableEntity, "material"},
		{"unknown parameter", ent, "/buildings/layers?name=x&colour=red", riosBlock(), http.StatusUnprocessableEntity, "colour"},
		{"bad height", ent, "/buildings/layers?name=x&default_height_m=abc", riosBlock(), http.StatusUnprocessableEntity, "default_height_m"},
		{"name with a NUL", ent, "/buildings/layers?name=a%00b", riosBlock(), http.StatusUnprocessableEntity, "control character U+0000"},
		{"name with a bidi override", ent, "/buildings/layers?name=a%E2%80%AEb", riosBlock(), http.StatusUnprocessableEntity, "bidirectional control character U+202E"},
		{"no name", ent, "/buildings/layers", riosBlock(), http.StatusUnprocessableEntity, "name"},
		{"not a building file", ent, "/buildings/layers?name=x", "hello", http.StatusUnprocessableEntity, "is not GeoJSON"},
		{"no polygon", ent, "/buildings/layers?name=x", `{"type":"FeatureCollection","features":[]}`, http.StatusUnprocessableEntity, "no usable building"},
		{"over the Enterprise cap", ent, "/buildings/layers?name=x", strings.Repeat(" ", 32<<20+1), http.StatusRequestEntityTooLarge, "limited to 33554432 bytes"},
		{"unknown layer", ent, "/buildings/layers/bl_nope", "", http.StatusNotFound, "no building layer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			method := "POST"
			if c.body == "" {
				method = "GET"
			}
			res := h.do(t, method, c.url, c.key, nil, c.body)
			if res.status != c.status || !strings.Contains(string(res.body), c.want) {
				t.Fatalf("%d %s, want %d with %q", res.status, res.body, c.status, c.want)
			}
		})
	}

	if res := h.do(t, "DELETE", "/buildings/layers/"+rio.Layer.ID, ent, nil, ""); res.status != http.StatusOK {
		t.Fatalf("delete: %d %s", res.status, res.body)
	}
	if res := h.do(t, "GET", "/buildings/layers/"+rio.Layer.ID, ent, nil, ""); res.status != http.StatusNotFound {
		t.Fatalf("after delete: %d %s", res.status, res.body)
	}
	if res := h.do(t, "DELETE", "/buildings/layers/"+rio.Layer.ID, ent, nil, ""); res.status != http.StatusNotFound {
		t.Fatalf("second delete: %d %s", res.status, res.body)
	}
	audit := string(h.do(t, "GET", "/tenant/audit?limit=100", ent, nil, "").body)
	if !strings.Contains(audit, "buildings.layer.upload") || !strings.Contains(audit, "buildings.layer.delete") {
		t.Fatalf("audit: %.500s", audit)
	}
}

// TestBuildingLayerIsolation: a second Enterprise tenant never sees,
// counts, inspects or deletes the first one's layer (404 as for a
// missing one).
func TestBuildingLayerIsolation(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	a := h.keys["enterprise"]
	b := h.issue(t, "enterprise-b", appliance.TierEnterprise, appliance.RoleTenant)
	before := string(h.do(t, "GET", "/buildings/layers", b, nil, "").body)
	res := h.do(t, "POST", "/buildings/layers?name=A", a, nil, riosBlock())
	if res.status != http.StatusCreated {
		t.Fatalf("upload: %d %s", res.status, res.body)
	}
	id := decodeInto[layerDetail](t, res).Layer.ID
	if after := string(h.do(t, "GET", "/buildings/layers", b, nil, "").body); after != before || strings.Contains(after, id) {
		t.Fatalf("B's list changed: %s → %s", before, after)
	}
	for _, m := range []string{"GET", "DELETE"} {
		if res := h.do(t, m, "/buildings/layers/"+id, b, nil, ""); res.status != http.StatusNotFound {
			t.Fatalf("%s A's layer as B: %d %s", m, res.status, res.body)
		}
	}
	if res := h.do(t, "GET", "/buildings/layers/"+id, a, nil, ""); res.status != http.StatusOK {
		t.Fatalf("A's layer: %d", res.status)
	}
}

// buildingScenarios are the building-layer routes in the scenario table
// (every answer checked against the OpenAPI document).
func buildingScenarios(t *testing.T, h *harness) []scenario {
	res := h.do(t, "POST", "/buildings/layers?name=scenario", h.keys["enterprise"], nil, riosBlock())
	if res.status != http.StatusCreated {
		t.Fatalf("upload: %d %s", res.status, res.body)
	}
	id := decodeInto[layerDetail](t, res).Layer.ID
	return []scenario{
		{name: "upload a layer", method: "POST", url: "/buildings/layers?name=scenario+2&material=glass", key: "enterprise", body: riosBlock(), status: 201, contains: []string{`"material":"glass"`}},
		{name: "list the layers", method: "GET", url: "/buildings/layers", key: "enterprise", status: 200, contains: []string{id}},
		{name: "inspect a layer", method: "GET", url: "/buildings/layers/" + id, key: "enterprise", status: 200, contains: []string{`"cached":true`}},
		{name: "delete a layer", method: "DELETE", url: "/buildings/layers/" + id, key: "enterprise", status: 200},
		{name: "a deleted layer", method: "GET", url: "/buildings/layers/" + id, key: "enterprise", status: 404, code: "not_found"},
		{name: "a Pro key's upload", method: "POST", url: "/buildings/layers?name=x", key: "pro", body: riosBlock(), status: 403, code: "forbidden"},
		{name: "a Pro key's list: its own, none", method: "GET", url: "/buildings/layers", key: "pro", status: 200, contains: []string{`"layers":[]`}},
		{name: "without a key", method: "GET", url: "/buildings/layers", status: 401, code: "unauthenticated"},
		{name: "a bad ground", method: "POST", url: "/buildings/layers?name=x&ground=sand", key: "enterprise", body: riosBlock(), status: 422, code: "invalid_input", fields: []string{"ground"}},
	}
}
