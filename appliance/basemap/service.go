package basemap

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"runtime"
	"strings"
	"time"

	"linkplan/appliance"
)

// DefaultCacheBytes bounds the in-memory tile cache by default, bytes
// (32 MiB: about a thousand shaded tiles of 20–40 KiB, or far more empty
// ones).
const DefaultCacheBytes = 32 << 20

// MaxAge is how long a client may use a tile without asking again
// (Cache-Control max-age); afterwards it revalidates with the ETag.
const MaxAge = time.Hour

// renderVersion names the renderer's output: it is part of the ETag, and
// changes whenever the same terrain would give other bytes.
const renderVersion = "r1"

// Options configure New.
type Options struct {
	// Identity names the loaded terrain (for example a digest of the
	// packs' indexes, whose per-tile checksums cover every height); the
	// ETag is derived from it. Required.
	Identity string
	// CacheBytes bounds the tile cache, bytes; 0: DefaultCacheBytes.
	CacheBytes int64
	// MaxRenders bounds the tiles rendered at once (a render is CPU
	// work); 0: GOMAXPROCS.
	MaxRenders int
}

// Image is one tile's answer.
type Image struct {
	// PNG is the tile, 256×256 (shared: never modify); nil when
	// NotModified.
	PNG []byte
	// ETag is the tile's entity tag, quoted (the same for every tile of
	// one layer, terrain and renderer).
	ETag string
	// MaxAge is how long the client may keep the tile without asking.
	MaxAge time.Duration
	// NotModified is true when the client's If-None-Match holds ETag.
	NotModified bool
}

// Service renders and caches map tiles. It is safe for concurrent use.
type Service struct {
	r     *renderer
	cache *cache
	etags map[Layer]string // immutable after New
	slots chan struct{}    // one token per render in progress
}

// New returns the tile service over ter.
func New(ter appliance.Terrain, opt Options) (*Service, error) {
	if ter == nil {
		return nil, fmt.Errorf("new basemap: no terrain: %w", appliance.ErrInvalid)
	}
	if strings.TrimSpace(opt.Identity) == "" {
		return nil, fmt.Errorf("new basemap: empty terrain identity: %w", appliance.ErrInvalid)
	}
	if opt.CacheBytes <= 0 {
		opt.CacheBytes = DefaultCacheBytes
	}
	if opt.MaxRenders <= 0 {
		opt.MaxRenders = runtime.GOMAXPROCS(0)
	}
	r, err := newRenderer(ter)
	if err != nil {
		return nil, err
	}
	etags := map[Layer]string{}
	for _, l := range []Layer{LayerHillshade, LayerElevation, LayerSurface} {
		sum := sha256.Sum256([]byte(renderVersion + "\n" + string(l) + "\n" + opt.Identity))
		etags[l] = `"` + string(l) + "-" + renderVersion + "-" + hex.EncodeToString(sum[:10]) + `"`
	}
	return &Service{r: r, cache: newCache(opt.CacheBytes), etags: etags, slots: make(chan struct{}, opt.MaxRenders)}, nil
}

// ETag returns the entity tag of every tile of layer l, quoted ("" for an
// unknown layer).
func (s *Service) ETag(l Layer) string { return s.etags[l] }

// Tile returns the PNG of tile t of layer l, from the cache or rendered
// (waiting for a free render slot, or for ctx). ifNoneMatch is the
// client's If-None-Match header ("" when absent): when it holds the
// layer's ETag the answer is NotModified and nothing is rendered.
func (s *Service) Tile(ctx context.Context, l Layer, t Tile, ifNoneMatch string) (Image, error) {
	if !l.Valid() {
		return Image{}, fmt.Errorf("map tile %s: %w", t, appliance.Invalid("layer", "unknown layer %q: hillshade, elevation or surface", l))
	}
	if !t.Valid() {
		return Image{}, fmt.Errorf("%s tile %s: %w", l, t, appliance.Invalid("tile", "no tile %s within zoom %d..%d", t, MinZoom, MaxZoom))
	}
	img := Image{ETag: s.etags[l], MaxAge: MaxAge}
	if MatchETag(ifNoneMatch, img.ETag) {
		img.NotModified = true
		return img, nil
	}
	key := cacheKey{layer: l, tile: t}
	if b, ok := s.cache.get(key); ok {
		img.PNG = b
		return img, nil
	}
	select {
	case s.slots <- struct{}{}:
	case <-ctx.Done():
		return Image{}, fmt.Errorf("%s tile %s: %w", l, t, ctx.Err())
	}
	b, err := s.r.render(l, t)
	<-s.slots
	if err != nil {
		return Image{}, err
	}
	s.cache.put(key, b)
	img.PNG = b
	return img, nil
}

// CacheStats returns the tile cache's counters.
func (s *Service) CacheStats() CacheStats { return s.cache.stats() }

// MatchETag reports whether an If-None-Match header value holds etag: "*",
// or a comma-separated list with etag in it, compared weakly (a W/ prefix
// on either side is ignored, as RFC 9110 §13.1.2 asks for If-None-Match).
func MatchETag(header, etag string) bool {
	want := strings.TrimPrefix(etag, "W/")
	if want == "" {
		return false
	}
	for part := range strings.SplitSeq(header, ",") {
		part = strings.TrimSpace(part)
		if part == "*" || strings.TrimPrefix(part, "W/") == want {
			return true
		}
	}
	return false
}
