package calibration

import (
	"archive/zip"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/geoexport"
	"linkplan/engines/ml/h3"
)

// Report is the measured-versus-predicted report of a tenant's consented
// observations (issue 26 scope 4): per engine, the residuals observed −
// predicted, dB, summarised overall, by band, by distance and by H3 cell
// (doc.go, "Report").
type Report struct {
	GeneratedAtUnix float64 `json:"generated_at"` // epoch seconds
	// Terrain describes the terrain the engines ran on.
	Terrain string `json:"terrain"`
	// Rows counts the consented observations read; RowsAvailable the
	// consented observations the tenant holds (more than Rows when the
	// tier's cap cut them: the newest Rows were kept).
	Rows          int  `json:"rows"`
	RowsAvailable int  `json:"rows_available"`
	Truncated     bool `json:"truncated"`
	MaxRows       int  `json:"max_rows"` // the tier's cap
	// Skipped counts the observations no engine could predict, by reason
	// (missing_terrain, co_located); MissingTiles names the tiles.
	Skipped      map[string]int `json:"skipped"`
	MissingTiles []string       `json:"missing_tiles"`
	// H3Resolution is the resolution of ByH3 (BlockResolution).
	H3Resolution int            `json:"h3_resolution"`
	Engines      []EngineReport `json:"engines"`
	// Warnings travel with the report into its CSV and maps (never null).
	Warnings []appliance.Warning `json:"warnings"`
}

// Stats are residual statistics over n residuals r = observed −
// predicted, dB: RMSE √(mean r²), bias mean r (positive: the engine
// predicts too weak a signal), MAE mean |r|.
type Stats struct {
	N      int     `json:"n"`
	RMSEDB float64 `json:"rmse_db"`
	BiasDB float64 `json:"bias_db"`
	MAEDB  float64 `json:"mae_db"`
}

// GroupStats are the Stats of one group of a breakdown.
type GroupStats struct {
	Key string `json:"key"`
	Stats
}

// CellStats are the Stats of one H3 cell, with its centre.
type CellStats struct {
	Cell string  `json:"cell"` // H3 index, hex
	Lat  float64 `json:"lat"`  // centre, WGS84 degrees
	Lon  float64 `json:"lon"`
	Stats
}

// EngineReport is one engine's residuals.
type EngineReport struct {
	Engine appliance.EngineID `json:"engine"`
	Stats
	// Refused counts the observations the engine refused (outside its
	// validity with no fallback), with up to 5 reasons.
	Refused       int          `json:"refused"`
	RefuseReasons []string     `json:"refuse_reasons"`
	ByBand        []GroupStats `json:"by_band"`     // key "<band>MHz" (appliance.CalibrationBandMHz)
	ByDistance    []GroupStats `json:"by_distance"` // key DistanceBins
	ByH3          []CellStats  `json:"by_h3"`
}

// DistanceBins are the distance bins of a report, km: [0, 0.5), [0.5, 1),
// [1, 2), [2, 5), [5, 10), [10, 20), [20, ∞).
func DistanceBins() []string {
	return []string{"0-0.5km", "0.5-1km", "1-2km", "2-5km", "5-10km", "10-20km", "20km+"}
}

func distanceBin(m float64) int {
	for i, edge := range []float64{500, 1000, 2000, 5000, 10000, 20000} {
		if m < edge {
			return i
		}
	}
	return 6
}

type acc struct{ n, s, s2, abs float64 }

func (a *acc) add(r float64) { a.n++; a.s += r; a.s2 += r * r; a.abs += math.Abs(r) }

func (a *acc) stats() Stats {
	if a.n == 0 {
		return Stats{}
	}
	return Stats{N: int(a.n), RMSEDB: r3(math.Sqrt(a.s2 / a.n)), BiasDB: r3(a.s / a.n), MAEDB: r3(a.abs / a.n)}
}

func r3(x float64) float64 { return appliance.Round(x, 3) }
func r6(x float64) float64 { return appliance.Round(x, 6) }

// BuildReport summarises the predictions of obs by the engines ids.
func BuildReport(obs []appliance.Observation, preds []Prediction, ids []appliance.EngineID, errs []map[string]int) (*Report, error) {
	rep := &Report{Rows: len(obs), Skipped: map[string]int{}, MissingTiles: []string{}, H3Resolution: BlockResolution, Warnings: []appliance.Warning{}}
	tiles := map[string]bool{}
	cells := make([]h3.Cell, len(obs))
	for i := range obs {
		if s := preds[i].Skip; s != "" {
			rep.Skipped[s]++
			if preds[i].Tile != "" {
				tiles[preds[i].Tile] = true
			}
			continue
		}
		c, err := h3.LatLngToCell(obs[i].RxLat, obs[i].RxLon, BlockResolution)
		if err != nil {
			return nil, fmt.Errorf("report: observation %s: %w", obs[i].ID, err)
		}
		cells[i] = c
	}
	for t := range tiles {
		rep.MissingTiles = append(rep.MissingTiles, t)
	}
	slices.Sort(rep.MissingTiles)
	for k, id := range ids {
		var all acc
		bands := map[int]*acc{}
		dist := make([]acc, len(DistanceBins()))
		byCell := map[h3.Cell]*acc{}
		refused := 0
		for i := range obs {
			p := &preds[i]
			if p.Skip != "" {
				continue
			}
			if math.IsNaN(p.DBm[k]) {
				refused++
				continue
			}
			r := obs[i].ObservedDBm - p.DBm[k]
			all.add(r)
			b := appliance.CalibrationBandMHz(obs[i].FreqHz / 1e6)
			if bands[b] == nil {
				bands[b] = &acc{}
			}
			bands[b].add(r)
			dist[distanceBin(p.DistanceM)].add(r)
			if byCell[cells[i]] == nil {
				byCell[cells[i]] = &acc{}
			}
			byCell[cells[i]].add(r)
		}
		er := EngineReport{Engine: id, Stats: all.stats(), Refused: refused, RefuseReasons: topReasons(errs[k], 5),
			ByBand: []GroupStats{}, ByDistance: []GroupStats{}, ByH3: []CellStats{}}
		if er.RefuseReasons == nil {
			er.RefuseReasons = []string{}
		}
		bs := make([]int, 0, len(bands))
		for b := range bands {
			bs = append(bs, b)
		}
		slices.Sort(bs)
		for _, b := range bs {
			er.ByBand = append(er.ByBand, GroupStats{Key: strconv.Itoa(b) + "MHz", Stats: bands[b].stats()})
		}
		for j, name := range DistanceBins() {
			if dist[j].n > 0 {
				er.ByDistance = append(er.ByDistance, GroupStats{Key: name, Stats: dist[j].stats()})
			}
		}
		cs := make([]h3.Cell, 0, len(byCell))
		for c := range byCell {
			cs = append(cs, c)
		}
		slices.Sort(cs)
		for _, c := range cs {
			lat, lon, err := h3.CellToLatLng(c)
			if err != nil {
				return nil, fmt.Errorf("report: cell %s: %w", c, err)
			}
			er.ByH3 = append(er.ByH3, CellStats{Cell: c.String(), Lat: r6(lat), Lon: r6(lon), Stats: byCell[c].stats()})
		}
		rep.Engines = append(rep.Engines, er)
	}
	if n := rep.Skipped[SkipNoTerrain]; n > 0 {
		rep.Warnings = append(rep.Warnings, appliance.Warning{Code: appliance.WarnMissingTerrain, Message: fmt.Sprintf(
			"%d observations have no prediction: their path needs terrain tiles that no loaded pack holds (%s)", n, strings.Join(rep.MissingTiles, ", "))})
	}
	return rep, nil
}

// spreadsheetSafe neutralises a text cell for spreadsheets (the OWASP CSV
// injection rule): a text that starts with = + - @, a tab or a carriage
// return (or their full-width forms, or a quote) gets a leading single
// quote, so that no spreadsheet reads it as a formula. Numbers are written
// bare and never pass here.
func spreadsheetSafe(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r', '\'':
		return "'" + s
	}
	for _, p := range []string{"＝", "＋", "－", "＠"} {
		if strings.HasPrefix(s, p) {
			return "'" + s
		}
	}
	return s
}

// Bundle names: the files of a report job's zip.
const (
	BundleReport  = "report.json"
	BundleCSV     = "residuals.csv"
	BundleGeoJSON = "residuals.geojson"
	BundleKMZ     = "residuals.kmz"
)

// WriteBundle writes the report's zip: report.json (the Report),
// residuals.csv (one row per observation: its context, then each engine's
// predicted level and residual), residuals.geojson and residuals.kmz (the
// receivers as points with the same attributes; the KMZ colours them by
// the residual of the engine with the least RMSE). Entries are dated
// modified. Every file carries the report's warnings (CSV: a comment row
// first; maps: the warnings property).
func WriteBundle(w io.Writer, rep *Report, obs []appliance.Observation, preds []Prediction, ids []appliance.EngineID, modified time.Time) error {
	zw := zip.NewWriter(w)
	entry := func(name string, write func(io.Writer) error) error {
		f, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: modified})
		if err != nil {
			return err
		}
		return write(f)
	}
	if err := entry(BundleReport, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", " ")
		return enc.Encode(rep)
	}); err != nil {
		return fmt.Errorf("report bundle: %w", err)
	}
	if err := entry(BundleCSV, func(w io.Writer) error { return writeCSV(w, rep, obs, preds, ids) }); err != nil {
		return fmt.Errorf("report bundle: csv: %w", err)
	}
	schema, src := residualFeatures(rep, obs, preds, ids)
	if err := entry(BundleGeoJSON, func(w io.Writer) error { return geoexport.WriteGeoJSON(w, schema, src) }); err != nil {
		return fmt.Errorf("report bundle: geojson: %w", err)
	}
	if err := entry(BundleKMZ, func(w io.Writer) error {
		return geoexport.WriteKMZ(w, schema, src, geoexport.KMLOptions{DocumentName: "Measured minus predicted (" + string(bestEngine(rep)) + ")",
			StyleField: "residual_class", Styles: residualStyles(), Modified: modified})
	}); err != nil {
		return fmt.Errorf("report bundle: kmz: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("report bundle: %w", err)
	}
	return nil
}

// bestEngine is the engine of the report with the least RMSE (first in
// report order on a tie; the first engine when none has a residual).
func bestEngine(rep *Report) appliance.EngineID {
	best := -1
	for i, e := range rep.Engines {
		if e.N > 0 && (best < 0 || e.RMSEDB < rep.Engines[best].RMSEDB) {
			best = i
		}
	}
	if best < 0 {
		if len(rep.Engines) == 0 {
			return ""
		}
		best = 0
	}
	return rep.Engines[best].Engine
}

func writeCSV(w io.Writer, rep *Report, obs []appliance.Observation, preds []Prediction, ids []appliance.EngineID) error {
	cw := csv.NewWriter(w)
	header := []string{"observation_id", "tower_id", "source", "tx_lat", "tx_lon", "rx_lat", "rx_lon", "frequency_mhz", "band_mhz",
		"distance_km", "h3_cell", "observed_dbm", "skip"}
	for _, id := range ids {
		header = append(header, string(id)+"_predicted_dbm", string(id)+"_residual_db")
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	num := func(x float64, dec int) string {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return ""
		}
		return strconv.FormatFloat(x, 'f', dec, 64)
	}
	for i := range obs {
		o, p := &obs[i], &preds[i]
		cell := ""
		if c, err := h3.LatLngToCell(o.RxLat, o.RxLon, BlockResolution); err == nil {
			cell = c.String()
		}
		row := []string{spreadsheetSafe(o.ID), spreadsheetSafe(o.TowerID), spreadsheetSafe(o.Source), num(o.TxLat, 6), num(o.TxLon, 6),
			num(o.RxLat, 6), num(o.RxLon, 6), num(o.FreqHz/1e6, 3), strconv.Itoa(appliance.CalibrationBandMHz(o.FreqHz / 1e6)),
			num(p.DistanceM/1000, 3), cell, num(o.ObservedDBm, 2), spreadsheetSafe(p.Skip)}
		for k := range ids {
			pred := math.NaN()
			if p.Skip == "" {
				pred = p.DBm[k]
			}
			row = append(row, num(pred, 2), num(o.ObservedDBm-pred, 2))
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	// The warnings close the file as comment rows (a parser that knows
	// the header stops at the first row whose id starts with '#').
	for _, wn := range rep.Warnings {
		if err := cw.Write([]string{spreadsheetSafe("# warning " + wn.Code + ": " + wn.Message)}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// residualClasses are the classes of the KMZ's colours, dB of observed −
// predicted: the engine far too optimistic (< −10), optimistic (−10..−3),
// within ±3 dB, pessimistic (3..10), far too pessimistic (> 10).
func residualClass(r float64) string {
	switch {
	case math.IsNaN(r):
		return "none"
	case r < -10:
		return "below_-10db"
	case r < -3:
		return "-10_to_-3db"
	case r <= 3:
		return "within_3db"
	case r <= 10:
		return "3_to_10db"
	}
	return "above_10db"
}

func residualStyles() []geoexport.StatusStyle {
	return []geoexport.StatusStyle{
		{Value: "below_-10db", Color: color.RGBA{R: 0xd7, G: 0x30, B: 0x27, A: 0xff}},
		{Value: "-10_to_-3db", Color: color.RGBA{R: 0xfc, G: 0x8d, B: 0x59, A: 0xff}},
		{Value: "within_3db", Color: color.RGBA{R: 0x1a, G: 0x98, B: 0x50, A: 0xff}},
		{Value: "3_to_10db", Color: color.RGBA{R: 0x91, G: 0xbf, B: 0xdb, A: 0xff}},
		{Value: "above_10db", Color: color.RGBA{R: 0x45, G: 0x75, B: 0xb4, A: 0xff}},
	}
}

// residualFeatures returns the schema and the point features of the
// residual maps.
func residualFeatures(rep *Report, obs []appliance.Observation, preds []Prediction, ids []appliance.EngineID) (geoexport.Schema, geoexport.Source) {
	s := geoexport.Schema{Geometry: geoexport.KindPoint, Fields: []geoexport.Field{
		{Name: "observation_id", Type: geoexport.TypeString, Width: 24},
		{Name: "tower_id", Type: geoexport.TypeString, Width: 64},
		{Name: "frequency_mhz", Type: geoexport.TypeFloat, Width: 10, Decimals: 3},
		{Name: "distance_km", Type: geoexport.TypeFloat, Width: 10, Decimals: 3},
		{Name: "observed_dbm", Type: geoexport.TypeFloat, Width: 8, Decimals: 2},
		{Name: "residual_class", Type: geoexport.TypeString, Width: 16},
		{Name: "warnings", Type: geoexport.TypeString, Width: 200, ListSep: ";"},
	}}
	for _, id := range ids {
		s.Fields = append(s.Fields, geoexport.Field{Name: string(id) + "_residual_db", Type: geoexport.TypeFloat, Width: 8, Decimals: 2})
	}
	best := 0
	for k, id := range ids {
		if id == bestEngine(rep) {
			best = k
		}
	}
	warn := geoexport.Null()
	if len(rep.Warnings) > 0 {
		warn = geoexport.String(strings.Join(appliance.WarningCodes(rep.Warnings), ";"))
	}
	str := func(x string) geoexport.Value {
		if x == "" {
			return geoexport.Null()
		}
		return geoexport.String(spreadsheetSafe(x))
	}
	src := func(yield func(geoexport.Feature) bool) {
		for i := range obs {
			o, p := &obs[i], &preds[i]
			if p.Skip != "" {
				continue
			}
			props := []geoexport.Value{str(o.ID), str(o.TowerID), geoexport.Float(o.FreqHz / 1e6), geoexport.Float(r3(p.DistanceM / 1000)),
				geoexport.Float(o.ObservedDBm), geoexport.String(residualClass(o.ObservedDBm - p.DBm[best])), warn}
			for k := range ids {
				props = append(props, geoexport.Float(r3(o.ObservedDBm-p.DBm[k])))
			}
			if !yield(geoexport.Feature{Geometry: geoexport.Point(appliance.LatLon{Lat: o.RxLat, Lon: o.RxLon}), Properties: props}) {
				return
			}
		}
	}
	return s, src
}
