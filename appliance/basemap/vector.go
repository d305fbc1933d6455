package basemap

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"slices"

	"github.com/klauspost/compress/zstd"
	"github.com/paulmach/orb"
	orbclip "github.com/paulmach/orb/clip"
	"github.com/paulmach/orb/encoding/mvt"
	"github.com/paulmach/protoscan"
	"golang.org/x/image/vector"

	"linkplan/appliance/basemap/pmtiles"
)

// Bounds of the vector tile renderer (vector.go). A tile beyond one is
// not drawn: its render is an error matching ErrVectorTile.
const (
	// MaxVectorTileBytes bounds one decompressed MVT tile, bytes.
	MaxVectorTileBytes = 4 << 20
	// MaxVectorFeatures bounds the features of the drawn layers of one
	// tile (counted before anything is decoded).
	MaxVectorFeatures = 100_000
	// MaxVectorVertices bounds the vertices drawn into one tile (stroke
	// outlines and dashes included).
	MaxVectorVertices = 2_000_000
	// MaxOverzoom is how many zooms beyond the archive's largest are drawn
	// from its deepest tiles (crisp lines where a raster would be scaled).
	MaxOverzoom = 6
	// MaxTileLabels bounds the labels answered for one tile.
	MaxTileLabels = 200
)

// vectorRenderVersion names the vector renderer's output and style: it is
// part of the rendered tiles' ETag.
const vectorRenderVersion = "v2"

// ErrVectorTile marks a vector tile that cannot be drawn: not MVT, broken,
// or beyond a bound of the renderer.
var ErrVectorTile = errors.New("vector tile not drawable")

// VectorStats count what one render drew and skipped.
type VectorStats struct {
	// Layers is the number of layers in the tile; SkippedLayers the names
	// of those the style does not draw (sorted).
	Layers        int
	SkippedLayers []string
	// Features drawn, and those of drawn layers that the style skips (an
	// unknown class, below the paint's zoom, or a point).
	Features, SkippedFeatures int
	// Vertices drawn (stroke outlines included).
	Vertices int
}

// inflate decompresses a stored tile, at most MaxVectorTileBytes.
func inflate(b []byte, c pmtiles.Compression, zdec *zstd.Decoder) ([]byte, error) {
	if (c == pmtiles.CompressionNone || c == pmtiles.CompressionUnknown) && len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b {
		c = pmtiles.CompressionGzip // stored gzipped without saying so
	}
	switch c {
	case pmtiles.CompressionNone, pmtiles.CompressionUnknown:
		if len(b) > MaxVectorTileBytes {
			return nil, fmt.Errorf("%d bytes, more than %d: %w", len(b), MaxVectorTileBytes, ErrVectorTile)
		}
		return b, nil
	case pmtiles.CompressionGzip:
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("gzip: %v: %w", err, ErrVectorTile)
		}
		out, err := io.ReadAll(io.LimitReader(zr, MaxVectorTileBytes+1))
		if err != nil {
			return nil, fmt.Errorf("gzip: %v: %w", err, ErrVectorTile)
		}
		if len(out) > MaxVectorTileBytes {
			return nil, fmt.Errorf("decompresses to more than %d bytes: %w", MaxVectorTileBytes, ErrVectorTile)
		}
		return out, nil
	case pmtiles.CompressionZstd:
		if zdec == nil {
			return nil, fmt.Errorf("zstd: no decoder: %w", ErrVectorTile)
		}
		out, err := zdec.DecodeAll(b, nil)
		if err != nil {
			return nil, fmt.Errorf("zstd: %v: %w", err, ErrVectorTile)
		}
		if len(out) > MaxVectorTileBytes {
			return nil, fmt.Errorf("decompresses to %d bytes, more than %d: %w", len(out), MaxVectorTileBytes, ErrVectorTile)
		}
		return out, nil
	}
	return nil, fmt.Errorf("tile compression %s: %w", c, ErrVectorTile)
}

// selectLayers scans the layers of an MVT tile without decoding their
// features and returns a tile of the layers keep accepts (their bytes
// copied as they are), the names of the others, and the number of
// layers; the kept layers' features are counted against
// MaxVectorFeatures.
func selectLayers(b []byte, keep func(string) bool) (sub []byte, skipped []string, layers int, err error) {
	msg := protoscan.New(b)
	inner := protoscan.New(nil)
	features := 0
	for msg.Next() {
		if msg.FieldNumber() != 3 || msg.WireType() != protoscan.WireTypeLengthDelimited {
			msg.Skip()
			continue
		}
		data, err := msg.MessageData()
		if err != nil {
			return nil, nil, 0, fmt.Errorf("layer %d: %v: %w", layers, err, ErrVectorTile)
		}
		layers++
		inner.Reset(data)
		name, n := "", 0
		for inner.Next() {
			switch {
			case inner.FieldNumber() == 1 && inner.WireType() == protoscan.WireTypeLengthDelimited:
				if name, err = inner.String(); err != nil {
					return nil, nil, 0, fmt.Errorf("layer %d name: %v: %w", layers, err, ErrVectorTile)
				}
			case inner.FieldNumber() == 2:
				n++
				inner.Skip()
			default:
				inner.Skip()
			}
		}
		if err := inner.Err(); err != nil {
			return nil, nil, 0, fmt.Errorf("layer %q: %v: %w", name, err, ErrVectorTile)
		}
		if !keep(name) {
			skipped = append(skipped, name)
			continue
		}
		if features += n; features > MaxVectorFeatures {
			return nil, nil, 0, fmt.Errorf("more than %d features: %w", MaxVectorFeatures, ErrVectorTile)
		}
		sub = append(sub, 0x1a)
		sub = appendUvarint(sub, uint64(len(data)))
		sub = append(sub, data...)
	}
	if err := msg.Err(); err != nil {
		return nil, nil, 0, fmt.Errorf("tile: %v: %w", err, ErrVectorTile)
	}
	slices.Sort(skipped)
	return sub, slices.Compact(skipped), layers, nil
}

func appendUvarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// recoverVector turns a panic of the decoders on a broken tile into an
// error matching ErrVectorTile.
func recoverVector(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("vector tile: %v: %w", r, ErrVectorTile)
	}
}

// decodeLayers decodes the selected layers with orb's MVT decoder; a panic
// of the decoder on a broken tile is an error.
func decodeLayers(sub []byte) (ls mvt.Layers, err error) {
	if len(sub) == 0 {
		return nil, nil
	}
	defer func() {
		if r := recover(); r != nil {
			ls, err = nil, fmt.Errorf("decode: %v: %w", r, ErrVectorTile)
		}
	}()
	ls, err = mvt.Unmarshal(sub)
	if err != nil {
		return nil, fmt.Errorf("decode: %v: %w", err, ErrVectorTile)
	}
	for _, l := range ls {
		if l.Extent == 0 || l.Extent > 1<<20 {
			return nil, fmt.Errorf("layer %q: extent %d: %w", l.Name, l.Extent, ErrVectorTile)
		}
	}
	return ls, nil
}

// view maps a source tile's coordinates (0..extent) to the pixels of the
// drawn tile: t is the source tile itself, or one of its descendants
// (overzoom).
type view struct {
	side       float64 // pixels of the drawn tile's side
	k          float64 // 2^(t.Z − src.Z)
	offX, offY float64 // the drawn tile's position within the source, in drawn tiles
}

func newView(src, t Tile, scale int) view {
	dz := t.Z - src.Z
	k := 1 << dz
	return view{side: float64(TileSizePx * scale), k: float64(k), offX: float64(t.X - src.X*k), offY: float64(t.Y - src.Y*k)}
}

// unit is the number of source coordinates per drawn pixel in a layer of
// extent e.
func (v view) unit(e uint32) float64 { return float64(e) / (v.k * v.side) }

func (v view) px(p orb.Point, e uint32) (float32, float32) {
	u := v.unit(e)
	return float32(p[0]/u - v.offX*v.side), float32(p[1]/u - v.offY*v.side)
}

// clipBound is the drawn tile plus a margin of m pixels, in source
// coordinates of extent e.
func (v view) clipBound(e uint32, m float64) orb.Bound {
	u := v.unit(e)
	return orb.Bound{Min: orb.Point{(v.offX*v.side - m) * u, (v.offY*v.side - m) * u},
		Max: orb.Point{(v.offX*v.side + v.side + m) * u, (v.offY*v.side + v.side + m) * u}}
}

// item is one feature to draw.
type item struct {
	g      orb.Geometry
	extent uint32
}

// canvas draws paths on the tile and counts their vertices.
type canvas struct {
	z        *vector.Rasterizer
	v        view
	vertices int
	empty    bool // no path since the last Reset
}

func (c *canvas) add(n int) error {
	if c.vertices += n; c.vertices > MaxVectorVertices {
		return fmt.Errorf("more than %d vertices: %w", MaxVectorVertices, ErrVectorTile)
	}
	c.empty = false
	return nil
}

// fillRing adds one ring (outer or hole: the rasteriser's winding rule
// leaves holes of the opposite orientation empty).
func (c *canvas) fillRing(r orb.Ring, e uint32) error {
	if len(r) < 3 {
		return nil
	}
	if err := c.add(len(r)); err != nil {
		return err
	}
	x, y := c.v.px(r[0], e)
	c.z.MoveTo(x, y)
	for _, p := range r[1:] {
		x, y := c.v.px(p, e)
		c.z.LineTo(x, y)
	}
	c.z.ClosePath()
	return nil
}

// stroke adds the outline of a line of width w pixels: a quadrilateral
// per segment and, when wide enough to show, an octagon at each vertex
// (round joins and caps). All are wound the same way, so overlaps do not
// cancel (TestStrokeNoHoles).
func (c *canvas) stroke(pts [][2]float32, w float64) error {
	hw := float32(w / 2)
	joins := w >= 1.5
	n := 4 * len(pts)
	if joins {
		n += 8 * len(pts)
	}
	if err := c.add(n); err != nil {
		return err
	}
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		dx, dy := b[0]-a[0], b[1]-a[1]
		l := float32(math.Hypot(float64(dx), float64(dy)))
		if l == 0 {
			continue
		}
		nx, ny := -dy/l*hw, dx/l*hw
		c.z.MoveTo(a[0]+nx, a[1]+ny)
		c.z.LineTo(b[0]+nx, b[1]+ny)
		c.z.LineTo(b[0]-nx, b[1]-ny)
		c.z.LineTo(a[0]-nx, a[1]-ny)
		c.z.ClosePath()
	}
	if joins {
		// The octagon circumscribes the circle of radius hw, so that its
		// flat sides leave no sliver of the casing below showing inside a
		// turn; its corners stand out by 8 % of hw.
		// It is walked with decreasing angles, the winding of the
		// segments' quadrilaterals: the other way, the two would cancel
		// where they overlap and leave a hole at every vertex.
		r := hw / float32(math.Cos(math.Pi/8))
		for _, p := range pts {
			c.z.MoveTo(p[0]+r*octagon[0][0], p[1]-r*octagon[0][1])
			for k := 1; k < 8; k++ {
				c.z.LineTo(p[0]+r*octagon[k][0], p[1]-r*octagon[k][1])
			}
			c.z.ClosePath()
		}
	}
	return nil
}

// octagon holds cos and sin of 22.5° + k·45°.
var octagon = func() (o [8][2]float32) {
	for k := range o {
		a := math.Pi/8 + float64(k)*math.Pi/4
		o[k] = [2]float32{float32(math.Cos(a)), float32(math.Sin(a))}
	}
	return o
}()

// dashes cuts a line (pixels) into its dashes of on pixels every on+off;
// false when the dashes would have more than budget points.
func dashes(pts [][2]float32, on, off float32, budget int) ([][][2]float32, bool) {
	var out [][][2]float32
	var cur [][2]float32
	total := 0
	pos, drawing := float32(0), true // position within the current dash or gap
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		dx, dy := b[0]-a[0], b[1]-a[1]
		l := float32(math.Hypot(float64(dx), float64(dy)))
		t := float32(0)
		if drawing && len(cur) == 0 {
			cur = append(cur, a)
		}
		for l > 0 && t < l {
			span := on
			if !drawing {
				span = off
			}
			step := min(span-pos, l-t)
			if step <= 0 && pos < span {
				break // rounding: the segment is done
			}
			t += step
			pos += step
			p := [2]float32{a[0] + dx*t/l, a[1] + dy*t/l}
			if drawing {
				cur = append(cur, p)
				if total++; total > budget {
					return nil, false
				}
			}
			if pos >= span {
				pos = 0
				if drawing {
					out = append(out, cur)
					cur = nil
				} else {
					cur = [][2]float32{p}
				}
				drawing = !drawing
			}
		}
	}
	if len(cur) > 1 {
		out = append(out, cur)
	}
	return out, true
}

// line adds line ls with the pass's width and dash.
func (c *canvas) line(ls orb.LineString, e uint32, w float64, dash [2]float64) error {
	if len(ls) < 2 {
		return nil
	}
	if err := c.add(len(ls)); err != nil {
		return err
	}
	pts := make([][2]float32, len(ls))
	for i, p := range ls {
		x, y := c.v.px(p, e)
		pts[i] = [2]float32{x, y}
	}
	if dash[0] <= 0 {
		return c.stroke(pts, w)
	}
	ds, ok := dashes(pts, float32(dash[0]), float32(dash[1]), MaxVectorVertices-c.vertices)
	if !ok {
		return fmt.Errorf("more than %d vertices: %w", MaxVectorVertices, ErrVectorTile)
	}
	for _, d := range ds {
		if err := c.stroke(d, w); err != nil {
			return err
		}
	}
	return nil
}

// vectorRender is one render's input.
type vectorRender struct {
	src, t Tile // the archive's tile and the drawn one (src itself or a descendant)
	scale  int  // 1: 256 pixels, 2: 512
	check  func() error
	// decodeAll decodes every layer, drawn or not (the naive baseline of
	// BenchmarkRenderVectorTileNaive).
	decodeAll bool
}

// renderVector draws the decompressed MVT tile b as an opaque RGBA image
// of the style.
func renderVector(b []byte, r vectorRender) (img *image.RGBA, st VectorStats, err error) {
	defer recoverVector(&err)
	sub, skipped, n, err := selectLayers(b, func(name string) bool { return r.decodeAll || drawnLayers[name] })
	if err != nil {
		return nil, st, err
	}
	st.Layers, st.SkippedLayers = n, skipped
	ls, err := decodeLayers(sub)
	if err != nil {
		return nil, st, err
	}
	if r.scale < 1 {
		r.scale = 1
	}
	v := newView(r.src, r.t, r.scale)
	side := TileSizePx * r.scale
	// The widest line, with its casing, sets the clipping margin.
	margin := 2.0
	widths := [nPaints]float64{}
	for p := range nPaints {
		s := styles[p]
		widths[p] = s.width.at(r.t.Z) * float64(r.scale)
		margin = max(margin, widths[p]/2+s.casingPx*float64(r.scale)+2)
	}
	var buckets [nPaints][]item
	for _, l := range ls {
		inner := v.clipBound(l.Extent, margin)
		for _, f := range l.Features {
			if f == nil || f.Geometry == nil {
				st.SkippedFeatures++
				continue
			}
			pt, ok := classify(l.Name, f.Properties, f.Geometry, r.t.Z)
			if !ok {
				st.SkippedFeatures++
				continue
			}
			g := f.Geometry
			if bd := g.Bound(); !inner.Contains(bd.Min) || !inner.Contains(bd.Max) {
				if !bd.Intersects(inner) {
					continue // wholly outside the drawn tile (an overzoomed part of the source)
				}
				if g = orbclip.Geometry(inner, g); g == nil {
					continue
				}
			}
			st.Features++
			buckets[pt] = append(buckets[pt], item{g: g, extent: l.Extent})
		}
	}
	dst := image.NewRGBA(image.Rect(0, 0, side, side))
	fillRect(dst, LandColor)
	c := &canvas{z: vector.NewRasterizer(side, side), v: v}
	for _, ps := range passes {
		items := buckets[ps.p]
		s := styles[ps.p]
		col := s.line
		if s.fill.A > 0 {
			col = s.fill
		}
		if ps.casing {
			col = s.casing
		}
		if len(items) == 0 || col.A == 0 {
			continue
		}
		if r.check != nil {
			if err := r.check(); err != nil {
				return nil, st, err
			}
		}
		c.z.Reset(side, side)
		c.empty = true
		w := widths[ps.p]
		if ps.casing {
			w += 2 * s.casingPx * float64(r.scale)
		}
		dash := [2]float64{s.dash[0] * float64(r.scale), s.dash[1] * float64(r.scale)}
		for _, it := range items {
			if err := c.geometry(it, s.fill.A > 0, w, dash); err != nil {
				return nil, st, err
			}
		}
		if !c.empty {
			c.z.Draw(dst, dst.Bounds(), image.NewUniform(col), image.Point{})
		}
	}
	st.Vertices = c.vertices
	return dst, st, nil
}

// geometry adds one feature: polygons filled (fill true), lines stroked.
func (c *canvas) geometry(it item, fill bool, w float64, dash [2]float64) error {
	switch g := it.g.(type) {
	case orb.Polygon:
		if fill {
			for _, r := range g {
				if err := c.fillRing(r, it.extent); err != nil {
					return err
				}
			}
		}
	case orb.MultiPolygon:
		if fill {
			for _, p := range g {
				for _, r := range p {
					if err := c.fillRing(r, it.extent); err != nil {
						return err
					}
				}
			}
		}
	case orb.LineString:
		if !fill {
			return c.line(g, it.extent, w, dash)
		}
	case orb.MultiLineString:
		if !fill {
			for _, ls := range g {
				if err := c.line(ls, it.extent, w, dash); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func fillRect(dst *image.RGBA, c color.NRGBA) {
	for i := 0; i < len(dst.Pix); i += 4 {
		dst.Pix[i], dst.Pix[i+1], dst.Pix[i+2], dst.Pix[i+3] = c.R, c.G, c.B, c.A
	}
}

// encodePNG writes img with enc.
func encodePNG(enc *png.Encoder, img image.Image) ([]byte, error) {
	var buf bytes.Buffer
	if err := enc.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("encode PNG: %w", err)
	}
	return buf.Bytes(), nil
}
