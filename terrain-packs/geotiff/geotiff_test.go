package geotiff_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"linkplan/terrain-packs/geotiff"
)

func openFile(tb testing.TB, name string, opts geotiff.Options) *geotiff.Image {
	tb.Helper()
	img, err := openBytes(readFile(tb, name), opts)
	if err != nil {
		tb.Fatalf("open %s: %v", name, err)
	}
	return img
}

func readFile(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func openBytes(b []byte, opts geotiff.Options) (*geotiff.Image, error) {
	return geotiff.OpenOptions(bytes.NewReader(b), int64(len(b)), opts)
}

func readAll(tb testing.TB, img *geotiff.Image) []float64 {
	tb.Helper()
	v, err := img.ReadWindow(0, 0, img.Width, img.Height, nil)
	if err != nil {
		tb.Fatalf("read window: %v", err)
	}
	return v
}

// Fortaleza pixels and values reported by GDAL 3.6.2 (gdallocationinfo
// -valonly), printed with 15 significant digits.
var fortalezaGDAL = []struct {
	col, row int
	want     float64
}{
	{0, 0, 25.9384002685547},
	{307, 412, 5.24114990234375},
	{150, 200, 21.5072994232178},
	{17, 301, 22.5163993835449},
	{255, 33, 22.6515998840332},
	{100, 200, 8.8812198638916},
	{139, 229, 20.9606990814209},
}

func TestFortalezaMatchesGDAL(t *testing.T) {
	img := openFile(t, "fortaleza-srtm.tif", geotiff.Options{})
	t.Run("structure", func(t *testing.T) {
		if img.Width != 308 || img.Height != 413 || img.Format != geotiff.Float32 ||
			img.Compression != geotiff.CompressionLZW || img.Tiled || img.BlockHeight != 6 {
			t.Fatalf("got %d×%d %s %s tiled=%v rows/strip=%d, want 308×413 float32 LZW strips of 6",
				img.Width, img.Height, img.Format, img.Compression, img.Tiled, img.BlockHeight)
		}
		// The file carries no GeoKeyDirectory: the CRS is unknown
		// unless the caller supplies one.
		if img.EPSG != 0 {
			t.Errorf("EPSG = %d, want 0 (no geokeys in file)", img.EPSG)
		}
		if _, err := img.Projection(); !errors.Is(err, geotiff.ErrNoGeoreference) {
			t.Errorf("Projection() error = %v, want ErrNoGeoreference", err)
		}
	})
	t.Run("geotransform", func(t *testing.T) {
		// gdalinfo: Origin = (-38.535276600481481,-3.719166666666666),
		// Pixel Size = (0.000277778481481,-0.000277777777778).
		tr := img.Transform
		const eps = 1e-12 // degrees
		if !img.HasTransform || math.Abs(tr.OriginX+38.535276600481481) > eps || math.Abs(tr.OriginY+3.719166666666666) > eps ||
			math.Abs(tr.PixelWidth-0.000277778481481) > eps || math.Abs(tr.PixelHeight+0.000277777777778) > eps {
			t.Errorf("transform %+v does not match gdalinfo", tr)
		}
	})
	t.Run("nodata", func(t *testing.T) {
		if !img.HasNoData || img.NoData != -3.4e38 {
			t.Fatalf("nodata = %v/%g, want -3.4e38", img.HasNoData, img.NoData)
		}
		if !img.IsNoData(float64(float32(-3.4e38))) {
			t.Errorf("IsNoData(float32(-3.4e38)) = false")
		}
	})
	t.Run("statistics", func(t *testing.T) {
		// GDAL STATISTICS_* metadata: min -0.63658797740936,
		// max 75.87329864502, mean 21.859805062566.
		all := readAll(t, img)
		mn, mx, sum, n := math.Inf(1), math.Inf(-1), 0.0, 0
		for _, v := range all {
			if img.IsNoData(v) {
				continue
			}
			mn, mx, sum, n = math.Min(mn, v), math.Max(mx, v), sum+v, n+1
		}
		if n != 308*413 {
			t.Errorf("valid samples %d, want %d", n, 308*413)
		}
		const eps = 1e-9 // metres
		if math.Abs(mn+0.63658797740936) > eps || math.Abs(mx-75.87329864502) > eps || math.Abs(sum/float64(n)-21.859805062566) > eps {
			t.Errorf("min/max/mean = %.12g/%.12g/%.12g, want -0.63658797740936/75.87329864502/21.859805062566", mn, mx, sum/float64(n))
		}
	})
	for _, c := range fortalezaGDAL {
		t.Run("pixel", func(t *testing.T) {
			got, err := img.At(c.col, c.row)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-c.want) > 1e-12*math.Abs(c.want)+1e-13 {
				t.Errorf("At(%d,%d) = %.15g, GDAL %.15g", c.col, c.row, got, c.want)
			}
		})
	}
}

func TestAmostraMatchesGDAL(t *testing.T) {
	// gdal_translate -of XYZ of amostra_mapbiomas_2020.tif (MapBiomas codes).
	want := []float64{
		33, 33, 33, 33, 33, 33, 33, 33, 33,
		33, 33, 33, 33, 33, 33, 33, 33, 33,
		33, 33, 33, 33, 33, 33, 33, 33, 33,
		12, 33, 33, 33, 3, 3, 33, 33, 33,
		12, 33, 33, 33, 3, 33, 33, 33, 33,
		12, 12, 12, 12, 33, 33, 33, 33, 33,
		12, 12, 12, 33, 33, 33, 33, 33, 33,
		12, 12, 12, 33, 33, 33, 33, 33, 33,
	}
	img := openFile(t, "amostra_mapbiomas_2020.tif", geotiff.Options{})
	if img.Width != 9 || img.Height != 8 || img.Format != geotiff.Uint16 || img.EPSG != 31976 ||
		img.ModelType != geotiff.ModelProjected || img.PixelIsPoint || img.NoData != 65535 {
		t.Fatalf("got %d×%d %s epsg %d model %d point %v nodata %g", img.Width, img.Height, img.Format, img.EPSG, img.ModelType, img.PixelIsPoint, img.NoData)
	}
	tr := img.Transform
	if math.Abs(tr.OriginX-454659.834700517705642) > 1e-6 || math.Abs(tr.OriginY-80399.203393609859631) > 1e-6 ||
		math.Abs(tr.PixelWidth-29.892809838664512) > 1e-9 || math.Abs(tr.PixelHeight+29.892809838665926) > 1e-9 {
		t.Errorf("transform %+v does not match gdalinfo", tr)
	}
	got := readAll(t, img)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("pixel (%d,%d) = %g, GDAL %g", i%9, i/9, got[i], want[i])
		}
	}
}

// Variants written by GDAL 3.6.2 (gdal_translate) from a 40×30 window at
// (100, 200) of fortaleza-srtm.tif and a 64×48 window at (5568, 0) of
// utm_cover_AP_rio_2020.tif; see testdata/PROVENANCE.md. Each must decode to
// the source window under the conversion gdal_translate applied.
func TestVariantsDecodeLikeSource(t *testing.T) {
	fort := openFile(t, "fortaleza-srtm.tif", geotiff.Options{})
	src, err := fort.ReadWindow(100, 200, 40, 30, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Uncompressed copy of the AP window; its class histogram from
	// gdalinfo -hist is 3: 2842, 4: 11, 11: 7, 12: 84 and 128 NoData (27).
	ap := openFile(t, "v_uint8_utm_none.tif", geotiff.Options{})
	apWin := readAll(t, ap)
	hist := map[float64]int{}
	for _, v := range apWin {
		hist[v]++
	}
	if len(hist) != 5 || hist[3] != 2842 || hist[4] != 11 || hist[11] != 7 || hist[12] != 84 || hist[27] != 128 {
		t.Fatalf("AP window histogram %v differs from gdalinfo", hist)
	}
	if apWin[0] != 27 || apWin[len(apWin)-1] != 3 {
		t.Fatalf("AP window corners %g, %g; gdallocationinfo 27, 3", apWin[0], apWin[len(apWin)-1])
	}
	identity := func(v float64) float64 { return v }
	cases := []struct {
		name        string
		file        string
		format      geotiff.SampleFormat
		compression geotiff.Compression
		predictor   int
		tiled       bool
		bigTIFF     bool
		bigEndian   bool
		epsg        int
		pointShift  bool
		noData      float64
		src         []float64
		conv        func(float64) float64
	}{
		{"int16 big-endian tiled deflate predictor 2", "v_int16_be_tiled_deflate_pred2.tif", geotiff.Int16, geotiff.CompressionDeflate, 2, true, false, true, 4326, false, -32768, src, math.Round},
		{"int16 big-endian strips lzw predictor 2", "v_int16_be_lzw_pred2.tif", geotiff.Int16, geotiff.CompressionLZW, 2, false, false, true, 4326, false, -32768, src, math.Round},
		{"float32 bigtiff tiled lzw predictor 3", "v_float32_bigtiff_tiled_lzw_pred3.tif", geotiff.Float32, geotiff.CompressionLZW, 3, true, true, false, 4326, false, float64(float32(-3.4e38)), src, identity},
		{"float32 tiled zstd predictor 3", "v_float32_tiled_zstd_pred3.tif", geotiff.Float32, geotiff.CompressionZSTD, 3, true, false, false, 4326, false, float64(float32(-3.4e38)), src, identity},
		{"float32 pixel-is-point", "v_float32_pixelispoint.tif", geotiff.Float32, geotiff.CompressionLZW, 1, false, false, false, 4326, true, float64(float32(-3.4e38)), src, identity},
		{"float64 big-endian uncompressed", "v_float64_be_none.tif", geotiff.Float64, geotiff.CompressionNone, 1, false, false, true, 4326, false, float64(float32(-3.4e38)), src, identity},
		{"float64 bigtiff deflate predictor 3", "v_float64_bigtiff_deflate_pred3.tif", geotiff.Float64, geotiff.CompressionDeflate, 3, false, true, false, 4326, false, float64(float32(-3.4e38)), src, identity},
		{"uint16 packbits scaled ×100", "v_uint16_packbits.tif", geotiff.Uint16, geotiff.CompressionPackBits, 1, false, false, false, 4326, false, 0, src, func(v float64) float64 { return math.Round(v * 100) }},
		{"int32 deflate predictor 2 scaled", "v_int32_deflate_pred2.tif", geotiff.Int32, geotiff.CompressionDeflate, 2, false, false, false, 4326, false, -2147483648, src, func(v float64) float64 { return math.Round(v*10000 - 100000) }},
		{"uint8 utm uncompressed", "v_uint8_utm_none.tif", geotiff.Uint8, geotiff.CompressionNone, 1, false, false, false, 31976, false, 27, apWin, identity},
		{"uint8 utm tiled packbits", "v_uint8_utm_tiled_packbits.tif", geotiff.Uint8, geotiff.CompressionPackBits, 1, true, false, false, 31976, false, 27, apWin, identity},
		{"uint8 utm lzw predictor 2", "v_uint8_utm_lzw_pred2.tif", geotiff.Uint8, geotiff.CompressionLZW, 2, false, false, false, 31976, false, 27, apWin, identity},
		{"uint8 wgs84 utm tiled deflate", "v_uint8_wgs84utm_tiled_deflate.tif", geotiff.Uint8, geotiff.CompressionDeflate, 1, true, false, false, 32722, false, 27, apWin, identity},
		{"uint8 sparse tiles (nodata 3)", "v_uint8_sparse_nodata3.tif", geotiff.Uint8, geotiff.CompressionDeflate, 1, true, false, false, 31976, false, 3, apWin, identity},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			img := openFile(t, c.file, geotiff.Options{})
			if img.Format != c.format || img.Compression != c.compression || img.Predictor != c.predictor ||
				img.Tiled != c.tiled || img.BigTIFF != c.bigTIFF || img.BigEndian != c.bigEndian || img.EPSG != c.epsg ||
				img.PixelIsPoint != c.pointShift {
				t.Fatalf("got %s %s pred %d tiled %v big %v be %v epsg %d point %v", img.Format, img.Compression,
					img.Predictor, img.Tiled, img.BigTIFF, img.BigEndian, img.EPSG, img.PixelIsPoint)
			}
			if !img.HasNoData || img.NoData != c.noData {
				t.Errorf("nodata %v/%g, want %g", img.HasNoData, img.NoData, c.noData)
			}
			// Same georeference as the source window (GDAL shifts the
			// tiepoint of PixelIsPoint files by half a pixel; reading
			// must undo it).
			ref := fort
			col0, row0 := 100.0, 200.0
			if c.format == geotiff.Uint8 {
				ref, col0, row0 = ap, 0, 0
			}
			wx, wy, _ := ref.PixelToCRS(col0, row0)
			gx, gy, err := img.PixelToCRS(0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(gx-wx) > 1e-9*math.Max(1, math.Abs(wx)) || math.Abs(gy-wy) > 1e-9*math.Max(1, math.Abs(wy)) {
				t.Errorf("origin (%.12g, %.12g), want (%.12g, %.12g)", gx, gy, wx, wy)
			}
			got := readAll(t, img)
			for i, v := range got {
				if want := c.conv(c.src[i]); v != want {
					t.Fatalf("pixel (%d,%d) = %.10g, want %.10g", i%img.Width, i/img.Width, v, want)
				}
			}
			// At agrees with ReadWindow everywhere.
			for i := range got {
				v, err := img.At(i%img.Width, i/img.Width)
				if err != nil || v != got[i] {
					t.Fatalf("At(%d,%d) = %g, %v; ReadWindow %g", i%img.Width, i/img.Width, v, err, got[i])
				}
			}
		})
	}
}

func TestUnsupportedFilesFailClearly(t *testing.T) {
	cases := []struct {
		name string
		file string
		want error
	}{
		{"three bands", "v_3band.tif", geotiff.ErrUnsupported},
		{"lerc compression", "v_float32_lerc.tif", geotiff.ErrUnsupported},
		{"rotated model transformation", "v_rotated.tif", geotiff.ErrUnsupported},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			img, err := openBytes(readFile(t, c.file), geotiff.Options{})
			if !errors.Is(err, c.want) {
				t.Fatalf("open = %v, %v; want %v", img, err, c.want)
			}
			t.Log(err)
		})
	}
}

// patchTag rewrites the inline SHORT value of a tag in a classic little-endian
// TIFF's first IFD.
func patchTag(tb testing.TB, b []byte, tag, value uint16) []byte {
	tb.Helper()
	out := append([]byte(nil), b...)
	le := binary.LittleEndian
	off := le.Uint32(out[4:])
	n := int(le.Uint16(out[off:]))
	for i := 0; i < n; i++ {
		e := out[int(off)+2+12*i:]
		if le.Uint16(e) == tag {
			le.PutUint16(e[8:], value)
			return out
		}
	}
	tb.Fatalf("tag %d not found", tag)
	return nil
}

func TestPatchedFiles(t *testing.T) {
	ap := readFile(t, "v_uint8_wgs84utm_tiled_deflate.tif")
	ref, err := openBytes(ap, geotiff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := readAll(t, ref)
	t.Run("deflate under obsolete code 32946", func(t *testing.T) {
		img, err := openBytes(patchTag(t, ap, 259, 32946), geotiff.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if img.Compression != geotiff.CompressionDeflateOld {
			t.Fatalf("compression %s", img.Compression)
		}
		got := readAll(t, img)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("pixel %d = %g, want %g", i, got[i], want[i])
			}
		}
	})
	t.Run("unknown predictor", func(t *testing.T) {
		_, err := openBytes(patchTag(t, readFile(t, "v_uint8_utm_lzw_pred2.tif"), 317, 7), geotiff.Options{})
		if !errors.Is(err, geotiff.ErrUnsupported) {
			t.Fatalf("err = %v, want ErrUnsupported", err)
		}
	})
	t.Run("floating-point predictor on integers", func(t *testing.T) {
		_, err := openBytes(patchTag(t, readFile(t, "v_uint8_utm_lzw_pred2.tif"), 317, 3), geotiff.Options{})
		if !errors.Is(err, geotiff.ErrFormat) {
			t.Fatalf("err = %v, want ErrFormat", err)
		}
	})
	t.Run("jpeg compression", func(t *testing.T) {
		_, err := openBytes(patchTag(t, ap, 259, 7), geotiff.Options{})
		if !errors.Is(err, geotiff.ErrUnsupported) {
			t.Fatalf("err = %v, want ErrUnsupported", err)
		}
	})
	t.Run("wrong compression gives an error, not garbage", func(t *testing.T) {
		// Deflate data declared as LZW must fail to decode.
		img, err := openBytes(patchTag(t, ap, 259, 5), geotiff.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := img.ReadWindow(0, 0, img.Width, img.Height, nil); !errors.Is(err, geotiff.ErrFormat) {
			t.Fatalf("err = %v, want ErrFormat", err)
		}
	})
	t.Run("non-rotated model transformation", func(t *testing.T) {
		// v_rotated.tif carries a ModelTransformation (GDAL writes one
		// for rotated rasters); zero its rotation terms.
		b := readFile(t, "v_rotated.tif")
		two := make([]byte, 8)
		binary.LittleEndian.PutUint64(two, math.Float64bits(2.0))
		patched := bytes.ReplaceAll(b, two, make([]byte, 8))
		img, err := openBytes(patched, geotiff.Options{})
		if err != nil {
			t.Fatal(err)
		}
		tr := img.Transform
		if tr.OriginX != 454659.8347 || tr.OriginY != 80399.2034 || tr.PixelWidth != 29.89 || tr.PixelHeight != -29.89 {
			t.Errorf("transform %+v", tr)
		}
		if img.EPSG != 31976 {
			t.Errorf("epsg %d", img.EPSG)
		}
	})
	t.Run("block limit", func(t *testing.T) {
		_, err := openBytes(readFile(t, "fortaleza-srtm.tif"), geotiff.Options{MaxBlockBytes: 1000})
		if !errors.Is(err, geotiff.ErrLimit) {
			t.Fatalf("err = %v, want ErrLimit", err)
		}
	})
}

func TestTruncatedFilesFail(t *testing.T) {
	for _, name := range []string{"amostra_mapbiomas_2020.tif", "v_uint8_utm_tiled_packbits.tif", "v_float32_bigtiff_tiled_lzw_pred3.tif"} {
		t.Run(name, func(t *testing.T) {
			b := readFile(t, name)
			ref, err := openBytes(b, geotiff.Options{})
			if err != nil {
				t.Fatal(err)
			}
			want := readAll(t, ref)
			for n := 0; n < len(b); n++ {
				img, err := openBytes(b[:n], geotiff.Options{})
				if err != nil {
					continue
				}
				got, err := img.ReadWindow(0, 0, img.Width, img.Height, nil)
				if err != nil {
					continue
				}
				// A prefix may decode only when every byte it needs is
				// present; then the pixels must be right.
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("prefix %d decodes pixel %d as %g, want %g", n, i, got[i], want[i])
					}
				}
			}
		})
	}
}

func TestAtOutOfBounds(t *testing.T) {
	img := openFile(t, "amostra_mapbiomas_2020.tif", geotiff.Options{})
	for _, p := range [][2]int{{-1, 0}, {0, -1}, {9, 0}, {0, 8}} {
		if _, err := img.At(p[0], p[1]); !errors.Is(err, geotiff.ErrOutOfBounds) {
			t.Errorf("At(%d,%d) err = %v", p[0], p[1], err)
		}
	}
	if _, err := img.ReadWindow(5, 5, 5, 1, nil); !errors.Is(err, geotiff.ErrOutOfBounds) {
		t.Errorf("ReadWindow past edge err = %v", err)
	}
}

func TestCacheStaysBounded(t *testing.T) {
	const budget = 32 << 10 // bytes
	img := openFile(t, "fortaleza-srtm.tif", geotiff.Options{CacheBytes: budget})
	row := make([]float64, img.Width)
	peak := int64(0)
	for r := 0; r < img.Height; r++ {
		if _, err := img.ReadWindow(0, r, img.Width, 1, row); err != nil {
			t.Fatal(err)
		}
		peak = max(peak, img.CachedBytes())
	}
	// One strip is 308×6×4 bytes plus 128 bytes of bookkeeping.
	const strip = 308*6*4 + 128
	if peak > budget+strip || peak < budget-strip {
		t.Errorf("cache peaked at %d bytes, budget %d", peak, budget)
	}
}

func TestConcurrentReadsAgree(t *testing.T) {
	img := openFile(t, "fortaleza-srtm.tif", geotiff.Options{CacheBytes: 128 << 10})
	ref := openFile(t, "fortaleza-srtm.tif", geotiff.Options{})
	want := readAll(t, ref)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cur := img.NewCursor()
			for k := 0; k < 3000; k++ {
				i := (k*7919 + g*104729) % len(want)
				var v float64
				var err error
				if g%2 == 0 {
					v, err = img.At(i%img.Width, i/img.Width)
				} else {
					v, err = cur.At(i%img.Width, i/img.Width)
				}
				if err != nil || v != want[i] {
					errs <- errors.New("concurrent read mismatch")
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}
