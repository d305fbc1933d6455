package geotiff_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"linkplan/terrain-packs/geotiff"
)

// FuzzOpen feeds arbitrary bytes to the parser and decoder: they must never
// panic, and whatever decodes must be self-consistent (At agrees with
// ReadWindow). Seeds are the real files and GDAL-written variants in
// testdata.
func FuzzOpen(f *testing.F) {
	names, err := filepath.Glob("testdata/*.tif")
	if err != nil {
		f.Fatal(err)
	}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		if len(b) > 64<<10 {
			// Keep the big DEM as a seed through its first strips only.
			b = b[:64<<10]
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		img, err := geotiff.OpenOptions(bytes.NewReader(b), int64(len(b)), geotiff.Options{
			CacheBytes: 4 << 20, MaxBlockBytes: 256 << 10, DefaultEPSG: 4326,
		})
		if err != nil {
			return
		}
		if img.Width <= 0 || img.Height <= 0 || img.Width > geotiff.MaxDimension || img.Height > geotiff.MaxDimension {
			t.Fatalf("bad dimensions %d×%d", img.Width, img.Height)
		}
		w, h := min(img.Width, 16), min(img.Height, 16)
		win, err := img.ReadWindow(0, 0, w, h, nil)
		for i := 0; i < w*h; i++ {
			v, aerr := img.At(i%w, i/w)
			if err == nil && aerr == nil && !(v == win[i] || v != v && win[i] != win[i]) {
				t.Fatalf("At(%d,%d) = %g, ReadWindow %g", i%w, i/w, v, win[i])
			}
		}
		_, _ = img.At(img.Width-1, img.Height-1)
		if img.HasTransform {
			c, r, err := img.LatLonToPixel(-3.7, -38.5)
			_, _, _ = c, r, err
			_, _ = img.AtLatLon(-3.7, -38.5)
		}
	})
}
