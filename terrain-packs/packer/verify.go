package packer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"linkplan/terrain-packs/terrain"
)

// ManifestPath returns where Build writes, and Verify looks for, the
// manifest of the pack at path: path + ".manifest.json".
func ManifestPath(path string) string { return path + ".manifest.json" }

// Report is the result of Verify.
type Report struct {
	Path         string       `json:"path"`
	Info         terrain.Info `json:"info"`
	TilesChecked int          `json:"tiles_checked"` // land tiles read, checksummed and decoded
	// ClutterChecked counts the land-cover payloads read, checksummed,
	// decoded and checked against the index's class counts.
	ClutterChecked int `json:"clutter_checked"`
	// VoidMasksChecked counts the void-mask payloads read, checksummed,
	// decoded and checked against the index's counts.
	VoidMasksChecked int    `json:"void_masks_checked"`
	SHA256           string `json:"sha256"`         // of the whole pack, hex
	ManifestFound    bool   `json:"manifest_found"` // a manifest sat beside the pack
	ManifestOK       bool   `json:"manifest_ok"`    // and it matched
}

// Verify checks the pack at path completely: header and index checksums,
// every land tile's CRC32C, decoding, and the index's min/max heights
// against the decoded samples; with the land-cover layer, every land-cover
// payload's CRC32C, decoding, class values and the index's class counts;
// with the void mask, every void-mask payload's CRC32C, decoding, padding
// and the index's count of void-filled samples; and, when ManifestPath(path) exists, the pack against that manifest
// (sha256 included). The first problem is returned as an error matching
// terrain.ErrCorrupt.
func Verify(ctx context.Context, path string) (Report, error) {
	p, err := terrain.Open(path, terrain.WithCacheBytes(0))
	if err != nil {
		return Report{}, fmt.Errorf("verify: %w", err)
	}
	defer p.Close()
	rep := Report{Path: path, Info: p.Info()}
	for _, e := range p.Entries() {
		if err := ctx.Err(); err != nil {
			return rep, fmt.Errorf("verify %s: %w", path, err)
		}
		if e.Clutter.Codec == terrain.ClutterZstd {
			if _, err := p.ReadClutter(e.Tile); err != nil {
				return rep, fmt.Errorf("verify %s: %w", path, err)
			}
			rep.ClutterChecked++
		}
		if e.Void.Codec != terrain.VoidNone {
			if _, err := p.ReadVoidMask(e.Tile); err != nil {
				return rep, fmt.Errorf("verify %s: %w", path, err)
			}
			rep.VoidMasksChecked++
		}
		if e.Kind != terrain.KindLand {
			continue
		}
		s, err := p.ReadTile(e.Tile)
		if err != nil {
			return rep, fmt.Errorf("verify %s: %w", path, err)
		}
		lo, hi, ok := minMax(s)
		if !ok || lo != e.MinM || hi != e.MaxM {
			return rep, fmt.Errorf("verify %s: tile %s decodes to %d..%d m, index says %d..%d m: %w",
				path, e.Tile, lo, hi, e.MinM, e.MaxM, terrain.ErrCorrupt)
		}
		rep.TilesChecked++
	}
	if rep.SHA256, err = p.SHA256(); err != nil {
		return rep, fmt.Errorf("verify %s: %w", path, err)
	}
	raw, err := os.ReadFile(ManifestPath(path))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return rep, nil
	case err != nil:
		return rep, fmt.Errorf("verify %s: read manifest: %w", path, err)
	}
	rep.ManifestFound = true
	var m terrain.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return rep, fmt.Errorf("verify %s: parse manifest: %w: %w", path, err, terrain.ErrCorrupt)
	}
	if err := p.CheckManifest(m); err != nil {
		return rep, fmt.Errorf("verify %s: %w", path, err)
	}
	rep.ManifestOK = true
	return rep, nil
}

func minMax(s []int16) (lo, hi int16, ok bool) {
	for _, v := range s {
		if v == terrain.NoData {
			continue
		}
		if !ok || v < lo {
			lo = v
		}
		if !ok || v > hi {
			hi = v
		}
		ok = true
	}
	return lo, hi, ok
}
