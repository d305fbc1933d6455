package interference

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"linkplan/appliance"
	"linkplan/appliance/coverage"
)

// KindInterference is the kind of an interference map in the registry of
// appliance/coverage (package doc, "Streams").
const KindInterference = "interference"

// MapSite is an explicit transmitter of a MapSpec with its own channel.
type MapSite struct {
	Site coverage.Site
	// FreqMHz is its centre frequency, MHz; 0: the spec's.
	FreqMHz float64
	// BandwidthMHz and ACSDB as Transmitter's; 0: the spec's.
	BandwidthMHz, ACSDB float64
	// RadioID names a catalogue radio whose acs_db the site's receivers
	// take when ACSDB is 0 (Request.UseRadios); "": none.
	RadioID string
}

// MapSpec is an interference map as the API asks for it: towers (Spec's
// TowerIDs, or BBox and Operator, on Spec.FreqMHz with BandwidthMHz) and
// explicit Sites, on one grid (Spec's radius, receiver height, resolution
// and engine for all).
type MapSpec struct {
	Spec                coverage.Spec
	BandwidthMHz, ACSDB float64 // of the towers, and the default of the sites
	Sites               []MapSite
	NoiseFigureDB       float64
	SINRThresholdsDB    []float64
}

// Maps starts interference maps and viewsheds as computed maps of the
// coverage registry (coverage.Starter.StartComputed): the per-tenant
// bound, the heavy-work admission, the stream and its resume,
// persistence, retention and the exports are a heatmap's.
type Maps struct {
	// Starter resolves towers and sites for a key (tier caps, scope,
	// antennas, calibration) and holds the registry.
	Starter *coverage.Starter
	// Service computes the interference maps; Coverage the viewsheds.
	Service  *Service
	Coverage *coverage.Service
	// Radios resolves the sites' radio_id (appliance/equipment); nil: a
	// site naming a radio is refused.
	Radios appliance.RadioCatalogue
}

// StartInterference resolves spec for k, checks the tier's caps
// (CheckCaps) and the request (Request.Validate) and starts the map.
// Errors: appliance.ErrInvalid naming the field, ErrForbidden for a tier
// without multi-transmitter maps, the registry's (ErrQuota,
// ErrUnavailable with a Retry-After).
func (m *Maps) StartInterference(ctx context.Context, k *appliance.APIKey, spec MapSpec) (*coverage.Map, error) {
	req, err := m.Request(k, spec)
	if err != nil {
		return nil, err
	}
	reqs := make([]coverage.Request, len(req.Transmitters))
	for i, t := range req.Transmitters {
		reqs[i] = t.Request
	}
	if err := m.Starter.CheckTerrain(reqs); err != nil {
		return nil, err
	}
	return m.Starter.StartComputed(ctx, k, KindInterference, reqs, &mapComputer{svc: m.Service, req: req})
}

// Request resolves spec for k into the interference request it starts.
func (m *Maps) Request(k *appliance.APIKey, spec MapSpec) (Request, error) {
	caps := coverage.CapsFor(k.Tier)
	if caps.MaxServers == 0 {
		return Request{}, fmt.Errorf("interference map: the %s tier has no multi-transmitter maps: %w", k.Tier, appliance.ErrForbidden)
	}
	v := &appliance.ValidationError{}
	var ts []Transmitter
	sites := 0 // the index of the first explicit site in ts
	base := spec.Spec
	base.Exact = false // checked once for the whole map (CheckCaps), set below
	if len(base.TowerIDs) > 0 || base.BBox != nil {
		reqs, err := m.Starter.Requests(k, base, true)
		if err != nil {
			return Request{}, err
		}
		for _, r := range reqs {
			ts = append(ts, Transmitter{Request: r, BandwidthMHz: spec.BandwidthMHz, ACSDB: spec.ACSDB})
		}
		sites = len(ts)
	}
	for i, st := range spec.Sites {
		one := base
		one.TowerIDs, one.BBox, one.Operator = nil, nil, ""
		site := st.Site
		one.Site = &site
		if st.FreqMHz != 0 {
			one.FreqMHz = st.FreqMHz
		}
		reqs, err := m.Starter.Requests(k, one, false)
		if ve, ok := err.(*appliance.ValidationError); ok {
			prefix := "sites[" + strconv.Itoa(i) + "]."
			for _, f := range ve.Fields {
				name := f.Field
				if rest, ok := strings.CutPrefix(name, "site."); ok {
					name = prefix + rest
				} else if name == "frequency_mhz" && st.FreqMHz != 0 {
					name = prefix + name
				}
				v.Add(name, "%s", f.Reason)
			}
			continue
		}
		if err != nil {
			return Request{}, err
		}
		t := Transmitter{Request: reqs[0], BandwidthMHz: spec.BandwidthMHz, ACSDB: st.ACSDB, RadioID: st.RadioID}
		if t.ACSDB == 0 && t.RadioID == "" {
			t.ACSDB = spec.ACSDB
		}
		if st.BandwidthMHz != 0 {
			t.BandwidthMHz = st.BandwidthMHz
		}
		ts = append(ts, t)
	}
	if len(spec.Sites) == 0 && len(base.TowerIDs) == 0 && base.BBox == nil {
		v.Add("sites", "give sites, tower_ids or bbox")
	}
	if err := v.Err(); err != nil {
		return Request{}, err
	}
	// The sites' radios (their indices in ts are the sites' own when no
	// tower comes first: UseRadios names sites[i].radio_id).
	if sub := (Request{Transmitters: ts[sites:]}); len(sub.Transmitters) > 0 {
		if err := sub.UseRadios(m.Radios, k.TenantID); err != nil {
			return Request{}, err
		}
		for i := range sub.Transmitters {
			if sub.Transmitters[i].ACSDB == 0 {
				sub.Transmitters[i].ACSDB = spec.ACSDB // a radio stating none: the map's
			}
		}
	}
	for i := range ts {
		ts[i].Exact = spec.Spec.Exact
	}
	req := Request{Transmitters: ts, NoiseFigureDB: spec.NoiseFigureDB, SINRThresholdsDB: spec.SINRThresholdsDB}
	if err := CheckCaps(k.Tier, req); err != nil {
		return Request{}, err
	}
	if err := req.Validate(); err != nil {
		return Request{}, err
	}
	if px := coverage.Shape(reqsOf(ts), true); px.Width*px.Height > coverage.MaxMapPixels {
		return Request{}, appliance.Invalid("resolution_m", "the map would have %d×%d pixels, more than %d: choose a coarser resolution, a smaller radius or closer sites",
			px.Width, px.Height, coverage.MaxMapPixels)
	}
	return req, nil
}

func reqsOf(ts []Transmitter) []coverage.Request {
	out := make([]coverage.Request, len(ts))
	for i, t := range ts {
		out[i] = t.Request
	}
	return out
}

// ViewshedSpec is a viewshed as the API asks for it: a site, or a tower
// (TowerID: its position and height), and the request's other fields
// (zero: DefaultRxHeightM, the tier's default radius and resolution).
type ViewshedSpec struct {
	TowerID string
	Request coverage.ViewshedRequest
}

// StartViewshed resolves spec for k (a tower in the key's scope), applies
// the defaults and the tier's caps (CheckViewshedCaps) and starts the
// viewshed map (coverage.KindViewshed).
func (m *Maps) StartViewshed(ctx context.Context, k *appliance.APIKey, spec ViewshedSpec) (*coverage.Map, error) {
	req := spec.Request
	caps := coverage.CapsFor(k.Tier)
	if req.RadiusM == 0 {
		req.RadiusM = math.Min(coverage.DefaultRadiusM, caps.MaxRadiusM)
	}
	if req.RxHeightM == 0 {
		req.RxHeightM = coverage.DefaultRxHeightM
	}
	if req.ResolutionM == 0 {
		req.ResolutionM = math.Max(coverage.DefaultResolutionM, caps.MinResolutionM)
	}
	if spec.TowerID != "" {
		t, ok := m.Starter.Towers().Get(spec.TowerID)
		if !ok || !t.VisibleTo(k.TenantID) {
			return nil, appliance.Invalid("tower_id", "unknown tower %q", spec.TowerID)
		}
		req.Site = t.Pos()
		if req.HeightM == 0 {
			req.HeightM = t.HeightM
		}
	}
	if err := CheckViewshedCaps(k.Tier, req); err != nil {
		return nil, err
	}
	reqs := []coverage.Request{coverage.ViewshedRequestOf(req)}
	if err := m.Starter.CheckTerrain(reqs); err != nil {
		return nil, err
	}
	c, err := coverage.NewViewshedComputer(m.Coverage, req)
	if err != nil {
		return nil, err
	}
	return m.Starter.StartComputed(ctx, k, coverage.KindViewshed, reqs, c)
}

// mapComputer computes an interference map as a computed map of the
// registry (package doc, "Streams").
type mapComputer struct {
	svc *Service
	req Request
}

// HasServers: the map's tiles carry the best server.
func (c *mapComputer) HasServers() bool { return true }

func (c *mapComputer) Shape() *coverage.Raster {
	return coverage.Shape(reqsOf(c.req.Transmitters), true)
}

// Work sizes the map as the best-server map of its transmitters, plus its
// own arrays per pixel (server, carrier, in-radius flag, three bands and,
// per channel, the strongest level, its index and the rest: 8+8+4 bytes)
// and the largest shared site (ShareBytes, when shared).
func (c *mapComputer) Work() (int, int64) {
	w := runtime.GOMAXPROCS(0)
	reqs := reqsOf(c.req.Transmitters)
	s := coverage.Shape(reqs, true)
	px := int64(s.Width) * int64(s.Height)
	share := int64(0)
	for _, t := range c.req.Transmitters {
		if !c.req.exact() { // an exact map shares nothing
			share = max(share, min(ShareBytes(t.Request), MaxShareBytes))
		}
	}
	chs := int64(len(channelsOf(c.req.Transmitters).list))
	return w, coverage.EstimateMemBytes(reqs, true, w) + px*(4+4+1+16+20*chs) + share
}

func (c *mapComputer) Compute(ctx context.Context, workers int, onTile func(coverage.TileDone), onProgress func(done, total int)) (*coverage.Result, error) {
	res, err := c.svc.Compute(ctx, c.req, coverage.Options{Workers: workers, OnProgress: onProgress})
	if err != nil {
		return nil, err
	}
	r := *res.Grid
	r.DBm = res.SINRDB
	rt := coverage.NewRowTiles(&r, onTile)
	rt.Servers = res.Server
	rt.Done(r.Height)
	sum, err := mapSummary(c.req, res)
	if err != nil {
		return nil, err
	}
	return &coverage.Result{Raster: &r, Summary: sum, Servers: res.Server,
		Bands: [][]float32{res.CarrierDBm, res.InterferenceDBm, res.CIDB}}, nil
}

// MapDetail is an interference map's own summary (coverage.Summary's
// Detail, the summary event's detail).
type MapDetail struct {
	Kind             string        `json:"kind"` // "interference"
	NoiseFigureDB    float64       `json:"noise_figure_db"`
	ValidPixels      int           `json:"valid_pixels"`      // pixels with a best server
	InterferedPixels int           `json:"interfered_pixels"` // pixels where an interferer couples
	MinSINRDB        *float64      `json:"min_sinr_db"`       // null without a valid pixel
	MaxSINRDB        *float64      `json:"max_sinr_db"`
	SINRAreas        []sinrArea    `json:"sinr_areas"`    // per threshold, the area at or above it
	ServedPixels     []int         `json:"served_pixels"` // per transmitter, in request order
	Channels         []channelJSON `json:"channels"`
	SharedSweeps     int           `json:"shared_sweeps"`
	SharedProfiles   int           `json:"shared_profiles"`
	// Value names what the raster (the tiles' data) holds, and Bands the
	// GeoTIFF's bands.
	Value string   `json:"value"`
	Bands []string `json:"geotiff_bands"`
}

type sinrArea struct {
	ThresholdDB float64 `json:"threshold_db"`
	AreaKm2     float64 `json:"area_km2"`
}

type channelJSON struct {
	FreqMHz      float64 `json:"frequency_mhz"`
	BandwidthMHz float64 `json:"bandwidth_mhz"`
}

func finitePtr(v float64) *float64 {
	if !finite(v) {
		return nil
	}
	x := appliance.Round(v, 3)
	return &x
}

// mapSummary is the registry's summary of an interference map: the
// carrier's figures (the best-server map's: levels, covered area at
// coverage.DefaultThresholdDBm), the transmitters' terrain facts summed,
// every caveat, and the MapDetail.
func mapSummary(req Request, res *Result) (coverage.Summary, error) {
	is := &res.Summary
	g := res.Grid
	reqs := reqsOf(req.Transmitters)
	s := coverage.Summary{Pixels: is.Pixels, InRadiusPixels: is.InRadiusPixels, ValidPixels: is.ValidPixels,
		ThresholdDBm: coverage.DefaultThresholdDBm, MinDBm: math.NaN(), MaxDBm: math.NaN(), ElapsedMS: is.ElapsedMS,
		Engine: reqs[0].Engine}
	for px, v := range res.CarrierDBm {
		if v != v {
			continue
		}
		f := float64(v)
		if math.IsNaN(s.MinDBm) || f < s.MinDBm {
			s.MinDBm = f
		}
		if math.IsNaN(s.MaxDBm) || f > s.MaxDBm {
			s.MaxDBm = f
		}
		if f >= s.ThresholdDBm {
			s.CoveredKm2AboveThreshold += g.PixelAreaKm2(px / g.Width)
		}
	}
	for i, p := range is.PerTransmitter {
		if i == 0 {
			s.EngineVersion, s.ProfileStepM = p.EngineVersion, p.ProfileStepM
		}
		s.NoDataMissingTerrain += p.NoDataMissingTerrain
		s.NoDataOutsideEnvelope += p.NoDataOutsideEnvelope
		s.Radials += p.Radials
		s.Evaluations += p.Evaluations
		s.ProfiledRadials += p.ProfiledRadials
		s.VoidFilledRadials += p.VoidFilledRadials
		s.VoidFilledSamples += p.VoidFilledSamples
		s.VoidMaxSpanM = math.Max(s.VoidMaxSpanM, p.VoidMaxSpanM)
		s.NoLandCoverRadials += p.NoLandCoverRadials
		for _, t := range p.MissingTiles {
			if !slices.Contains(s.MissingTiles, t) {
				s.MissingTiles = append(s.MissingTiles, t)
			}
		}
	}
	slices.Sort(s.MissingTiles)
	s.EIRPDBm = reqs[0].EIRPDBm
	for _, r := range reqs {
		s.EIRPAssumed = s.EIRPAssumed || r.Transmitter.EIRPAssumed
	}
	s.Transmitters = coverage.TransmittersData(reqs)
	s.Pixel = is.Pixel // the SINR's, not a transmitter's level's
	s.Warnings = append([]appliance.Warning{}, is.Warnings...)
	d := MapDetail{Kind: KindInterference, NoiseFigureDB: is.NoiseFigureDB, ValidPixels: is.ValidPixels, InterferedPixels: is.InterferedPixels,
		MinSINRDB: finitePtr(is.MinSINRDB), MaxSINRDB: finitePtr(is.MaxSINRDB), ServedPixels: is.ServedPixels,
		SharedSweeps: is.SharedSweeps, SharedProfiles: is.SharedProfiles,
		Value: "SINR, dB (the tiles' data: centi-dB; their servers: the best server's index in the request)"}
	for _, a := range is.SINRAreas {
		d.SINRAreas = append(d.SINRAreas, sinrArea{ThresholdDB: a.ThresholdDB, AreaKm2: appliance.Round(a.AreaKm2, 3)})
	}
	for _, c := range is.Channels {
		d.Channels = append(d.Channels, channelJSON{FreqMHz: c.FreqMHz, BandwidthMHz: c.BandwidthMHz})
	}
	for _, b := range GeoTIFFBands {
		d.Bands = append(d.Bands, b.Description)
	}
	b, err := json.Marshal(d)
	if err != nil {
		return coverage.Summary{}, fmt.Errorf("interference summary: %w", err)
	}
	s.Detail = b
	return s, nil
}

// ResultOf rebuilds a finished interference map from the registry (its
// raster of SINR, its servers, its bands carrier, interference and C/I,
// and its summary: Map.Result and Map.Bands) for the exports
// (WriteGeoTIFF, WriteContours).
func ResultOf(r *coverage.Raster, servers []int32, bands [][]float32, s *coverage.Summary) (*Result, error) {
	var d MapDetail
	if err := json.Unmarshal(s.Detail, &d); err != nil || d.Kind != KindInterference {
		return nil, fmt.Errorf("interference map: summary detail is not an interference map's (%v)", err)
	}
	n := r.Width * r.Height
	if len(servers) != n || len(bands) != 3 || len(r.DBm) != n {
		return nil, fmt.Errorf("interference map: %d servers, %d bands for %d pixels", len(servers), len(bands), n)
	}
	for _, b := range bands {
		if len(b) != n {
			return nil, fmt.Errorf("interference map: a band of %d pixels for %d", len(b), n)
		}
	}
	g := *r
	g.DBm = nil
	res := &Result{Grid: &g, Server: servers, CarrierDBm: bands[0], InterferenceDBm: bands[1], CIDB: bands[2], SINRDB: r.DBm}
	res.Summary = Summary{Pixels: n, ValidPixels: d.ValidPixels, InRadiusPixels: s.InRadiusPixels, InterferedPixels: d.InterferedPixels,
		NoiseFigureDB: d.NoiseFigureDB, MinSINRDB: math.NaN(), MaxSINRDB: math.NaN(), ServedPixels: d.ServedPixels,
		SharedSweeps: d.SharedSweeps, SharedProfiles: d.SharedProfiles, Pixel: s.Pixel, Warnings: s.Warnings, ElapsedMS: s.ElapsedMS}
	if d.MinSINRDB != nil {
		res.Summary.MinSINRDB = *d.MinSINRDB
	}
	if d.MaxSINRDB != nil {
		res.Summary.MaxSINRDB = *d.MaxSINRDB
	}
	for _, a := range d.SINRAreas {
		res.Summary.SINRAreas = append(res.Summary.SINRAreas, SINRArea{ThresholdDB: a.ThresholdDB, AreaKm2: a.AreaKm2})
	}
	for _, c := range d.Channels {
		res.Summary.Channels = append(res.Summary.Channels, Channel{FreqMHz: c.FreqMHz, BandwidthMHz: c.BandwidthMHz})
	}
	return res, nil
}
