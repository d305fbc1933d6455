package coverage

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sync"

	"linkplan/appliance"
)

// Units hands the radials of a computation to a unit executor (package
// doc, "Units"): in the process or on workers, the map is the same bit
// for bit.
type Units struct {
	Executor appliance.UnitExecutor
	// Unit is the template of every unit: JobID (the map id), Run,
	// TenantID, Tier and Inputs; Kind, Index and Body are set per unit.
	Unit appliance.WorkUnit
	// MaxPixels bounds the pixels of one unit (its body is about 14 and
	// its result 4 bytes a pixel); 0 is DefaultUnitPixels.
	MaxPixels int
}

// DefaultUnitPixels is the default Units.MaxPixels: 65,536 pixels, about
// 256 KiB of result and a quarter second of one core with ITM (the
// cheapest engine per pixel), so that a unit's coordination (about 1 ms
// of CPU over loopback, docs/SCALING.md) stays well under 5 % of it; the
// 50 km map at 90 m (about 950,000 pixels within the radius) is 16 units.
const DefaultUnitPixels = 1 << 16

// maxUnitPixels bounds Units.MaxPixels: a unit's body (at most 15 bytes a
// pixel: a 3-byte delta, the distance and the bearing offset; 7.9 MB at
// this bound) stays under the transport's 8 MiB.
const maxUnitPixels = 1 << 19

// unitRadials splits the radials, in dispatch order, into consecutive runs
// of at most maxPx pixels (at least one radial each).
func unitRadials(p *plan, order []int, maxPx int) [][]int {
	var out [][]int
	var cur []int
	px := 0
	for _, k := range order {
		n := len(p.radials[k].pix)
		if len(cur) > 0 && px+n > maxPx {
			out = append(out, cur)
			cur, px = nil, 0
		}
		cur = append(cur, k)
		px += n
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// runUnits computes the plan's radials as units of u.Executor: every
// radial's pixels and facts are merged into the plan as its unit's result
// arrives, and its index sent on done (the tile and progress loop of run
// reads it as it reads a local radial).
func (s *Service) runUnits(ctx context.Context, p *plan, u *Units, order []int, done chan<- int) error {
	maxPx := u.MaxPixels
	if maxPx <= 0 {
		maxPx = DefaultUnitPixels
	}
	maxPx = min(maxPx, maxUnitPixels)
	groups := unitRadials(p, order, maxPx)
	var rad []byte
	if p.req.Radiator != nil {
		var err error
		if rad, err = p.req.Radiator.MarshalBinary(); err != nil {
			return err
		}
	}
	units := make([]appliance.WorkUnit, len(groups))
	for i, ks := range groups {
		px := 0
		for _, k := range ks {
			px += len(p.radials[k].pix)
		}
		units[i] = u.Unit
		units[i].Index, units[i].Kind, units[i].Body = i, appliance.UnitCoverageRadials, encodeRadialsUnit(p, ks, rad)
		// A result holds 4 bytes a pixel and a few facts a radial; missing
		// tile names (a few bytes) at most one a pixel.
		units[i].MaxResultBytes = 4096 + 256*len(ks) + 24*px
	}
	return u.Executor.Execute(ctx, units, func(i int, res []byte) error {
		if err := applyRadials(p, groups[i], res); err != nil {
			return fmt.Errorf("unit %d: %w", i, err)
		}
		for _, k := range groups[i] {
			p.calibrateRadial(k)
			done <- k
		}
		return nil
	})
}

// The unit body (little-endian):
//
//	version u8 (3)
//	request: tx lat, tx lon, tx height, EIRP, azimuth, beamwidth, frequency,
//	  radius, rx height, resolution, time %, location % (float64 bits each),
//	  engine (uvarint length, bytes), radiator (uvarint length, then
//	  appliance.Radiator.MarshalBinary; length 0: none), exact (u8 0 or 1)
//	grid: west, north, pixel lon, pixel lat (float64 bits), width, height
//	  (uvarint)
//	radials of the sweep n (uvarint), profile step (float64 bits)
//	count of radials (uvarint), then per radial: k (uvarint), pixels m
//	  (uvarint), m pixel indices (uvarint deltas from the previous, the
//	  first from 0), m distances (float64 bits), m bearing offsets (the
//	  sine of each pixel's bearing offset from the radial, float32 bits:
//	  a pixel is computed for the receiver at its centre, package doc
//	  "Pixels")
const radialsUnitVersion = 3

func putF(b []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
}

func encodeRadialsUnit(p *plan, ks []int, rad []byte) []byte {
	px := 0
	for _, k := range ks {
		px += len(p.radials[k].pix)
	}
	b := make([]byte, 0, 160+len(ks)*8+px*15)
	b = append(b, radialsUnitVersion)
	q := p.req
	for _, v := range []float64{q.Tx.Lat, q.Tx.Lon, q.TxHeightM, q.EIRPDBm, q.AzimuthDeg, q.BeamwidthDeg, q.FreqMHz,
		q.RadiusM, q.RxHeightM, q.ResolutionM, q.TimePct, q.LocationPct} {
		b = putF(b, v)
	}
	b = binary.AppendUvarint(b, uint64(len(p.eng.ID())))
	b = append(b, p.eng.ID()...)
	b = binary.AppendUvarint(b, uint64(len(rad)))
	b = append(b, rad...)
	if q.Exact {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	r := p.raster
	for _, v := range []float64{r.West, r.North, r.PixelLonDeg, r.PixelLatDeg} {
		b = putF(b, v)
	}
	b = binary.AppendUvarint(b, uint64(r.Width))
	b = binary.AppendUvarint(b, uint64(r.Height))
	b = binary.AppendUvarint(b, uint64(len(p.radials)))
	b = putF(b, p.stepM)
	b = binary.AppendUvarint(b, uint64(len(ks)))
	for _, k := range ks {
		rd := &p.radials[k]
		b = binary.AppendUvarint(b, uint64(k))
		b = binary.AppendUvarint(b, uint64(len(rd.pix)))
		prev := int32(0)
		for _, x := range rd.pix {
			b = binary.AppendUvarint(b, uint64(x-prev))
			prev = x
		}
		for _, d := range rd.dist {
			b = putF(b, d)
		}
		for _, o := range rd.sinOff {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(o))
		}
	}
	return b
}

// reader decodes a unit body or result; the first error sticks.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("truncated or malformed at %s: %w", what, appliance.ErrInvalid)
	}
}

func (r *reader) u8(what string) byte {
	if r.err != nil || len(r.b) < 1 {
		r.fail(what)
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *reader) uv(what string, max uint64) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 || v > max {
		r.fail(what)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) f64(what string) float64 {
	if r.err != nil || len(r.b) < 8 {
		r.fail(what)
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(r.b))
	r.b = r.b[8:]
	return v
}

func (r *reader) f32(what string) float32 {
	if r.err != nil || len(r.b) < 4 {
		r.fail(what)
		return 0
	}
	v := math.Float32frombits(binary.LittleEndian.Uint32(r.b))
	r.b = r.b[4:]
	return v
}

func (r *reader) str(what string) string {
	return string(r.bytes(what, 1<<16))
}

// bytes reads a uvarint length of at most max and that many bytes.
func (r *reader) bytes(what string, max uint64) []byte {
	n := r.uv(what, max)
	if r.err != nil || uint64(len(r.b)) < n {
		r.fail(what)
		return nil
	}
	b := r.b[:n:n]
	r.b = r.b[n:]
	return b
}

// RunUnit computes a coverage.radials unit (appliance.UnitRunner): the
// radials it lists, swept exactly as a local computation sweeps them, on
// this process's terrain and engines. Its result is applied by the
// appliance that planned it.
func (s *Service) RunUnit(ctx context.Context, u *appliance.WorkUnit) ([]byte, error) {
	if u.Kind != appliance.UnitCoverageRadials {
		return nil, fmt.Errorf("coverage unit: kind %q: %w", u.Kind, appliance.ErrInvalid)
	}
	p, ks, err := s.decodeRadialsUnit(u.Body)
	if err != nil {
		return nil, fmt.Errorf("coverage unit %s: %w", u.Key(), err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	buf := s.rasterBuffer(p.raster.Width * p.raster.Height)
	defer s.putRasterBuffer(buf)
	p.raster.DBm = buf
	for i, k := range ks {
		if i%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if err := s.safeSweep(ctx, p, k); err != nil {
			return nil, err
		}
	}
	return encodeRadialsResult(p, ks), nil
}

// decodeRadialsUnit rebuilds the plan of a unit: the request, the grid,
// and the radials it lists with their pixels and distances (the others
// empty).
func (s *Service) decodeRadialsUnit(body []byte) (*plan, []int, error) {
	r := &reader{b: body}
	if v := r.u8("version"); r.err == nil && v != radialsUnitVersion {
		return nil, nil, fmt.Errorf("unit version %d, this build reads %d: %w", v, radialsUnitVersion, appliance.ErrInvalid)
	}
	var f [12]float64
	for i := range f {
		f[i] = r.f64("request")
	}
	req := Request{Tx: appliance.LatLon{Lat: f[0], Lon: f[1]}, TxHeightM: f[2], EIRPDBm: f[3], AzimuthDeg: f[4], BeamwidthDeg: f[5],
		FreqMHz: f[6], RadiusM: f[7], RxHeightM: f[8], ResolutionM: f[9], TimePct: f[10], LocationPct: f[11]}
	req.Engine = appliance.EngineID(r.str("engine"))
	if rb := r.bytes("radiator", appliance.MaxRadiatorBytes); len(rb) > 0 {
		var rad appliance.Radiator
		if err := rad.UnmarshalBinary(rb); err != nil {
			return nil, nil, err
		}
		req.Radiator = &rad
	}
	switch r.u8("exact") {
	case 0:
	case 1:
		req.Exact = true
	default:
		r.fail("exact")
	}
	ras := &Raster{West: r.f64("grid"), North: r.f64("grid"), PixelLonDeg: r.f64("grid"), PixelLatDeg: r.f64("grid")}
	ras.Width, ras.Height = int(r.uv("width", 1<<20)), int(r.uv("height", 1<<20))
	n := int(r.uv("radials", 1<<24))
	step := r.f64("step")
	count := int(r.uv("count", uint64(n)))
	if r.err != nil {
		return nil, nil, r.err
	}
	if err := req.Validate(); err != nil {
		return nil, nil, err
	}
	if ras.Width*ras.Height > MaxMapPixels || ras.Width <= 0 || ras.Height <= 0 || n <= 0 || !(step > 0) {
		return nil, nil, fmt.Errorf("grid %d×%d, %d radials, step %g m: %w", ras.Width, ras.Height, n, step, appliance.ErrInvalid)
	}
	eng, err := s.engines(req.Engine)
	if err != nil {
		return nil, nil, err
	}
	p := &plan{req: req, raster: ras, eng: eng, stepM: step, radials: make([]radial, n)}
	ks := make([]int, 0, count)
	total := ras.Width * ras.Height
	for range count {
		k := int(r.uv("radial", uint64(n-1)))
		m := int(r.uv("pixels", uint64(total)))
		if r.err != nil {
			return nil, nil, r.err
		}
		if len(r.b) < m*13 || p.radials[k].pix != nil {
			return nil, nil, fmt.Errorf("radial %d: %w", k, appliance.ErrInvalid)
		}
		rd := &p.radials[k]
		rd.bearingDeg = 360 * float64(k) / float64(n)
		rd.pix, rd.dist, rd.sinOff = make([]int32, m), make([]float64, m), make([]float32, m)
		prev := uint64(0)
		for j := range m {
			prev += r.uv("pixel", uint64(total))
			if prev >= uint64(total) {
				r.fail("pixel")
			}
			rd.pix[j] = int32(prev)
		}
		for j := range m {
			rd.dist[j] = r.f64("distance")
		}
		for j := range m {
			o := r.f32("offset")
			if !(o >= -1 && o <= 1) {
				r.fail("offset")
			}
			rd.sinOff[j] = o
			rd.maxSin = max(rd.maxSin, math.Abs(float64(o)))
		}
		if r.err != nil {
			return nil, nil, r.err
		}
		ks = append(ks, k)
	}
	if len(r.b) != 0 {
		return nil, nil, fmt.Errorf("%d bytes after the last radial: %w", len(r.b), appliance.ErrInvalid)
	}
	return p, ks, nil
}

// rasterBuffer returns a raster-sized buffer for RunUnit (Service.buffers
// keeps them by length): a unit writes only its own radials' pixels and
// reads back only those, so a buffer is reused without clearing.
func (s *Service) rasterBuffer(n int) []float32 {
	pool, _ := s.buffers.LoadOrStore(n, &sync.Pool{New: func() any { return make([]float32, n) }})
	return pool.(*sync.Pool).Get().([]float32)
}

func (s *Service) putRasterBuffer(b []float32) {
	if pool, ok := s.buffers.Load(len(b)); ok {
		//lint:ignore SA6002 a slice header (24 bytes) per Put; the pooled buffer itself is large
		pool.(*sync.Pool).Put(b)
	}
}

// The result (little-endian), per radial of the unit in its order:
//
//	k (uvarint), evaluations, no-data missing terrain, no-data outside the
//	envelope, void-filled samples (uvarint); flags u8 (1 profiled, 2 no
//	land cover); longest void span (float64 bits); engine version; the
//	engine's first refusal ("" none); missing tiles (uvarint count, then
//	each); pixel values (uvarint count, then float32 bits each, in the
//	order of the unit's pixels)
func encodeRadialsResult(p *plan, ks []int) []byte {
	px := 0
	for _, k := range ks {
		px += len(p.radials[k].pix)
	}
	b := make([]byte, 0, len(ks)*48+px*4)
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	for _, k := range ks {
		rd := &p.radials[k]
		b = binary.AppendUvarint(b, uint64(k))
		for _, v := range []int{rd.evaluations, rd.noDataMissing, rd.noDataEnvelope, rd.voidSamples} {
			b = binary.AppendUvarint(b, uint64(v))
		}
		var flags byte
		if rd.profiled {
			flags |= 1
		}
		if rd.noLandCover {
			flags |= 2
		}
		b = append(b, flags)
		b = putF(b, rd.voidSpanM)
		str(rd.version)
		env := ""
		if rd.envelopeErr != nil {
			env = rd.envelopeErr.Error()
		}
		str(env)
		b = binary.AppendUvarint(b, uint64(len(rd.missingTiles)))
		for _, t := range rd.missingTiles {
			str(t)
		}
		b = binary.AppendUvarint(b, uint64(len(rd.pix)))
		for _, x := range rd.pix {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(p.raster.DBm[x]))
		}
	}
	return b
}

// applyRadials merges a unit's result into the plan: the pixels and facts
// of radials ks, as the local sweep would have written them.
func applyRadials(p *plan, ks []int, res []byte) error {
	r := &reader{b: res}
	for _, want := range ks {
		k := int(r.uv("radial", uint64(len(p.radials)-1)))
		if r.err == nil && k != want {
			return fmt.Errorf("result for radial %d where radial %d was expected: %w", k, want, appliance.ErrInvalid)
		}
		var c [4]int
		for i := range c {
			c[i] = int(r.uv("counts", math.MaxInt32))
		}
		flags := r.u8("flags")
		span := r.f64("void span")
		version := r.str("version")
		env := r.str("envelope")
		nt := int(r.uv("missing tiles", 1<<16))
		var tiles []string
		for range nt {
			tiles = append(tiles, r.str("missing tile"))
		}
		rd := &p.radials[k]
		m := int(r.uv("values", uint64(len(rd.pix))))
		if r.err != nil {
			return r.err
		}
		if m != len(rd.pix) || len(r.b) < 4*m {
			return fmt.Errorf("radial %d: %d values for %d pixels: %w", k, m, len(rd.pix), appliance.ErrInvalid)
		}
		for _, x := range rd.pix {
			p.raster.DBm[x] = r.f32("value")
		}
		rd.evaluations, rd.noDataMissing, rd.noDataEnvelope, rd.voidSamples = c[0], c[1], c[2], c[3]
		rd.profiled, rd.noLandCover = flags&1 != 0, flags&2 != 0
		rd.voidSpanM, rd.version, rd.missingTiles = span, version, slices.Clip(tiles)
		rd.envelopeErr = nil
		if env != "" {
			rd.envelopeErr = &appliance.UnitError{Msg: env, Kind: appliance.ErrOutsideEnvelope}
		}
	}
	if r.err != nil {
		return r.err
	}
	if len(r.b) != 0 {
		return fmt.Errorf("%d bytes after the last radial: %w", len(r.b), appliance.ErrInvalid)
	}
	return nil
}
