package terrain

import (
	"container/list"
	"sync"
)

// CacheStats counts the decoded-tile cache's activity since Open.
type CacheStats struct {
	Hits      int64 `json:"hits"`      // lookups served from the cache
	Misses    int64 `json:"misses"`    // lookups that decoded a tile
	Evictions int64 `json:"evictions"` // tiles dropped to stay within the bound
	Tiles     int   `json:"tiles"`     // decoded tiles held now
	Bytes     int64 `json:"bytes"`     // bytes of decoded samples held now
	MaxBytes  int64 `json:"max_bytes"` // the bound, bytes of decoded samples
}

// tileCache is a bounded LRU of decoded tiles, safe for concurrent use. A
// tile being decoded is shared: concurrent lookups of the same tile wait
// for one decode. The bound counts decoded sample bytes; at least one tile
// is always kept, whatever the bound.
type tileCache struct {
	mu       sync.Mutex
	maxBytes int64
	bytes    int64
	lru      *list.List // of *cacheEntry, most recent at the front
	byTile   map[TileID]*cacheEntry
	stats    CacheStats
}

type cacheEntry struct {
	tile    TileID
	elem    *list.Element // nil while loading
	ready   chan struct{} // closed when samples or err is set
	samples []int16
	err     error
}

func newTileCache(maxBytes int64) *tileCache {
	return &tileCache{maxBytes: maxBytes, lru: list.New(), byTile: make(map[TileID]*cacheEntry)}
}

// get returns the samples of t, calling load once on a miss.
func (c *tileCache) get(t TileID, load func() ([]int16, error)) ([]int16, error) {
	c.mu.Lock()
	if e, ok := c.byTile[t]; ok {
		if e.elem != nil {
			c.lru.MoveToFront(e.elem)
			c.stats.Hits++
			s := e.samples
			c.mu.Unlock()
			return s, nil
		}
		c.stats.Hits++
		c.mu.Unlock()
		<-e.ready
		return e.samples, e.err
	}
	e := &cacheEntry{tile: t, ready: make(chan struct{})}
	c.byTile[t] = e
	c.stats.Misses++
	c.mu.Unlock()

	s, err := load()

	c.mu.Lock()
	e.samples, e.err = s, err
	if err != nil {
		delete(c.byTile, t) // a later lookup retries
	} else {
		e.elem = c.lru.PushFront(e)
		c.bytes += int64(2 * len(s))
		for c.bytes > c.maxBytes && c.lru.Len() > 1 {
			old := c.lru.Remove(c.lru.Back()).(*cacheEntry)
			delete(c.byTile, old.tile)
			c.bytes -= int64(2 * len(old.samples))
			c.stats.Evictions++
		}
	}
	close(e.ready)
	c.mu.Unlock()
	return s, err
}

func (c *tileCache) snapshot() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Tiles, s.Bytes, s.MaxBytes = c.lru.Len(), c.bytes, c.maxBytes
	return s
}
