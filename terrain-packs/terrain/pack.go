package terrain

import (
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"sync/atomic"

	"linkplan/appliance"
	"linkplan/terrain-packs/clutter"
)

var (
	_ appliance.Terrain        = (*Pack)(nil)
	_ appliance.SparseProfiler = (*Pack)(nil)
)

// DefaultCacheBytes is the default bound of the decoded-tile cache, bytes
// (about 93 SRTM3 tiles or 10 SRTM1 tiles).
const DefaultCacheBytes = 256 << 20

// MaxProfileSamples bounds the number of samples one Profile call returns.
const MaxProfileSamples = 1 << 20

// Option configures Open and OpenBytes.
type Option func(*config)

type config struct {
	cacheBytes int64
}

// WithCacheBytes bounds the decoded-tile cache to n bytes of int16 samples
// (2 bytes per sample). One tile is always kept, even when n is smaller
// than a tile.
func WithCacheBytes(n int64) Option { return func(c *config) { c.cacheBytes = n } }

// Pack is an open terrain pack. It is safe for concurrent use.
type Pack struct {
	src     io.ReaderAt
	data    []byte // the whole pack when opened with OpenBytes
	closer  io.Closer
	hdr     Header
	entries []Entry
	byTile  map[TileID]int
	dec     *decoder
	cache   *tileCache
	// sound holds, by index entry, whether the land tile decodes without
	// NoData samples (soundTile): 0 not known yet, 1 yes, 2 no.
	sound []atomic.Uint32
}

// Open opens the pack file at path. Only the header and index are read;
// tiles are read on demand (one positioned read each). Close releases the
// file.
func Open(path string, opts ...Option) (*Pack, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open terrain pack: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open terrain pack: %w", err)
	}
	p, err := open(f, nil, st.Size(), opts)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open terrain pack %s: %w", path, err)
	}
	p.closer = f
	return p, nil
}

// OpenBytes opens a pack held in memory (for example one that a go:embed
// directive embeds). b is not copied and must not change.
func OpenBytes(b []byte, opts ...Option) (*Pack, error) {
	p, err := open(nil, b, int64(len(b)), opts)
	if err != nil {
		return nil, fmt.Errorf("open terrain pack: %w", err)
	}
	return p, nil
}

func open(src io.ReaderAt, data []byte, size int64, opts []Option) (*Pack, error) {
	cfg := config{cacheBytes: DefaultCacheBytes}
	for _, o := range opts {
		o(&cfg)
	}
	p := &Pack{src: src, data: data}
	head := make([]byte, HeaderSize)
	if err := p.readAt(head, 0, size); err != nil {
		return nil, fmt.Errorf("read header: %w", err)
	}
	h, err := parseHeader(head, size)
	if err != nil {
		return nil, fmt.Errorf("parse header: %w", err)
	}
	hi := make([]byte, h.DataOffset)
	if err := p.readAt(hi, 0, size); err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	entries, err := parseIndex(h, hi)
	if err != nil {
		return nil, fmt.Errorf("parse index: %w", err)
	}
	n := h.TileSamples()
	dec, err := newDecoder(n)
	if err != nil {
		return nil, err
	}
	p.hdr, p.entries, p.dec = h, entries, dec
	p.byTile = make(map[TileID]int, len(entries))
	for i, e := range entries {
		p.byTile[e.Tile] = i
	}
	p.cache = newTileCache(cfg.cacheBytes)
	p.sound = make([]atomic.Uint32, len(entries))
	return p, nil
}

func (p *Pack) readAt(b []byte, off, size int64) error {
	if off < 0 || off > size || int64(len(b)) > size-off {
		return corrupt("read %d bytes at %d: pack is %d bytes", len(b), off, size)
	}
	if p.data != nil {
		copy(b, p.data[off:])
		return nil
	}
	_, err := p.src.ReadAt(b, off)
	if err != nil {
		return fmt.Errorf("read %d bytes at %d: %w", len(b), off, err)
	}
	return nil
}

// payload returns the length bytes at off (a tile, land-cover or void-mask
// payload) after checking them against crc, the index's CRC32C: a slice of
// the pack's bytes for OpenBytes, else a fresh read. A checksum mismatch is
// an error matching ErrCorrupt.
func (p *Pack) payload(off, length int64, crc uint32) ([]byte, error) {
	var b []byte
	if p.data != nil {
		b = p.data[off : off+length]
	} else {
		b = make([]byte, length)
		if err := p.readAt(b, off, p.hdr.FileSize); err != nil {
			return nil, err
		}
	}
	if got := Checksum(b); got != crc {
		return nil, fmt.Errorf("checksum %08x, index says %08x: %w", got, crc, ErrCorrupt)
	}
	return b, nil
}

// Close releases the pack's file and decoder. Close on a pack opened with
// OpenBytes only releases the decoder.
func (p *Pack) Close() error {
	p.dec.close()
	if p.closer != nil {
		return p.closer.Close()
	}
	return nil
}

// Header returns the decoded pack header.
func (p *Pack) Header() Header { return p.hdr }

// Entries returns a copy of the tile index, south to north, west to east.
func (p *Pack) Entries() []Entry { return append([]Entry(nil), p.entries...) }

// Entry returns the index entry of t and whether the pack has it.
func (p *Pack) Entry(t TileID) (Entry, bool) {
	i, ok := p.byTile[t]
	if !ok {
		return Entry{}, false
	}
	return p.entries[i], true
}

// HasTile reports whether the pack's index holds t (of any kind).
func (p *Pack) HasTile(t TileID) bool {
	_, ok := p.byTile[t]
	return ok
}

// CacheStats returns the decoded-tile cache counters.
func (p *Pack) CacheStats() CacheStats { return p.cache.snapshot() }

// ReadTile reads, checks and decodes tile t, bypassing the cache. The
// samples are (SamplesPerDegree+1)² heights in metres, row-major, north row
// first, west column first. A checksum mismatch is an error matching
// ErrCorrupt, never garbage heights.
func (p *Pack) ReadTile(t TileID) ([]int16, error) {
	i, ok := p.byTile[t]
	if !ok {
		return nil, &appliance.TileMissingError{Tile: t.Name()}
	}
	e := p.entries[i]
	if e.Kind != KindLand {
		return nil, fmt.Errorf("read tile %s: %s tile has no samples", t, e.Kind)
	}
	payload, err := p.payload(e.Offset, e.Length, e.CRC)
	if err != nil {
		return nil, fmt.Errorf("read tile %s: %w", t, err)
	}
	s, err := p.dec.decode(payload, e.Codec, p.hdr.TileSamples())
	if err != nil {
		return nil, fmt.Errorf("decode tile %s: %w", t, err)
	}
	return s, nil
}

// samples returns the cached samples of land tile t.
func (p *Pack) samples(t TileID) ([]int16, error) {
	d, err := p.heights(t)
	return d.samples, err
}

// heights returns the cached decoded land tile t: its samples and
// whether any of them is NoData.
func (p *Pack) heights(t TileID) (tileData, error) {
	return p.cache.get(cacheKey{tile: t, layer: layerHeights}, func() (tileData, error) {
		s, err := p.ReadTile(t)
		return tileData{samples: s, noData: slices.Contains(s, NoData)}, err
	})
}

// ElevationM returns the ground height at q in metres above mean sea level,
// interpolated bilinearly between the four surrounding samples. It returns
// a *appliance.TileMissingError naming the tile when the pack lacks it (or
// the tile is void, or q touches a NoData sample), 0 on sea tiles, and an
// error matching appliance.ErrInvalid for an invalid position.
func (p *Pack) ElevationM(q appliance.LatLon) (float64, error) {
	h, _, _, err := p.elevation(q, nil)
	return h, err
}

// tileRef lets Profile keep the current tile between samples.
type tileRef struct {
	owner   *Pack
	id      TileID
	samples []int16
}

// elevation returns the height at q, whether q is on a sea tile, and the
// pack that answered (p, or nil with an error).
func (p *Pack) elevation(q appliance.LatLon, ref *tileRef) (heightM float64, sea bool, owner *Pack, err error) {
	if !q.Valid() {
		return 0, false, nil, appliance.Invalid("position", "%v is not a valid WGS84 position", q)
	}
	t := TileOf(q)
	var s []int16
	if ref != nil && ref.owner == p && ref.id == t {
		s = ref.samples
	} else {
		var i int
		var ok bool
		t, i, ok = p.locate(q)
		if !ok {
			return 0, false, nil, &appliance.TileMissingError{Tile: t.Name()}
		}
		switch p.entries[i].Kind {
		case KindSea:
			return 0, true, p, nil
		case KindVoid:
			return 0, false, nil, &appliance.TileMissingError{Tile: t.Name()}
		}
		s, err = p.samples(t)
		if err != nil {
			return 0, false, nil, fmt.Errorf("elevation at %v: %w", q, err)
		}
		if ref != nil {
			ref.owner, ref.id, ref.samples = p, t, s
		}
	}
	h, ok := bilinear(s, p.hdr.SamplesPerDegree, t, q)
	if !ok {
		return 0, false, nil, &appliance.TileMissingError{Tile: t.Name()}
	}
	return h, false, p, nil
}

// locate returns the tile of the pack that answers q and its index
// position: TileOf(q), or, for a point on the south or west edge of a tile
// the pack lacks, the neighbour that shares that edge. ok is false (and t
// is TileOf(q)) when the pack holds neither.
func (p *Pack) locate(q appliance.LatLon) (t TileID, i int, ok bool) {
	t = TileOf(q)
	if i, ok = p.byTile[t]; ok {
		return t, i, true
	}
	// A point on a tile edge is also on the edge row or column of the tile
	// south or west of it, which may be in the pack.
	if t2, ok2 := p.edgeNeighbour(q, t); ok2 {
		return t2, p.byTile[t2], true
	}
	return t, 0, false
}

// edgeNeighbour returns a tile of the pack, other than t, whose edge q
// lies on: the tile south of t when q is on t's south edge, west of it on
// the west edge, or south-west at the corner.
func (p *Pack) edgeNeighbour(q appliance.LatLon, t TileID) (TileID, bool) {
	onS, onW := q.Lat == float64(t.Lat) && t.Lat > -90, q.Lon == float64(t.Lon) && t.Lon > -180
	for _, c := range [3]struct {
		ok   bool
		tile TileID
	}{
		{onS, TileID{Lat: t.Lat - 1, Lon: t.Lon}},
		{onW, TileID{Lat: t.Lat, Lon: t.Lon - 1}},
		{onS && onW, TileID{Lat: t.Lat - 1, Lon: t.Lon - 1}},
	} {
		if c.ok {
			if _, ok := p.byTile[c.tile]; ok {
				return c.tile, true
			}
		}
	}
	return TileID{}, false
}

// cell returns, for q in tile t (spd+1 samples per side), the index of the
// north-west sample of the grid cell around q and the bilinear weights of
// its four corners: north-west, north-east, south-west, south-east, at
// indexes i, i+1, i+n, i+n+1 with n = spd+1.
func cell(spd int, t TileID, q appliance.LatLon) (i int, w [4]float64) {
	r, fy := cellAxis((float64(t.Lat+1)-q.Lat)*float64(spd), spd) // rows from the north edge
	c, fx := cellAxis((q.Lon-float64(t.Lon))*float64(spd), spd)   // columns from the west edge
	return r*(spd+1) + c, weights(fx, fy)
}

// cellAxis returns, for a position v in sample steps from a tile's north
// (or west) edge, the row (or column) of the cell around it and the
// fraction of the step past that row; v is clamped to the tile.
func cellAxis(v float64, spd int) (int, float64) {
	// math.Min(math.Max(v, 0), spd) for the finite v of a valid position
	// (math.Max(-0, 0) is +0, as here), without their calls.
	if !(v > 0) {
		v = 0
	}
	if f := float64(spd); v > f {
		v = f
	}
	i := int(v)
	if i > spd-1 {
		i = spd - 1
	}
	return i, v - float64(i)
}

// weights are the bilinear weights of a cell's corners (north-west,
// north-east, south-west, south-east) at fractions fx east and fy south.
func weights(fx, fy float64) [4]float64 {
	return [4]float64{(1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy}
}

// bilinear interpolates tile samples s (spd+1 per side) at q, which lies in
// tile t. ok is false when a sample with a non-zero weight is NoData.
func bilinear(s []int16, spd int, t TileID, q appliance.LatLon) (float64, bool) {
	i, w := cell(spd, t, q)
	return interpolate(s, spd+1, i, w)
}

// interpolate weighs the four samples of the cell at index i (n samples a
// row) with w; ok is false when a sample with a non-zero weight is NoData.
func interpolate(s []int16, n, i int, w [4]float64) (float64, bool) {
	v := [4]int16{s[i], s[i+1], s[i+n], s[i+n+1]}
	for k := range v {
		if v[k] == NoData && w[k] > 0 {
			return 0, false
		}
	}
	h := 0.0
	for k := range v {
		if w[k] > 0 {
			h += w[k] * float64(v[k])
		}
	}
	return h, true
}

// Profile samples the great circle from a to b at n+1 equally spaced
// points, n = ceil(d/stepM), so the spacing d/n is at most stepM and b is
// the last sample. Sea marks samples on sea
// tiles (false elsewhere, including 0 m samples of land tiles). The first
// missing tile aborts with its *appliance.TileMissingError. When the pack
// has the land-cover layer, ClutterClass and ClutterHeightsM (metres) hold
// the land cover of each sample (nearest sample, see ClutterAt; 0 and 0 m
// where no land-cover source covered the tile); otherwise they are nil.
//
// VoidFilled marks the samples whose height was interpolated across a void
// of the source DEM (see VoidFilledAt); it is nil when no sample is (and
// always for packs without the void mask, which know no voids).
func (p *Pack) Profile(a, b appliance.LatLon, stepM float64) (*appliance.PathProfile, error) {
	var cl clutterSampler
	if p.hdr.Clutter {
		cl = func(q appliance.LatLon, ref *clutterRef) (uint8, error) { return p.clutterClass(q, ref) }
	}
	return profile(a, b, stepM, 1, p.elevation, cl, nil, 0)
}

// RadialProfile is Profile(a, b, stepM) with the sample positions of
// appliance.ProfilePath.FastPoints, within a centimetre of Profile's, at a
// fraction of the trigonometry (appliance.RadialProfiler): for the
// coverage sweep's radials.
func (p *Pack) RadialProfile(a, b appliance.LatLon, stepM float64) (*appliance.PathProfile, error) {
	var cl clutterSampler
	if p.hdr.Clutter {
		cl = func(q appliance.LatLon, ref *clutterRef) (uint8, error) { return p.clutterClass(q, ref) }
	}
	return radialProfile(a, b, stepM, p.elevation, cl)
}

// ProfileEvery returns the samples 0, every, 2·every, … and the last of
// the profile Profile(a, b, stepM) returns, bit-identical, without land
// cover, sea or void marks (appliance.SparseProfiler). every <= 1 gives
// the full profile, as Profile.
func (p *Pack) ProfileEvery(a, b appliance.LatLon, stepM float64, every int) (*appliance.PathProfile, error) {
	return profile(a, b, stepM, every, p.elevation, nil, nil, 0)
}

// ProfileEveryFrom is ProfileEvery(a, b, stepM, every), bit-identical,
// with the samples of prev, ProfileEvery(a, b, stepM, prevEvery), copied
// rather than sampled again (appliance.SparseRefiner).
func (p *Pack) ProfileEveryFrom(prev *appliance.PathProfile, prevEvery int, a, b appliance.LatLon, stepM float64, every int) (*appliance.PathProfile, error) {
	return profile(a, b, stepM, every, p.elevation, nil, prev, prevEvery)
}

// sampler answers the height at q, whether q is on sea, and the pack that
// answered.
type sampler func(q appliance.LatLon, ref *tileRef) (heightM float64, sea bool, owner *Pack, err error)

// clutterSampler answers the land-cover class at q.
type clutterSampler func(q appliance.LatLon, ref *clutterRef) (uint8, error)

// profile samples every every-th point of the path (and its last); a
// sparse profile (every > 1) has no land cover, sea or void marks.
//
// prev, when not nil, is the sparse profile of the same path with stride
// prevEvery: its samples are copied instead of sampled again (the same
// values bit for bit); a prev of another shape, or a prevEvery that is
// not a multiple of every, is ignored.
func profile(a, b appliance.LatLon, stepM float64, every int, at sampler, cl clutterSampler, prev *appliance.PathProfile, prevEvery int) (*appliance.PathProfile, error) {
	path, err := profilePath(a, b, stepM)
	if err != nil {
		return nil, err
	}
	every = max(every, 1)
	if prev != nil && !(every > 1 && prevEvery > every && prevEvery%every == 0 && sparseLen(path.Steps, prevEvery) == len(prev.HeightsM) && len(prev.DistancesM) == len(prev.HeightsM)) {
		prev = nil
	}
	return sampleProfile(&path, every, at, cl, prev, prevEvery, nil)
}

// radialProfile is profile(a, b, stepM, 1, at, cl, nil, 0) sampled at the
// positions of ProfilePath.FastPoints (within a centimetre of Point's):
// the same distances, heights within a centimetre times the local slope.
func radialProfile(a, b appliance.LatLon, stepM float64, at sampler, cl clutterSampler) (*appliance.PathProfile, error) {
	path, err := profilePath(a, b, stepM)
	if err != nil {
		return nil, err
	}
	return sampleProfile(&path, 1, at, cl, nil, 0, path.FastPoints(nil))
}

// profilePath validates a profile's ends and step and returns its
// sampling geometry.
func profilePath(a, b appliance.LatLon, stepM float64) (appliance.ProfilePath, error) {
	var v appliance.ValidationError
	if !a.Valid() {
		v.Add("a", "%v is not a valid WGS84 position", a)
	}
	if !b.Valid() {
		v.Add("b", "%v is not a valid WGS84 position", b)
	}
	if !(stepM > 0) || math.IsInf(stepM, 0) {
		v.Add("step_m", "step %v m must be a positive finite number of metres", stepM)
	}
	if err := v.Err(); err != nil {
		return appliance.ProfilePath{}, fmt.Errorf("profile: %w", err)
	}
	d := a.DistanceM(b)
	steps := appliance.ProfileSteps(d, stepM) // a hair over a whole step is not a new step
	if steps+1 > MaxProfileSamples {
		return appliance.ProfilePath{}, fmt.Errorf("profile: %.0f m every %g m needs %.0f samples (max %d): %w",
			d, stepM, steps+1, MaxProfileSamples, appliance.ErrInvalid)
	}
	return appliance.NewProfilePathSteps(a, b, d, int(max(steps, 0))), nil
}

// sparseLen is the sample count of the profile of stride every of a path
// of steps steps: indices 0, every, … up to steps, and the last.
func sparseLen(steps, every int) int {
	n := steps/every + 1
	if steps%every != 0 {
		n++
	}
	return n
}

// sampleProfile fills the profile with the samples 0, every, 2·every, …
// and steps of the steps+1 equally spaced ones. Land cover (cl != nil) is
// kept only when every sample's height came from a pack with the
// land-cover layer. A sparse profile (every > 1) carries heights and
// distances only; each is computed exactly as in the full profile, so
// the two agree bit for bit on their common samples. pts, when not nil,
// holds the position of every sample (else path.Point gives them).
func sampleProfile(path *appliance.ProfilePath, every int, at sampler, cl clutterSampler, prev *appliance.PathProfile, prevEvery int, pts []appliance.LatLon) (*appliance.PathProfile, error) {
	steps := path.Steps
	full := every == 1
	n := sparseLen(steps, every) // indices 0, every, … up to steps, and the last
	prof := &appliance.PathProfile{
		DistancesM: make([]float64, n),
		HeightsM:   make([]float64, n),
	}
	var classes []uint8
	if full {
		prof.Sea = make([]bool, n)
		if cl != nil {
			classes = make([]uint8, n)
		}
	}
	var voids []bool // allocated at the first void-filled sample
	var ref tileRef
	var cref clutterRef
	var vref voidRef
	for k := 0; k < n; k++ {
		i := min(k*every, steps)
		if prev != nil && (i == steps || i%prevEvery == 0) {
			j := i / prevEvery
			if i == steps {
				j = len(prev.HeightsM) - 1
			}
			prof.DistancesM[k], prof.HeightsM[k] = prev.DistancesM[j], prev.HeightsM[j]
			continue
		}
		di := path.DistanceM(i)
		var q appliance.LatLon
		if pts != nil {
			q = pts[i]
		} else {
			q = path.Point(i)
		}
		h, sea, owner, err := at(q, &ref)
		if err != nil {
			return nil, fmt.Errorf("profile sample %d at %.1f m: %w", i, di, err)
		}
		prof.DistancesM[k], prof.HeightsM[k] = di, h
		if !full {
			continue
		}
		prof.Sea[k] = sea
		if !sea && owner.hdr.VoidMask {
			v, err := owner.voidFilled(q, &vref)
			if err != nil {
				return nil, fmt.Errorf("profile sample %d at %.1f m: %w", i, di, err)
			}
			if v {
				if voids == nil {
					voids = make([]bool, n)
				}
				voids[k] = true
			}
		}
		if classes == nil {
			continue
		}
		if !owner.hdr.Clutter {
			classes = nil // this pack cannot tell: no land cover for the path
			continue
		}
		if classes[k], err = cl(q, &cref); err != nil {
			return nil, fmt.Errorf("profile sample %d at %.1f m: %w", i, di, err)
		}
	}
	prof.VoidFilled = voids
	if classes != nil {
		prof.ClutterClass = classes
		prof.ClutterHeightsM = make([]float64, len(classes))
		for i, c := range classes {
			prof.ClutterHeightsM[i] = clutter.Class(c).HeightM()
		}
	}
	return prof, nil
}

// Tiles returns the names of the pack's tiles, sorted.
func (p *Pack) Tiles() []string {
	out := make([]string, len(p.entries))
	for i, e := range p.entries {
		out[i] = e.Tile.Name()
	}
	sort.Strings(out)
	return out
}
