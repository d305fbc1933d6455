package basemap

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"runtime"

	"linkplan/appliance"
	"linkplan/appliance/basemap/pmtiles"
)

// External serves the tiles of an operator-supplied PMTiles archive
// (serve --basemap FILE): raster (PNG, JPEG, WebP, AVIF) or vector (MVT)
// tiles as stored, same-origin, for the console's map. It is safe for
// concurrent use. A nil *External is the appliance without an archive:
// Info says so and Tile answers ErrNotFound.
type External struct {
	a     *pmtiles.Archive
	slots chan struct{} // one token per tile read in progress
}

// ExternalInfo describes the operator's basemap for the console.
type ExternalInfo struct {
	// Configured is false when serve has no --basemap; the rest is then
	// empty.
	Configured bool
	// TileType is mvt, png, jpeg, webp or avif; ContentType its media
	// type; ContentEncoding the Content-Encoding of the tiles ("" for
	// none: raster tiles, or vector tiles stored uncompressed).
	TileType, ContentType, ContentEncoding string
	// Drawn says whether the console draws the tiles: raster tiles are
	// drawn, vector tiles are served but not drawn (the console has no
	// vector renderer), and Note says so.
	Drawn bool
	Note  string
	// MinZoom and MaxZoom are the archive's zooms.
	MinZoom, MaxZoom int
	// Bounds: west, south, east, north, WGS84 degrees.
	Bounds [4]float64
	// CenterLat, CenterLon (WGS84 degrees) and CenterZoom are the archive's
	// suggested view.
	CenterLat, CenterLon float64
	CenterZoom           int
	// Attribution is the archive's attribution (HTML in many archives: the
	// console shows it as text); Name and Description its metadata.
	Attribution, Name, Description string
	// VectorLayers are the layer ids of a vector archive.
	VectorLayers []string
	// FileBytes is the archive's size, bytes.
	FileBytes int64
}

// VectorNote is ExternalInfo.Note for a vector archive.
const VectorNote = "vector (MVT) tiles are served at /basemap/ext/{z}/{x}/{y} but the console does not draw them (it has no vector tile renderer): for the console's map, give --basemap a raster archive (PNG, JPEG or WebP tiles)"

// OpenExternal opens the PMTiles archive at path: its header, root
// directory and metadata are read and checked, so that a bad file is an
// error now rather than broken tiles later.
func OpenExternal(path string) (*External, error) {
	a, err := pmtiles.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open basemap archive: %w", err)
	}
	return &External{a: a, slots: make(chan struct{}, 4*runtime.GOMAXPROCS(0))}, nil
}

// Close closes the archive (nil: nothing to close).
func (e *External) Close() error {
	if e == nil {
		return nil
	}
	return e.a.Close()
}

// Info describes the archive.
func (e *External) Info() ExternalInfo {
	if e == nil {
		return ExternalInfo{}
	}
	in := e.a.Info()
	out := ExternalInfo{Configured: true, TileType: in.TileType.String(), ContentType: in.TileType.ContentType(),
		ContentEncoding: in.TileCompression.ContentEncoding(), Drawn: in.TileType.Raster(),
		MinZoom: in.MinZoom, MaxZoom: in.MaxZoom, Bounds: in.Bounds, CenterLat: in.CenterLat, CenterLon: in.CenterLon, CenterZoom: in.CenterZoom,
		Attribution: in.Attribution, Name: in.Name, Description: in.Description, VectorLayers: in.VectorLayers, FileBytes: in.FileBytes}
	if out.VectorLayers == nil {
		out.VectorLayers = []string{}
	}
	if !out.Drawn {
		out.Note = VectorNote
	}
	return out
}

// ExternalTile is one tile of the archive.
type ExternalTile struct {
	// Data is the tile as stored (nil when NotModified).
	Data []byte
	// ContentType and ContentEncoding are its HTTP headers ("" encoding:
	// none).
	ContentType, ContentEncoding string
	// ETag is the tile's entity tag, quoted: the archive's identity and a
	// digest of the tile's bytes.
	ETag        string
	NotModified bool
}

// Tile returns tile t of the archive, or NotModified when ifNoneMatch
// holds its ETag. A tile the archive does not hold is an error matching
// appliance.ErrNotFound; a defect of the archive there (pmtiles.ErrCorrupt)
// or a read error matches appliance.ErrUnavailable.
func (e *External) Tile(ctx context.Context, t Tile, ifNoneMatch string) (ExternalTile, error) {
	if e == nil {
		return ExternalTile{}, fmt.Errorf("basemap tile %s: no --basemap archive: %w", t, appliance.ErrNotFound)
	}
	select {
	case e.slots <- struct{}{}:
	case <-ctx.Done():
		return ExternalTile{}, fmt.Errorf("basemap tile %s: %w", t, ctx.Err())
	}
	b, ok, err := e.a.Tile(t.Z, t.X, t.Y)
	<-e.slots
	if err != nil {
		// The operator's file is damaged there (or unreadable): the tile
		// is unavailable, not a bug of the appliance.
		return ExternalTile{}, fmt.Errorf("basemap tile %s: %w: %w", t, err, appliance.ErrUnavailable)
	}
	if !ok {
		return ExternalTile{}, fmt.Errorf("basemap tile %s: not in the archive: %w", t, appliance.ErrNotFound)
	}
	sum := sha256.Sum256(b)
	h := e.a.Header()
	out := ExternalTile{ContentType: h.TileType.ContentType(), ContentEncoding: h.TileCompression.ContentEncoding(),
		ETag: `"ext-` + e.a.ID()[:16] + "-" + hex.EncodeToString(sum[:8]) + `"`}
	if MatchETag(ifNoneMatch, out.ETag) {
		out.NotModified = true
		return out, nil
	}
	out.Data = b
	return out, nil
}
