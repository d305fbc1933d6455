package coverage

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"runtime"

	"linkplan/appliance"
)

// KindViewshed is the kind of a viewshed map in the registry
// (StartComputed): its raster holds the pixel class (ViewBlocked 0,
// ViewLOS 1, ViewFresnel 2; NaN no data), so that a tile's int16 value
// is class·100 (value_scale 0.01) and −32768 no data.
const KindViewshed = "viewshed"

// ViewshedDetail is a viewshed map's own summary (Summary.Detail, the
// summary event's detail), areas in km².
type ViewshedDetail struct {
	Kind            string  `json:"kind"`              // "viewshed"
	VisibleKm2      float64 `json:"visible_km2"`       // line of sight, with or without Fresnel clearance, km²
	FresnelClearKm2 float64 `json:"fresnel_clear_km2"` // line of sight with 60 % of F1 clear, km²
	InRadiusKm2     float64 `json:"in_radius_km2"`     // pixels within the radius, km²
	VisiblePct      float64 `json:"visible_pct"`       // VisibleKm2 / InRadiusKm2, %
	BlockedPixels   int     `json:"blocked_pixels"`
	LOSPixels       int     `json:"los_pixels"`     // ViewLOS and ViewFresnel
	FresnelPixels   int     `json:"fresnel_pixels"` // ViewFresnel
	KFactor         float64 `json:"k_factor"`
	HeightM         float64 `json:"height_m"`    // site antenna above ground, metres
	RxHeightM       float64 `json:"rx_height_m"` // receiver above ground, metres
	FreqMHz         float64 `json:"frequency_mhz"`
	// Classes names the raster's values.
	Classes map[string]string `json:"classes"`
}

// ViewshedRequestOf is the request a viewshed map describes in the
// registry (the started event's transmitter): the site, its height, the
// receiver height, the frequency, the radius and the resolution.
func ViewshedRequestOf(req ViewshedRequest) Request {
	r := req.coverageRequest()
	r.Engine = appliance.EngineFSPL // the /analyze path check is the fspl geometry's
	return r
}

// ViewshedComputer computes a viewshed as a computed map of the registry
// (Maps.StartComputed with KindViewshed): the raster is the class, the
// tiles come when it is done, the summary's Detail is a ViewshedDetail
// and Bands are none (the GeoTIFF and the areas are made from the class
// alone: ViewshedResultOf).
type ViewshedComputer struct {
	svc *Service
	req ViewshedRequest
}

// NewViewshedComputer returns the computer of req (validated: an invalid
// one is appliance.ErrInvalid naming the field).
func NewViewshedComputer(svc *Service, req ViewshedRequest) (*ViewshedComputer, error) {
	if err := req.Validate(); err != nil {
		return nil, fmt.Errorf("viewshed: %w", err)
	}
	return &ViewshedComputer{svc: svc, req: req}, nil
}

// Shape is the heatmap grid of the site and radius.
func (c *ViewshedComputer) Shape() *Raster { return Shape([]Request{c.req.coverageRequest()}, false) }

// Work sizes it as the heatmap of the same grid plus its class raster (one
// byte a pixel) and the float32 raster the registry keeps.
func (c *ViewshedComputer) Work() (int, int64) {
	w := runtime.GOMAXPROCS(0)
	s := c.Shape()
	return w, EstimateMemBytes([]Request{c.req.coverageRequest()}, false, w) + 5*int64(s.Width)*int64(s.Height)
}

// Compute runs Service.Viewshed and reports every tile at the end.
func (c *ViewshedComputer) Compute(ctx context.Context, workers int, onTile func(TileDone), onProgress func(done, total int)) (*Result, error) {
	res, err := c.svc.Viewshed(ctx, c.req, Options{Workers: workers, OnProgress: onProgress})
	if err != nil {
		return nil, err
	}
	r := *res.Grid
	r.DBm = make([]float32, len(res.Class))
	for i, cl := range res.Class {
		r.DBm[i] = float32(cl)
		if cl == ViewNoData {
			r.DBm[i] = float32(math.NaN())
		}
	}
	if onProgress != nil {
		onProgress(res.Summary.Radials, res.Summary.Radials)
	}
	NewRowTiles(&r, onTile).Done(r.Height)
	sum, err := viewshedSummary(c.req, res)
	if err != nil {
		return nil, err
	}
	return &Result{Raster: &r, Summary: sum}, nil
}

// viewshedSummary is the registry's summary of a viewshed: the pixel
// counts, the caveats of its site, its warnings and its ViewshedDetail.
// The dBm figures do not apply (MinDBm, MaxDBm NaN, no covered area).
func viewshedSummary(req ViewshedRequest, res *ViewshedResult) (Summary, error) {
	vs := res.Summary
	cr := ViewshedRequestOf(req)
	s := Summary{Pixels: vs.Pixels, InRadiusPixels: vs.InRadiusPixels, ValidPixels: vs.BlockedPixels + vs.LOSPixels,
		NoDataMissingTerrain: vs.NoDataMissingTerrain, MissingTiles: vs.MissingTiles, ThresholdDBm: DefaultThresholdDBm,
		MinDBm: math.NaN(), MaxDBm: math.NaN(), ElapsedMS: vs.ElapsedMS, Engine: cr.Engine, EngineVersion: "viewshed/1",
		Radials: vs.Radials, ProfileStepM: vs.ProfileStepM, Evaluations: vs.BlockedPixels + vs.LOSPixels,
		ProfiledRadials: vs.ProfiledRadials, VoidFilledRadials: vs.VoidFilledRadials, VoidFilledSamples: vs.VoidFilledSamples,
		VoidMaxSpanM: vs.VoidMaxSpanM}
	s.Pixel = vs.Pixel
	s.EIRPDBm = cr.EIRPDBm
	s.Transmitters = TransmittersData([]Request{cr})
	s.Warnings = append(TransmitterWarnings([]Request{cr}), vs.Warnings...)
	d := ViewshedDetail{Kind: KindViewshed, VisibleKm2: r3(vs.VisibleKm2), FresnelClearKm2: r3(vs.FresnelClearKm2),
		InRadiusKm2: r3(vs.InRadiusKm2), BlockedPixels: vs.BlockedPixels, LOSPixels: vs.LOSPixels, FresnelPixels: vs.FresnelPixels,
		KFactor: vs.KFactor, HeightM: req.HeightM, RxHeightM: req.RxHeightM, FreqMHz: req.FreqMHz, Classes: viewshedClasses}
	if vs.InRadiusKm2 > 0 {
		d.VisiblePct = appliance.Round(100*vs.VisibleKm2/vs.InRadiusKm2, 2)
	}
	b, err := json.Marshal(d)
	if err != nil {
		return Summary{}, fmt.Errorf("viewshed summary: %w", err)
	}
	s.Detail = b
	return s, nil
}

var viewshedClasses = map[string]string{"0": "blocked", "1": "line of sight", "2": "line of sight, 60 % of the first Fresnel zone clear"}

// ViewshedResultOf rebuilds a finished viewshed map (its raster and
// summary, Map.Result) for the exports (WriteViewshedGeoTIFF,
// WriteViewshedAreas), and the request those name (site height, receiver
// height, frequency).
func ViewshedResultOf(r *Raster, s *Summary) (ViewshedRequest, *ViewshedResult, error) {
	var d ViewshedDetail
	if err := json.Unmarshal(s.Detail, &d); err != nil || d.Kind != KindViewshed {
		return ViewshedRequest{}, nil, fmt.Errorf("viewshed map: summary detail is not a viewshed's (%v)", err)
	}
	g := *r
	g.DBm = nil
	res := &ViewshedResult{Grid: &g, Class: make([]uint8, len(r.DBm)), Summary: ViewshedSummary{Pixels: s.Pixels,
		InRadiusPixels: s.InRadiusPixels, BlockedPixels: d.BlockedPixels, LOSPixels: d.LOSPixels, FresnelPixels: d.FresnelPixels,
		NoDataMissingTerrain: s.NoDataMissingTerrain, MissingTiles: s.MissingTiles, VisibleKm2: d.VisibleKm2,
		FresnelClearKm2: d.FresnelClearKm2, InRadiusKm2: d.InRadiusKm2, KFactor: d.KFactor, Radials: s.Radials,
		ProfileStepM: s.ProfileStepM, Pixel: s.Pixel, Warnings: s.Warnings}}
	for i, v := range r.DBm {
		switch {
		case v != v:
			res.Class[i] = ViewNoData
		default:
			res.Class[i] = uint8(v)
		}
	}
	req := ViewshedRequest{HeightM: d.HeightM, RxHeightM: d.RxHeightM, FreqMHz: d.FreqMHz, KFactor: d.KFactor,
		Exact: s.Pixel.Mode == PixelModeExact}
	return req, res, nil
}
