package repeater

import (
	"container/list"
	"math"
	"sync"

	"linkplan/appliance"
)

// DefaultCacheEntries is the number of edges an EdgeCache keeps when New
// is given 0: about 200 bytes each, so about 20 MB (up to about 700 bytes
// for an edge with several warnings).
const DefaultCacheEntries = 100_000

// edgeCacheKey identifies one directed edge evaluation: both ends rounded
// to 1e-6 degrees (about 0.11 m), both antenna heights rounded to the
// centimetre, the frequency (exact bits, MHz) and the engine. The terrain,
// the profile step and the Fresnel penalty are fixed per Service, which
// owns its cache.
type edgeCacheKey struct {
	txLat, txLon, rxLat, rxLon int64 // micro-degrees, WGS84
	txCM, rxCM                 int64 // antenna heights above ground, centimetres
	freqBits                   uint64
	engine                     appliance.EngineID
}

func microDeg(d float64) int64 { return int64(math.Round(d * 1e6)) }
func centi(m float64) int64    { return int64(math.Round(m * 100)) }

func newEdgeCacheKey(tx, rx appliance.LatLon, txHeightM, rxHeightM, freqMHz float64, engine appliance.EngineID) edgeCacheKey {
	return edgeCacheKey{
		txLat: microDeg(tx.Lat), txLon: microDeg(tx.Lon), rxLat: microDeg(rx.Lat), rxLon: microDeg(rx.Lon),
		txCM: centi(txHeightM), rxCM: centi(rxHeightM), freqBits: math.Float64bits(freqMHz), engine: engine,
	}
}

// edgeFigures are the request-independent results of one edge: what the
// engine said on the terrain profile, before the request's radio budget
// turns them into a margin.
type edgeFigures struct {
	// MissingTile names the terrain tile the profile needed and no pack
	// holds; the other fields are zero then.
	MissingTile       string
	PathLossDB        float64 // engine basic transmission loss, dB
	LOSClear          bool    // straight ray clears the terrain (k = 4/3)
	FresnelOK         bool    // ≥ 60 % of the first Fresnel zone clear
	MinClearanceRatio float64 // least clearance / F1 radius along the path
	EngineVersion     string
	// TxGroundM and RxGroundM are the ground heights of the profile's
	// ends, metres AMSL: the elevation of the From tower's antenna
	// toward the hop's other end (Plan doc, "Antennas").
	TxGroundM, RxGroundM float64
	// Warnings are the path's and the engine's warnings (pathWarnings);
	// nil when there are none.
	Warnings []appliance.Warning
}

// EdgeCache is a bounded least-recently-used cache of edge evaluations,
// safe for concurrent use. Missing-terrain answers are cached too: the
// terrain of a Service does not change while it runs.
type EdgeCache struct {
	mu    sync.Mutex
	max   int
	ll    *list.List // front: most recently used; values *cacheEntry
	items map[edgeCacheKey]*list.Element
}

type cacheEntry struct {
	key edgeCacheKey
	val edgeFigures
}

// NewEdgeCache returns a cache of at most maxEntries edges
// (DefaultCacheEntries when maxEntries ≤ 0).
func NewEdgeCache(maxEntries int) *EdgeCache {
	if maxEntries <= 0 {
		maxEntries = DefaultCacheEntries
	}
	return &EdgeCache{max: maxEntries, ll: list.New(), items: map[edgeCacheKey]*list.Element{}}
}

// get returns the cached figures of k and marks them recently used.
func (c *EdgeCache) get(k edgeCacheKey) (edgeFigures, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		c.ll.MoveToFront(e)
		return e.Value.(*cacheEntry).val, true
	}
	return edgeFigures{}, false
}

// put stores the figures of k, evicting the least recently used entry when
// the cache is full.
func (c *EdgeCache) put(k edgeCacheKey, v edgeFigures) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		e.Value.(*cacheEntry).val = v
		c.ll.MoveToFront(e)
		return
	}
	c.items[k] = c.ll.PushFront(&cacheEntry{key: k, val: v})
	for c.ll.Len() > c.max {
		last := c.ll.Back()
		c.ll.Remove(last)
		delete(c.items, last.Value.(*cacheEntry).key)
	}
}

// Len returns the number of cached edges.
func (c *EdgeCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ll.Len()
}
