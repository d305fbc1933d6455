package raytrace

import (
	"container/list"
	"sync"
)

// Cache keeps built scenes by key (a layer's tenant, id and content hash),
// so that each layer's index is built once and shared by every request.
// It holds at most Max scenes, dropping the least recently used; a scene
// being built is built once however many callers ask for it at the same
// time. It is safe for concurrent use.
type Cache struct {
	max     int
	mu      sync.Mutex
	entries map[string]*list.Element
	lru     *list.List // front: most recently used; values *cacheEntry
}

type cacheEntry struct {
	key   string
	once  sync.Once
	scene *Scene
	err   error
}

// NewCache returns a cache of at most maxScenes scenes (at least 1).
func NewCache(maxScenes int) *Cache {
	return &Cache{max: max(1, maxScenes), entries: map[string]*list.Element{}, lru: list.New()}
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
			old := c.lru.Back()
			c.lru.Remove(old)
			delete(c.entries, old.Value.(*cacheEntry).key)
		}
	}
	e := el.Value.(*cacheEntry)
	c.mu.Unlock()
	built := false
	e.once.Do(func() {
		built = true
		e.scene, e.err = build()
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
		c.lru.Remove(el)
		delete(c.entries, key)
	}
}

// Len is the number of scenes held.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}
