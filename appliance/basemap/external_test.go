package basemap_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/basemap"
	"linkplan/appliance/basemap/pmtiles"
	"linkplan/appliance/basemap/pmtiles/pmtilestest"
)

func writeArchive(t testing.TB, typ pmtiles.TileType, comp pmtiles.Compression, tiles []pmtilestest.Tile) string {
	t.Helper()
	b, err := pmtilestest.Write(tiles, pmtilestest.Options{Type: typ, Compression: comp, Bounds: [4]float64{-44, -23, -43, -22},
		Metadata: map[string]any{"attribution": "© OpenStreetMap contributors", "name": "rj", "vector_layers": []map[string]any{{"id": "roads"}}}})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "basemap.pmtiles")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestExternal: the operator's archive answers its tiles with their media
// type and an ETag (NotModified on a match), ErrNotFound for a tile it
// lacks, and its description; a vector archive is described as drawn by
// the appliance; a nil External is "not configured".
func TestExternal(t *testing.T) {
	ctx := context.Background()
	e, err := basemap.OpenExternal(writeArchive(t, pmtiles.TilePNG, 0, []pmtilestest.Tile{{Z: 10, X: 386, Y: 579, Data: []byte("\x89PNG a")}}))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	in := e.Info()
	if !in.Configured || !in.Drawn || in.Note != "" || in.TileType != "png" || in.ContentType != "image/png" || in.Attribution != "© OpenStreetMap contributors" ||
		in.MinZoom != 10 || in.MaxZoom != 10 || in.Bounds != [4]float64{-44, -23, -43, -22} {
		t.Errorf("info %+v", in)
	}
	got, err := e.Tile(ctx, basemap.Tile{Z: 10, X: 386, Y: 579}, "")
	if err != nil || string(got.Data) != "\x89PNG a" || got.ContentType != "image/png" || got.ContentEncoding != "" || !strings.HasPrefix(got.ETag, `"ext-`) {
		t.Fatalf("tile %+v %v", got, err)
	}
	again, err := e.Tile(ctx, basemap.Tile{Z: 10, X: 386, Y: 579}, got.ETag)
	if err != nil || !again.NotModified || again.Data != nil {
		t.Errorf("revalidation %+v %v", again, err)
	}
	if _, err := e.Tile(ctx, basemap.Tile{Z: 10, X: 0, Y: 0}, ""); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("absent tile: %v", err)
	}

	v, err := basemap.OpenExternal(writeArchive(t, pmtiles.TileMVT, pmtiles.CompressionGzip, []pmtilestest.Tile{{Z: 0, X: 0, Y: 0, Data: []byte("\x1f\x8b mvt")}}))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if in := v.Info(); !in.Drawn || !in.Rendered || in.Note != basemap.VectorNote || in.TileType != "mvt" || in.ContentEncoding != "gzip" || len(in.VectorLayers) != 1 {
		t.Errorf("vector info %+v", in)
	}
	if got, err := v.Tile(ctx, basemap.Tile{}, ""); err != nil || got.ContentEncoding != "gzip" || got.ContentType != "application/vnd.mapbox-vector-tile" {
		t.Errorf("vector tile %+v %v", got, err)
	}

	var none *basemap.External
	if none.Info().Configured || none.Close() != nil {
		t.Error("a nil External is configured")
	}
	if _, err := none.Tile(ctx, basemap.Tile{}, ""); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("nil External tile: %v", err)
	}
}

// TestOpenExternalRefuses: a file that is not a PMTiles archive is an
// error saying so.
func TestOpenExternalRefuses(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.mbtiles")
	if err := os.WriteFile(p, []byte("SQLite format 3\x00 and more bytes than a header would take, to be sure: ........................................................................................................"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := basemap.OpenExternal(p)
	if !errors.Is(err, pmtiles.ErrCorrupt) || !strings.Contains(err.Error(), "not a PMTiles archive") {
		t.Errorf("err %v", err)
	}
}
