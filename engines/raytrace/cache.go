package raytrace

import (
	"container/list"
	"errors"
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
//
// Get builds on a miss; Lookup never builds and never adds an entry (the
// worker answers a unit that names a scene without its input with Lookup:
// such a unit neither evicts a built scene nor leaves behind an entry
// whose build fails for a concurrent unit that carries the input).
type Cache struct {
	max      int
	maxBytes int64 // 0: no byte bound
	bytes    int64 // Scene.SizeBytes of the built scenes held
	mu       sync.Mutex
	entries  map[string]*list.Element
	lru      *list.List // front: most recently used; values *cacheEntry
}

// cacheEntry is one scene, built by the caller that added it; done is
// closed when scene or err is set.
type cacheEntry struct {
	key   string
	done  chan struct{}
	scene *Scene
	err   error
	size  int64 // Scene.SizeBytes, counted in Cache.bytes once built
}

// errBuildPanicked is the error of the callers that waited for a build
// that panicked (the builder's caller gets the panic).
var errBuildPanicked = errors.New("raytrace scene cache: the scene's build panicked")

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
// whether it was already built (or built by a concurrent caller). A
// failed build is not kept; a caller that waited for another caller's
// failed build builds once itself.
func (c *Cache) Get(key string, build func() (*Scene, error)) (*Scene, bool, error) {
	for try := 0; ; try++ {
		c.mu.Lock()
		if el, hit := c.entries[key]; hit {
			c.lru.MoveToFront(el)
			e := el.Value.(*cacheEntry)
			c.mu.Unlock()
			<-e.done
			if e.err != nil {
				if try == 0 {
					continue // its builder dropped it: build with ours
				}
				return nil, false, e.err
			}
			return e.scene, true, nil
		}
		e := &cacheEntry{key: key, done: make(chan struct{})}
		el := c.lru.PushFront(e)
		c.entries[key] = el
		for c.lru.Len() > c.max {
			c.removeLocked(c.lru.Back())
		}
		c.mu.Unlock()
		return c.build(el, e, build)
	}
}

// build runs build for the entry el added; on failure (an error or a
// panic) it drops el before waking the waiters.
func (c *Cache) build(el *list.Element, e *cacheEntry, build func() (*Scene, error)) (sc *Scene, cached bool, err error) {
	finished := false
	defer func() {
		if !finished {
			e.scene, e.err = nil, errBuildPanicked
			c.drop(el)
			close(e.done)
		}
	}()
	e.scene, e.err = build()
	if e.err == nil && e.scene == nil {
		e.err = errors.New("raytrace scene cache: the build returned no scene")
	}
	finished = true
	if e.err != nil {
		c.drop(el)
	} else {
		c.mu.Lock()
		c.sizedLocked(el)
		c.mu.Unlock()
	}
	close(e.done)
	if e.err != nil {
		return nil, false, e.err
	}
	return e.scene, false, nil
}

// drop removes el if it is still key's entry.
func (c *Cache) drop(el *list.Element) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := el.Value.(*cacheEntry).key
	if cur, ok := c.entries[key]; ok && cur == el {
		c.removeLocked(el)
	}
}

// Lookup returns key's scene when the cache holds it (waiting for a build
// in progress) and marks it recently used; it builds nothing and adds
// nothing on a miss.
func (c *Cache) Lookup(key string) (*Scene, bool) {
	c.mu.Lock()
	el, hit := c.entries[key]
	if !hit {
		c.mu.Unlock()
		return nil, false
	}
	c.lru.MoveToFront(el)
	e := el.Value.(*cacheEntry)
	c.mu.Unlock()
	<-e.done
	if e.err != nil {
		return nil, false
	}
	return e.scene, true
}

// Forget drops key's scene.
func (c *Cache) Forget(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		c.removeLocked(el)
	}
}

// Len is the number of scenes held (and being built).
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
