package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"linkplan/appliance/cmd/linkplan/assemble"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"

	"linkplan/appliance"
	"linkplan/appliance/catalog"
	"linkplan/appliance/coverage"
	"linkplan/appliance/geoexport"
	"linkplan/appliance/planner"
	"linkplan/appliance/refresh"
	"linkplan/appliance/sampledata"
	"linkplan/engines"
)

const coverageUsage = `usage:
  linkplan coverage (--site LAT,LON,H | --tower ID [--towers FILE]...) --frequency-mhz F --radius-km R
                    [--eirp-dbm P] [--azimuth-deg A [--beamwidth-deg B]] [--rx-height-m H]
                    [--engine ID] [--itm-climate C] [--itm-n0 N] [--resolution-m M]
                    [--terrain PACK]... [--workers N] --out MAP.tif
      compute a coverage map offline (the computation of POST /coverage/heatmap, appliance/coverage)
      and write it as a GeoTIFF: one Float32 band of received power, dBm, EPSG:4326, NoData NaN
      (outside the radius, or where terrain is missing: never sea level). The summary is printed
      as one JSON line on stdout. --tower looks the transmitter up in the tower catalogue (the
      --towers files, default the embedded sample towers) and takes its height, ERP (+2.15 dB to
      EIRP) and azimuth unless --eirp-dbm / --azimuth-deg are given.
`

// coverageDefaultEngine is the engine of --engine when none is given: the
// registry's default (free space with knife-edge), the cheapest map.
const coverageDefaultEngine = appliance.EngineFSPL

// coverageSummary is the JSON line coverage prints on stdout.
type coverageSummary struct {
	Out                   string   `json:"out"`
	Width                 int      `json:"width"`  // pixels
	Height                int      `json:"height"` // rows
	West                  float64  `json:"west"`   // outer edge of the north-west pixel, degrees
	North                 float64  `json:"north"`
	PixelLonDeg           float64  `json:"pixel_lon_deg"`
	PixelLatDeg           float64  `json:"pixel_lat_deg"`
	Pixels                int      `json:"pixels"`
	InRadiusPixels        int      `json:"in_radius_pixels"`
	ValidPixels           int      `json:"valid_pixels"`
	NoDataPixels          int      `json:"nodata_pixels"` // pixels − valid (outside the radius included)
	NoDataMissingTerrain  int      `json:"nodata_missing_terrain"`
	NoDataOutsideEnvelope int      `json:"nodata_outside_envelope"`
	MissingTiles          []string `json:"missing_tiles"`
	MinDBm                *float64 `json:"min_dbm"` // null without a valid pixel
	MaxDBm                *float64 `json:"max_dbm"`
	ThresholdDBm          float64  `json:"threshold_dbm"`
	CoveredKm2            float64  `json:"covered_km2_above_threshold"`
	ElapsedMS             int64    `json:"elapsed_ms"` // the computation; loading and writing not included
	Engine                string   `json:"engine"`
	EngineVersion         string   `json:"engine_version"`
	Radials               int      `json:"radials"`
	ProfileStepM          float64  `json:"profile_step_m"`
	Evaluations           int      `json:"evaluations"`
	// Pixel says what a pixel stands for (appliance/coverage package
	// doc, "Pixels"): mode (default, or exact with --exact), receiver,
	// profile and the mode's measured agreement; also in the GeoTIFF's
	// PIXEL_* metadata.
	Pixel       coverage.PixelData `json:"pixel"`
	Tower       string             `json:"tower,omitempty"`
	EIRPDBm     float64            `json:"eirp_dbm"`
	EIRPAssumed bool               `json:"eirp_assumed"` // the tower's ERP is unknown: planner.DefaultAssumedEIRPDBm
	// Warnings are the caveats of the whole map (appliance/coverage
	// package doc, "Caveats"), also in the GeoTIFF's metadata.
	Warnings []appliance.Warning `json:"warnings"`
}

// flagOf names the command-line flag of a field of coverage.Request.Validate.
func flagOf(field string, tower bool) string {
	switch {
	case field == "site" || field == "site.lat" || field == "site.height_m":
		if tower {
			return "--tower"
		}
		return "--site"
	case field == "site.eirp_dbm":
		return "--eirp-dbm"
	case field == "site.azimuth_deg":
		return "--azimuth-deg"
	case field == "site.beamwidth_deg":
		return "--beamwidth-deg"
	case field == "frequency_mhz":
		return "--frequency-mhz"
	case field == "radius_km":
		return "--radius-km"
	case field == "rx_height_m":
		return "--rx-height-m"
	case field == "resolution_m":
		return "--resolution-m"
	case field == "engine":
		return "--engine"
	case strings.HasPrefix(field, "itm.climate"):
		return "--itm-climate"
	case strings.HasPrefix(field, "itm.n0"):
		return "--itm-n0"
	}
	return field
}

// usageErr is a command-line mistake naming its flag (exit code 2).
func usageErr(flagName, format string, args ...any) error {
	return fmt.Errorf("coverage: %s: %s: %w", flagName, fmt.Sprintf(format, args...), errUsage)
}

// parseSite reads "LAT,LON,H" (degrees, degrees, metres above ground).
func parseSite(s string) (appliance.LatLon, float64, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 3 {
		return appliance.LatLon{}, 0, fmt.Errorf("want LAT,LON,H (degrees, degrees, metres above ground), got %q", s)
	}
	var v [3]float64
	for i, p := range parts {
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return appliance.LatLon{}, 0, fmt.Errorf("want LAT,LON,H (degrees, degrees, metres above ground), got %q", s)
		}
		v[i] = x
	}
	return appliance.LatLon{Lat: v[0], Lon: v[1]}, v[2], nil
}

// findTower loads the tower catalogue as serve does at start-up (the
// --towers files, else the embedded sample files; catalog placement and
// snapping by appliance/refresh) and returns the tower with that id. The
// serve-only towers (synthetic sample towers, user-registered towers in the
// data directory) are not in it.
func findTower(ctx context.Context, id string, files []string) (*appliance.Tower, error) {
	gaz, err := catalog.EmbeddedGazetteer()
	if err != nil {
		return nil, fmt.Errorf("coverage: gazetteer: %w", err)
	}
	rs := refresh.New(gaz, slog.New(slog.NewTextHandler(io.Discard, nil)))
	desc := "the embedded sample towers"
	if len(files) == 0 {
		rs.Sources = []refresh.Source{
			{Name: "embedded:anatel_erbs_sample.csv", Read: refresh.ReadAllFrom(sampledata.AnatelERBs())},
			{Name: "embedded:opencellid_724_sample.csv", Read: refresh.ReadAllFrom(sampledata.OpenCelliD())},
		}
	} else {
		desc = strings.Join(files, ", ")
		for _, f := range files {
			rs.Sources = append(rs.Sources, refresh.FileSource(f))
		}
	}
	var found *appliance.Tower
	n := 0
	rs.Apply = func(ts []*appliance.Tower) error {
		n = len(ts)
		for _, t := range ts {
			if t.ID == id {
				found = t
			}
		}
		return nil
	}
	if _, err := rs.RefreshOnce(ctx, true); err != nil {
		return nil, fmt.Errorf("coverage: load towers: %w", err)
	}
	if found == nil {
		return nil, usageErr("--tower", "no tower %q among the %d towers of %s (ids look like %q)", id, n, desc, appliance.TowerID(appliance.SourceAnatel, "1000001021"))
	}
	return found, nil
}

func coverageCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("coverage", stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, coverageUsage, "\nflags:\n")
		fs.PrintDefaults()
	}
	site := fs.String("site", "", "transmitter LAT,LON,H: WGS84 degrees and antenna height above ground, metres (or --tower)")
	towerID := fs.String("tower", "", "transmitter: a tower id of the catalogue (or --site)")
	var towerFiles, packs multi
	fs.Var(&towerFiles, "towers", "tower file for --tower, any supported format (repeatable); default: the embedded sample towers")
	eirp := fs.Float64("eirp-dbm", planner.DefaultAssumedEIRPDBm, "EIRP toward the main lobe, dBm; with --tower the default is the tower's ERP + 2.15 when known")
	azimuth := fs.Float64("azimuth-deg", 0, "main-lobe bearing, degrees from true north (default: omni; with --tower the tower's azimuth)")
	beamwidth := fs.Float64("beamwidth-deg", planner.SectorBeamwidthDeg, "horizontal half-power beamwidth of the sector, degrees (with --azimuth-deg)")
	freq := fs.Float64("frequency-mhz", 0, "carrier frequency, MHz (required)")
	radiusKm := fs.Float64("radius-km", 0, "map radius around the transmitter, km (required)")
	rxH := fs.Float64("rx-height-m", planner.DefaultRxHeightM, "receiver antenna height above ground, metres (isotropic receiver)")
	engine := fs.String("engine", string(coverageDefaultEngine), "propagation engine: fspl, itm, p1812, auto, ... (the registry's ids)")
	itmClimate := fs.Int("itm-climate", 0, "ITM radio climate 1..7 for the itm engine (and auto's itm branch); 0: the engine's per-path Brazil rule")
	itmN0 := fs.Float64("itm-n0", 0, "ITM sea-level surface refractivity N0, N-units (250..400); 0: the engine's default (the climate's tabulated N0)")
	resolution := fs.Float64("resolution-m", 90, "pixel size, metres (rounded to whole arc-seconds; 90 = the 3\" SRTM grid at the equator)")
	fs.Var(&packs, "terrain", "terrain pack (repeatable); default: the embedded Rio de Janeiro sample")
	exact := fs.Bool("exact", false, "compute every pixel on its own terrain profile with a point-to-point evaluation (exact mode: for small maps and audits, 10-40x slower)")
	workers := fs.Int("workers", 0, "radials computed at once; 0: GOMAXPROCS (the map does not depend on it)")
	out := fs.String("out", "", "output GeoTIFF (.tif or .tiff; required)")
	cpuProfile := fs.String("cpuprofile", "", "write a Go CPU profile of the map computation to this file (go tool pprof)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("coverage: %v: %w", err, errUsage)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if fs.NArg() > 0 {
		return usageErr("arguments", "unexpected %q (every input is a flag)", fs.Arg(0))
	}

	// Flags checked before anything is loaded.
	if *out == "" {
		return usageErr("--out", "an output path is required (MAP.tif)")
	}
	if ext := strings.ToLower(filepath.Ext(*out)); ext != ".tif" && ext != ".tiff" {
		return usageErr("--out", "only GeoTIFF is written: the name must end in .tif or .tiff, got %q", *out)
	}
	if (*site == "") == (*towerID == "") {
		return usageErr("--site", "give exactly one transmitter: --site LAT,LON,H or --tower ID")
	}
	if len(towerFiles) > 0 && *towerID == "" {
		return usageErr("--towers", "only used with --tower")
	}
	if *workers < 0 {
		return usageErr("--workers", "must be ≥ 0 (0 = GOMAXPROCS), got %d", *workers)
	}
	if *itmClimate < 0 || *itmClimate > 7 {
		return usageErr("--itm-climate", "must be 1..7 (0 = the engine's Brazil rule), got %d", *itmClimate)
	}
	if set["itm-n0"] && !(*itmN0 == 0 || *itmN0 >= 250 && *itmN0 <= 400) {
		return usageErr("--itm-n0", "must be within 250..400 N-units (0 = the engine's default), got %g", *itmN0)
	}
	if set["beamwidth-deg"] && !set["azimuth-deg"] && *towerID == "" {
		return usageErr("--beamwidth-deg", "needs --azimuth-deg (without it the antenna is omni)")
	}
	req := coverage.Request{
		EIRPDBm: *eirp, AzimuthDeg: math.NaN(), BeamwidthDeg: *beamwidth,
		FreqMHz: *freq, RadiusM: *radiusKm * 1000, RxHeightM: *rxH,
		Engine: appliance.EngineID(*engine), ResolutionM: *resolution, Exact: *exact,
	}
	if set["azimuth-deg"] {
		req.AzimuthDeg = *azimuth
	}
	if *freq == 0 && !set["frequency-mhz"] {
		return usageErr("--frequency-mhz", "a carrier frequency is required, MHz")
	}
	if *radiusKm == 0 && !set["radius-km"] {
		return usageErr("--radius-km", "a map radius is required, km")
	}
	if *site != "" {
		p, h, err := parseSite(*site)
		if err != nil {
			return usageErr("--site", "%v", err)
		}
		req.Tx, req.TxHeightM = p, h
	}

	cfg := engines.Config{}
	if *itmClimate != 0 {
		cfg.ITM.Climate = *itmClimate
	}
	if *itmN0 != 0 {
		n0 := *itmN0
		cfg.ITM.N0 = &n0
	}
	reg, err := engines.New(cfg)
	if err != nil {
		return fmt.Errorf("coverage: engines: %w", err)
	}
	if _, ok := reg.Info(req.Engine); !ok || req.Engine == "" {
		var ids []string
		for _, in := range reg.List() {
			if in.Status == engines.StatusAvailable {
				ids = append(ids, string(in.ID))
			}
		}
		return usageErr("--engine", "unknown engine %q; available: %s", *engine, strings.Join(ids, ", "))
	}
	if _, err := reg.Get(req.Engine); err != nil {
		return usageErr("--engine", "%v", err)
	}

	var tw *appliance.Tower
	assumed := false
	if *towerID != "" {
		if tw, err = findTower(ctx, *towerID, towerFiles); err != nil {
			return err
		}
		req.Tx, req.TxHeightM = tw.Pos(), tw.HeightM
		req.Transmitter = coverage.TowerTransmitter(tw)
		req.Transmitter.EIRPAssumed = false // unless no ERP and no --eirp-dbm, below
		if !set["eirp-dbm"] {
			if tw.HasERP() {
				req.EIRPDBm = tw.ERPDBm + 2.15
			} else {
				assumed, req.Transmitter.EIRPAssumed = true, true
			}
		}
		if !set["azimuth-deg"] {
			req.AzimuthDeg = tw.AzimuthDeg
		}
	}
	if err := req.Validate(); err != nil {
		var ve *appliance.ValidationError
		if errors.As(err, &ve) && len(ve.Fields) > 0 {
			msgs := make([]string, len(ve.Fields))
			for i, f := range ve.Fields {
				msgs[i] = flagOf(f.Field, tw != nil) + ": " + f.Reason
			}
			return fmt.Errorf("coverage: %s: %w", strings.Join(msgs, "; "), errUsage)
		}
		return fmt.Errorf("coverage: %v: %w", err, errUsage)
	}

	ts, _, err := assemble.OpenTerrain(packs)
	if err != nil {
		return fmt.Errorf("coverage: %w", err)
	}
	defer func() {
		for _, p := range ts.Packs {
			_ = p.Close()
		}
	}()
	opts := coverage.Options{Workers: *workers}
	for _, p := range ts.Packs {
		// The finest pack's grid spacing, metres of latitude.
		if sp := p.Info().SpacingArcSec * coverage.ArcSecondM; sp > 0 && (opts.TerrainSpacingM == 0 || sp < opts.TerrainSpacingM) {
			opts.TerrainSpacingM = sp
		}
	}

	// The output is written to a temporary file beside it, renamed at the
	// end: a failed run leaves no partial map, and an unwritable directory
	// fails before the computation.
	tmp, err := os.CreateTemp(filepath.Dir(*out), "."+filepath.Base(*out)+".*")
	if err != nil {
		return fmt.Errorf("coverage: --out: %w", err)
	}
	defer func() {
		if tmp != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()

	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return usageErr("--cpuprofile", "%v", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("coverage: --cpuprofile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	res, err := coverage.New(ts, reg.Get).Compute(ctx, req, opts)
	if err != nil {
		var tm *appliance.TileMissingError
		switch {
		case errors.As(err, &tm):
			return fmt.Errorf("coverage: no terrain under the transmitter at %.6f,%.6f: tile %s is in no loaded pack (pass --terrain PACK with it; terrain is never taken as sea level): %w",
				req.Tx.Lat, req.Tx.Lon, tm.Tile, err)
		case errors.Is(err, appliance.ErrTerrainMissing):
			return fmt.Errorf("coverage: no terrain under the transmitter at %.6f,%.6f (pass --terrain PACK with it): %w", req.Tx.Lat, req.Tx.Lon, err)
		}
		return fmt.Errorf("coverage: %w", err)
	}
	r, s := res.Raster, res.Summary
	if err := geoexport.WriteGeoTIFFMeta(tmp, r.West, r.North, r.PixelLonDeg, r.PixelLatDeg, r.Width, r.Height, r.DBm, math.NaN(),
		coverage.GeoTIFFMetadata(&s)); err != nil {
		return fmt.Errorf("coverage: write %s: %w", *out, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("coverage: write %s: %w", *out, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("coverage: write %s: %w", *out, err)
	}
	if err := os.Rename(tmp.Name(), *out); err != nil {
		return fmt.Errorf("coverage: %w", err)
	}
	tmp = nil

	if len(s.MissingTiles) > 0 {
		fmt.Fprintf(stderr, "linkplan coverage: WARNING: terrain missing in tiles %s: %d pixels within the radius are NoData (never sea level)\n",
			strings.Join(s.MissingTiles, ", "), s.NoDataMissingTerrain)
	}
	sum := coverageSummary{
		Out: *out, Width: r.Width, Height: r.Height, West: r.West, North: r.North, PixelLonDeg: r.PixelLonDeg, PixelLatDeg: r.PixelLatDeg,
		Pixels: s.Pixels, InRadiusPixels: s.InRadiusPixels, ValidPixels: s.ValidPixels, NoDataPixels: s.Pixels - s.ValidPixels,
		NoDataMissingTerrain: s.NoDataMissingTerrain, NoDataOutsideEnvelope: s.NoDataOutsideEnvelope, MissingTiles: s.MissingTiles,
		ThresholdDBm: s.ThresholdDBm, CoveredKm2: s.CoveredKm2AboveThreshold, ElapsedMS: s.ElapsedMS,
		Engine: string(s.Engine), EngineVersion: s.EngineVersion, Radials: s.Radials, ProfileStepM: s.ProfileStepM, Evaluations: s.Evaluations,
		Pixel:   coverage.SummaryData(s).Pixel,
		EIRPDBm: req.EIRPDBm, EIRPAssumed: assumed, Warnings: s.Warnings,
	}
	if sum.MissingTiles == nil {
		sum.MissingTiles = []string{}
	}
	if !math.IsNaN(s.MinDBm) {
		lo, hi := s.MinDBm, s.MaxDBm
		sum.MinDBm, sum.MaxDBm = &lo, &hi
	}
	if tw != nil {
		sum.Tower = tw.ID
	}
	return json.NewEncoder(stdout).Encode(sum)
}
