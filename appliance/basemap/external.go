package basemap

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"image/png"
	"runtime"
	"strconv"

	"github.com/klauspost/compress/zstd"

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

	// Vector archives whose tiles the appliance draws (vector.go).
	drawVector bool
	zdec       *zstd.Decoder // zstd-compressed tiles; nil otherwise
	renders    chan struct{} // one token per render in progress
	cache      *cache        // rendered PNGs
	enc        png.Encoder
	etagBase   string // of the rendered tiles, without the scale
}

// DefaultExternalCacheBytes bounds the cache of rendered vector tiles,
// bytes.
const DefaultExternalCacheBytes = 32 << 20

// ExternalInfo describes the operator's basemap for the console.
type ExternalInfo struct {
	// Configured is false when serve has no --basemap; the rest is then
	// empty.
	Configured bool
	// TileType is mvt, png, jpeg, webp or avif; ContentType its media
	// type; ContentEncoding the Content-Encoding of the tiles ("" for
	// none: raster tiles, or vector tiles stored uncompressed).
	TileType, ContentType, ContentEncoding string
	// Drawn says whether the console draws the archive: raster tiles as
	// stored, vector (MVT) tiles as the PNGs the appliance renders from
	// them (Rendered true, see RenderedTile and Labels). Note explains a
	// vector archive: how it is drawn, or why not (brotli-compressed
	// tiles, which the binary cannot decompress).
	Drawn, Rendered bool
	Note            string
	// DrawnMaxZoom is the largest zoom the console may ask for: MaxZoom for
	// raster archives, MaxZoom+MaxOverzoom (at most 30) for drawn vector
	// ones.
	DrawnMaxZoom int
	// DrawnLayers and SkippedLayers split VectorLayers into those the
	// style draws (or takes labels from) and those it skips.
	DrawnLayers, SkippedLayers []string
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

// VectorNote is ExternalInfo.Note for a vector archive that is drawn.
const VectorNote = "vector (MVT) tiles: served as stored at /basemap/ext/{z}/{x}/{y}; the appliance draws them into PNG tiles for the console (/basemap/ext/raster/{z}/{x}/{y}) with place labels as JSON (/basemap/ext/labels/{z}/{x}/{y})"

// VectorBrotliNote is ExternalInfo.Note for a vector archive of
// brotli-compressed tiles, which is served but not drawn.
const VectorBrotliNote = "vector (MVT) tiles compressed with brotli are served at /basemap/ext/{z}/{x}/{y} but not drawn (the appliance has no brotli decoder): rebuild the archive with gzip tile compression (the default of planetiler and tippecanoe)"

// OpenExternal opens the PMTiles archive at path: its header, root
// directory and metadata are read and checked, so that a bad file is an
// error now rather than broken tiles later.
func OpenExternal(path string) (*External, error) {
	a, err := pmtiles.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open basemap archive: %w", err)
	}
	e := &External{a: a, slots: make(chan struct{}, 4*runtime.GOMAXPROCS(0))}
	h := a.Header()
	if h.TileType == pmtiles.TileMVT && h.TileCompression != pmtiles.CompressionBrotli {
		e.drawVector = true
		e.renders = make(chan struct{}, runtime.GOMAXPROCS(0))
		e.cache = newCache(DefaultExternalCacheBytes)
		e.enc.BufferPool = &encoderPool{}
		e.etagBase = "extv-" + a.ID()[:16] + "-" + vectorRenderVersion
		if h.TileCompression == pmtiles.CompressionZstd {
			zd, err := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(MaxVectorTileBytes), zstd.WithDecoderConcurrency(runtime.GOMAXPROCS(0)))
			if err != nil {
				_ = a.Close()
				return nil, fmt.Errorf("open basemap archive: zstd decoder: %w", err)
			}
			e.zdec = zd
		}
	}
	return e, nil
}

// Close closes the archive (nil: nothing to close).
func (e *External) Close() error {
	if e == nil {
		return nil
	}
	if e.zdec != nil {
		e.zdec.Close()
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
	out.DrawnMaxZoom = in.MaxZoom
	out.DrawnLayers, out.SkippedLayers = []string{}, []string{}
	for _, l := range out.VectorLayers {
		if VectorLayerDrawn(l) != "" {
			out.DrawnLayers = append(out.DrawnLayers, l)
		} else {
			out.SkippedLayers = append(out.SkippedLayers, l)
		}
	}
	switch {
	case e.drawVector:
		out.Drawn, out.Rendered, out.Note = true, true, VectorNote
		out.DrawnMaxZoom = min(in.MaxZoom+MaxOverzoom, pmtiles.MaxZoom)
	case !out.Drawn:
		out.Note = VectorBrotliNote
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

// source returns the archive tile that tile t is drawn from: t itself
// within the archive's zooms, its ancestor at the largest zoom beyond
// them (at most MaxOverzoom deeper).
func (e *External) source(t Tile) (Tile, error) {
	in := e.a.Info()
	h := struct{ MinZoom, MaxZoom int }{in.MinZoom, in.MaxZoom}
	switch {
	case t.Z < h.MinZoom:
		return Tile{}, fmt.Errorf("basemap tile %s: the archive starts at zoom %d: %w", t, h.MinZoom, appliance.ErrNotFound)
	case t.Z <= h.MaxZoom:
		return t, nil
	case t.Z > h.MaxZoom+MaxOverzoom:
		return Tile{}, fmt.Errorf("basemap tile %s: beyond zoom %d (the archive's %d and %d more): %w", t, h.MaxZoom+MaxOverzoom, h.MaxZoom, MaxOverzoom, appliance.ErrNotFound)
	}
	dz := t.Z - h.MaxZoom
	return Tile{Z: h.MaxZoom, X: t.X >> dz, Y: t.Y >> dz}, nil
}

// vectorTile reads and decompresses the archive's tile src.
func (e *External) vectorTile(ctx context.Context, t, src Tile) ([]byte, error) {
	if e == nil || !e.drawVector {
		return nil, fmt.Errorf("basemap tile %s: the archive has no vector tiles to draw (raster tiles are at /basemap/ext/{z}/{x}/{y}): %w", t, appliance.ErrNotFound)
	}
	select {
	case e.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("basemap tile %s: %w", t, ctx.Err())
	}
	b, ok, err := e.a.Tile(src.Z, src.X, src.Y)
	<-e.slots
	if err != nil {
		return nil, fmt.Errorf("basemap tile %s: %w: %w", t, err, appliance.ErrUnavailable)
	}
	if !ok {
		return nil, fmt.Errorf("basemap tile %s: not in the archive: %w", t, appliance.ErrNotFound)
	}
	raw, err := inflate(b, e.a.Header().TileCompression, e.zdec)
	if err != nil {
		return nil, fmt.Errorf("basemap tile %s: %w: %w", t, err, appliance.ErrUnavailable)
	}
	return raw, nil
}

// RenderedETag is the entity tag of every rendered tile of the archive at
// scale (1 or 2), quoted; "" when the archive is not drawn by the
// appliance.
func (e *External) RenderedETag(scale int) string {
	if e == nil || !e.drawVector {
		return ""
	}
	return `"` + e.etagBase + "-" + strconv.Itoa(scale) + `x"`
}

// RenderedTile returns tile t of a vector archive drawn as a PNG of
// 256·scale pixels (scale 1 or 2), from the cache or rendered (waiting
// for a render slot, or for ctx): NotModified when ifNoneMatch holds the
// archive's rendered ETag. A tile the archive cannot give (outside its
// area, its zooms, or the archive is not vector) matches
// appliance.ErrNotFound; a tile the renderer cannot draw (ErrVectorTile:
// broken, or beyond a bound) or cannot read matches
// appliance.ErrUnavailable.
func (e *External) RenderedTile(ctx context.Context, t Tile, scale int, ifNoneMatch string) (Image, error) {
	if scale != 1 && scale != 2 {
		return Image{}, fmt.Errorf("basemap tile %s: %w", t, appliance.Invalid("scale", "must be 1 or 2, got %d", scale))
	}
	if e == nil || !e.drawVector {
		return Image{}, fmt.Errorf("basemap tile %s: the archive has no vector tiles to draw: %w", t, appliance.ErrNotFound)
	}
	src, err := e.source(t)
	if err != nil {
		return Image{}, err
	}
	img := Image{ETag: e.RenderedETag(scale), MaxAge: MaxAge}
	key := cacheKey{layer: Layer("ext@" + strconv.Itoa(scale)), tile: t}
	if b, ok := e.cache.get(key); ok {
		if MatchETag(ifNoneMatch, img.ETag) {
			img.NotModified = true
			return img, nil
		}
		img.PNG = b
		return img, nil
	}
	raw, err := e.vectorTile(ctx, t, src)
	if err != nil {
		return Image{}, err
	}
	if MatchETag(ifNoneMatch, img.ETag) {
		img.NotModified = true
		return img, nil
	}
	select {
	case e.renders <- struct{}{}:
	case <-ctx.Done():
		return Image{}, fmt.Errorf("basemap tile %s: %w", t, ctx.Err())
	}
	defer func() { <-e.renders }()
	rgba, _, err := renderVector(raw, vectorRender{src: src, t: t, scale: scale, check: ctx.Err})
	if err != nil {
		if errors.Is(err, ErrVectorTile) {
			err = fmt.Errorf("%w: %w", err, appliance.ErrUnavailable)
		}
		return Image{}, fmt.Errorf("basemap tile %s: %w", t, err)
	}
	b, err := encodePNG(&e.enc, rgba)
	if err != nil {
		return Image{}, fmt.Errorf("basemap tile %s: %w", t, err)
	}
	e.cache.put(key, b)
	img.PNG = b
	return img, nil
}

// Labels returns the place labels of tile t of a vector archive (the
// named points of its place layers within t, most important first, at
// most MaxTileLabels); errors as RenderedTile's.
func (e *External) Labels(ctx context.Context, t Tile) ([]Label, error) {
	if e == nil || !e.drawVector {
		return nil, fmt.Errorf("basemap labels %s: the archive has no vector tiles: %w", t, appliance.ErrNotFound)
	}
	src, err := e.source(t)
	if err != nil {
		return nil, err
	}
	raw, err := e.vectorTile(ctx, t, src)
	if err != nil {
		return nil, err
	}
	ls, err := vectorLabels(raw, vectorRender{src: src, t: t, scale: 1})
	if err != nil {
		return nil, fmt.Errorf("basemap labels %s: %w: %w", t, err, appliance.ErrUnavailable)
	}
	return ls, nil
}

// RenderedCacheStats returns the counters of the rendered tiles' cache
// (zero for an archive that is not drawn by the appliance).
func (e *External) RenderedCacheStats() CacheStats {
	if e == nil || e.cache == nil {
		return CacheStats{}
	}
	return e.cache.stats()
}
