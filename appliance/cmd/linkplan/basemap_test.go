//go:build systemtools

package main_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"linkplan/terrain-packs/sample"
)

// TestServeBasemapTiles: the binary serves the hillshade golden tile of
// appliance/basemap without a key; the ETag follows the loaded packs (the
// same pack embedded or from a file gives the same ETag, a different set
// of packs another one) and revalidates with 304.
func TestServeBasemapTiles(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	golden, err := os.ReadFile(filepath.Join("..", "..", "basemap", "testdata", "TestHillshadeGolden", "rio-z12-1556-2316.png.golden"))
	if err != nil {
		t.Fatal(err)
	}
	pack := filepath.Join(t.TempDir(), "rio.ltp")
	if err := os.WriteFile(pack, sample.Pack(), 0o644); err != nil {
		t.Fatal(err)
	}
	const tile = "/tiles/hillshade/12/1556/2316.png"
	etags := map[string]string{}
	for _, c := range []struct {
		name  string
		flags []string
	}{
		{"embedded sample", nil},
		{"the sample from a file", []string{"--terrain", pack}},
		{"the sample twice", []string{"--terrain", pack, "--terrain", pack}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := startServe(t, bin, t.TempDir(), c.flags...)
			r := s.call(t, "GET", tile, nil, "")
			if r.status != 200 || r.header.Get("Content-Type") != "image/png" || !bytes.Equal(r.body, golden) {
				t.Fatalf("status %d, %s, %d bytes (golden %d)", r.status, r.header.Get("Content-Type"), len(r.body), len(golden))
			}
			etags[c.name] = r.header.Get("ETag")
			if r := s.call(t, "GET", tile, map[string]string{"If-None-Match": etags[c.name]}, ""); r.status != 304 {
				t.Errorf("revalidation: %d", r.status)
			}
			if r := s.call(t, "GET", "/tiles/elevation/12/1556/2316.png", nil, ""); r.status != 200 || r.header.Get("ETag") == etags[c.name] {
				t.Errorf("elevation: %d, ETag %q", r.status, r.header.Get("ETag"))
			}
			if err := s.stop(t); err != nil {
				t.Errorf("stop: %v", err)
			}
		})
	}
	if etags["embedded sample"] == "" || etags["embedded sample"] != etags["the sample from a file"] || etags["the sample twice"] == etags["embedded sample"] {
		t.Errorf("ETags %v: want one for the sample pack however loaded, another for two packs", etags)
	}
}
