package coverage

import (
	"archive/zip"
	"bytes"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/png"
	"io"
	"strconv"
	"strings"
	"time"

	kml "github.com/twpayne/go-kml/v3"
)

// LegendStep is one colour of the map palette: pixels at or above
// MinDBm (and below the previous step's) take Color.
type LegendStep struct {
	MinDBm float64 // dBm
	Color  color.NRGBA
	Label  string
}

// Legend is the palette of the KMZ ground overlay, strongest first;
// pixels below the last step, and no-data pixels, are transparent.
func Legend() []LegendStep {
	return []LegendStep{
		{-65, color.NRGBA{0x00, 0x64, 0x00, 0xc0}, "≥ −65 dBm: excellent"},
		{-75, color.NRGBA{0x2e, 0xb8, 0x2e, 0xc0}, "−75 to −65 dBm: good"},
		{-85, color.NRGBA{0xf0, 0xe0, 0x20, 0xc0}, "−85 to −75 dBm: fair"},
		{-95, color.NRGBA{0xf0, 0x80, 0x10, 0xc0}, "−95 to −85 dBm: weak"},
		{-105, color.NRGBA{0xd0, 0x20, 0x20, 0xc0}, "−105 to −95 dBm: marginal"},
	}
}

// PNG renders r with the Legend palette: one image pixel per raster
// pixel, north up.
func PNG(w io.Writer, r *Raster) error {
	img := image.NewNRGBA(image.Rect(0, 0, r.Width, r.Height))
	steps := Legend()
	for y := range r.Height {
		for x := range r.Width {
			v := float64(r.DBm[y*r.Width+x])
			if v != v {
				continue
			}
			for _, s := range steps {
				if v >= s.MinDBm {
					img.SetNRGBA(x, y, s.Color)
					break
				}
			}
		}
	}
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(w, img); err != nil {
		return fmt.Errorf("coverage png: %w", err)
	}
	return nil
}

// WriteKMZ writes r as a KMZ: doc.kml with one GroundOverlay of map.png
// on the raster's bounds and the legend as an HTML table in the
// description, entries dated modified. With the map's summary sum (nil:
// none) the legend goes on with its caveats: the engine, the EIRP (and
// whether it was assumed), the building layer, scene hash and options of
// a traced map (TracedScene) and every warning with its code and message.
func WriteKMZ(w io.Writer, r *Raster, name string, modified time.Time, sum *Summary) error {
	var img bytes.Buffer
	if err := PNG(&img, r); err != nil {
		return err
	}
	var legend strings.Builder
	legend.WriteString(`<table>`)
	for _, s := range Legend() {
		fmt.Fprintf(&legend, `<tr><td style="background:#%02x%02x%02x;width:2em">&nbsp;</td><td>%s</td></tr>`, s.Color.R, s.Color.G, s.Color.B, html.EscapeString(s.Label))
	}
	legend.WriteString(`<tr><td></td><td>transparent: below −105 dBm or no data (missing terrain)</td></tr></table>`)
	if sum != nil {
		legend.WriteString(kmzCaveats(sum))
	}
	east := r.West + float64(r.Width)*r.PixelLonDeg
	south := r.North - float64(r.Height)*r.PixelLatDeg
	doc := kml.KML(kml.Document(
		kml.Name(name),
		kml.Description("Received power, dBm (isotropic receiver). "+legend.String()),
		kml.GroundOverlay(
			kml.Name(name),
			kml.Description(legend.String()),
			kml.Icon(kml.Href("map.png")),
			kml.LatLonBox(kml.North(r.North), kml.South(south), kml.East(east), kml.West(r.West)),
		),
	))
	zw := zip.NewWriter(w)
	mod := modified.UTC()
	entry, err := zw.CreateHeader(&zip.FileHeader{Name: "doc.kml", Method: zip.Deflate, Modified: mod})
	if err != nil {
		return fmt.Errorf("coverage kmz: %w", err)
	}
	if err := doc.WriteIndent(entry, "", "  "); err != nil {
		return fmt.Errorf("coverage kmz: %w", err)
	}
	entry, err = zw.CreateHeader(&zip.FileHeader{Name: "map.png", Method: zip.Store, Modified: mod})
	if err != nil {
		return fmt.Errorf("coverage kmz: %w", err)
	}
	if _, err := entry.Write(img.Bytes()); err != nil {
		return fmt.Errorf("coverage kmz: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("coverage kmz: %w", err)
	}
	return nil
}

// kmzCaveats is the caveats part of the KMZ legend (HTML).
func kmzCaveats(s *Summary) string {
	var b strings.Builder
	version := ""
	if s.EngineVersion != "" {
		version = " (" + s.EngineVersion + ")"
	}
	fmt.Fprintf(&b, `<p>Engine: %s%s. EIRP: %s dBm`, html.EscapeString(string(s.Engine)), html.EscapeString(version),
		strconv.FormatFloat(r3(s.EIRPDBm), 'f', -1, 64))
	if s.EIRPAssumed {
		b.WriteString(` (assumed: the transmitter has no ERP in its source)`)
	}
	b.WriteString(`.</p>`)
	if sc := TracedScene(s); sc.LayerID != "" {
		fmt.Fprintf(&b, `<p>Traced on building layer %s (scene SHA-256 %s) with the options %s.</p>`,
			html.EscapeString(sc.LayerID), html.EscapeString(sc.SceneHash), html.EscapeString(sc.Options))
	}
	if len(s.Warnings) == 0 {
		b.WriteString(`<p>Warnings: none.</p>`)
		return b.String()
	}
	b.WriteString(`<p>Warnings:</p><ul>`)
	for _, w := range s.Warnings {
		fmt.Fprintf(&b, `<li><b>%s</b>: %s</li>`, html.EscapeString(w.Code), html.EscapeString(w.Message))
	}
	b.WriteString(`</ul>`)
	return b.String()
}
