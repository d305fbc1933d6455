package interference

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"linkplan/appliance"
	"linkplan/appliance/coverage"
	"linkplan/appliance/geoexport"
)

// GeoTIFF bands of an interference map (WriteGeoTIFF), in order.
var GeoTIFFBands = []geoexport.BandMetadata{
	{Unit: "index", Description: "best server: index of the transmitter in the request (no data where none has a value)"},
	{Unit: "dBm", Description: "carrier: level of the best server, dBm"},
	{Unit: "dBm", Description: "interference: sum of the co- and adjacent-channel interferers in the best server's channel, dBm (no data where none couples)"},
	{Unit: "dB", Description: "C/I: carrier over interference, dB (no data where no interferer couples)"},
	{Unit: "dB", Description: "SINR: carrier over interference plus thermal noise of the best server's bandwidth and the noise figure, dB"},
}

// WriteGeoTIFF writes the map as a 5-band Float32 GeoTIFF (GeoTIFFBands;
// NaN no data) with the map's caveats as GDAL metadata: NOISE_FIGURE_DB,
// CHANNELS (MHz/MHz, ';'-separated), TRANSMITTERS, WARNINGS
// (';'-separated codes), what a pixel stands for
// (coverage.PixelMetadataItems: PIXEL_MODE … PIXEL_AGREEMENT_SOURCE, the
// SINR's agreement) and WARNING_n ("code: message").
func WriteGeoTIFF(w io.Writer, res *Result) error {
	g := res.Grid
	server := make([]float32, len(res.Server))
	for i, s := range res.Server {
		server[i] = float32(math.NaN())
		if s >= 0 {
			server[i] = float32(s)
		}
	}
	meta := &geoexport.GeoTIFFMetadata{Bands: GeoTIFFBands, Items: metadataItems(&res.Summary)}
	return geoexport.WriteGeoTIFFBands(w, g.West, g.North, g.PixelLonDeg, g.PixelLatDeg, g.Width, g.Height,
		[][]float32{server, res.CarrierDBm, res.InterferenceDBm, res.CIDB, res.SINRDB}, math.NaN(), meta)
}

func metadataItems(s *Summary) []geoexport.MetadataItem {
	var chs []string
	for _, c := range s.Channels {
		chs = append(chs, strconv.FormatFloat(c.FreqMHz, 'f', -1, 64)+"/"+strconv.FormatFloat(c.BandwidthMHz, 'f', -1, 64))
	}
	items := []geoexport.MetadataItem{
		{Name: "NOISE_FIGURE_DB", Value: strconv.FormatFloat(s.NoiseFigureDB, 'f', -1, 64)},
		{Name: "CHANNELS_MHZ", Value: strings.Join(chs, ";")},
		{Name: "TRANSMITTERS", Value: strconv.Itoa(len(s.ServedPixels))},
		{Name: "WARNINGS", Value: warningCodes(s.Warnings)},
	}
	items = append(items, coverage.PixelMetadataItems(s.Pixel)...)
	for i, w := range s.Warnings {
		items = append(items, geoexport.MetadataItem{Name: "WARNING_" + strconv.Itoa(i+1), Value: w.Code + ": " + w.Message})
	}
	return items
}

func warningCodes(ws []appliance.Warning) string {
	codes := make([]string, len(ws))
	for i, w := range ws {
		codes[i] = w.Code
	}
	return strings.Join(codes, ";")
}

func warningMessages(ws []appliance.Warning) string {
	ms := make([]string, len(ws))
	for i, w := range ws {
		ms[i] = w.Code + ": " + w.Message
	}
	return strings.Join(ms, " | ")
}

// ContourSchema is the schema of SINR contours: one multipolygon per
// threshold with the threshold (dB), the area at or above it (km²), its
// pixel count, and the map's warnings (codes ';'-separated, messages
// " | "-separated).
func ContourSchema() geoexport.Schema {
	return geoexport.Schema{Geometry: geoexport.KindMultiPolygon, Fields: []geoexport.Field{
		{Name: "sinr_db", Type: geoexport.TypeFloat, Width: 10, Decimals: 2},
		{Name: "area_km2", Type: geoexport.TypeFloat, Width: 18, Decimals: 6},
		{Name: "pixels", Type: geoexport.TypeInt, Width: 10},
		{Name: "warnings", Type: geoexport.TypeString, Width: 200, ListSep: ";"},
		{Name: "warning_messages", Type: geoexport.TypeString, Width: geoexport.MaxDBFStringWidth},
	}}
}

// Contours returns the areas where SINR is at or above each threshold
// (dB; nil: the summary's thresholds), pixel-exact as coverage.Contours
// draws them.
func Contours(res *Result, thresholdsDB []float64) ([]geoexport.Feature, error) {
	if thresholdsDB == nil {
		for _, a := range res.Summary.SINRAreas {
			thresholdsDB = append(thresholdsDB, a.ThresholdDB)
		}
	}
	g := *res.Grid
	g.DBm = res.SINRDB
	fs, err := coverage.Contours(&g, thresholdsDB, nil)
	if err != nil {
		return nil, fmt.Errorf("interference contours: %w", err)
	}
	codes, msgs := warningCodes(res.Summary.Warnings), warningMessages(res.Summary.Warnings)
	for i := range fs {
		p := fs[i].Properties
		fs[i].Properties = []geoexport.Value{p[0], p[1], p[2], geoexport.String(codes), geoexport.String(msgs)}
	}
	return fs, nil
}

// WriteContours writes the SINR contours as GeoJSON, KML, KMZ or a zipped
// Shapefile (geoexport.Export).
func WriteContours(w io.Writer, f geoexport.Format, res *Result, thresholdsDB []float64) error {
	fs, err := Contours(res, thresholdsDB)
	if err != nil {
		return err
	}
	return geoexport.Export(w, f, "sinr_contours", ContourSchema(), geoexport.Slice(fs),
		geoexport.KMLOptions{DocumentName: "SINR contours"}, geoexport.FixedDate())
}
