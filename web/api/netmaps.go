package api

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"net/http"
	"strconv"

	"github.com/gorilla/mux"

	"linkplan/appliance"
	"linkplan/appliance/coverage"
	"linkplan/appliance/geoexport"
	"linkplan/appliance/interference"
)

// NetworkMaps starts interference maps and viewsheds (issue 26 scopes 1
// and 3) in the coverage map registry: they stream, resume, persist and
// export through the heatmap routes (GET /coverage/heatmap/{id},
// …/events, …/export), by kind.
type NetworkMaps interface {
	StartInterference(ctx context.Context, k *appliance.APIKey, spec interference.MapSpec) (*coverage.Map, error)
	StartViewshed(ctx context.Context, k *appliance.APIKey, spec interference.ViewshedSpec) (*coverage.Map, error)
}

func (a *API) registerNetworkMaps(r *mux.Router) {
	if a.NetworkMaps == nil || a.Heatmaps == nil {
		return
	}
	r.HandleFunc("/coverage/interference", a.wrap(a.ready(a.authed(a.startInterferenceMap)))).Methods(http.MethodPost)
	r.HandleFunc("/coverage/viewshed", a.wrap(a.ready(a.authed(a.startViewshedMap)))).Methods(http.MethodPost)
}

// interferenceSiteJSON is an explicit transmitter of an interference map.
type interferenceSiteJSON struct {
	siteJSON
	FrequencyMHz *float64 `json:"frequency_mhz"`
	BandwidthMHz *float64 `json:"bandwidth_mhz"`
	ACSDB        *float64 `json:"acs_db"`
	RadioID      *string  `json:"radio_id"`
}

type interferenceMapRequest struct {
	Sites            []interferenceSiteJSON `json:"sites"`
	TowerIDs         []string               `json:"tower_ids"`
	BBox             *bboxJSON              `json:"bbox"`
	Operator         *string                `json:"operator"`
	FrequencyMHz     *float64               `json:"frequency_mhz"`
	BandwidthMHz     *float64               `json:"bandwidth_mhz"`
	ACSDB            *float64               `json:"acs_db"`
	NoiseFigureDB    *float64               `json:"noise_figure_db"`
	SINRThresholdsDB []float64              `json:"sinr_thresholds_db"`
	RadiusKm         *float64               `json:"radius_km"`
	RxHeightM        *float64               `json:"rx_height_m"`
	ResolutionM      *float64               `json:"resolution_m"`
	Engine           *string                `json:"engine"`
	Exact            *bool                  `json:"exact"`
}

// toSpec maps the body; missing numbers are named here, ranges by the
// service.
func (q *interferenceMapRequest) toSpec() (interference.MapSpec, error) {
	hq := heatmapRequest{TowerIDs: q.TowerIDs, BBox: q.BBox, Operator: q.Operator, FrequencyMHz: q.FrequencyMHz,
		RadiusKm: q.RadiusKm, RxHeightM: q.RxHeightM, ResolutionM: q.ResolutionM, Engine: q.Engine, Exact: q.Exact}
	v := &appliance.ValidationError{}
	spec, err := hq.toSpec(true) // frequency_mhz is required: the towers', and the sites' default
	if ve, ok := err.(*appliance.ValidationError); ok {
		v.Fields = append(v.Fields, ve.Fields...)
	}
	out := interference.MapSpec{Spec: spec, BandwidthMHz: num(q.BandwidthMHz), ACSDB: num(q.ACSDB), NoiseFigureDB: num(q.NoiseFigureDB),
		SINRThresholdsDB: q.SINRThresholdsDB}
	if len(q.Sites) > coverage.MaxBestServers {
		v.Add("sites", "at most %d sites, got %d", coverage.MaxBestServers, len(q.Sites))
		return out, v.Err()
	}
	for i, st := range q.Sites {
		f := "sites[" + strconv.Itoa(i) + "]."
		for _, m := range []struct {
			p *float64
			n string
		}{{st.Lat, "lat"}, {st.Lon, "lon"}, {st.HeightM, "height_m"}, {st.EIRPDBm, "eirp_dbm"}} {
			if m.p == nil {
				v.Add(f+m.n, "is required")
			}
		}
		az := math.NaN()
		if st.AzimuthDeg != nil {
			az = *st.AzimuthDeg
		}
		ms := interference.MapSite{Site: coverage.Site{Pos: appliance.LatLon{Lat: num(st.Lat), Lon: num(st.Lon)}, HeightM: num(st.HeightM),
			EIRPDBm: num(st.EIRPDBm), AzimuthDeg: az, BeamwidthDeg: num(st.BeamwidthDeg), TiltDeg: st.TiltDeg},
			FreqMHz: num(st.FrequencyMHz), BandwidthMHz: num(st.BandwidthMHz), ACSDB: num(st.ACSDB)}
		if st.FrequencyMHz != nil && !(*st.FrequencyMHz > 0) {
			v.Add(f+"frequency_mhz", "must be greater than 0, got %g", *st.FrequencyMHz)
		}
		if st.RadioID != nil {
			ms.RadioID = *st.RadioID
			if *st.RadioID == "" || len(*st.RadioID) > 64 {
				v.Add(f+"radio_id", "must be a catalogue radio id of 1 to 64 characters")
			}
		}
		if st.AntennaID != nil {
			ms.Site.AntennaID = *st.AntennaID
			if *st.AntennaID == "" || len(*st.AntennaID) > 64 {
				v.Add(f+"antenna_id", "must be a catalogue antenna id of 1 to 64 characters")
			}
		}
		out.Sites = append(out.Sites, ms)
	}
	if len(q.Sites) == 0 && len(q.TowerIDs) == 0 && q.BBox == nil {
		v.Add("sites", "give sites, tower_ids or bbox")
	}
	return out, v.Err()
}

// startInterferenceMap: POST /coverage/interference starts an
// interference map (best server, carrier, interference, C/I, SINR) and
// streams its events as POST /coverage/best_server does.
func (a *API) startInterferenceMap(w http.ResponseWriter, r *http.Request) (any, error) {
	var q interferenceMapRequest
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	after, err := lastEventID(r)
	if err != nil {
		return nil, err
	}
	spec, err := q.toSpec()
	if err != nil {
		return nil, err
	}
	k := keyFrom(r.Context())
	id, note, err := a.resolveEngine(k, spec.Spec.Engine)
	if err != nil {
		return nil, err
	}
	spec.Spec.Engine, spec.Spec.EngineNote = id, note
	mp, err := a.NetworkMaps.StartInterference(r.Context(), k, spec)
	if err != nil {
		return nil, err
	}
	return nil, a.streamMap(w, r, mp, after)
}

type viewshedMapRequest struct {
	TowerID      *string   `json:"tower_id"`
	Site         *siteJSON `json:"site"`
	FrequencyMHz *float64  `json:"frequency_mhz"`
	RadiusKm     *float64  `json:"radius_km"`
	RxHeightM    *float64  `json:"rx_height_m"`
	ResolutionM  *float64  `json:"resolution_m"`
	KFactor      *float64  `json:"k_factor"`
	Exact        *bool     `json:"exact"`
}

func (q *viewshedMapRequest) toSpec() (interference.ViewshedSpec, error) {
	v := &appliance.ValidationError{}
	var s interference.ViewshedSpec
	if q.FrequencyMHz == nil {
		v.Add("frequency_mhz", "is required")
	}
	pos := func(p *float64, field string) float64 {
		if p != nil && !(*p > 0) {
			v.Add(field, "must be greater than 0, got %g", *p)
		}
		return num(p)
	}
	s.Request = coverage.ViewshedRequest{FreqMHz: num(q.FrequencyMHz), RadiusM: pos(q.RadiusKm, "radius_km") * 1000,
		RxHeightM: pos(q.RxHeightM, "rx_height_m"), ResolutionM: pos(q.ResolutionM, "resolution_m"), KFactor: num(q.KFactor),
		Exact: q.Exact != nil && *q.Exact}
	switch {
	case q.TowerID != nil && q.Site != nil:
		v.Add("tower_id", "give either tower_id or site")
	case q.TowerID != nil:
		s.TowerID = *q.TowerID
		if s.TowerID == "" {
			v.Add("tower_id", "must not be empty")
		}
	case q.Site != nil:
		if q.Site.Lat == nil {
			v.Add("site.lat", "is required")
		}
		if q.Site.Lon == nil {
			v.Add("site.lon", "is required")
		}
		if q.Site.HeightM == nil {
			v.Add("site.height_m", "is required")
		}
		s.Request.Site = appliance.LatLon{Lat: num(q.Site.Lat), Lon: num(q.Site.Lon)}
		s.Request.HeightM = num(q.Site.HeightM)
	default:
		v.Add("tower_id", "give tower_id or site")
	}
	return s, v.Err()
}

// startViewshedMap: POST /coverage/viewshed starts a viewshed map (per
// pixel: blocked, line of sight, line of sight with 60 % of F1 clear) and
// streams its events.
func (a *API) startViewshedMap(w http.ResponseWriter, r *http.Request) (any, error) {
	var q viewshedMapRequest
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	after, err := lastEventID(r)
	if err != nil {
		return nil, err
	}
	spec, err := q.toSpec()
	if err != nil {
		return nil, err
	}
	mp, err := a.NetworkMaps.StartViewshed(r.Context(), keyFrom(r.Context()), spec)
	if err != nil {
		return nil, err
	}
	return nil, a.streamMap(w, r, mp, after)
}

// exportNetworkMap writes a done interference or viewshed map in format
// (GET /coverage/heatmap/{id}/export): geotiff, its bands and caveats;
// kmz, geojson, shapefile and kml, its areas (SINR at or above the
// thresholds, dB; the visible and Fresnel-clear areas). thresholds nil:
// the map's own SINR levels.
func exportNetworkMap(buf *bytes.Buffer, mp *coverage.Map, format string, thresholds []float64) error {
	ras, servers, sum, err := mp.Result()
	if err != nil {
		return err
	}
	switch mp.Kind {
	case interference.KindInterference:
		bands, err := mp.Bands()
		if err != nil {
			return err
		}
		res, err := interference.ResultOf(ras, servers, bands, sum)
		if err != nil {
			return fmt.Errorf("export map %s: %v", mp.ID, err)
		}
		if format == "geotiff" {
			return interference.WriteGeoTIFF(buf, res)
		}
		f, _ := geoexport.ParseFormat(format)
		return interference.WriteContours(buf, f, res, thresholds)
	case coverage.KindViewshed:
		req, res, err := coverage.ViewshedResultOf(ras, sum)
		if err != nil {
			return fmt.Errorf("export map %s: %v", mp.ID, err)
		}
		if format == "geotiff" {
			return coverage.WriteViewshedGeoTIFF(buf, req, res)
		}
		f, _ := geoexport.ParseFormat(format)
		return coverage.WriteViewshedAreas(buf, f, res)
	}
	return fmt.Errorf("export map %s: kind %q has no network export", mp.ID, mp.Kind)
}

// isNetworkMap reports a map exportNetworkMap writes.
func isNetworkMap(mp *coverage.Map) bool {
	return mp.Kind == interference.KindInterference || mp.Kind == coverage.KindViewshed
}
