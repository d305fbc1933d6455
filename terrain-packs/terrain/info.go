package terrain

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"

	"linkplan/terrain-packs/clutter"
)

// Bounds is a latitude/longitude rectangle in whole degrees.
type Bounds struct {
	MinLat int `json:"min_lat"` // degrees, south edge
	MinLon int `json:"min_lon"` // degrees, west edge
	MaxLat int `json:"max_lat"` // degrees, north edge
	MaxLon int `json:"max_lon"` // degrees, east edge
}

// TileInfo describes one tile of a pack.
type TileInfo struct {
	Name            string `json:"name"`             // SRTM-style name, e.g. "S23W044"
	Kind            string `json:"kind"`             // land, sea or void
	Codec           string `json:"codec"`            // payload codec name
	CompressedBytes int64  `json:"compressed_bytes"` // payload length, bytes
	CRC32C          string `json:"crc32c"`           // payload checksum, 8 hex digits
	MinM            int    `json:"min_m"`            // lowest sample, metres (land tiles)
	MaxM            int    `json:"max_m"`            // highest sample, metres (land tiles)
	FilledSamples   int    `json:"filled_samples"`   // samples the packer interpolated across source voids
	NoData          bool   `json:"nodata"`           // the tile holds NoData samples
	// Clutter is the tile's land cover (packs with the layer only).
	Clutter *TileClutter `json:"clutter,omitempty"`
	// VoidMask is the tile's void mask (packs with the mask only).
	VoidMask *TileVoidMask `json:"void_mask,omitempty"`
}

// TileVoidMask describes the void mask of one tile.
type TileVoidMask struct {
	Codec           string `json:"codec"`            // none or zstd-bitmap
	VoidFilled      int64  `json:"void_filled"`      // samples interpolated across a void
	CompressedBytes int64  `json:"compressed_bytes"` // payload length, bytes (0 when none)
	CRC32C          string `json:"crc32c,omitempty"` // payload checksum, 8 hex digits
}

// TileClutter describes the land-cover layer of one tile.
type TileClutter struct {
	Codec           string       `json:"codec"`            // uniform or zstd-u8
	CompressedBytes int64        `json:"compressed_bytes"` // payload length, bytes (0 when uniform)
	CRC32C          string       `json:"crc32c,omitempty"` // payload checksum, 8 hex digits
	Histogram       []ClassCount `json:"histogram"`        // samples per class, classes with samples only
}

// ClassCount is the number of samples of one land-cover class.
type ClassCount struct {
	Class   uint8  `json:"class"`   // 0 unknown, 1…10 clutter.Class
	Label   string `json:"label"`   // e.g. "Forest", "Unknown"
	Samples int64  `json:"samples"` // number of samples
}

// histogram lists the classes of counts that have samples, in class order.
func histogram(counts []int64) []ClassCount {
	out := []ClassCount{}
	for c, v := range counts {
		if v > 0 {
			out = append(out, ClassCount{Class: uint8(c), Label: clutter.Class(c).String(), Samples: v})
		}
	}
	return out
}

// Info summarises a pack (the payload of `linkplan terrain info`).
type Info struct {
	Version          int     `json:"version"`            // format version
	SamplesPerDegree int     `json:"samples_per_degree"` // grid: samples per degree
	SpacingArcSec    float64 `json:"spacing_arcsec"`     // sample spacing, arc-seconds
	TileSamples      int     `json:"tile_samples"`       // samples along one side of a tile
	Bounds           Bounds  `json:"bounds"`             // degrees
	TileCount        int     `json:"tile_count"`
	LandTiles        int     `json:"land_tiles"`
	SeaTiles         int     `json:"sea_tiles"`
	VoidTiles        int     `json:"void_tiles"`
	RawBytes         int64   `json:"raw_bytes"`         // land samples as int16, bytes
	CompressedBytes  int64   `json:"compressed_bytes"`  // land payloads, bytes
	FileBytes        int64   `json:"file_bytes"`        // whole pack, bytes
	CompressionRatio float64 `json:"compression_ratio"` // compressed / raw (0 without land)
	// Clutter says whether the pack has the land-cover layer; without it
	// ClutterBytes is 0 and ClutterHistogram nil.
	Clutter          bool         `json:"clutter"`
	ClutterBytes     int64        `json:"clutter_bytes"`               // land-cover payloads, bytes
	ClutterHistogram []ClassCount `json:"clutter_histogram,omitempty"` // samples per class over all tiles (shared edges counted per tile)
	// VoidMask says whether the pack has the void mask (version 4); a
	// pack without it knows no voids.
	VoidMask bool `json:"void_mask"`
	// FilledSamples is the number of samples interpolated across source
	// voids, all tiles (shared edges counted per tile).
	FilledSamples int64 `json:"filled_samples"`
	// VoidFilledTiles counts the tiles with at least one such sample.
	VoidFilledTiles int        `json:"void_filled_tiles"`
	VoidMaskBytes   int64      `json:"void_mask_bytes"` // void-mask payloads, bytes
	Tiles           []TileInfo `json:"tiles"`
}

// Info returns the pack summary; it reads nothing beyond the index.
func (p *Pack) Info() Info {
	h := p.hdr
	n := int64(h.TileSamples())
	in := Info{
		Version:          h.Version,
		SamplesPerDegree: h.SamplesPerDegree,
		SpacingArcSec:    3600 / float64(h.SamplesPerDegree),
		TileSamples:      int(n),
		Bounds:           Bounds{MinLat: h.MinLat, MinLon: h.MinLon, MaxLat: h.MaxLat, MaxLon: h.MaxLon},
		TileCount:        len(p.entries),
		FileBytes:        h.FileSize,
		Clutter:          h.Clutter,
		VoidMask:         h.VoidMask,
		Tiles:            make([]TileInfo, len(p.entries)),
	}
	var total [ClutterClasses]int64
	for i, e := range p.entries {
		ti := TileInfo{Name: e.Tile.Name(), Kind: e.Kind.String(), Codec: e.Codec.String(),
			CompressedBytes: e.Length, FilledSamples: int(e.Filled), NoData: e.Flags&FlagNoData != 0}
		switch e.Kind {
		case KindLand:
			in.LandTiles++
			in.RawBytes += 2 * n * n
			in.CompressedBytes += e.Length
			ti.MinM, ti.MaxM = int(e.MinM), int(e.MaxM)
			ti.CRC32C = fmt.Sprintf("%08x", e.CRC)
		case KindSea:
			in.SeaTiles++
		case KindVoid:
			in.VoidTiles++
		}
		if h.Clutter {
			c := e.Clutter
			var counts [ClutterClasses]int64
			for k, v := range c.Counts {
				counts[k] = int64(v)
				total[k] += int64(v)
			}
			ti.Clutter = &TileClutter{Codec: c.Codec.String(), CompressedBytes: c.Length, Histogram: histogram(counts[:])}
			if c.Codec != ClutterUniform {
				ti.Clutter.CRC32C = fmt.Sprintf("%08x", c.CRC)
			}
			in.ClutterBytes += c.Length
		}
		in.FilledSamples += int64(e.Filled)
		if e.Filled > 0 {
			in.VoidFilledTiles++
		}
		if h.VoidMask {
			v := e.Void
			ti.VoidMask = &TileVoidMask{Codec: v.Codec.String(), VoidFilled: int64(v.Count), CompressedBytes: v.Length}
			if v.Codec != VoidNone {
				ti.VoidMask.CRC32C = fmt.Sprintf("%08x", v.CRC)
			}
			in.VoidMaskBytes += v.Length
		}
		in.Tiles[i] = ti
	}
	if h.Clutter {
		in.ClutterHistogram = histogram(total[:])
	}
	if in.RawBytes > 0 {
		in.CompressionRatio = float64(in.CompressedBytes) / float64(in.RawBytes)
	}
	return in
}

// Manifest is the published description of a pack: what it covers and the
// sha256 that a deployment checks at start-up. It holds no timestamps, so
// the same pack always gives the same manifest.
type Manifest struct {
	Format           string         `json:"format"`             // always "linkplan-terrain-pack"
	Version          int            `json:"version"`            // pack format version
	Name             string         `json:"name"`               // pack file name
	Bytes            int64          `json:"bytes"`              // pack length, bytes
	SHA256           string         `json:"sha256"`             // of the whole pack, hex
	SamplesPerDegree int            `json:"samples_per_degree"` // grid
	Bounds           Bounds         `json:"bounds"`             // degrees
	TileCount        int            `json:"tile_count"`
	Clutter          bool           `json:"clutter,omitempty"`   // the pack has the land-cover layer
	VoidMask         bool           `json:"void_mask,omitempty"` // the pack has the void mask
	Tiles            []ManifestTile `json:"tiles"`
}

// ManifestTile is one tile of a Manifest.
type ManifestTile struct {
	Name          string `json:"name"`                     // SRTM-style name
	Kind          string `json:"kind"`                     // land, sea or void
	CRC32C        string `json:"crc32c,omitempty"`         // payload checksum (land tiles)
	ClutterCRC32C string `json:"clutter_crc32c,omitempty"` // land-cover payload checksum (tiles with one)
	VoidCRC32C    string `json:"void_crc32c,omitempty"`    // void-mask payload checksum (tiles with one)
}

// ManifestFormat is the Format of every Manifest.
const ManifestFormat = "linkplan-terrain-pack"

// SHA256 returns the hex sha256 of the whole pack (it reads every byte).
func (p *Pack) SHA256() (string, error) {
	hs := sha256.New()
	if p.data != nil {
		hs.Write(p.data)
	} else if _, err := io.Copy(hs, io.NewSectionReader(p.src, 0, p.hdr.FileSize)); err != nil {
		return "", fmt.Errorf("hash pack: %w", err)
	}
	return hex.EncodeToString(hs.Sum(nil)), nil
}

// Manifest returns the pack's manifest under the file name name.
func (p *Pack) Manifest(name string) (Manifest, error) {
	sum, err := p.SHA256()
	if err != nil {
		return Manifest{}, err
	}
	in := p.Info()
	m := Manifest{Format: ManifestFormat, Version: in.Version, Name: name, Bytes: in.FileBytes, SHA256: sum,
		SamplesPerDegree: in.SamplesPerDegree, Bounds: in.Bounds, TileCount: in.TileCount, Clutter: in.Clutter,
		VoidMask: in.VoidMask, Tiles: make([]ManifestTile, len(in.Tiles))}
	for i, t := range in.Tiles {
		m.Tiles[i] = ManifestTile{Name: t.Name, Kind: t.Kind, CRC32C: t.CRC32C}
		if t.Clutter != nil {
			m.Tiles[i].ClutterCRC32C = t.Clutter.CRC32C
		}
		if t.VoidMask != nil {
			m.Tiles[i].VoidCRC32C = t.VoidMask.CRC32C
		}
	}
	return m, nil
}

// CheckManifest compares the pack with m field by field (sha256 included)
// and returns an error matching ErrCorrupt that names the first difference.
func (p *Pack) CheckManifest(m Manifest) error {
	got, err := p.Manifest(m.Name)
	if err != nil {
		return fmt.Errorf("check manifest: %w", err)
	}
	switch {
	case m.Format != ManifestFormat:
		return fmt.Errorf("check manifest: format %q, want %q: %w", m.Format, ManifestFormat, ErrCorrupt)
	case got.SHA256 != m.SHA256:
		return fmt.Errorf("check manifest: sha256 %s, manifest says %s: %w", got.SHA256, m.SHA256, ErrCorrupt)
	case got.Bytes != m.Bytes || got.Version != m.Version || got.SamplesPerDegree != m.SamplesPerDegree ||
		got.Bounds != m.Bounds || got.TileCount != m.TileCount || got.Clutter != m.Clutter || got.VoidMask != m.VoidMask || len(got.Tiles) != len(m.Tiles):
		return fmt.Errorf("check manifest: header fields differ from the manifest: %w", ErrCorrupt)
	}
	for i := range got.Tiles {
		if got.Tiles[i] != m.Tiles[i] {
			return fmt.Errorf("check manifest: tile %d is %+v, manifest says %+v: %w", i, got.Tiles[i], m.Tiles[i], ErrCorrupt)
		}
	}
	return nil
}
