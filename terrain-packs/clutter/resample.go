package clutter

import (
	"fmt"
	"math"

	"linkplan/appliance"
	"linkplan/terrain-packs/geotiff"
)

// MaxTileSamples is the largest n accepted by ResampleTile (samples per tile
// side); 3601 is one-arc-second SRTM.
const MaxTileSamples = 1 << 13

// MaxVotes is the largest number of source pixels sampled per side of one
// output sample's footprint (MaxVotes² votes at most).
const MaxVotes = 8

// latticeStep is the spacing, in output samples, of the exactly projected
// lattice; positions in between are interpolated bilinearly (error about
// 5 cm for 3″ samples, see the package doc).
const latticeStep = 16

// ClassAtLatLon returns the clutter class of the MapBiomas land-cover pixel
// holding a latitude/longitude (degrees). NoData pixels give Unknown; a point
// outside the raster gives geotiff.ErrOutOfBounds.
func ClassAtLatLon(img *geotiff.Image, latDeg, lonDeg float64) (Class, error) {
	v, err := img.AtLatLon(latDeg, lonDeg)
	if err != nil {
		return Unknown, fmt.Errorf("clutter at (%.6f, %.6f): %w", latDeg, lonDeg, err)
	}
	if img.IsNoData(v) {
		return Unknown, nil
	}
	return FromMapBiomasSample(v), nil
}

// ResampleTile resamples a MapBiomas land-cover raster onto an n×n
// latitude/longitude grid and returns the classes row-major, north row
// first: sample (i, j) lies at latitude latMax − i·(latMax−latMin)/(n−1) and
// longitude lonMin + j·(lonMax−lonMin)/(n−1), degrees, edges included (the
// layout of an SRTM tile and of a terrain-pack tile with n = spd+1).
//
// Each sample stands for the cell of one grid step centred on it. When that
// cell covers less than about 1.5 source pixels the nearest source pixel is
// taken; otherwise k×k points spread over the cell (k = cell size in source
// pixels, rounded, at most MaxVotes) vote and the most frequent class wins.
// Ties go to the class under the cell centre when it is among the tied ones,
// else to the lowest class number. Unknown (NoData, code 27, outside the
// raster) wins only when it holds more than half of the votes. Samples
// outside the raster are Unknown; that is not an error.
func ResampleTile(img *geotiff.Image, latMin, lonMin, latMax, lonMax float64, n int) ([]Class, error) {
	return ResampleTileFunc(img, latMin, lonMin, latMax, lonMax, n, FromMapBiomasSample)
}

// ResampleTileFunc is ResampleTile for any categorical raster: classify maps
// a raster value (as returned by geotiff.Image.At) to a Class. NoData values
// are Unknown without calling classify.
func ResampleTileFunc(img *geotiff.Image, latMin, lonMin, latMax, lonMax float64, n int, classify func(float64) Class) ([]Class, error) {
	if err := checkTile(latMin, lonMin, latMax, lonMax, n); err != nil {
		return nil, fmt.Errorf("resample tile: %w", err)
	}
	if !img.HasTransform {
		return nil, fmt.Errorf("resample tile: %w", geotiff.ErrNoGeoreference)
	}
	proj, err := img.Projection()
	if err != nil {
		return nil, fmt.Errorf("resample tile: %w", err)
	}
	r := resampler{
		img:      img,
		cur:      img.NewCursor(),
		classify: classify,
	}
	if img.Format == geotiff.Uint8 {
		r.lut = new([256]Class)
		for v := range r.lut {
			if !img.IsNoData(float64(v)) {
				r.lut[v] = classify(float64(v))
			}
		}
	}
	r.buildLattice(proj, latMin, lonMin, latMax, lonMax, n)

	// Cell size in source pixels at the tile centre.
	c := float64(n-1) / 2
	c0, r0 := r.pix(c, c)
	ci, ri := r.pix(c+1, c)
	cj, rj := r.pix(c, c+1)
	cell := math.Max(math.Hypot(ci-c0, ri-r0), math.Hypot(cj-c0, rj-r0))
	k := 1
	if cell >= 1.5 {
		k = min(MaxVotes, int(math.Round(cell)))
	}

	out := make([]Class, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			cls, err := r.sample(float64(i), float64(j), k)
			if err != nil {
				return nil, fmt.Errorf("resample tile: sample (%d, %d): %w", i, j, err)
			}
			out[i*n+j] = cls
		}
	}
	return out, nil
}

func checkTile(latMin, lonMin, latMax, lonMax float64, n int) error {
	for _, v := range []float64{latMin, lonMin, latMax, lonMax} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("bounds (%g, %g, %g, %g) not finite: %w", latMin, lonMin, latMax, lonMax, ErrBadTile)
		}
	}
	if !(latMin < latMax && lonMin < lonMax) || latMin < -90 || latMax > 90 || lonMin < -180 || lonMax > 180 {
		return fmt.Errorf("bounds lat %g..%g lon %g..%g: %w", latMin, latMax, lonMin, lonMax, ErrBadTile)
	}
	if n < 2 || n > MaxTileSamples {
		return fmt.Errorf("%d samples per side, want 2..%d: %w", n, MaxTileSamples, ErrBadTile)
	}
	return nil
}

// ErrBadTile means ResampleTile was given empty, inverted or non-finite
// bounds or a sample count outside 2..MaxTileSamples. It matches
// appliance.ErrInvalid.
var ErrBadTile = fmt.Errorf("invalid tile: %w", appliance.ErrInvalid)

type resampler struct {
	img      *geotiff.Image
	cur      *geotiff.Cursor
	classify func(float64) Class
	lut      *[256]Class // for uint8 rasters: class of every value

	// Lattice of exactly projected points: node (a, b) is output grid
	// position (i, j) = (-1 + a·step, -1 + b·step); colAt/rowAt hold its
	// continuous source pixel coordinates.
	m            int // nodes per side
	colAt, rowAt []float64
}

func (r *resampler) buildLattice(proj geotiff.Projection, latMin, lonMin, latMax, lonMax float64, n int) {
	r.m = (n+1+latticeStep-1)/latticeStep + 1
	dLat := (latMax - latMin) / float64(n-1)
	dLon := (lonMax - lonMin) / float64(n-1)
	t := r.img.Transform
	r.colAt = make([]float64, r.m*r.m)
	r.rowAt = make([]float64, r.m*r.m)
	for a := 0; a < r.m; a++ {
		lat := latMax - float64(-1+a*latticeStep)*dLat
		for b := 0; b < r.m; b++ {
			lon := lonMin + float64(-1+b*latticeStep)*dLon
			x, y := proj.Forward(lat, lon)
			r.colAt[a*r.m+b] = (x - t.OriginX) / t.PixelWidth
			r.rowAt[a*r.m+b] = (y - t.OriginY) / t.PixelHeight
		}
	}
}

// pix returns the continuous source pixel coordinates of output grid
// position (fi, fj), interpolated in the lattice.
func (r *resampler) pix(fi, fj float64) (col, row float64) {
	u := (fi + 1) / latticeStep
	v := (fj + 1) / latticeStep
	a := min(max(int(u), 0), r.m-2)
	b := min(max(int(v), 0), r.m-2)
	u -= float64(a)
	v -= float64(b)
	i00, i01 := a*r.m+b, a*r.m+b+1
	i10, i11 := i00+r.m, i01+r.m
	w00, w01, w10, w11 := (1-u)*(1-v), (1-u)*v, u*(1-v), u*v
	col = w00*r.colAt[i00] + w01*r.colAt[i01] + w10*r.colAt[i10] + w11*r.colAt[i11]
	row = w00*r.rowAt[i00] + w01*r.rowAt[i01] + w10*r.rowAt[i10] + w11*r.rowAt[i11]
	return col, row
}

// classAt returns the class of the source pixel holding (col, row).
func (r *resampler) classAt(col, row float64) (Class, error) {
	if !(col >= 0 && row >= 0 && col < float64(r.img.Width) && row < float64(r.img.Height)) {
		return Unknown, nil
	}
	v, err := r.cur.At(int(col), int(row))
	if err != nil {
		return Unknown, err
	}
	if r.lut != nil {
		return r.lut[uint8(v)], nil
	}
	if r.img.IsNoData(v) {
		return Unknown, nil
	}
	return r.classify(v), nil
}

// sample classifies output position (i, j) with k×k votes.
func (r *resampler) sample(i, j float64, k int) (Class, error) {
	col, row := r.pix(i, j)
	centre, err := r.classAt(col, row)
	if err != nil || k == 1 {
		return centre, err
	}
	var votes [NumClasses + 1]int
	for a := 0; a < k; a++ {
		fi := i + (float64(a)+0.5)/float64(k) - 0.5
		for b := 0; b < k; b++ {
			fj := j + (float64(b)+0.5)/float64(k) - 0.5
			c, err := r.classAt(r.pix(fi, fj))
			if err != nil {
				return Unknown, err
			}
			if int(c) < len(votes) {
				votes[c]++
			}
		}
	}
	if 2*votes[Unknown] > k*k {
		return Unknown, nil
	}
	best, bestN := Unknown, 0
	for c := Forest; c <= Other; c++ {
		if votes[c] > bestN {
			best, bestN = c, votes[c]
		}
	}
	if centre != best && centre.Valid() && votes[centre] == bestN {
		best = centre
	}
	return best, nil
}
