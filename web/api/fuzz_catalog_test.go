package api_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzRadioReplaceBody fuzzes PUT /equipment/radios/{id} on a radio the
// tenant owns.
func FuzzRadioReplaceBody(f *testing.F) {
	fuzzReplace(f, "/equipment/radios", isoRadioBody,
		isoRadioBody,
		`{"name":"x","bands":[{"min_mhz":1e308,"max_mhz":-1}],"channels":[]}`,
		`{"name":"😀","bands":[{"min_mhz":5470,"max_mhz":5850}],"channels":[{"width_mhz":20,"modes":[{"name":"=1+1","tx_power_dbm":-1e308,"sensitivity_dbm":1e308,"throughput_mbps":-1}]}]}`,
		`null`, `[]`, `{`, ``,
	)
}

// FuzzAntennaReplaceBody fuzzes PUT /equipment/antennas/{id} on an
// antenna the tenant owns.
func FuzzAntennaReplaceBody(f *testing.F) {
	fuzzReplace(f, "/equipment/antennas", isoAntennaBody,
		isoAntennaBody,
		`{"name":"d","gain_dbi":38,"parametric":{"model":"itu-f699-dish"}}`,
		`{"name":"x","gain_dbi":1e308,"pattern":{"horizontal":{"angles_deg":[0],"attenuation_db":[1e308]}}}`,
		`null`, `{`, ``,
	)
}

// fuzzReplace creates one item with create (POST collection) and fuzzes
// the PUT of that item.
func fuzzReplace(f *testing.F, collection, create string, seeds ...string) {
	for _, s := range seeds {
		f.Add(s)
	}
	h := newHarness(f, harnessOptions{unmetered: true})
	res := h.do(f, http.MethodPost, collection, h.keys["pro"], nil, create)
	if res.status != http.StatusCreated {
		f.Fatalf("create %s: %d %s", collection, res.status, res.body)
	}
	var item struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(res.body, &item); err != nil || item.ID == "" {
		f.Fatalf("create %s: no id in %s", collection, res.body)
	}
	d := loadOpenAPI(f)
	f.Fuzz(func(t *testing.T, body string) {
		req := httptest.NewRequest(http.MethodPut, collection+"/"+item.ID, strings.NewReader(body))
		req.Header.Set("X-API-Key", h.keys["pro"])
		serveFuzz(t, h, d, req, "body "+strconvQuote(body))
	})
}

// FuzzBuildingLayerBody fuzzes POST /buildings/layers: the input is
// "QUERY\x00BODY", the raw query string (name, materials, heights) and
// the file (GeoJSON, OSM XML or PBF, a zipped Shapefile, plain or gzip:
// the format is recognised from the bytes).
func FuzzBuildingLayerBody(f *testing.F) {
	for _, s := range []string{
		"name=Rio+block&class_materials=industrial:metal\x00" + riosBlock(),
		"name=x&storey_height_m=1e308&default_height_m=-1e308\x00" + riosBlock(),
		"name=x&material=marble&ground=lava\x00" + riosBlock(),
		"name=x&class_materials=a\x00" + `<osm version="0.6"><node id="1" lat="-22.95" lon="-43.2"/><way id="2"><nd ref="1"/><nd ref="1"/><tag k="building" v="yes"/></way></osm>`,
		"name=x\x00\x1f\x8b\x08\x00",
		"name=x\x00PK\x03\x04",
		"name=😀\x00" + `{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[1e308,0],[0,1e308],[0,0]]]}}]}`,
		"\x00null", "%zz\x00{", "\x00",
	} {
		f.Add(s)
	}
	h := newHarness(f, harnessOptions{unmetered: true})
	d := loadOpenAPI(f)
	f.Fuzz(func(t *testing.T, in string) {
		query, body, _ := strings.Cut(in, "\x00")
		req := httptest.NewRequest(http.MethodPost, "/buildings/layers", strings.NewReader(body))
		req.URL.RawQuery = query
		req.Header.Set("X-API-Key", h.keys["enterprise"])
		serveFuzz(t, h, d, req, "query "+strconvQuote(query)+" body "+strconvQuote(body))
	})
}
