package raytrace

import (
	"container/list"
	"math"
	"sync"
)

// Cache keeps built scenes by key (a layer's tenant, id and content hash),
// so that each layer's index is built once and shared by every request.
// It holds at most a number of scenes (NewCache) or scenes of at most a
// number of estimated bytes (NewSizedCache: Scene.SizeBytes summed over
// the built scenes), dropping the least recently used; the scene built
// last is always kept, even alone over the byte budget. A scene being
// built is built once however many callers ask for it at the same time.
// It is safe for concurrent use.
type Cache struct {
	max      int
	maxBytes int64 // 0: no byte bound
	bytes    int64 // Scene.SizeBytes of the built scenes held
	mu       sync.Mutex
	entries  map[string]*list.Element
	lru      *list.List // front: most recently used; values *cacheEntry
}

type cacheEntry struct {
	key   string
	once  sync.Once
	scene *Scene
	err   error
	size  int64 // Scene.SizeBytes, counted in Cache.bytes once built
}

// NewCache returns a cache of at most maxScenes scenes (at least 1).
func NewCache(maxScenes int) *Cache {
	return &Cache{max: max(1, maxScenes), entries: map[string]*list.Element{}, lru: list.New()}
}

// NewSizedCache returns a cache whose built scenes hold at most maxBytes
// estimated bytes (Scene.SizeBytes), however many they are.
func NewSizedCache(maxBytes int64) *Cache {
	return &Cache{max: math.MaxInt, maxBytes: max(1, maxBytes), entries: map[string]*list.Element{}, lru: list.New()}
}

// removeLocked drops el and its bytes.
func (c *Cache) removeLocked(el *list.Element) {
	e := el.Value.(*cacheEntry)
	c.lru.Remove(el)
	delete(c.entries, e.key)
	c.bytes -= e.size
}

// sizedLocked counts the bytes of el's scene, just built, and drops the
// least recently used scenes other than it while over the byte budget.
func (c *Cache) sizedLocked(el *list.Element) {
	e := el.Value.(*cacheEntry)
	if c.entries[e.key] != el || e.scene == nil {
		return // forgotten or dropped while it was built
	}
	e.size = e.scene.SizeBytes()
	c.bytes += e.size
	for c.maxBytes > 0 && c.bytes > c.maxBytes {
		old := c.lru.Back()
		for old == el || (old != nil && old.Value.(*cacheEntry).size == 0) {
			old = old.Prev() // the new scene stays; scenes still building weigh nothing yet
		}
		if old == nil {
			return
		}
		c.removeLocked(old)
	}
}

// Get returns the scene of key, building it with build on a miss, and
// whether it was already built. A failed build is not kept.
func (c *Cache) Get(key string, build func() (*Scene, error)) (*Scene, bool, error) {
	c.mu.Lock()
	el, hit := c.entries[key]
	if hit {
		c.lru.MoveToFront(el)
	} else {
		el = c.lru.PushFront(&cacheEntry{key: key})
		c.entries[key] = el
		for c.lru.Len() > c.max {
			c.removeLocked(c.lru.Back())
		}
	}
	e := el.Value.(*cacheEntry)
	c.mu.Unlock()
	built := false
	e.once.Do(func() {
		built = true
		e.scene, e.err = build()
		if e.err == nil {
			c.mu.Lock()
			c.sizedLocked(el)
			c.mu.Unlock()
		}
	})
	if e.err != nil {
		c.Forget(key)
		return nil, false, e.err
	}
	return e.scene, !built, nil
}

// Forget drops key's scene.
func (c *Cache) Forget(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		c.removeLocked(el)
	}
}

// Len is the number of scenes held.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

// Bytes is the estimated memory of the scenes held, bytes
// (Scene.SizeBytes summed).
func (c *Cache) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}
