package basemap

import (
	"container/list"
	"sync"
)

// entryOverheadBytes is what one cache entry costs besides its PNG bytes
// (list element, map slot, key), counted against the bound.
const entryOverheadBytes = 128

// CacheStats are the tile cache's counters.
type CacheStats struct {
	Hits, Misses, Evictions uint64
	Entries                 int
	Bytes                   int64 // PNG bytes plus the per-entry overhead
}

// cacheKey names one cached tile.
type cacheKey struct {
	layer Layer
	tile  Tile
}

// cache is a least-recently-used map from tile to PNG, bounded in bytes.
// It is safe for concurrent use.
type cache struct {
	mu       sync.Mutex
	maxBytes int64
	bytes    int64
	order    *list.List // front: most recently used; values are *cacheEntry
	byTile   map[cacheKey]*list.Element
	hits     uint64
	misses   uint64
	evicted  uint64
}

type cacheEntry struct {
	key cacheKey
	png []byte
}

func newCache(maxBytes int64) *cache {
	return &cache{maxBytes: maxBytes, order: list.New(), byTile: map[cacheKey]*list.Element{}}
}

func entryBytes(png []byte) int64 { return int64(len(png)) + entryOverheadBytes }

// get returns the PNG of tile t and marks it recently used.
func (c *cache) get(t cacheKey) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byTile[t]
	if !ok {
		c.misses++
		return nil, false
	}
	c.hits++
	c.order.MoveToFront(el)
	return el.Value.(*cacheEntry).png, true
}

// put stores the PNG of t, evicting the least recently used tiles beyond
// the bound. A PNG larger than the whole bound is not stored.
func (c *cache) put(t cacheKey, png []byte) {
	n := entryBytes(png)
	c.mu.Lock()
	defer c.mu.Unlock()
	if n > c.maxBytes {
		return
	}
	if el, ok := c.byTile[t]; ok { // rendered twice concurrently: same bytes
		c.order.MoveToFront(el)
		return
	}
	c.byTile[t] = c.order.PushFront(&cacheEntry{key: t, png: png})
	c.bytes += n
	for c.bytes > c.maxBytes {
		el := c.order.Back()
		e := el.Value.(*cacheEntry)
		c.order.Remove(el)
		delete(c.byTile, e.key)
		c.bytes -= entryBytes(e.png)
		c.evicted++
	}
}

func (c *cache) stats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return CacheStats{Hits: c.hits, Misses: c.misses, Evictions: c.evicted, Entries: c.order.Len(), Bytes: c.bytes}
}
