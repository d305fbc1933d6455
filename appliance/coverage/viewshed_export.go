package coverage

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"linkplan/appliance"
	"linkplan/appliance/geoexport"
)

// WriteViewshedGeoTIFF writes a viewshed as a one-band Float32 GeoTIFF:
// the pixel class (0 blocked, 1 line of sight, 2 line of sight with 60 %
// of the first Fresnel zone clear; NaN no data), with GDAL metadata
// K_FACTOR, HEIGHT_M, RX_HEIGHT_M, FREQUENCY_MHZ, VISIBLE_KM2,
// FRESNEL_CLEAR_KM2, WARNINGS (';'-separated codes), what a pixel stands
// for (PixelMetadataItems: PIXEL_MODE … PIXEL_AGREEMENT_SOURCE, the
// agreement figures being the share of pixels whose class is /analyze's)
// and WARNING_n ("code: message").
func WriteViewshedGeoTIFF(w io.Writer, req ViewshedRequest, res *ViewshedResult) error {
	g := res.Grid
	data := make([]float32, len(res.Class))
	for i, c := range res.Class {
		data[i] = float32(c)
		if c == ViewNoData {
			data[i] = float32(math.NaN())
		}
	}
	s := &res.Summary
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	items := []geoexport.MetadataItem{
		{Name: "K_FACTOR", Value: f(s.KFactor)},
		{Name: "HEIGHT_M", Value: f(req.HeightM)},
		{Name: "RX_HEIGHT_M", Value: f(req.RxHeightM)},
		{Name: "FREQUENCY_MHZ", Value: f(req.FreqMHz)},
		{Name: "VISIBLE_KM2", Value: f(appliance.Round(s.VisibleKm2, 3))},
		{Name: "FRESNEL_CLEAR_KM2", Value: f(appliance.Round(s.FresnelClearKm2, 3))},
		{Name: "WARNINGS", Value: viewshedCodes(s.Warnings)},
	}
	items = append(items, PixelMetadataItems(s.Pixel)...)
	for i, wn := range s.Warnings {
		items = append(items, geoexport.MetadataItem{Name: "WARNING_" + strconv.Itoa(i+1), Value: wn.Code + ": " + wn.Message})
	}
	meta := &geoexport.GeoTIFFMetadata{Items: items, BandUnit: "class",
		BandDescription: "viewshed: 0 blocked, 1 line of sight, 2 line of sight with 60 % of the first Fresnel zone clear"}
	return geoexport.WriteGeoTIFFMeta(w, g.West, g.North, g.PixelLonDeg, g.PixelLatDeg, g.Width, g.Height, data, math.NaN(), meta)
}

func viewshedCodes(ws []appliance.Warning) string {
	codes := make([]string, len(ws))
	for i, w := range ws {
		codes[i] = w.Code
	}
	return strings.Join(codes, ";")
}

// ViewshedSchema is the schema of ViewshedAreas: one multipolygon per
// class ("los", "fresnel_60"), its area (km²), pixel count and the
// warnings (codes ';'-separated, messages " | "-separated).
func ViewshedSchema() geoexport.Schema {
	return geoexport.Schema{Geometry: geoexport.KindMultiPolygon, Fields: []geoexport.Field{
		{Name: "visibility", Type: geoexport.TypeString, Width: 16},
		{Name: "area_km2", Type: geoexport.TypeFloat, Width: 18, Decimals: 6},
		{Name: "pixels", Type: geoexport.TypeInt, Width: 10},
		{Name: "warnings", Type: geoexport.TypeString, Width: 200, ListSep: ";"},
		{Name: "warning_messages", Type: geoexport.TypeString, Width: geoexport.MaxDBFStringWidth},
	}}
}

// ViewshedAreas returns the visible area ("los": line of sight, with or
// without Fresnel clearance) and the Fresnel-clear area ("fresnel_60"),
// pixel-exact as Contours draws them.
func ViewshedAreas(res *ViewshedResult) ([]geoexport.Feature, error) {
	g := *res.Grid
	g.DBm = make([]float32, len(res.Class))
	for i, c := range res.Class {
		g.DBm[i] = float32(c)
		if c == ViewNoData {
			g.DBm[i] = float32(math.NaN())
		}
	}
	fs, err := Contours(&g, []float64{float64(ViewLOS), float64(ViewFresnel)}, nil)
	if err != nil {
		return nil, fmt.Errorf("viewshed areas: %w", err)
	}
	ws := res.Summary.Warnings
	msgs := make([]string, len(ws))
	for i, w := range ws {
		msgs[i] = w.Code + ": " + w.Message
	}
	for i, name := range []string{"los", "fresnel_60"} {
		p := fs[i].Properties
		fs[i].Properties = []geoexport.Value{geoexport.String(name), p[1], p[2], geoexport.String(viewshedCodes(ws)), geoexport.String(strings.Join(msgs, " | "))}
	}
	return fs, nil
}

// WriteViewshedAreas writes ViewshedAreas as GeoJSON, KML, KMZ or a zipped
// Shapefile (geoexport.Export).
func WriteViewshedAreas(w io.Writer, f geoexport.Format, res *ViewshedResult) error {
	fs, err := ViewshedAreas(res)
	if err != nil {
		return err
	}
	return geoexport.Export(w, f, "viewshed", ViewshedSchema(), geoexport.Slice(fs),
		geoexport.KMLOptions{DocumentName: "Viewshed"}, geoexport.FixedDate())
}
