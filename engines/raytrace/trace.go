package raytrace

import (
	"context"
	"fmt"
	"math"
	"math/cmplx"
	"sort"

	"linkplan/appliance"
	"linkplan/engines/radio"
)

// Version is the engine implementation version reported with every answer.
const Version = "raytrace-1"

// speedOfLight is the speed of light in vacuum, m/s.
const speedOfLight = radio.SpeedOfLightMS

// Warning codes of raytrace answers.
const (
	WarnAssumedHeights = "raytrace_assumed_heights"
	WarnTerrainVoid    = "raytrace_terrain_void"
	WarnSceneTruncated = "raytrace_scene_truncated"
	// WarnClutterBeyondExtent replaces WarnSceneTruncated when
	// Options.ClutterBeyondExtent models the ground beyond the extent.
	WarnClutterBeyondExtent = "raytrace_clutter_beyond_extent"
	WarnMaterialRange       = "raytrace_material_out_of_range"
	WarnTxInsideBuilding    = "raytrace_tx_inside_building"
	WarnRxInsideBuilding    = "raytrace_rx_inside_building"
	WarnNoPath              = "raytrace_no_path"
	WarnPathsTruncated      = "raytrace_paths_truncated"
	// WarnFlatGround: the scene's ground is flat at GroundHeightM because
	// the terrain it should rest on is missing (SceneInput.FlatGround).
	WarnFlatGround = "raytrace_flat_ground"
)

// MaxPointPaths bounds the paths a point answer lists (Result.Paths):
// beyond it the answer keeps the MaxPointPaths strongest, in their order,
// and warns (WarnPathsTruncated); the received power, path loss and delay
// spread still sum every path. The benchmark scene (500 buildings) gives
// at most 333 paths with two reflections, diffraction, reflection–
// diffraction and the walls' scattering with its reflections. A path
// (at most four interactions, building ids of at most 64 bytes) encodes
// in well under MaxPathBytes.
const MaxPointPaths = 10000

// MaxPathBytes bounds one listed path's encoding (gob or JSON), bytes:
// with MaxPointPaths it bounds a point answer (the worker's client reads
// no more).
const MaxPathBytes = 2 << 10

// Flags of one receiver (map pixels carry them).
const (
	FlagLOS uint8 = 1 << iota
	FlagAssumedHeight
	FlagTerrainVoid
	FlagOutside
	FlagInside
	FlagNoPath
	// FlagClutter: FlagOutside with Options.ClutterBeyondExtent, the
	// paths' parts beyond the extent cross the modelled clutter.
	FlagClutter
	// FlagClutterAssumed: the clutter attenuated a path (its J(ν) was the
	// segment's) and its height, the layer's median, is an assumed one;
	// FlagAssumedHeight is set with it.
	FlagClutterAssumed
)

// ctx is what one request shares between its receivers: the tree,
// wavenumber, materials at the frequency.
type traceCtx struct {
	s        *Scene
	opt      Options
	tx       vec3
	txPat    Pattern
	rxPat    Pattern
	lambda   float64
	k        float64
	etas     []complex128
	tree     *imageTree
	nearTx   []int32 // edges within the diffraction range of the transmitter
	pairing  bool    // point mode, order ≤ 2: the tree holds order 1 only
	naive    bool    // baseline: no hierarchy
	collect  bool    // keep every path (point mode)
	txInside bool
	lit      []int32      // scattering tiles lit by the transmitter (DiffuseScattering > 0)
	litTiles []litTile    // their transmitter legs (scatter.go)
	litIdx   paged[int32] // ScatteringReflections: litTiles index of every tile, or -1
	specular float64      // field kept by a wall's specular reflection, √(1 − S²)
	// reflection–diffraction (Options.ReflectionDiffraction): the walls
	// facing the transmitter, and its candidate (edge, wall) pairs sorted
	// by edge
	rd        bool
	rdTx      []rdWall
	rdTxPairs []rdPair
}

func (s *Scene) newCtx(ctx context.Context, tx Antenna, rxPat Pattern, freqMHz float64, opt Options, rxb rxBounds, naive, pointMode bool) (*traceCtx, []appliance.Warning, error) {
	c := &traceCtx{s: s, opt: opt, txPat: tx.Pattern, rxPat: rxPat, naive: naive}
	c.lambda = speedOfLight / (freqMHz * 1e6)
	c.k = 2 * math.Pi / c.lambda
	x, y := s.frame.ToLocal(tx.Pos)
	c.tx = vec3{x, y, s.groundAt(x, y) + tx.HeightM}
	var warns []appliance.Warning
	if s.flatGround != "" {
		warns = append(warns, appliance.Warning{Code: WarnFlatGround,
			Message: fmt.Sprintf("The ground was traced flat at %g m, not as terrain: %s. Heights above the ground and the terrain's obstruction are not those of the site.", s.groundZ, s.flatGround)})
	}
	fGHz := freqMHz / 1000
	c.etas = make([]complex128, len(s.mats))
	var out []string
	for i, m := range s.mats {
		c.etas[i] = m.Permittivity(fGHz)
		if !m.InRange(fGHz) {
			out = append(out, m.Name)
		}
	}
	if len(out) > 0 {
		warns = append(warns, appliance.Warning{Code: WarnMaterialRange,
			Message: fmt.Sprintf("The P.2040/P.527 fits of %v are stated for other frequencies; they were extrapolated to %g MHz.", out, freqMHz)})
	}
	if bi := s.insideBuilding(c.tx); bi >= 0 {
		c.txInside = true
		warns = append(warns, appliance.Warning{Code: WarnTxInsideBuilding,
			Message: fmt.Sprintf("The transmitter is inside building %s, below its roof; raise it above the roof.", s.buildings[bi].id)})
	}
	c.specular = math.Sqrt(1 - opt.DiffuseScattering*opt.DiffuseScattering)
	if opt.DiffuseScattering > 0 && !c.txInside {
		c.lit = s.litTiles(c.tx, rxb, opt.DiffractionRangeM, naive)
		c.prepareScatter()
	}
	if opt.Diffraction && !naive {
		c.nearTx = s.edgesNear(c.tx.xy(), opt.DiffractionRangeM)
	}
	if opt.Diffraction && opt.ReflectionDiffraction && opt.MaxReflections >= 1 && !c.txInside {
		c.rd = true
		c.rdTxIndex()
	}
	treeOrder := opt.MaxReflections
	if pointMode && !naive && treeOrder <= 2 {
		c.pairing, treeOrder = true, min(treeOrder, 1)
		rxb.pts = nil // pairOrder2 pairs every first-order node with the receiver's images
	}
	tree, err := s.buildTree(ctx, c.tx, treeOrder, opt.GroundReflection, rxb.lo.Z, rxb.hi.Z, rxb.pts, naive)
	if err != nil {
		return nil, nil, err
	}
	c.tree = tree
	return c, warns, nil
}

// Point traces every path between Tx and Rx. It is a pure function of the
// scene and the request.
func (s *Scene) Point(ctx context.Context, r PointRequest) (Result, error) {
	if err := s.validatePoint(r); err != nil {
		return Result{}, fmt.Errorf("raytrace point: %w", err)
	}
	return s.point(ctx, r, false)
}

// PointNaive is Point without the acceleration structures (every building
// tested for every segment, every surface pair enumerated): the baseline
// of the benchmarks and of the equivalence test.
func (s *Scene) PointNaive(ctx context.Context, r PointRequest) (Result, error) {
	if err := s.validatePoint(r); err != nil {
		return Result{}, fmt.Errorf("raytrace point: %w", err)
	}
	return s.point(ctx, r, true)
}

func (s *Scene) validatePoint(r PointRequest) error {
	if err := r.Validate(); err != nil {
		return err
	}
	v := &appliance.ValidationError{}
	s.checkFrame(v, "tx.pos", r.Tx.Pos)
	s.checkFrame(v, "rx.pos", r.Rx.Pos)
	if v.Len() == 0 {
		tx, rx := s.antennaAt(r.Tx), s.antennaAt(r.Rx)
		if l, lambda := rx.sub(tx).norm(), speedOfLight/(r.FreqMHz*1e6); l < lambda {
			v.Add("rx.pos", "is %.3f m from the transmitter, within one wavelength (%.3f m): the ray model (far field) does not apply", l, lambda)
		}
	}
	return v.Err()
}

// antennaAt is an antenna's position in the frame, its height above the
// ground there.
func (s *Scene) antennaAt(a Antenna) vec3 {
	x, y := s.frame.ToLocal(a.Pos)
	return vec3{x, y, s.groundAt(x, y) + a.HeightM}
}

func (s *Scene) point(ctx context.Context, r PointRequest, naive bool) (Result, error) {
	x, y := s.frame.ToLocal(r.Rx.Pos)
	rx := vec3{x, y, s.groundAt(x, y) + r.Rx.HeightM}
	c, warns, err := s.newCtx(ctx, r.Tx, r.Rx.Pattern, r.FreqMHz, r.Options, rxBounds{lo: rx, hi: rx, pts: []vec2{rx.xy()}}, naive, true)
	if err != nil {
		return Result{}, fmt.Errorf("raytrace point: %w", err)
	}
	w := newWorker(c)
	w.collect = true
	var a accum
	w.receiver(rx, &a)
	res := a.result(r.TxPowerDBm, r.Options.Sum)
	res.Flags = a.flags
	res.Paths = w.paths
	for i := range res.Paths {
		res.Paths[i].PowerDBm = r.TxPowerDBm + res.Paths[i].GainDB
	}
	res.Warnings = append(warns, s.pixelWarnings(a.flags, w.seenIDs)...)
	var cw *appliance.Warning
	if res.Paths, cw = strongestPaths(res.Paths, MaxPointPaths); cw != nil {
		res.Warnings = append(res.Warnings, *cw)
	}
	return res, nil
}

// strongestPaths keeps the n strongest of paths (by GainDB, the earlier
// first among equals) in their order, with a warning when it drops any.
func strongestPaths(paths []Path, n int) ([]Path, *appliance.Warning) {
	if len(paths) <= n {
		return paths, nil
	}
	idx := make([]int, len(paths))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return paths[idx[a]].GainDB > paths[idx[b]].GainDB })
	idx = idx[:n]
	sort.Ints(idx)
	out := make([]Path, n)
	for i, k := range idx {
		out[i] = paths[k]
	}
	return out, &appliance.Warning{Code: WarnPathsTruncated,
		Message: fmt.Sprintf("The answer lists the %d strongest of the %d paths found; the received power, path loss and delay spread count them all.", n, len(paths))}
}

// accum sums one receiver's paths.
type accum struct {
	sum     complex128
	pow     float64
	pt, pt2 float64 // Σ p·τ, Σ p·τ² with τ relative to tau0, seconds
	tau0    float64
	diffuse float64 // power added with a random phase (scattering)
	n       int
	flags   uint8
}

func (a *accum) add(amp complex128, lengthM float64) {
	p := real(amp)*real(amp) + imag(amp)*imag(amp)
	a.sum += amp
	a.pow += p
	tau := lengthM/speedOfLight - a.tau0
	a.pt += p * tau
	a.pt2 += p * tau * tau
	a.n++
}

// addPower adds a contribution of power p and random phase.
func (a *accum) addPower(p, lengthM float64) {
	a.diffuse += p
	a.pow += p
	tau := lengthM/speedOfLight - a.tau0
	a.pt += p * tau
	a.pt2 += p * tau * tau
	a.n++
}

func (a *accum) result(txDBm float64, mode SumMode) Result {
	res := Result{EngineVersion: Version, LOS: a.flags&FlagLOS != 0}
	if a.n == 0 || a.pow == 0 {
		return res
	}
	res.Reachable = true
	cp := real(a.sum)*real(a.sum) + imag(a.sum)*imag(a.sum) + a.diffuse
	res.CoherentPowerDBm = txDBm + 10*math.Log10(cp)
	res.PowerSumDBm = txDBm + 10*math.Log10(a.pow)
	res.ReceivedPowerDBm = res.CoherentPowerDBm
	if mode == SumPower {
		res.ReceivedPowerDBm = res.PowerSumDBm
	}
	res.PathLossDB = txDBm - res.ReceivedPowerDBm
	m := a.pt / a.pow
	v := a.pt2/a.pow - m*m
	if v < 0 {
		v = 0
	}
	res.RMSDelaySpreadNs = math.Sqrt(v) * 1e9
	return res
}

// pixelWarnings turns a receiver's flags into warnings.
func (s *Scene) pixelWarnings(flags uint8, assumed []int32) []appliance.Warning {
	ids := make([]string, 0, len(assumed))
	for _, bi := range assumed {
		ids = append(ids, s.buildings[bi].id)
	}
	return flagWarnings(flags, ids, s.clutter())
}

// clutter is the scene's clutter beyond the extent.
func (s *Scene) clutter() appliance.RaytraceClutter {
	return appliance.RaytraceClutter{HeightM: s.clutterM, Assumed: s.clutterAssumed}
}

// flagWarnings returns the warnings of a receiver's (or a map's) flags;
// assumed names the assumed-height buildings that shaped its paths and
// clutter is the scene's clutter beyond the extent.
func flagWarnings(flags uint8, assumed []string, clutter appliance.RaytraceClutter) []appliance.Warning {
	var w []appliance.Warning
	if flags&FlagAssumedHeight != 0 {
		ids := append([]string(nil), assumed...)
		sort.Strings(ids)
		if len(ids) > 10 {
			ids = append(ids[:10], fmt.Sprintf("and %d more", len(ids)-10))
		}
		var msg string
		if len(ids) > 0 {
			msg = fmt.Sprintf("Buildings with an assumed height (no height or storey count in the source) block or shape the paths: %v.", ids)
		}
		if flags&FlagClutterAssumed != 0 {
			if msg != "" {
				msg += " "
			}
			msg += fmt.Sprintf("The clutter beyond the building layer's edge, %.1f m tall (the layer's median building), attenuates a path and that height is an assumed one.", clutter.HeightM)
		}
		w = append(w, appliance.Warning{Code: WarnAssumedHeights, Message: msg})
	}
	if flags&FlagTerrainVoid != 0 {
		w = append(w, appliance.Warning{Code: WarnTerrainVoid, Message: "A path crosses terrain interpolated across a void of the elevation data."})
	}
	if flags&FlagOutside != 0 {
		if flags&FlagClutter != 0 {
			rests := "buildings' own heights or storey counts"
			if clutter.Assumed {
				rests = "heights assumed by the layer's default rule (no height or storey count in the source)"
			}
			w = append(w, appliance.Warning{Code: WarnClutterBeyondExtent,
				Message: fmt.Sprintf("The path leaves the building layer's extent; the unknown buildings beyond its edge were modelled as clutter %.1f m tall, the layer's median building height, which rests on %s.", clutter.HeightM, rests)})
		} else {
			w = append(w, appliance.Warning{Code: WarnSceneTruncated,
				Message: "The path leaves the building layer's extent; buildings beyond its edge are unknown and were not traced."})
		}
	}
	if flags&FlagInside != 0 {
		w = append(w, appliance.Warning{Code: WarnRxInsideBuilding, Message: "The receiver is inside a building, below its roof."})
	}
	if flags&FlagNoPath != 0 {
		w = append(w, appliance.Warning{Code: WarnNoPath, Message: "No propagation path reaches the receiver with the interactions traced."})
	}
	return w
}

// worker evaluates receivers; it owns scratch space so that the hot path
// allocates nothing (except the path list in point mode).
type worker struct {
	*traceCtx
	pts   [MaxReflections]vec3
	imgs  [MaxReflections]vec3
	surfs [MaxReflections]int32
	// rxSide lists the surfaces facing the receiver with the receiver's
	// images (point mode, second-order pairing)
	rxSide []rxImage
	// rxWalls lists the walls facing the receiver within the range
	// (ScatteringReflections)
	rxWalls []mirrorWall
	rxLegs  []reflLeg // per lit tile, valid where rxStamp is rxGen
	rxStamp []uint32
	rxGen   uint32
	cand    []int32
	blk     []int32 // segBuildings' candidates (markBlockers, transmit)
	// vis memoises, per receiver (stamp = rxGen), which tile centres the
	// receiver sees
	vis paged[visMemo]
	// rdRx lists the walls facing the receiver (reflection–diffraction),
	// rdRxCand those of one edge
	rdRx      []rdWall
	rdRxPairs []rdPair
	rdStamp   []uint32
	rdGen     uint32
	rdVerts   []rdVertex
	stamp     []uint32
	gen       uint32
	paths     []Path
	// seen marks the assumed-height buildings that shaped a path: of one
	// receiver in point mode, of every pixel of the worker in map mode.
	seen    []bool
	seenIDs []int32
}

func newWorker(c *traceCtx) *worker {
	w := &worker{traceCtx: c, stamp: make([]uint32, len(c.s.edges)), seen: make([]bool, len(c.s.buildings))}
	if c.rd {
		w.rdVerts = make([]rdVertex, 0, 12)
	}
	return w
}

func (w *worker) occluded(p, q vec3) bool {
	if w.naive {
		return w.s.occludedNaive(p, q)
	}
	return w.s.occluded(p, q)
}

func (w *worker) markAssumed(bi int32, a *accum) {
	if bi < 0 || !w.s.buildings[bi].assumed {
		return
	}
	a.flags |= FlagAssumedHeight
	if !w.seen[bi] {
		w.seen[bi] = true
		w.seenIDs = append(w.seenIDs, bi)
	}
}

// beginPixel sets a receiver's flags and delay reference and says, by
// FlagNoPath, that nothing can reach it.
func (w *worker) beginPixel(rx vec3, a *accum) {
	s := w.s
	a.tau0 = rx.sub(w.tx).norm() / speedOfLight
	if len(s.buildings) > 0 {
		b := s.bounds
		if w.tx.X < b[0] || w.tx.X > b[2] || w.tx.Y < b[1] || w.tx.Y > b[3] ||
			rx.X < b[0] || rx.X > b[2] || rx.Y < b[1] || rx.Y > b[3] {
			a.flags |= FlagOutside
			if w.opt.ClutterBeyondExtent {
				a.flags |= FlagClutter
			}
		}
	}
	if rx.sub(w.tx).norm() < w.lambda {
		// within a wavelength of the transmitter: no ray answer (Point
		// refuses such a receiver)
		a.flags |= FlagNoPath
	}
	if bi := s.insideBuilding(rx); bi >= 0 {
		a.flags |= FlagInside
		if !w.opt.Transmission {
			a.flags |= FlagNoPath
		}
	}
	if w.txInside && !w.opt.Transmission {
		a.flags |= FlagNoPath
	}
}

// receiver traces every path to rx into a.
func (w *worker) receiver(rx vec3, a *accum) {
	for _, bi := range w.seenIDs {
		w.seen[bi] = false
	}
	w.seenIDs = w.seenIDs[:0]
	w.beginPixel(rx, a)
	if a.flags&FlagNoPath != 0 {
		return
	}
	w.direct(rx, a)
	if !w.txInside {
		w.reflections(rx, a, -1, -1)
		if w.opt.Diffraction {
			w.diffractions(rx, a)
		}
		if len(w.litTiles) > 0 {
			w.scatter(rx, a)
		}
	}
	if a.n == 0 {
		a.flags |= FlagNoPath
	}
}

// polVec is the transmit/receive polarisation vector for direction k.
func (w *worker) polVec(k vec3) vec3 {
	if w.opt.Polarization == PolHorizontal {
		return phiHat(k)
	}
	return thetaHat(k)
}

func gainAmp(p Pattern, d vec3) float64 {
	if p == nil {
		return 1
	}
	az, el := azElDeg(d)
	g := p(az, el)
	if math.IsNaN(g) || math.IsInf(g, 0) {
		return 0
	}
	return math.Pow(10, g/20)
}

// terrainFactor is the amplitude factor of the terrain on segment p→q: the
// knife-edge loss J(ν) (P.526 eq. (31), k = 4/3 Earth bulge) of its most
// obstructing heightfield sample, as engines/fspl computes it.
func (w *worker) terrainFactor(p, q vec3, a *accum) float64 {
	h := w.s.terrain
	maxNu := math.Inf(-1)
	if h != nil {
		maxNu = w.terrainNu(h, p, q, a)
	}
	if w.opt.ClutterBeyondExtent {
		cn := w.clutterNu(p, q)
		// the clutter decides the segment's loss: mark its assumed
		// height (J(ν) is 0 at ν ≤ −0.78)
		if cn > maxNu && w.s.clutterAssumed && radio.KnifeEdgeLossApproxDB(cn) > 0 {
			a.flags |= FlagClutterAssumed | FlagAssumedHeight
		}
		maxNu = max(maxNu, cn)
	}
	if math.IsInf(maxNu, -1) {
		return 1
	}
	return w.knifeEdgeFactor(maxNu)
}

// terrainNu is the largest ν of the heightfield samples on p→q.
func (w *worker) terrainNu(h *Heightfield, p, q vec3, a *accum) float64 {
	d := q.xy().sub(p.xy())
	l := d.norm()
	n := int(l / h.StepM)
	maxNu := math.Inf(-1)
	if n < 2 {
		return maxNu
	}
	twoKA := 2 * radio.EffectiveEarthRadiusM(4.0/3.0)
	for i := 1; i < n; i++ {
		f := float64(i) / float64(n)
		d1 := f * l
		d2 := l - d1
		g, void := h.At(p.X+f*d.X, p.Y+f*d.Y)
		if void {
			a.flags |= FlagTerrainVoid
		}
		ray := p.Z + (q.Z-p.Z)*f
		clear := ray - (g + d1*d2/twoKA)
		if nu := -clear * math.Sqrt(2/w.lambda*(1/d1+1/d2)); nu > maxNu {
			maxNu = nu
		}
	}
	return maxNu
}

// clutterStepM is the sampling step of the clutter beyond the extent,
// metres.
const clutterStepM = 10.0

// clutterNu is the largest ν of the clutter (the ground plus the layer's
// median building height) on the parts of p→q outside the layer's extent,
// sampled every clutterStepM; −Inf when the segment stays inside.
func (w *worker) clutterNu(p, q vec3) float64 {
	s := w.s
	b := s.bounds
	maxNu := math.Inf(-1)
	inside := func(v vec3) bool { return v.X >= b[0] && v.X <= b[2] && v.Y >= b[1] && v.Y <= b[3] }
	if len(s.buildings) == 0 || (inside(p) && inside(q)) {
		return maxNu
	}
	d := q.xy().sub(p.xy())
	l := d.norm()
	n := int(l / clutterStepM)
	for i := 1; i < n; i++ {
		f := float64(i) / float64(n)
		x, y := p.X+f*d.X, p.Y+f*d.Y
		if x >= b[0] && x <= b[2] && y >= b[1] && y <= b[3] {
			continue
		}
		d1 := f * l
		d2 := l - d1
		ray := p.Z + (q.Z-p.Z)*f
		clear := ray - (s.groundAt(x, y) + s.clutterM)
		if nu := -clear * math.Sqrt(2/w.lambda*(1/d1+1/d2)); nu > maxNu {
			maxNu = nu
		}
	}
	return maxNu
}

// knifeEdgeFactor is the amplitude factor of the knife-edge loss J(ν)
// (P.526 eq. (31)), capped at 40 dB.
func (w *worker) knifeEdgeFactor(maxNu float64) float64 {
	j := radio.KnifeEdgeLossApproxDB(maxNu)
	if j == 0 {
		return 1
	}
	if j > 40 {
		j = 40
	}
	return math.Pow(10, -j/20)
}

// direct adds the direct path (or, with Transmission, the path through
// the walls in its way).
func (w *worker) direct(rx vec3, a *accum) {
	d := rx.sub(w.tx)
	l := d.norm()
	if l == 0 {
		return
	}
	k := d.scale(1 / l)
	blocked := w.occluded(w.tx, rx)
	e := along(w.polVec(k), complex(gainAmp(w.txPat, k), 0))
	kind := "los"
	if blocked {
		if !w.opt.Transmission {
			w.markBlockers(w.tx, rx, a)
			return
		}
		var ok bool
		if e, ok = w.transmit(w.tx, rx, e, a); !ok {
			return
		}
		kind = "transmission"
	}
	tf := w.terrainFactor(w.tx, rx, a)
	if !blocked && tf == 1 {
		a.flags |= FlagLOS
	}
	amp := w.finish(e, k, l, tf)
	a.add(amp, l)
	if w.collect {
		w.paths = append(w.paths, w.pathOf(kind, nil, l, k, k, amp))
	}
}

// finish spreads field e over length l, projects it on the receiving
// polarisation for arrival direction k and scales by λ/4π.
func (w *worker) finish(e cvec3, k vec3, l, factor float64) complex128 {
	ph := cmplx.Exp(complex(0, -w.k*l))
	v := e.dot(w.polVec(k)) * ph * complex(factor*gainAmp(w.rxPat, k.scale(-1))*w.lambda/(4*math.Pi*l), 0)
	return v
}

// markBlockers flags assumed-height buildings that block the direct path.
func (w *worker) markBlockers(p, q vec3, a *accum) {
	if w.s.assumed == 0 {
		return
	}
	d := q.sub(p)
	l := d.norm()
	t0, t1 := segEps/l, 1-segEps/l
	if w.naive {
		for i := range w.s.buildings {
			if b := &w.s.buildings[i]; b.assumed && w.s.hitsBuilding(b, p, d, t0, t1) {
				w.markAssumed(int32(i), a)
			}
		}
		return
	}
	w.blk = w.s.segBuildings(w.blk, p, d, t0, t1)
	for _, bi := range w.blk {
		if b := &w.s.buildings[bi]; b.assumed && w.s.hitsBuilding(b, p, d, t0, t1) {
			w.markAssumed(bi, a)
		}
	}
}

// maxCrossings bounds the walls and roofs a transmitted path may cross.
const maxCrossings = 8

// transmit applies the slab transmission of every wall or roof crossed by
// p→q to e.
func (w *worker) transmit(p, q vec3, e cvec3, a *accum) (cvec3, bool) {
	d := q.sub(p)
	k := d.unit()
	n := 0
	// the surfaces of the buildings whose boxes the segment meets, in
	// increasing order (every surface's, naive)
	if w.naive {
		w.blk = w.blk[:0]
		for i := range w.s.buildings {
			w.blk = append(w.blk, int32(i))
		}
	} else {
		w.blk = w.s.segBuildings(w.blk, p, d, 0, 1)
	}
	for _, bi := range w.blk {
		b := &w.s.buildings[bi]
		for si := b.surf0; si < b.surf1; si++ {
			var ok bool
			if e, ok = w.transmitSurface(&w.s.surfaces[si], p, d, k, &n, e, a); !ok {
				return e, false
			}
		}
	}
	return e, true
}

// transmitSurface applies the slab transmission of sf to e where p + t·d,
// t in (0, 1), crosses it, counting the crossing in n; false past
// maxCrossings.
func (w *worker) transmitSurface(sf *surface, p, d, k vec3, n *int, e cvec3, a *accum) (cvec3, bool) {
	den := sf.n.dot(d)
	if den == 0 {
		return e, true
	}
	t := (sf.d - sf.n.dot(p)) / den
	if t <= 0 || t >= 1 {
		return e, true
	}
	x := p.add(d.scale(t))
	if !w.s.onSurface(sf, x) {
		return e, true
	}
	*n++
	if *n > maxCrossings {
		return e, false
	}
	w.markAssumed(sf.bld, a)
	eta := w.etas[sf.mat]
	m := w.s.mats[sf.mat]
	cosT := math.Abs(k.dot(sf.n))
	tTE, tTM := SlabTransmission(eta, cosT, m.ThicknessM, w.lambda)
	ePerp := k.cross(sf.n).unit()
	if ePerp == (vec3{}) {
		ePerp = perpTo(k)
	}
	ePar := ePerp.cross(k)
	e = along(ePerp, tTE*e.dot(ePerp)).add(along(ePar, tTM*e.dot(ePar)))
	return e, true
}

// perpTo returns a unit vector perpendicular to k.
func perpTo(k vec3) vec3 {
	if math.Abs(k.Z) < 0.9 {
		return vec3{0, 0, 1}.cross(k).unit()
	}
	return vec3{1, 0, 0}.cross(k).unit()
}

// onSurface reports whether x (on sf's plane) lies within the surface.
func (s *Scene) onSurface(sf *surface, x vec3) bool {
	switch sf.kind {
	case kindGround:
		return true
	case kindRoof:
		b := &s.buildings[sf.bld]
		if x.X < b.min.X || x.X > b.max.X || x.Y < b.min.Y || x.Y > b.max.Y {
			return false
		}
		return b.polys[sf.poly].contains(x.xy())
	}
	if x.Z < sf.zb || x.Z > sf.zt {
		return false
	}
	d := sf.b.sub(sf.a)
	u := x.xy().sub(sf.a).dot(d) / d.dot(d)
	return u >= 0 && u <= 1
}

// rxImage is a surface facing the receiver and the receiver's image in it.
type rxImage struct {
	surf int32
	img  vec3
}

// reflections evaluates every node of the tree whose region holds rx (or
// only nodes [from, to) when from ≥ 0: the map mode passes one node). A
// point request with at most two reflections pairs the transmitter's
// first-order images with the receiver's instead of walking a second-order
// tree (pairOrder2): the same paths, summed in the same order.
func (w *worker) reflections(rx vec3, a *accum, from, to int) {
	nodes := w.tree.nodes
	if from < 0 && w.pairing {
		w.pairOrder2(rx, a)
		return
	}
	if from < 0 {
		from, to = 0, len(nodes)
	}
	p := rx.xy()
	for i := from; i < to; i++ {
		if nodes[i].reg.contains(p) {
			w.evalNode(int32(i), rx, a)
		}
	}
}

// pairOrder2 evaluates the first-order nodes, then every pair (s1, s2) of
// a first-order transmitter image in s1 and a first-order receiver image
// in s2 whose connecting line crosses both surfaces (loosely: the exact
// test is evalChain's, with the images computed as the tree computes
// them).
func (w *worker) pairOrder2(rx vec3, a *accum) {
	nodes := w.tree.nodes
	p := rx.xy()
	for i := range nodes {
		if nodes[i].reg.contains(p) {
			w.evalNode(int32(i), rx, a)
		}
	}
	if w.opt.MaxReflections < 2 {
		return
	}
	s := w.s
	w.rxSide = w.rxSide[:0]
	for si := range s.surfaces {
		sf := &s.surfaces[si]
		if sf.kind == kindGround && !w.opt.GroundReflection {
			continue
		}
		if sf.facing(rx) {
			w.rxSide = append(w.rxSide, rxImage{surf: int32(si), img: sf.mirror(rx)})
		}
	}
	const loose = 1e-6
	for i := range nodes {
		n1 := &nodes[i]
		s1 := &s.surfaces[n1.surf]
		for _, r := range w.rxSide {
			if r.surf == n1.surf {
				continue
			}
			s2 := &s.surfaces[r.surf]
			if !s2.facing(n1.img) {
				continue
			}
			d := r.img.sub(n1.img)
			den1, den2 := s1.n.dot(d), s2.n.dot(d)
			if den1 == 0 || den2 == 0 {
				continue
			}
			t1 := (s1.d - s1.n.dot(n1.img)) / den1
			t2 := (s2.d - s2.n.dot(n1.img)) / den2
			if !(t1 > -loose && t1 < t2+loose && t2 < 1+loose) {
				continue
			}
			if !s.nearSurface(s1, n1.img.add(d.scale(t1)), 1e-3) || !s.nearSurface(s2, n1.img.add(d.scale(t2)), 1e-3) {
				continue
			}
			w.imgs[0], w.surfs[0] = n1.img, n1.surf
			w.imgs[1], w.surfs[1] = s2.mirror(n1.img), r.surf
			if s2.kind != kindWall {
				w.imgs[1] = vec3{n1.img.X, n1.img.Y, 2*s2.d - n1.img.Z}
			}
			w.evalChain(2, rx, a)
		}
	}
}

// nearSurface is onSurface with a tolerance of tol metres.
func (s *Scene) nearSurface(sf *surface, x vec3, tol float64) bool {
	switch sf.kind {
	case kindGround:
		return true
	case kindRoof:
		b := &s.buildings[sf.bld]
		if x.X < b.min.X-tol || x.X > b.max.X+tol || x.Y < b.min.Y-tol || x.Y > b.max.Y+tol {
			return false
		}
		if b.polys[sf.poly].contains(x.xy()) {
			return true
		}
		for _, r := range b.polys[sf.poly].rings {
			for i, v := range r {
				if distPointSeg(x.xy(), v, r[(i+1)%len(r)]) <= tol {
					return true
				}
			}
		}
		return false
	}
	if x.Z < sf.zb-tol || x.Z > sf.zt+tol {
		return false
	}
	d := sf.b.sub(sf.a)
	l := d.norm()
	u := x.xy().sub(sf.a).dot(d) / l
	return u >= -tol && u <= l+tol
}

// evalNode traces the reflection sequence ending at node ni to rx.
func (w *worker) evalNode(ni int32, rx vec3, a *accum) {
	nodes := w.tree.nodes
	order := int(nodes[ni].order)
	idx := ni
	for k := order - 1; k >= 0; k-- {
		nd := &nodes[idx]
		w.imgs[k] = nd.img
		w.surfs[k] = nd.surf
		idx = nd.parent
	}
	w.evalChain(order, rx, a)
}

// evalChain traces the reflection sequence w.surfs[:order] with the
// transmitter's images w.imgs[:order] to rx.
func (w *worker) evalChain(order int, rx vec3, a *accum) {
	cur := rx
	for k := order - 1; k >= 0; k-- {
		img := w.imgs[k]
		sf := &w.s.surfaces[w.surfs[k]]
		dir := cur.sub(img)
		den := sf.n.dot(dir)
		if den == 0 {
			return
		}
		t := (sf.d - sf.n.dot(img)) / den
		if !(t > 0 && t < 1) {
			return
		}
		x := img.add(dir.scale(t))
		if !w.s.onSurface(sf, x) {
			return
		}
		w.pts[k] = x
		cur = x
	}
	// visibility of every segment, the shortest first
	prev := w.tx
	for k := 0; k <= order; k++ {
		next := rx
		if k < order {
			next = w.pts[k]
		}
		if w.occluded(prev, next) {
			return
		}
		prev = next
	}
	// field
	k0 := w.pts[0].sub(w.tx).unit()
	e := along(w.polVec(k0), complex(gainAmp(w.txPat, k0), 0))
	length := 0.0
	tf := 1.0
	prev = w.tx
	kin := k0
	for k := 0; k < order; k++ {
		x := w.pts[k]
		next := rx
		if k+1 < order {
			next = w.pts[k+1]
		}
		seg := x.sub(prev)
		length += seg.norm()
		tf *= w.terrainFactor(prev, x, a)
		kin = seg.unit()
		kout := next.sub(x).unit()
		sf := &w.s.surfaces[w.surfs[k]]
		e = w.reflect(e, kin, kout, sf)
		w.markAssumed(sf.bld, a)
		prev = x
		kin = kout
	}
	last := rx.sub(prev)
	length += last.norm()
	tf *= w.terrainFactor(prev, rx, a)
	amp := w.finish(e, kin, length, tf)
	a.add(amp, length)
	if w.collect {
		var in []Interaction
		for k := 0; k < order; k++ {
			sf := &w.s.surfaces[w.surfs[k]]
			in = append(in, w.interaction("reflection", surfaceName(sf.kind), sf.bld, w.pts[k]))
		}
		w.paths = append(w.paths, w.pathOf("reflection", in, length, k0, kin, amp))
	}
}

// reflect applies the Fresnel coefficients of surface sf to e for a ray
// arriving along kin and leaving along kout.
func (w *worker) reflect(e cvec3, kin, kout vec3, sf *surface) cvec3 {
	cosT := -kin.dot(sf.n)
	rTE, rTM := Fresnel(w.etas[sf.mat], cosT)
	if sf.kind == kindWall && w.specular != 1 {
		rTE *= complex(w.specular, 0)
		rTM *= complex(w.specular, 0)
	}
	ePerp := kin.cross(sf.n)
	if n := ePerp.norm(); n > 1e-12 {
		ePerp = ePerp.scale(1 / n)
	} else {
		ePerp = perpTo(kin)
	}
	parIn := ePerp.cross(kin)
	parOut := ePerp.cross(kout)
	return along(ePerp, rTE*e.dot(ePerp)).add(along(parOut, rTM*e.dot(parIn)))
}

func surfaceName(k uint8) string {
	switch k {
	case kindGround:
		return "ground"
	case kindRoof:
		return "roof"
	}
	return "wall"
}

func (w *worker) interaction(kind, surf string, bld int32, x vec3) Interaction {
	id := ""
	if bld >= 0 {
		id = w.s.buildings[bld].id
	}
	return Interaction{Kind: kind, Surface: surf, Building: id, Point: w.s.frame.ToLatLon(x.X, x.Y), HeightM: x.Z}
}

func (w *worker) pathOf(kind string, in []Interaction, l float64, kdep, karr vec3, amp complex128) Path {
	p := Path{Kind: kind, Interactions: in, LengthM: l, DelayNs: l / speedOfLight * 1e9,
		FieldRe: real(amp), FieldIm: imag(amp), GainDB: 20 * math.Log10(cmplx.Abs(amp))}
	if p.Interactions == nil {
		p.Interactions = []Interaction{}
	}
	p.DepartureAzDeg, p.DepartureElDeg = azElDeg(kdep)
	p.ArrivalAzDeg, p.ArrivalElDeg = azElDeg(karr.scale(-1))
	return p
}

// diffractions adds first-order diffraction at every edge within
// DiffractionRangeM (2D) of rx.
func (w *worker) diffractions(rx vec3, a *accum) {
	s := w.s
	if len(s.edges) == 0 {
		return
	}
	if w.rd {
		w.rdRx = s.rdWalls(rx, min(w.opt.MaxReflections, 2), w.opt.DiffractionRangeM, w.rdRx[:0])
		if w.rdStamp == nil {
			w.rdStamp = make([]uint32, len(s.edges))
		}
		w.rdRxPairs = s.rdPairs(rx, w.rdRx, w.opt.DiffractionRangeM, w.naive, w.rdStamp, &w.rdGen, w.rdRxPairs)
	}
	if w.naive {
		for ei := range s.edges {
			w.evalEdge(int32(ei), rx, a)
		}
		return
	}
	g := &s.edgeGrid
	rng := w.opt.DiffractionRangeM
	w.gen++
	if w.gen == 0 {
		clear(w.stamp)
		w.gen = 1
	}
	i0, i1 := g.clampX(rx.X-rng), g.clampX(rx.X+rng)
	j0, j1 := g.clampY(rx.Y-rng), g.clampY(rx.Y+rng)
	if rx.X+rng < g.minX || rx.Y+rng < g.minY || rx.X-rng > g.minX+float64(g.nx)*g.cell || rx.Y-rng > g.minY+float64(g.ny)*g.cell {
		j1 = j0 - 1 // no cell near the receiver; the transmitter's edges remain
	}
	for j := j0; j <= j1; j++ {
		for i := i0; i <= i1; i++ {
			c := j*g.nx + i
			for _, ei := range g.items[g.start[c]:g.start[c+1]] {
				if w.stamp[ei] == w.gen {
					continue
				}
				w.stamp[ei] = w.gen
				w.evalEdge(ei, rx, a)
			}
		}
	}
	for _, ei := range w.nearTx {
		if w.stamp[ei] != w.gen {
			w.stamp[ei] = w.gen
			w.evalEdge(ei, rx, a)
		}
	}
}

// edgesNear lists the edges with a point within rangeM (2D) of p, in
// grid order.
func (s *Scene) edgesNear(p vec2, rangeM float64) []int32 {
	g := &s.edgeGrid
	if len(s.edges) == 0 {
		return nil
	}
	seen := make([]bool, len(s.edges))
	var out []int32
	for j := g.clampY(p.Y - rangeM); j <= g.clampY(p.Y+rangeM); j++ {
		for i := g.clampX(p.X - rangeM); i <= g.clampX(p.X+rangeM); i++ {
			c := j*g.nx + i
			for _, ei := range g.items[g.start[c]:g.start[c+1]] {
				if !seen[ei] {
					seen[ei] = true
					ed := &s.edges[ei]
					if distPointSeg(p, ed.p0.xy(), ed.p1.xy()) <= rangeM {
						out = append(out, ei)
					}
				}
			}
		}
	}
	return out
}

// evalEdge adds the paths diffracted by edge ed, if they exist: the
// direct one and, with GroundReflection, those that meet the ground plane
// before the edge, after it, or both (in that order), then, with
// ReflectionDiffraction, those that meet walls (rdEdge).
func (w *worker) evalEdge(ei int32, rx vec3, a *accum) {
	ed := &w.s.edges[ei]
	w.evalEdgeVia(ed, rx, a, false, false)
	if w.opt.GroundReflection {
		w.evalEdgeVia(ed, rx, a, true, false)
		w.evalEdgeVia(ed, rx, a, false, true)
		w.evalEdgeVia(ed, rx, a, true, true)
	}
	if w.rd {
		w.rdEdge(ei, ed, rx, a)
	}
}

// evalEdgeVia adds the path diffracted by edge ed with a ground reflection
// on the transmitter's side (gTx) and/or the receiver's (gRx): the image
// method over the ground plane, the diffraction point by Keller's law
// between the unfolded ends.
func (w *worker) evalEdgeVia(ed *edge, rx vec3, a *accum, gTx, gRx bool) {
	ground := &w.s.surfaces[0]
	gz := ground.d
	dp, ok := w.diffractionPoint(ed, w.tx, rx, gTx, gRx, rx)
	if !ok {
		return
	}
	q, src, dst, phiP, phi := dp.q, dp.src, dp.dst, dp.phiP, dp.phi
	// the ground points (the unfolded segments cross the plane once)
	var g1, g2 vec3
	if gTx {
		g1 = src.add(q.sub(src).scale((gz - src.Z) / (q.Z - src.Z)))
		if w.occluded(g1, q) || w.occluded(w.tx, g1) {
			return
		}
	} else if w.occluded(w.tx, q) {
		return
	}
	if gRx {
		g2 = q.add(dst.sub(q).scale((q.Z - gz) / (q.Z - dst.Z)))
		if w.occluded(q, g2) || w.occluded(g2, rx) {
			return
		}
	} else if w.occluded(q, rx) {
		return
	}
	wd, ok := w.wedge(ed, q, src, dst, phiP, phi)
	if !ok {
		return
	}
	kin, kout := wd.kin, wd.kout
	// incident field at q (without the spherical spreading, added below)
	kdep := kin
	tf := 1.0
	if gTx {
		kdep = g1.sub(w.tx).unit()
		tf *= w.terrainFactor(w.tx, g1, a) * w.terrainFactor(g1, q, a)
	} else {
		tf *= w.terrainFactor(w.tx, q, a)
	}
	e := along(w.polVec(kdep), complex(gainAmp(w.txPat, kdep), 0))
	if gTx {
		e = w.reflect(e, kdep, kin, ground)
	}
	ed2 := wd.field(ed, e)
	karr := kout
	if gRx {
		karr = rx.sub(g2).unit()
		ed2 = w.reflect(ed2, kout, karr, ground)
		tf *= w.terrainFactor(q, g2, a) * w.terrainFactor(g2, rx, a)
	} else {
		tf *= w.terrainFactor(q, rx, a)
	}
	total, spread := wd.spread()
	amp := w.finish(ed2, karr, total, spread*tf)
	a.add(amp, total)
	w.markAssumed(ed.bld, a)
	if w.collect {
		kind := ed.kind()
		var in []Interaction
		if gTx {
			in = append(in, w.interaction("reflection", "ground", -1, g1))
		}
		in = append(in, w.interaction("diffraction", kind, ed.bld, q))
		if gRx {
			in = append(in, w.interaction("reflection", "ground", -1, g2))
		}
		w.paths = append(w.paths, w.pathOf("diffraction", in, total, kdep, karr, amp))
	}
}

// wedgeDiff is the diffraction of one path at an edge: the unfolded
// distances s' (source to q) and s (q to destination), metres, the
// directions in and out, sin β0, and the UTD coefficients of the soft and
// hard components.
type wedgeDiff struct {
	sPrime, sDist float64
	kin, kout     vec3
	sinB          float64
	ds, dh        complex128
}

// wedge returns the diffraction at q on edge ed of the path from src to
// dst (the unfolded ends, phiP and phi their angles around the edge); it
// fails at grazing incidence along the edge.
func (w *worker) wedge(ed *edge, q, src, dst vec3, phiP, phi float64) (wedgeDiff, bool) {
	sp := q.sub(src)
	sPrime := sp.norm()
	kin := sp.scale(1 / sPrime)
	so := dst.sub(q)
	sDist := so.norm()
	kout := so.scale(1 / sDist)
	sinB := ed.e.cross(kin).norm()
	if sinB < 1e-6 {
		return wedgeDiff{}, false
	}
	lDist := sDist * sPrime * sinB * sinB / (sDist + sPrime)
	eta := w.etas[ed.mat]
	wg := Wedge{N: ed.nw, Eta0: eta, EtaN: eta}
	if w.specular != 1 {
		// the walls' faces reflect √(1 − S²) of the field, as in reflect;
		// a roof edge's face 0 is the roof, which scatters nothing
		wg.Rough, wg.SpecN, wg.Spec0 = true, w.specular, w.specular
		if !ed.vertical {
			wg.Spec0 = 1
		}
	}
	ds, dh := WedgeDiffraction(wg, phi, phiP, lDist, w.k, sinB)
	return wedgeDiff{sPrime: sPrime, sDist: sDist, kin: kin, kout: kout, sinB: sinB, ds: ds, dh: dh}, true
}

// field returns the diffracted field of the incident field e (at q,
// without the spreading): its soft and hard components in the edge-fixed
// frames of the incident and diffracted rays times −Ds and −Dh.
func (wd *wedgeDiff) field(ed *edge, e cvec3) cvec3 {
	phiHatI := ed.e.cross(wd.kin).scale(-1 / wd.sinB)
	betaI := wd.kin.cross(phiHatI)
	phiHatD := ed.e.cross(wd.kout)
	phiHatD = phiHatD.scale(1 / phiHatD.norm())
	betaD := wd.kout.cross(phiHatD)
	return along(betaD, -wd.ds*e.dot(betaI)).add(along(phiHatD, -wd.dh*e.dot(phiHatI)))
}

// spread returns the path's unfolded length s' + s, metres, and the
// spreading factor to pass to finish: the amplitude is
// e^{−jk(s'+s)}·√(s'/(s(s+s')))/s', and finish divides by the total
// length, so the factor is relative to 1/(s+s').
func (wd *wedgeDiff) spread() (total, factor float64) {
	total = wd.sPrime + wd.sDist
	return total, math.Sqrt(wd.sPrime/(wd.sDist*total)) / wd.sPrime * total
}

// kind names the edge in a path's interactions.
func (ed *edge) kind() string {
	if ed.vertical {
		return "vertical_edge"
	}
	return "roof_edge"
}

// diffPoint is where a path meets a diffracting edge: the point q, the
// unfolded ends (ground images included) and their angles around the edge
// measured from face 0, radians.
type diffPoint struct {
	q, src, dst vec3
	phiP, phi   float64
}

// diffractionPoint returns where the path from src to dst (each mirrored
// in the ground plane when gSrc, gDst: the image method) meets edge ed by
// Keller's law (equal angles with the edge on both sides, found by
// unfolding the edge line). It fails when that point is outside the edge,
// below the ground with a ground reflection, beyond DiffractionRangeM
// (2D) of both rx and the transmitter, or when either end is not in the
// exterior wedge.
func (w *worker) diffractionPoint(ed *edge, src, dst vec3, gSrc, gDst bool, rx vec3) (diffPoint, bool) {
	gz := w.s.surfaces[0].d
	if gSrc {
		if !(w.tx.Z > gz) {
			return diffPoint{}, false
		}
		src.Z = 2*gz - src.Z
	}
	if gDst {
		if !(rx.Z > gz) {
			return diffPoint{}, false
		}
		dst.Z = 2*gz - dst.Z
	}
	as := src.sub(ed.p0).dot(ed.e)
	ar := dst.sub(ed.p0).dot(ed.e)
	ps := src.sub(ed.p0.add(ed.e.scale(as))).norm()
	pr := dst.sub(ed.p0.add(ed.e.scale(ar))).norm()
	if ps+pr == 0 {
		return diffPoint{}, false
	}
	u := as + (ar-as)*ps/(ps+pr)
	if !(u > 0 && u < ed.length) {
		return diffPoint{}, false
	}
	q := ed.p0.add(ed.e.scale(u))
	if (gSrc || gDst) && !(q.Z > gz) {
		return diffPoint{}, false
	}
	if rx.xy().sub(q.xy()).norm() > w.opt.DiffractionRangeM && w.tx.xy().sub(q.xy()).norm() > w.opt.DiffractionRangeM {
		return diffPoint{}, false
	}
	phiP, okS := ed.angle(src.sub(q))
	phi, okR := ed.angle(dst.sub(q))
	return diffPoint{q: q, src: src, dst: dst, phiP: phiP, phi: phi}, okS && okR
}

// angle returns the angle of direction v (from the edge) measured from
// face 0 around the edge, radians, and whether it lies strictly inside
// the exterior wedge (0, N·π).
func (ed *edge) angle(v vec3) (float64, bool) {
	v = v.sub(ed.e.scale(v.dot(ed.e)))
	x, y := v.dot(ed.t0), v.dot(ed.n0)
	if x == 0 && y == 0 {
		return 0, false
	}
	phi := math.Atan2(y, x)
	if phi < 0 {
		phi += 2 * math.Pi
	}
	const eps = 1e-9
	return phi, phi > eps && phi < ed.nw*math.Pi-eps
}
