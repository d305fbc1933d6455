package terrain

import (
	"container/list"
	"sync"
)

// CacheStats counts the decoded-tile cache's activity since Open. Height
// tiles, land-cover tiles and void masks share the cache and its bound;
// each counts as one tile.
type CacheStats struct {
	Hits      int64 `json:"hits"`      // lookups served from the cache
	Misses    int64 `json:"misses"`    // lookups that decoded a tile
	Evictions int64 `json:"evictions"` // tiles dropped to stay within the bound
	Tiles     int   `json:"tiles"`     // decoded tiles (heights or land cover) held now
	Bytes     int64 `json:"bytes"`     // bytes of decoded samples held now: 2 per height, 1 per land-cover class, 1/8 per void flag
	MaxBytes  int64 `json:"max_bytes"` // the bound, bytes of decoded samples
}

// layer names what a cached tile holds.
type layer uint8

const (
	layerHeights layer = iota // int16 heights
	layerClutter              // uint8 land-cover classes
	layerVoids                // void-mask bitmap, one bit per sample
)

// cacheKey names one decoded tile of one layer.
type cacheKey struct {
	tile  TileID
	layer layer
}

// tileData is a decoded tile: heights or land-cover classes.
type tileData struct {
	samples []int16 // layerHeights
	noData  bool    // layerHeights: some sample is NoData
	classes []uint8 // layerClutter
	voids   []byte  // layerVoids: bit k%8 of byte k/8 is sample k
}

// bytes returns the decoded size of d, bytes.
func (d tileData) bytes() int64 { return int64(2*len(d.samples) + len(d.classes) + len(d.voids)) }

// tileCache is a bounded LRU of decoded tiles, safe for concurrent use. A
// tile being decoded is shared: concurrent lookups of the same tile wait
// for one decode. The bound counts decoded sample bytes; at least one tile
// is always kept, whatever the bound.
type tileCache struct {
	mu       sync.Mutex
	maxBytes int64
	bytes    int64
	lru      *list.List // of *cacheEntry, most recent at the front
	byKey    map[cacheKey]*cacheEntry
	stats    CacheStats
}

type cacheEntry struct {
	key   cacheKey
	elem  *list.Element // nil while loading
	ready chan struct{} // closed when data or err is set
	data  tileData
	err   error
}

func newTileCache(maxBytes int64) *tileCache {
	return &tileCache{maxBytes: maxBytes, lru: list.New(), byKey: make(map[cacheKey]*cacheEntry)}
}

// get returns the decoded tile k, calling load once on a miss.
func (c *tileCache) get(k cacheKey, load func() (tileData, error)) (tileData, error) {
	c.mu.Lock()
	if e, ok := c.byKey[k]; ok {
		if e.elem != nil {
			c.lru.MoveToFront(e.elem)
			c.stats.Hits++
			d := e.data
			c.mu.Unlock()
			return d, nil
		}
		c.stats.Hits++
		c.mu.Unlock()
		<-e.ready
		return e.data, e.err
	}
	e := &cacheEntry{key: k, ready: make(chan struct{})}
	c.byKey[k] = e
	c.stats.Misses++
	c.mu.Unlock()

	d, err := load()

	c.mu.Lock()
	e.data, e.err = d, err
	if err != nil {
		delete(c.byKey, k) // a later lookup retries
	} else {
		e.elem = c.lru.PushFront(e)
		c.bytes += d.bytes()
		for c.bytes > c.maxBytes && c.lru.Len() > 1 {
			old := c.lru.Remove(c.lru.Back()).(*cacheEntry)
			delete(c.byKey, old.key)
			c.bytes -= old.data.bytes()
			c.stats.Evictions++
		}
	}
	close(e.ready)
	c.mu.Unlock()
	return d, err
}

func (c *tileCache) snapshot() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Tiles, s.Bytes, s.MaxBytes = c.lru.Len(), c.bytes, c.maxBytes
	return s
}
