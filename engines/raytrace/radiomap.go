package raytrace

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sort"
	"sync"

	"linkplan/appliance"
)

// Map computes a radio map. Every pixel equals Point for a receiver at the
// pixel centre, bit for bit, and the map is byte-identical whatever the
// number of workers: each pixel is computed by one worker, its paths
// summed in one fixed order (direct, reflection nodes in tree order,
// diffraction edges in grid order).
func (s *Scene) Map(ctx context.Context, r MapRequest) (MapResult, error) {
	if err := r.Validate(); err != nil {
		return MapResult{}, fmt.Errorf("raytrace map: %w", err)
	}
	x0, y0 := s.frame.ToLocal(r.SouthWest)
	v := &appliance.ValidationError{}
	s.checkFrame(v, "tx.pos", r.Tx.Pos)
	s.checkFrame(v, "south_west", r.SouthWest)
	// the other three corner pixels: the farthest from the origin may be
	// any corner (a map south-east of it reaches farthest at its south-east)
	xe, yn := x0+float64(r.NX-1)*r.StepM, y0+float64(r.NY-1)*r.StepM
	for _, c := range [][2]float64{{xe, y0}, {x0, yn}, {xe, yn}} {
		if math.Hypot(c[0], c[1]) > MaxFrameM {
			s.checkFrame(v, "step_m", s.frame.ToLatLon(c[0], c[1]))
			break
		}
	}
	if err := v.Err(); err != nil {
		return MapResult{}, fmt.Errorf("raytrace map: %w", err)
	}
	zMin, zMax := math.Inf(1), math.Inf(-1)
	if s.terrain == nil {
		zMin, zMax = s.groundZ+r.RxHeightM, s.groundZ+r.RxHeightM
	} else {
		for j := 0; j < r.NY; j++ {
			for i := 0; i < r.NX; i++ {
				z := s.groundAt(x0+float64(i)*r.StepM, y0+float64(j)*r.StepM) + r.RxHeightM
				zMin, zMax = min(zMin, z), max(zMax, z)
			}
		}
	}
	rxb := rxBounds{lo: vec3{x0, y0, zMin}, hi: vec3{x0 + float64(r.NX-1)*r.StepM, y0 + float64(r.NY-1)*r.StepM, zMax}}
	c, warns, err := s.newCtx(ctx, r.Tx, r.RxPattern, r.FreqMHz, r.Options, rxb, false, false)
	if err != nil {
		return MapResult{}, fmt.Errorf("raytrace map: %w", err)
	}
	n := r.NX * r.NY
	out := MapResult{EngineVersion: Version, NX: r.NX, NY: r.NY, ReceivedPowerDBm: make([]float32, n),
		PathLossDB: make([]float32, n), RMSDelaySpreadNs: make([]float32, n), Flags: make([]uint8, n)}
	workers := r.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	// rows are handed out in bands; the band size changes nothing in any
	// pixel (see the function comment)
	const bandRows = 4
	nBands := (r.NY + bandRows - 1) / bandRows
	next := make(chan int, nBands)
	for b := 0; b < nBands; b++ {
		next <- b
	}
	close(next)
	var wg sync.WaitGroup
	errs := make([]error, workers)
	assumedAny := make([][]bool, workers)
	for wi := 0; wi < workers; wi++ {
		wg.Add(1)
		go func(wi int) {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					errs[wi] = fmt.Errorf("raytrace map: %v", p)
				}
			}()
			w := newWorker(c)
			m := &mapBand{w: w, r: &r, x0: x0, y0: y0, acc: make([]accum, bandRows*r.NX), out: &out}
			defer func() { assumedAny[wi] = w.seen }()
			for b := range next {
				if err := ctx.Err(); err != nil {
					errs[wi] = fmt.Errorf("raytrace map: %w", err)
					return
				}
				m.run(b*bandRows, min(r.NY, (b+1)*bandRows))
			}
		}(wi)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return MapResult{}, err
		}
	}
	pw, ids := s.mapWarnings(out.Flags, assumedAny)
	out.RequestWarnings = append([]appliance.Warning{}, warns...)
	out.AssumedBuildings = ids
	out.Clutter = s.clutter()
	out.Warnings = append(warns, pw...)
	return out, nil
}

// mapBand computes bands of rows for one worker.
type mapBand struct {
	w      *worker
	r      *MapRequest
	x0, y0 float64
	acc    []accum
	out    *MapResult
}

func (m *mapBand) rx(i, j int) vec3 {
	x := m.x0 + float64(i)*m.r.StepM
	y := m.y0 + float64(j)*m.r.StepM
	return vec3{x, y, m.w.s.groundAt(x, y) + m.r.RxHeightM}
}

func (m *mapBand) run(j0, j1 int) {
	w, r := m.w, m.r
	nx := r.NX
	acc := m.acc[:(j1-j0)*nx]
	for i := range acc {
		acc[i] = accum{}
	}
	skip := make([]bool, len(acc)) // inside a building or no transmitter
	// direct paths, and the per-pixel preamble of worker.receiver
	for j := j0; j < j1; j++ {
		for i := 0; i < nx; i++ {
			a := &acc[(j-j0)*nx+i]
			rx := m.rx(i, j)
			w.beginPixel(rx, a)
			if a.flags&FlagNoPath != 0 {
				skip[(j-j0)*nx+i] = true
				continue
			}
			w.direct(rx, a)
		}
	}
	if !w.txInside {
		// reflections: each node visits only the pixels of its region
		for ni := range w.tree.nodes {
			nd := &w.tree.nodes[ni]
			for j := j0; j < j1; j++ {
				lo, hi := m.rowRange(&nd.reg, j)
				for i := lo; i <= hi; i++ {
					pi := (j-j0)*nx + i
					if skip[pi] {
						continue
					}
					w.reflections(m.rx(i, j), &acc[pi], ni, ni+1)
				}
			}
		}
		if w.opt.Diffraction {
			for j := j0; j < j1; j++ {
				for i := 0; i < nx; i++ {
					pi := (j-j0)*nx + i
					if skip[pi] {
						continue
					}
					w.diffractions(m.rx(i, j), &acc[pi])
				}
			}
		}
		if len(w.litTiles) > 0 {
			for j := j0; j < j1; j++ {
				for i := 0; i < nx; i++ {
					pi := (j-j0)*nx + i
					if skip[pi] {
						continue
					}
					w.scatter(m.rx(i, j), &acc[pi])
				}
			}
		}
	}
	for j := j0; j < j1; j++ {
		for i := 0; i < nx; i++ {
			pi := (j-j0)*nx + i
			a := &acc[pi]
			if a.n == 0 {
				a.flags |= FlagNoPath
			}
			o := j*nx + i
			res := a.result(r.TxPowerDBm, r.Options.Sum)
			m.out.Flags[o] = a.flags
			if !res.Reachable {
				nan := float32(math.NaN())
				m.out.ReceivedPowerDBm[o], m.out.PathLossDB[o], m.out.RMSDelaySpreadNs[o] = nan, nan, nan
			} else {
				m.out.ReceivedPowerDBm[o] = float32(res.ReceivedPowerDBm)
				m.out.PathLossDB[o] = float32(res.PathLossDB)
				m.out.RMSDelaySpreadNs[o] = float32(res.RMSDelaySpreadNs)
			}
		}
	}
}

// rowRange returns the pixel columns of row j that may lie in region g.
func (m *mapBand) rowRange(g *region, j int) (int, int) {
	nx := m.r.NX
	if g.all {
		return 0, nx - 1
	}
	step := m.r.StepM
	y := m.y0 + float64(j)*step
	lo, hi := math.Inf(-1), math.Inf(1)
	for k := int8(0); k < g.nhp; k++ {
		h := &g.hp[k]
		rest := h.c - h.n.Y*y
		switch {
		case h.n.X > 0:
			lo = max(lo, rest/h.n.X)
		case h.n.X < 0:
			hi = min(hi, rest/h.n.X)
		default:
			if rest > 0 {
				return 0, -1
			}
		}
	}
	if !math.IsInf(g.rHi, 1) {
		dy := y - g.apex.Y
		if math.Abs(dy) > g.rHi {
			return 0, -1
		}
		half := math.Sqrt(g.rHi*g.rHi - dy*dy)
		lo = max(lo, g.apex.X-half)
		hi = min(hi, g.apex.X+half)
	}
	if lo > hi {
		return 0, -1
	}
	i0 := 0
	if !math.IsInf(lo, -1) {
		i0 = max(0, int(math.Floor((lo-m.x0)/step)))
	}
	i1 := nx - 1
	if !math.IsInf(hi, 1) {
		i1 = min(nx-1, int(math.Ceil((hi-m.x0)/step)))
	}
	return i0, i1
}

// mapWarnings summarises the pixel flags.
func (s *Scene) mapWarnings(flags []uint8, assumedAny [][]bool) ([]appliance.Warning, []string) {
	var ids []string
	for bi := range s.buildings {
		for _, a := range assumedAny {
			if a != nil && a[bi] {
				ids = append(ids, s.buildings[bi].id)
				break
			}
		}
	}
	sort.Strings(ids)
	return MapWarnings(flags, ids, s.clutter()), ids
}

// MapWarnings returns the warnings of a map's pixel flags, each with the
// number of pixels it applies to; assumed names the assumed-height
// buildings that shaped a path to any pixel (MapResult.AssumedBuildings).
// A map computed in parts (bands of rows) gets the warnings of the whole
// from its parts' flags and the union of their assumed buildings;
// clutter is the scene's (MapResult.Clutter).
func MapWarnings(flags []uint8, assumed []string, clutter appliance.RaytraceClutter) []appliance.Warning {
	var count [8]int
	for _, f := range flags {
		for b := 0; b < 8; b++ {
			if f&(1<<b) != 0 {
				count[b]++
			}
		}
	}
	var agg uint8
	for b := 1; b < 8; b++ {
		if count[b] > 0 {
			agg |= 1 << b
		}
	}
	ws := flagWarnings(agg, assumed, clutter)
	for i := range ws {
		var n int
		switch ws[i].Code {
		case WarnAssumedHeights:
			n = count[1]
		case WarnTerrainVoid:
			n = count[2]
		case WarnSceneTruncated, WarnClutterBeyondExtent:
			n = count[3]
		case WarnRxInsideBuilding:
			n = count[4]
		case WarnNoPath:
			n = count[5]
		}
		ws[i].Message = fmt.Sprintf("%s (%d of %d pixels)", ws[i].Message, n, len(flags))
	}
	return ws
}

// ReceiversRequest asks for the answers at many receivers of one
// transmitter (a drive test's positions, a list of sites): the image tree
// is built once. Rx[i].Pattern is ignored; RxPattern applies to all.
type ReceiversRequest struct {
	Tx         Antenna
	Rx         []Antenna
	RxPattern  Pattern
	FreqMHz    float64 // MHz
	TxPowerDBm float64 // dBm
	Options    Options
	Workers    int // 0: runtime.GOMAXPROCS
}

// MaxReceivers bounds one ReceiversRequest.
const MaxReceivers = 1 << 20

// maxPrunedReceivers: a ReceiversRequest of at most this many receivers
// builds an image tree of only the last-order nodes that reach one of them
// (buildTree's rxPts); a larger one, whose receivers test every node anyway,
// builds the whole tree.
const maxPrunedReceivers = 256

// Receivers returns one Result per receiver, without the path lists; each
// equals Point's answer for that receiver (paths aside), whatever the
// number of workers.
func (s *Scene) Receivers(ctx context.Context, r ReceiversRequest) ([]Result, error) {
	v := &appliance.ValidationError{}
	validateFreq(v, r.FreqMHz)
	validateAntenna(v, "tx", r.Tx)
	s.checkFrame(v, "tx.pos", r.Tx.Pos)
	if len(r.Rx) == 0 || len(r.Rx) > MaxReceivers {
		v.Add("rx", "must hold 1 to %d receivers, got %d", MaxReceivers, len(r.Rx))
	}
	for i, a := range r.Rx {
		if v.Len() > 10 {
			break
		}
		validateAntenna(v, fmt.Sprintf("rx[%d]", i), a)
		s.checkFrame(v, fmt.Sprintf("rx[%d].pos", i), a.Pos)
	}
	if math.IsNaN(r.TxPowerDBm) || math.IsInf(r.TxPowerDBm, 0) {
		v.Add("tx_power_dbm", "must be finite")
	}
	r.Options.Validate(v)
	if err := v.Err(); err != nil {
		return nil, fmt.Errorf("raytrace receivers: %w", err)
	}
	rxs := make([]vec3, len(r.Rx))
	rxb := rxBounds{lo: vec3{math.Inf(1), math.Inf(1), math.Inf(1)}, hi: vec3{math.Inf(-1), math.Inf(-1), math.Inf(-1)}}
	for i, a := range r.Rx {
		x, y := s.frame.ToLocal(a.Pos)
		rxs[i] = vec3{x, y, s.groundAt(x, y) + a.HeightM}
		rxb.add(rxs[i])
	}
	if len(rxs) <= maxPrunedReceivers {
		rxb.pts = make([]vec2, len(rxs))
		for i, p := range rxs {
			rxb.pts[i] = p.xy()
		}
	}
	c, warns, err := s.newCtx(ctx, r.Tx, r.RxPattern, r.FreqMHz, r.Options, rxb, false, false)
	if err != nil {
		return nil, fmt.Errorf("raytrace receivers: %w", err)
	}
	out := make([]Result, len(rxs))
	workers := r.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	const chunk = 16
	next := make(chan int, (len(rxs)+chunk-1)/chunk)
	for i := 0; i < len(rxs); i += chunk {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for wi := 0; wi < workers; wi++ {
		wg.Add(1)
		go func(wi int) {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					errs[wi] = fmt.Errorf("raytrace receivers: %v", p)
				}
			}()
			w := newWorker(c)
			for i0 := range next {
				if err := ctx.Err(); err != nil {
					errs[wi] = fmt.Errorf("raytrace receivers: %w", err)
					return
				}
				for i := i0; i < min(i0+chunk, len(rxs)); i++ {
					var a accum
					w.receiver(rxs[i], &a)
					res := a.result(r.TxPowerDBm, r.Options.Sum)
					res.Warnings = append(append([]appliance.Warning(nil), warns...), s.pixelWarnings(a.flags, w.seenIDs)...)
					res.Flags = a.flags
					out[i] = res
				}
			}
		}(wi)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
