package geotiff

import (
	"container/list"
	"sync"
)

// blockCache is an LRU of decoded blocks bounded in bytes. Concurrent
// requests for the same block decode it once; the others wait.
type blockCache struct {
	mu     sync.Mutex
	budget int64
	used   int64
	m      map[int]*list.Element
	lru    list.List // of *cacheEntry, most recent at the front
}

type cacheEntry struct {
	idx  int
	data []byte
	err  error
	size int64 // 0 while decoding
	done chan struct{}
}

func (c *blockCache) init(budget int64) {
	c.budget = budget
	c.m = make(map[int]*list.Element)
}

// get returns decoded block idx of img, decoding it on a miss.
func (c *blockCache) get(img *Image, idx int) ([]byte, error) {
	c.mu.Lock()
	if el, ok := c.m[idx]; ok {
		c.lru.MoveToFront(el)
		e := el.Value.(*cacheEntry)
		c.mu.Unlock()
		<-e.done
		return e.data, e.err
	}
	e := &cacheEntry{idx: idx, done: make(chan struct{})}
	c.m[idx] = c.lru.PushFront(e)
	c.mu.Unlock()

	e.data, e.err = img.decodeBlock(idx)
	close(e.done)

	c.mu.Lock()
	e.size = int64(len(e.data)) + 128 // entry overhead
	c.used += e.size
	// Evict least recently used finished entries, never the newest one.
	for el := c.lru.Back(); el != nil && c.used > c.budget && c.lru.Len() > 1; {
		prev := el.Prev()
		old := el.Value.(*cacheEntry)
		if old.size > 0 && old != e {
			c.lru.Remove(el)
			delete(c.m, old.idx)
			c.used -= old.size
		}
		el = prev
	}
	c.mu.Unlock()
	return e.data, e.err
}

// CachedBytes returns the bytes currently held by the decoded-block cache.
func (img *Image) CachedBytes() int64 {
	img.cache.mu.Lock()
	defer img.cache.mu.Unlock()
	return img.cache.used
}
