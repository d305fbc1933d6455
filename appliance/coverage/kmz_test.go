package coverage

import (
	"archive/zip"
	"bytes"
	"context"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"linkplan/appliance/tooltest"
)

func TestWriteKMZ(t *testing.T) {
	svc, _, _ := newService(t)
	req := tijuca()
	req.RadiusM = 3000
	res, err := svc.Compute(context.Background(), req, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteKMZ(&buf, res.Raster, "Tijuca", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), nil); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		files[f.Name], _ = io.ReadAll(rc)
		rc.Close()
	}
	doc := string(files["doc.kml"])
	for _, s := range []string{"<GroundOverlay>", "<href>map.png</href>", "<LatLonBox>", "−65 dBm"} {
		if !strings.Contains(doc, s) {
			t.Errorf("doc.kml lacks %q", s)
		}
	}
	img, err := png.Decode(bytes.NewReader(files["map.png"]))
	if err != nil {
		t.Fatal(err)
	}
	r := res.Raster
	if b := img.Bounds(); b.Dx() != r.Width || b.Dy() != r.Height {
		t.Fatalf("png %v, raster %d×%d", b, r.Width, r.Height)
	}
	// Every pixel has its legend colour; no-data is transparent.
	for i, v := range r.DBm {
		_, _, _, a := img.At(i%r.Width, i/r.Width).RGBA()
		if (v != v || float64(v) < -105) != (a == 0) {
			t.Fatalf("pixel %d (%v dBm) alpha %d", i, v, a)
		}
	}
	tooltest.Need(t, "gdalinfo", "gdal-bin")
	p := filepath.Join(t.TempDir(), "map.kmz")
	if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("gdalinfo", p).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Size is") {
		t.Fatalf("gdalinfo cannot read the KMZ ground overlay: %v\n%s", err, out)
	}
}
