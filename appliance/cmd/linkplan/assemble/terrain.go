package assemble

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"linkplan/appliance"
	"linkplan/terrain-packs/sample"
	"linkplan/terrain-packs/terrain"
)

// TerrainSet is the loaded terrain: one or more packs, first match wins.
type TerrainSet struct {
	*terrain.Layered
	Packs []*terrain.Pack // in priority order
}

// Check answers one elevation query in a land tile of every pack, so
// readiness notices a pack that cannot serve heights. After the first call
// the tile is in the decoded cache, so the check costs microseconds.
func (t *TerrainSet) Check() error {
	if len(t.Packs) == 0 {
		return fmt.Errorf("no terrain pack loaded")
	}
	for _, p := range t.Packs {
		var probe *terrain.Entry
		for _, e := range p.Entries() {
			if e.Kind == terrain.KindLand {
				probe = &e
				break
			}
		}
		if probe == nil {
			continue // an all-sea pack has no samples to read
		}
		if _, err := p.ElevationM(appliance.LatLon{Lat: float64(probe.Tile.Lat) + 0.5, Lon: float64(probe.Tile.Lon) + 0.5}); err != nil && !errors.Is(err, appliance.ErrTerrainMissing) {
			return err
		}
	}
	return nil
}

// Bounds returns the union of the packs' bounds in degrees.
func (t *TerrainSet) Bounds() appliance.BBox {
	b := appliance.BBox{MinLat: 90, MinLon: 180, MaxLat: -90, MaxLon: -180}
	for _, p := range t.Packs {
		in := p.Info().Bounds
		b.MinLat = min(b.MinLat, float64(in.MinLat))
		b.MinLon = min(b.MinLon, float64(in.MinLon))
		b.MaxLat = max(b.MaxLat, float64(in.MaxLat))
		b.MaxLon = max(b.MaxLon, float64(in.MaxLon))
	}
	return b
}

// Identity is a digest of the loaded packs' indexes, in priority order:
// their grids, bounds and every tile's kind, codec, length and CRC32C
// (terrain.Info), which change whenever any height may. The basemap's
// ETag is derived from it.
func (t *TerrainSet) Identity() (string, error) {
	h := sha256.New()
	for _, p := range t.Packs {
		b, err := json.Marshal(p.Info())
		if err != nil {
			return "", fmt.Errorf("terrain identity: %w", err)
		}
		h.Write(b)
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// OpenTerrain opens the given packs, or the embedded sample when none.
func OpenTerrain(paths []string) (*TerrainSet, string, error) {
	ts := &TerrainSet{}
	if len(paths) == 0 {
		p, err := terrain.OpenBytes(sample.Pack())
		if err != nil {
			return nil, "", fmt.Errorf("open embedded sample terrain: %w", err)
		}
		ts.Packs = append(ts.Packs, p)
		ts.Layered = terrain.NewLayered(ts.Packs...)
		return ts, "embedded sample pack: SRTM3 v2.1 tiles S23W044 and S22W043 (Rio de Janeiro), 3 arc-second grid", nil
	}
	for _, path := range paths {
		p, err := terrain.Open(path)
		if err != nil {
			return nil, "", fmt.Errorf("open terrain pack: %w", err)
		}
		ts.Packs = append(ts.Packs, p)
	}
	ts.Layered = terrain.NewLayered(ts.Packs...)
	return ts, "terrain packs: " + strings.Join(paths, ", "), nil
}

// HasClutter reports whether a pack of the set has a land-cover layer.
func (t *TerrainSet) HasClutter() bool {
	for _, p := range t.Packs {
		if p.HasClutter() {
			return true
		}
	}
	return false
}

// Close closes the packs.
func (t *TerrainSet) Close() {
	for _, p := range t.Packs {
		_ = p.Close()
	}
}
