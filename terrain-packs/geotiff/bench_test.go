package geotiff_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"linkplan/terrain-packs/geotiff"
)

// BenchmarkDecodeFortaleza decodes the whole 308×413 float32 LZW DEM (69
// strips) from a freshly opened Image, so nothing is cached.
func BenchmarkDecodeFortaleza(b *testing.B) {
	raw := readFile(b, "fortaleza-srtm.tif")
	dst := make([]float64, 308*413)
	b.SetBytes(308 * 413 * 4)
	b.ReportAllocs()
	for b.Loop() {
		img, err := geotiff.Open(bytes.NewReader(raw), int64(len(raw)))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := img.ReadWindow(0, 0, img.Width, img.Height, dst); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeFortalezaAtLoop is the naive baseline: the same full decode
// with one At call per pixel.
func BenchmarkDecodeFortalezaAtLoop(b *testing.B) {
	raw := readFile(b, "fortaleza-srtm.tif")
	dst := make([]float64, 308*413)
	b.SetBytes(308 * 413 * 4)
	b.ReportAllocs()
	for b.Loop() {
		img, err := geotiff.Open(bytes.NewReader(raw), int64(len(raw)))
		if err != nil {
			b.Fatal(err)
		}
		for r := 0; r < img.Height; r++ {
			for c := 0; c < img.Width; c++ {
				v, err := img.At(c, r)
				if err != nil {
					b.Fatal(err)
				}
				dst[r*img.Width+c] = v
			}
		}
	}
}

func randomPixels(n, w, h int) [][2]int {
	rng := rand.New(rand.NewPCG(1, 2))
	p := make([][2]int, n)
	for i := range p {
		p[i] = [2]int{rng.IntN(w), rng.IntN(h)}
	}
	return p
}

// BenchmarkAtRandom reads random pixels of the fortaleza DEM with a warm
// cache (the whole decoded raster, 509 KB, fits the default 32 MiB).
func BenchmarkAtRandom(b *testing.B) {
	img := openFile(b, "fortaleza-srtm.tif", geotiff.Options{})
	readAll(b, img)
	pts := randomPixels(4096, img.Width, img.Height)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		p := pts[i&4095]
		i++
		if _, err := img.At(p[0], p[1]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAtRandomCursor is BenchmarkAtRandom through a Cursor.
func BenchmarkAtRandomCursor(b *testing.B) {
	img := openFile(b, "fortaleza-srtm.tif", geotiff.Options{})
	readAll(b, img)
	cur := img.NewCursor()
	pts := randomPixels(4096, img.Width, img.Height)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		p := pts[i&4095]
		i++
		if _, err := cur.At(p[0], p[1]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAtRandomNoCache is the naive baseline: a cache too small to hold
// more than the last strip, so nearly every random read decodes a strip.
func BenchmarkAtRandomNoCache(b *testing.B) {
	img := openFile(b, "fortaleza-srtm.tif", geotiff.Options{CacheBytes: 1})
	pts := randomPixels(4096, img.Width, img.Height)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		p := pts[i&4095]
		i++
		if _, err := img.At(p[0], p[1]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUTMForward(b *testing.B) {
	p, err := geotiff.NewProjection(31983)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	k := 0.0
	for b.Loop() {
		p.Forward(-23.5+k*1e-7, -46.6)
		k++
	}
}

func BenchmarkUTMInverse(b *testing.B) {
	p, err := geotiff.NewProjection(31983)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	k := 0.0
	for b.Loop() {
		p.Inverse(333000+k*1e-3, 7400000)
		k++
	}
}
