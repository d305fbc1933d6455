package packer

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strings"

	"linkplan/terrain-packs/geotiff"
	"linkplan/terrain-packs/terrain"
)

// isGeoTIFF reports whether path names a GeoTIFF input (.tif, .tiff).
func isGeoTIFF(path string) bool {
	l := strings.ToLower(path)
	return strings.HasSuffix(l, ".tif") || strings.HasSuffix(l, ".tiff")
}

// geoCacheBytes bounds the strip/tile cache of each GeoTIFF a worker has
// open, bytes.
const geoCacheBytes = 16 << 20

// geoSource describes a GeoTIFF input: its footprint and grid. The file is
// opened again for each tile (tile), so memory stays bounded by the
// workers, not by the number of GeoTIFFs.
type geoSource struct {
	path                           string
	epsg                           int
	minLat, minLon, maxLat, maxLon float64 // footprint, degrees
	nativeSPD                      int     // the raster's resolution as samples per degree
}

// openImage opens the GeoTIFF; the caller closes the returned file.
func openImage(path string, epsg int) (*os.File, *geotiff.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("open geotiff: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("open geotiff: %w", err)
	}
	img, err := geotiff.OpenOptions(f, st.Size(), geotiff.Options{DefaultEPSG: epsg, CacheBytes: geoCacheBytes})
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("open geotiff %s: %w", path, err)
	}
	return f, img, nil
}

// openGeoTIFF reads the footprint and grid of a DEM GeoTIFF. epsg is
// assumed when the file has no GeoKeyDirectory.
func openGeoTIFF(path string, epsg int) (*geoSource, error) {
	f, img, err := openImage(path, epsg)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	g := &geoSource{path: path, epsg: epsg,
		minLat: math.Inf(1), minLon: math.Inf(1), maxLat: math.Inf(-1), maxLon: math.Inf(-1)}
	proj, err := img.Projection()
	if err != nil {
		return nil, fmt.Errorf("open geotiff %s: %w", path, err)
	}
	// The footprint: the raster's outline, 64 points per side (exact for
	// geographic rasters, close for projected ones).
	const k = 64
	w, h := float64(img.Width), float64(img.Height)
	for i := 0; i <= k; i++ {
		f := float64(i) / k
		for _, pt := range [4][2]float64{{f * w, 0}, {f * w, h}, {0, f * h}, {w, f * h}} {
			lat, lon, err := img.PixelToLatLon(pt[0], pt[1])
			if err != nil {
				return nil, fmt.Errorf("open geotiff %s: %w", path, err)
			}
			g.minLat, g.maxLat = math.Min(g.minLat, lat), math.Max(g.maxLat, lat)
			g.minLon, g.maxLon = math.Min(g.minLon, lon), math.Max(g.maxLon, lon)
		}
	}
	px := math.Abs(img.Transform.PixelWidth)
	if !proj.Geographic() {
		px /= 111320 // metres per degree of latitude, near enough for a grid choice
	}
	g.nativeSPD = min(max(int(math.Round(1/px)), 1), terrain.MaxSamplesPerDegree)
	return g, nil
}

// tiles returns the one-degree tiles the footprint overlaps (touching an
// edge is not overlapping).
func (g *geoSource) tiles() []terrain.TileID {
	var out []terrain.TileID
	for lat := int(math.Floor(g.minLat)); float64(lat) < g.maxLat; lat++ {
		for lon := int(math.Floor(g.minLon)); float64(lon) < g.maxLon; lon++ {
			if t := (terrain.TileID{Lat: lat, Lon: lon}); t.Valid() {
				out = append(out, t)
			}
		}
	}
	return out
}

// tile resamples the raster onto tile t of a spd grid: each pack sample is
// the bilinear interpolation of the four pixel centres around it (clamped
// to the edge pixels inside the raster's outer edge); samples outside the
// raster, or whose interpolation needs a NoData pixel, are terrain.NoData.
// Heights are rounded to whole metres.
func (g *geoSource) tile(t terrain.TileID, spd int) ([]int16, error) {
	n := spd + 1
	f, img, err := openImage(g.path, g.epsg)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s := make([]int16, n*n)
	for i := range s {
		s[i] = terrain.NoData
	}
	cur := img.NewCursor()
	w, h := img.Width, img.Height
	for r := 0; r < n; r++ {
		lat := float64(t.Lat+1) - float64(r)/float64(spd)
		if lat < g.minLat || lat > g.maxLat {
			continue
		}
		for c := 0; c < n; c++ {
			lon := float64(t.Lon) + float64(c)/float64(spd)
			if lon < g.minLon || lon > g.maxLon {
				continue
			}
			col, row, err := img.LatLonToPixel(lat, lon)
			if err != nil {
				return nil, fmt.Errorf("resample %s: %w", t, err)
			}
			if !(col >= 0 && row >= 0 && col <= float64(w) && row <= float64(h)) {
				continue
			}
			v, ok, err := bilinearPixels(cur, img, col-0.5, row-0.5)
			if err != nil {
				return nil, fmt.Errorf("resample %s: %w", t, err)
			}
			if ok {
				s[r*n+c] = int16(math.Round(math.Min(math.Max(v, -32767), 32767)))
			}
		}
	}
	return s, nil
}

// bilinearPixels interpolates pixel centres at continuous pixel-centre
// coordinates (x, y), clamped into the raster. ok is false when a pixel
// with a non-zero weight is NoData.
func bilinearPixels(cur *geotiff.Cursor, img *geotiff.Image, x, y float64) (float64, bool, error) {
	w, h := img.Width, img.Height
	x = math.Min(math.Max(x, 0), float64(w-1))
	y = math.Min(math.Max(y, 0), float64(h-1))
	c0, r0 := int(x), int(y)
	c1, r1 := min(c0+1, w-1), min(r0+1, h-1)
	fx, fy := x-float64(c0), y-float64(r0)
	pts := [4]struct {
		c, r int
		w    float64
	}{{c0, r0, (1 - fx) * (1 - fy)}, {c1, r0, fx * (1 - fy)}, {c0, r1, (1 - fx) * fy}, {c1, r1, fx * fy}}
	v := 0.0
	for _, p := range pts {
		if p.w == 0 {
			continue
		}
		pv, err := cur.At(p.c, p.r)
		if err != nil {
			if errors.Is(err, geotiff.ErrOutOfBounds) {
				return 0, false, nil
			}
			return 0, false, err
		}
		if img.IsNoData(pv) || math.IsNaN(pv) || math.IsInf(pv, 0) {
			return 0, false, nil
		}
		v += p.w * pv
	}
	return v, true, nil
}
