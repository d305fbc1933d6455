package raytracing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/coverage"
)

// MapCaps are a tier's caps on a raytrace map (package doc, "Maps").
type MapCaps struct {
	MaxAreaKm2         float64 // km² of the map's box
	MinResolutionM     float64 // metres: the finest pixel
	MaxPixels          int
	MaxSideM           float64 // metres: the longest side of the box
	DefaultRadiusM     float64 // metres: the half side of the box around the transmitter without bbox
	DefaultResolutionM float64 // metres
}

// MapRDCostFactor divides a tier's pixel cap for a map that asks for the
// reflection–diffraction paths (package doc, "Options"): on the engine's
// benchmark scene a pixel with them around the transmitter costs 46 to
// 59 times a pixel of a default map (81–94 against 1.59–1.77 CPU-ms), so
// that, with a margin, a map at the reduced cap costs no more than a
// default map at the full cap (BenchmarkMapRDCap in engines/raytrace).
const MapRDCostFactor = 80

// MaxPixelsRD is the pixel cap of a map with reflection–diffraction
// paths: MaxPixels / MapRDCostFactor.
func (c MapCaps) MaxPixelsRD() int { return c.MaxPixels / MapRDCostFactor }

// MapSRCostFactor divides a tier's pixel cap for a map that asks for the
// scattering's reflections (scattering_reflections; package doc,
// "Options"): on the engine's benchmark scene a pixel with them around
// the transmitter costs about 5.3 times a pixel of a default map (7.65
// against 1.44 CPU-ms), so that, with a margin, a map at the reduced cap
// costs no more than a default map at the full cap (BenchmarkMapSRCap in
// engines/raytrace).
const MapSRCostFactor = 8

// MaxPixelsSR is the pixel cap of a map with the scattering's
// reflections (and without reflection–diffraction, whose cap is lower):
// MaxPixels / MapSRCostFactor.
func (c MapCaps) MaxPixelsSR() int { return c.MaxPixels / MapSRCostFactor }

// CapsOf returns the map caps of a tier (admin keys: Ultra's).
func CapsOf(k *appliance.APIKey) MapCaps {
	if t, _ := appliance.RaytraceTier(k); t == appliance.TierUltra {
		return MapCaps{MaxAreaKm2: 4, MinResolutionM: 2, MaxPixels: 160_000, MaxSideM: 4000, DefaultRadiusM: 500, DefaultResolutionM: 5}
	}
	return MapCaps{MaxAreaKm2: 1, MinResolutionM: 5, MaxPixels: 40_000, MaxSideM: 2000, DefaultRadiusM: 500, DefaultResolutionM: 5}
}

// MapRequest asks for a raytrace radio map of one transmitter over one of
// the tenant's building layers.
type MapRequest struct {
	LayerID string
	// TowerID names the transmitter, a tower in the key's scope (its
	// position, height, EIRP, azimuth and antenna: catalogue antenna,
	// tilt, beamwidth, front-to-back ratio); or Site, an explicit
	// transmitter as a heatmap's (its catalogue antenna and tilt
	// included). One of the two.
	TowerID *string
	Site    *coverage.Site
	FreqMHz float64
	// RxHeightM and ResolutionM are metres; 0: 1.5 m and the tier's
	// default.
	RxHeightM, ResolutionM float64
	// BBox is the map's box; nil: the square of side 2·RadiusM around the
	// transmitter.
	BBox    *appliance.BBox
	RadiusM float64 // metres; 0: the tier's default
	Options appliance.RaytraceOptions
}

// StartMap validates a raytrace map for k's tenant, under the tier's caps,
// resolves its transmitter as a heatmap's (MapStarter.Requests: a tower
// in the key's scope, a catalogue antenna, a tilt) and starts it in the
// coverage registry, audited (MapStarter.StartComputed); the caller
// attaches its stream.
func (s *Service) StartMap(ctx context.Context, k *appliance.APIKey, req MapRequest) (*coverage.Map, error) {
	if err := allowed(k); err != nil {
		return nil, err
	}
	caps := CapsOf(k)
	v := &appliance.ValidationError{}
	site, txField, err := s.mapTransmitter(k, req, v)
	if err != nil {
		return nil, err
	}
	if site.ResolutionM == 0 {
		site.ResolutionM = caps.DefaultResolutionM
	}
	if site.RxHeightM == 0 {
		site.RxHeightM = 1.5
	}
	if !(site.RxHeightM > 0) || site.RxHeightM > coverage.MaxAntennaHeightM {
		v.Add("rx_height_m", "must be in (0, %g] metres above the ground, got %g", coverage.MaxAntennaHeightM, site.RxHeightM)
	}
	if math.IsNaN(site.ResolutionM) || site.ResolutionM < caps.MinResolutionM || site.ResolutionM > 1000 {
		v.Add("resolution_m", "must be %g..1000 m for the %s tier, got %g", caps.MinResolutionM, k.Tier, site.ResolutionM)
	}
	if req.BBox != nil && req.RadiusM != 0 {
		v.Add("radius_m", "give bbox or radius_m, not both")
	}
	radius := req.RadiusM
	if radius == 0 {
		radius = caps.DefaultRadiusM
	}
	if !(radius > 0) || radius > caps.MaxSideM/2 {
		v.Add("radius_m", "must be in (0, %g] m for the %s tier, got %g", caps.MaxSideM/2, k.Tier, radius)
	}
	opt := req.Options
	probe := appliance.RaytracePointRequest{Tx: appliance.RaytraceAntenna{Pos: appliance.LatLon{Lat: 0, Lon: 0}, HeightM: 1}, Rx: appliance.RaytraceAntenna{Pos: appliance.LatLon{Lat: 0, Lon: 0.001}, HeightM: 1},
		FreqMHz: site.FreqMHz, Options: opt}
	if err := probe.Validate(); err != nil {
		var ve *appliance.ValidationError
		if errors.As(err, &ve) {
			for _, f := range ve.Fields {
				v.Add(f.Field, "%s", f.Reason) // the map's body names the options at its top level
			}
		}
	}
	validOptions(v, opt, func(f string) string { return f })
	if err := v.Err(); err != nil {
		return nil, err
	}
	ly, err := s.layerOf(ctx, k, k.TenantID, req.LayerID, "layer_id")
	if err != nil {
		return nil, err
	}
	f := ly.frame
	tx, ty := f.ToLocal(site.Tx)
	x0, y0, x1, y1 := tx-radius, ty-radius, tx+radius, ty+radius
	if b := req.BBox; b != nil {
		x0, y0 = f.ToLocal(appliance.LatLon{Lat: b.MinLat, Lon: b.MinLon})
		x1, y1 = f.ToLocal(appliance.LatLon{Lat: b.MaxLat, Lon: b.MaxLon})
	}
	step := site.ResolutionM
	g := newGrid(f, x0, y0, x1, y1, step)
	area := (x1 - x0) * (y1 - y0) / 1e6
	switch {
	case area > caps.MaxAreaKm2 || x1-x0 > caps.MaxSideM || y1-y0 > caps.MaxSideM:
		v.Add(areaField(req), "the map covers %.3f km² (%.0f m × %.0f m); the %s tier allows %g km² and sides of %g m", area, x1-x0, y1-y0, k.Tier, caps.MaxAreaKm2, caps.MaxSideM)
	case g.nx*g.ny > caps.MaxPixels:
		v.Add("resolution_m", "the map would have %d×%d = %d pixels; the %s tier allows %d: choose a coarser resolution or a smaller area", g.nx, g.ny, g.nx*g.ny, k.Tier, caps.MaxPixels)
	case opt.ReflectionDiffraction && g.nx*g.ny > caps.MaxPixelsRD():
		v.Add("reflection_diffraction", "costs about 50 times as much per pixel near the transmitter as a map without it: with it the %s tier allows %d pixels (its cap of %d divided by %d) and this map would have %d×%d = %d; choose a coarser resolution or a smaller area, or leave reflection_diffraction off",
			k.Tier, caps.MaxPixelsRD(), caps.MaxPixels, MapRDCostFactor, g.nx, g.ny, g.nx*g.ny)
	case opt.ScatteringReflections && g.nx*g.ny > caps.MaxPixelsSR():
		v.Add("scattering_reflections", "costs about 5 times as much per pixel near the transmitter as a map without it: with it the %s tier allows %d pixels (its cap of %d divided by %d) and this map would have %d×%d = %d; choose a coarser resolution or a smaller area, or leave scattering_reflections off",
			k.Tier, caps.MaxPixelsSR(), caps.MaxPixels, MapSRCostFactor, g.nx, g.ny, g.nx*g.ny)
	}
	inFrame(v, txField, f, site.Tx)
	// the corner pixels' centres, which the engine traces: the grid rounds
	// its pixel count up, so the last centres may lie up to half a pixel
	// beyond the requested box (checking the box alone let such a map
	// start and then fail in every band)
	px0, py0 := g.x0+g.step/2, g.y0+g.step/2
	px1, py1 := g.x0+(float64(g.nx)-0.5)*g.step, g.y0+(float64(g.ny)-0.5)*g.step
	for _, c := range [][2]float64{{x0, y0}, {x1, y0}, {x0, y1}, {x1, y1}, {px0, py0}, {px1, py0}, {px0, py1}, {px1, py1}} {
		if math.Hypot(c[0], c[1]) > appliance.RaytraceMaxFrameM {
			v.Add(areaField(req), "the map reaches %.0f m from the building layer's centre; the raytrace engine traces within %g m of it", math.Hypot(c[0], c[1]), appliance.RaytraceMaxFrameM)
			break
		}
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	site.RadiusM = 0
	for _, c := range [][2]float64{{x0, y0}, {x1, y0}, {x0, y1}, {x1, y1}} {
		site.RadiusM = math.Max(site.RadiusM, math.Hypot(c[0]-tx, c[1]-ty))
	}
	site.RadiusM = math.Round(site.RadiusM)
	c := &mapComputer{s: s, tenantID: k.TenantID, layer: ly, scene: s.sceneRef(k.TenantID, ly), grid: g, site: site, opt: opt}
	return s.Maps.StartComputed(ctx, k, KindMap, []coverage.Request{site}, c)
}

// mapTransmitter resolves a map's transmitter (MapStarter.Requests, as a
// heatmap's: its antenna as a Radiator; a raytrace map is not calibrated)
// and checks what the ray tracer needs of it; field problems go to v.
// txField names the transmitter in the body: "tower_id" or "site".
func (s *Service) mapTransmitter(k *appliance.APIKey, req MapRequest, v *appliance.ValidationError) (site coverage.Request, txField string, err error) {
	site = coverage.Request{AzimuthDeg: math.NaN(), FreqMHz: req.FreqMHz, RxHeightM: req.RxHeightM, ResolutionM: req.ResolutionM}
	spec := coverage.Spec{FreqMHz: req.FreqMHz, Engine: appliance.EngineRaytrace}
	switch {
	case req.TowerID != nil && req.Site != nil:
		v.Add("tower_id", "give tower_id or site, not both")
		return site, "tower_id", nil
	case req.TowerID != nil:
		txField, spec.TowerIDs = "tower_id", []string{*req.TowerID}
	case req.Site != nil:
		txField = "site"
		st := req.Site
		if !st.Pos.Valid() {
			v.Add("site", "must be a position in WGS84 degrees, got %v", st.Pos)
		}
		if !(st.HeightM > 0) || st.HeightM > coverage.MaxAntennaHeightM {
			v.Add("site.height_m", "must be in (0, %g] metres above the ground, got %g", coverage.MaxAntennaHeightM, st.HeightM)
		}
		if math.IsNaN(st.EIRPDBm) || st.EIRPDBm < coverage.MinEIRPDBm || st.EIRPDBm > coverage.MaxEIRPDBm {
			v.Add("site.eirp_dbm", "must be %g..%g dBm, got %g", coverage.MinEIRPDBm, coverage.MaxEIRPDBm, st.EIRPDBm)
		}
		if math.IsInf(st.AzimuthDeg, 0) {
			v.Add("site.azimuth_deg", "must be a finite bearing in degrees or absent (omni)")
		}
		if st.BeamwidthDeg < 0 || st.BeamwidthDeg > 360 || math.IsNaN(st.BeamwidthDeg) {
			v.Add("site.beamwidth_deg", "must be in (0, 360] degrees, got %g", st.BeamwidthDeg)
		}
		spec.Site = st
	default:
		v.Add("tower_id", "give tower_id or site")
		return site, "tower_id", nil
	}
	reqs, err := s.Maps.Requests(k, spec, false)
	var ve *appliance.ValidationError
	switch {
	case errors.As(err, &ve):
		v.Merge(ve)
		return site, txField, nil
	case err != nil:
		return site, txField, err
	case len(reqs) != 1:
		return site, txField, fmt.Errorf("raytrace map: %d transmitters resolved, want 1: %w", len(reqs), appliance.ErrInvalid)
	}
	r := reqs[0]
	r.Engine, r.EngineNote = appliance.EngineRaytrace, ""
	r.FreqMHz, r.RxHeightM, r.ResolutionM = req.FreqMHz, req.RxHeightM, req.ResolutionM
	r.Calibration, r.Transmitter.Calibration = nil, nil // a raytrace map is not calibrated
	if r.TxHeightM <= 0 {
		r.TxHeightM = 30 // the planner's height of a tower without one
	}
	return r, txField, nil
}

// KindMap is the kind of a raytrace map in the coverage registry.
const KindMap = "raytrace"

// MapDetail is a raytrace map's own summary (coverage Summary.Detail, the
// summary event's detail, kept in the map's record): the building layer,
// its scene and the options the map was computed with.
type MapDetail struct {
	Kind      string      `json:"kind"` // "raytrace"
	LayerID   string      `json:"layer_id"`
	SceneHash string      `json:"scene_hash"` // hex SHA-256 of the layer's scene
	Options   OptionsJSON `json:"options"`
}

func areaField(req MapRequest) string {
	if req.BBox != nil {
		return "bbox"
	}
	return "radius_m"
}

// grid is a raytrace map's pixels: nx×ny squares of step metres in the
// layer's frame from (x0, y0), the south-west corner; as a coverage
// raster (north-west first) they are a regular WGS84 grid, since the frame
// is equirectangular.
type grid struct {
	f        appliance.LocalFrame
	x0, y0   float64
	step     float64
	nx, ny   int
	west     float64
	north    float64
	pxLonDeg float64
	pxLatDeg float64
}

func newGrid(f appliance.LocalFrame, x0, y0, x1, y1, step float64) grid {
	nx := max(1, int(math.Ceil((x1-x0)/step-1e-9)))
	ny := max(1, int(math.Ceil((y1-y0)/step-1e-9)))
	g := grid{f: f, x0: x0, y0: y0, step: step, nx: nx, ny: ny}
	sw := f.ToLatLon(x0, y0)
	ne := f.ToLatLon(x0+float64(nx)*step, y0+float64(ny)*step)
	g.west, g.north = sw.Lon, ne.Lat
	g.pxLonDeg = (ne.Lon - sw.Lon) / float64(nx)
	g.pxLatDeg = (ne.Lat - sw.Lat) / float64(ny)
	return g
}

func (g grid) shape() *coverage.Raster {
	return &coverage.Raster{West: g.west, North: g.north, PixelLonDeg: g.pxLonDeg, PixelLatDeg: g.pxLatDeg, Width: g.nx, Height: g.ny}
}

// mapComputer computes a raytrace map on the executor in bands of rows
// from the north (coverage.Computer).
type mapComputer struct {
	s        *Service
	tenantID string
	layer    *layer
	scene    appliance.RaytraceScene
	grid     grid
	site     coverage.Request
	opt      appliance.RaytraceOptions
}

func (c *mapComputer) Shape() *coverage.Raster { return c.grid.shape() }

// Work: the worker's goroutines for the map (its bands run one at a time)
// and the appliance's memory: the raster, the flags and one band's answer
// (13 bytes a pixel), and the scene input on a worker miss.
func (c *mapComputer) Work() (int, int64) {
	px := int64(c.grid.nx * c.grid.ny)
	return runtime.GOMAXPROCS(0), 64<<20 + 32*px
}

// bandRows is the height of a map's units: about 20 units a map, at least
// 8 rows each.
func (c *mapComputer) bandRows() int {
	return max(8, (c.grid.ny+19)/20)
}

// Compute computes the bands north to south, each a Map unit of the
// executor (the pixels do not depend on the split: each equals Point at
// its centre), and applies the transmitter's EIRP and antenna pattern.
// An executor that dies holding a band is asked once more (a fresh worker
// with the band again); a second death ends the map: the quarantine rule
// of jobs (appliance.JobCrashLimit).
func (c *mapComputer) Compute(ctx context.Context, workers int, onTile func(coverage.TileDone), onProgress func(done, total int)) (*coverage.Result, error) {
	start := time.Now()
	g := c.grid
	r := c.Shape()
	r.DBm = make([]float32, g.nx*g.ny)
	flags := make([]uint8, g.nx*g.ny)
	tiles := coverage.NewRowTiles(r, onTile)
	rows := c.bandRows()
	bands := (g.ny + rows - 1) / rows
	var reqWarns []appliance.Warning
	var assumed []string
	var clutter appliance.RaytraceClutter
	version := c.s.Executor.EngineVersion()
	crashes := 0
	// An antenna with a vertical pattern (a catalogue antenna, a known
	// tilt) loses toward each pixel by the elevation at which it sees the
	// receiver at the pixel's centre, as a heatmap's (coverage package
	// doc, "Antenna pattern"); the generic sector has none.
	vertical := c.site.Radiator != nil && c.site.Radiator.HasVertical()
	ground := c.s.ground(c.site.Tx)
	zt := ground.at(c.site.Tx) + c.site.TxHeightM
	for b := 0; b < bands; b++ {
		r0, r1 := b*rows, min(g.ny, (b+1)*rows) // coverage rows, from the north
		// raytrace rows count from the south: coverage row r is ny−1−r
		south := g.ny - r1
		mr := appliance.RaytraceMapRequest{Tx: appliance.RaytraceAntenna{Pos: c.site.Tx, HeightM: c.site.TxHeightM},
			SouthWest: g.f.ToLatLon(g.x0+g.step/2, g.y0+g.step/2+float64(south)*g.step), StepM: g.step, NX: g.nx, NY: r1 - r0,
			RxHeightM: c.site.RxHeightM, FreqMHz: c.site.FreqMHz, Options: c.opt, Workers: workers}
		res, err := c.s.Executor.Map(ctx, c.scene, mr)
		c.s.count("map_band", err, ctx)
		var ce *appliance.ExecutorCrashError
		if errors.As(err, &ce) {
			crashes++
			if crashes < appliance.JobCrashLimit {
				c.s.log().Warn("raytrace map: the worker died holding a band; computing it again", "band", b, "detail", ce.Detail)
				b--
				continue
			}
			return nil, &appliance.ExecutorCrashError{Executor: ce.Executor,
				Detail: fmt.Sprintf("twice while it computed this map, the last time: %s; the map is quarantined and not computed again automatically", ce.Detail)}
		}
		if err != nil {
			return nil, fmt.Errorf("raytrace map band %d: %w", b, err)
		}
		if n := g.nx * (r1 - r0); res.NX != g.nx || res.NY != r1-r0 || len(res.PathLossDB) != n || len(res.Flags) != n ||
			len(res.ReceivedPowerDBm) != n || len(res.RMSDelaySpreadNs) != n {
			return nil, fmt.Errorf("raytrace map band %d: the executor answered %d×%d pixels with %d path losses, %d flags, %d powers and %d delay spreads, want %d×%d and %d of each",
				b, res.NX, res.NY, len(res.PathLossDB), len(res.Flags), len(res.ReceivedPowerDBm), len(res.RMSDelaySpreadNs), g.nx, r1-r0, n)
		}
		if b == 0 {
			reqWarns, version, clutter = res.RequestWarnings, res.EngineVersion, res.Clutter
		}
		assumed = append(assumed, res.AssumedBuildings...)
		for j := 0; j < r1-r0; j++ {
			row := r1 - 1 - j
			for i := 0; i < g.nx; i++ {
				k := j*g.nx + i
				px := row*g.nx + i
				flags[px] = res.Flags[k]
				loss := res.PathLossDB[k]
				if loss != loss {
					r.DBm[px] = float32(math.NaN())
					continue
				}
				p := r.PixelCenter(row, i)
				b := c.site.Tx.BearingDeg(p)
				pattern := c.site.PatternLossDB(b)
				if vertical {
					pattern = c.site.PatternLossAtDB(b, appliance.ElevationDownDeg(zt, ground.at(p)+c.site.RxHeightM, c.site.Tx.DistanceM(p)))
				}
				r.DBm[px] = float32(c.site.EIRPDBm - pattern - float64(loss))
			}
		}
		onProgress(b+1, bands)
		tiles.Done(r1)
	}
	slices.Sort(assumed)
	assumed = slices.Compact(assumed)
	warns := append(append([]appliance.Warning{}, reqWarns...), c.s.Executor.MapWarnings(flags, assumed, clutter)...)
	if w, ok := patternWarning(c.site); ok {
		warns = append(warns, w)
	}
	warns = append(warns, LayerWarnings(c.layer.l)...)
	sum := coverage.ComputedSummary(r, c.site, version, warns, time.Since(start))
	d, err := json.Marshal(MapDetail{Kind: KindMap, LayerID: c.layer.l.ID, SceneHash: c.layer.hash, Options: EchoOptions(c.opt)})
	if err != nil {
		return nil, fmt.Errorf("raytrace map summary: %w", err)
	}
	sum.Detail = d
	return &coverage.Result{Raster: r, Summary: sum}, nil
}

// WarnPatternAlongBearing: a map's transmitter has a directional pattern,
// applied along each pixel's direct bearing, not per path.
const WarnPatternAlongBearing = "raytrace_pattern_along_bearing"

// patternWarning is the WarnPatternAlongBearing warning of a map whose
// transmitter pattern is not omnidirectional (its horizontal loss varies
// over the whole degrees of bearing) or has a vertical pattern (a
// catalogue antenna, a known tilt): the map applies it along each pixel's
// direct bearing and elevation (package doc, "Maps"), so paths that leave
// the transmitter in other directions (reflected, diffracted, scattered;
// the ground's reflection below the direct ray) get the direct ray's
// gain.
func patternWarning(site coverage.Request) (appliance.Warning, bool) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for b := 0; b < 360; b++ {
		l := site.PatternLossDB(float64(b))
		lo, hi = min(lo, l), max(hi, l)
	}
	vertical := site.Radiator != nil && site.Radiator.HasVertical()
	if !(hi > lo) && !vertical {
		return appliance.Warning{}, false
	}
	lobe := ""
	if !math.IsNaN(site.AzimuthDeg) {
		lobe = fmt.Sprintf(" (main lobe toward %g°)", site.AzimuthDeg)
	}
	if vertical {
		return appliance.Warning{Code: WarnPatternAlongBearing, Message: fmt.Sprintf("The transmitter's antenna pattern (%s%s), %.1f dB from its strongest to its weakest bearing at the horizon, with its vertical pattern, is applied along each pixel's direct bearing and elevation from the transmitter, not along each path's departure: reflected, diffracted and scattered paths leaving in other directions, and the ground's reflection, get the direct ray's gain.",
			site.AntennaLabel(), lobe, hi-lo)}, true
	}
	return appliance.Warning{Code: WarnPatternAlongBearing, Message: fmt.Sprintf("The transmitter's antenna pattern (%s%s), %.1f dB from its strongest to its weakest bearing, is applied along each pixel's direct bearing from the transmitter, not along each path's departure: reflected, diffracted and scattered paths leaving in other directions get the direct bearing's gain.",
		site.AntennaLabel(), lobe, hi-lo)}, true
}

// LayerWarnings are the warnings of a building layer's import that
// qualify every answer computed on it (GET /buildings/layers/{id}
// warnings: rings dropped, SIRGAS 2000 read as WGS84, outlines replaced by
// their parts, outer ways merged, unusable height tags, …), each message
// naming the layer; they travel into a link job's result and summary and
// a map's summary and exports. The layer's assumed heights are left out:
// each answer states those that shaped its paths (raytrace_assumed_heights).
func LayerWarnings(l *appliance.BuildingLayer) []appliance.Warning {
	var out []appliance.Warning
	for _, w := range l.Warnings {
		if w.Code == layerAssumedHeights {
			continue
		}
		out = append(out, appliance.Warning{Code: w.Code, Message: fmt.Sprintf("building layer %s (%s): %s", l.ID, truncate(l.Name, 64), w.Message)})
	}
	return out
}

// The codes of a building layer's import warnings (appliance/buildings
// raises them; OpenAPI BuildingWarning) that LayerWarnings carries into
// the raytrace answers, declared here for the answers' Warning codes.
const (
	WarnLayerOuterWaysMerged         = "buildings_outer_ways_merged"
	WarnLayerRingsDropped            = "buildings_rings_dropped"
	WarnLayerOutlinesReplacedByParts = "buildings_outlines_replaced_by_parts"
	WarnLayerSIRGAS2000AsWGS84       = "buildings_sirgas2000_as_wgs84"
	WarnLayerUnusableHeightTags      = "buildings_unusable_height_tags"
)

// layerAssumedHeights is the layer's warning of the buildings that take
// its default height rule (appliance/buildings), which each answer states
// as raytrace_assumed_heights for the buildings on its own paths.
const layerAssumedHeights = "buildings_assumed_heights"
