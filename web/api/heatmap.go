package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"linkplan/appliance"
	"linkplan/appliance/coverage"
	"linkplan/appliance/geoexport"
)

// Heatmaps starts and finds coverage maps (appliance/coverage).
type Heatmaps interface {
	Start(ctx context.Context, k *appliance.APIKey, spec coverage.Spec, best bool) (*coverage.Map, error)
	Get(tenantID, id string) (*coverage.Map, error)
}

// Heartbeat is the interval of the SSE comment lines that keep proxies
// from closing an idle stream.
const heartbeat = 15 * time.Second

func (a *API) registerHeatmaps(r *mux.Router) {
	if a.Heatmaps == nil {
		return
	}
	r.HandleFunc("/coverage/heatmap", a.wrap(a.ready(a.authed(a.startHeatmap(false))))).Methods(http.MethodPost)
	r.HandleFunc("/coverage/best_server", a.wrap(a.ready(a.authed(a.startHeatmap(true))))).Methods(http.MethodPost)
	r.HandleFunc("/coverage/heatmap/{id}", a.wrap(a.ready(a.authed(a.getHeatmap)))).Methods(http.MethodGet)
	r.HandleFunc("/coverage/heatmap/{id}/events", a.wrap(a.ready(a.authed(a.heatmapEvents)))).Methods(http.MethodGet)
	r.HandleFunc("/coverage/heatmap/{id}/export", a.wrap(a.ready(a.authed(a.exportHeatmap)))).Methods(http.MethodGet)
}

type siteJSON struct {
	Lat          *float64 `json:"lat"`
	Lon          *float64 `json:"lon"`
	HeightM      *float64 `json:"height_m"`
	EIRPDBm      *float64 `json:"eirp_dbm"`
	AzimuthDeg   *float64 `json:"azimuth_deg"`
	BeamwidthDeg *float64 `json:"beamwidth_deg"`
	TiltDeg      *float64 `json:"tilt_deg"`   // mechanical downtilt, degrees, positive down
	AntennaID    *string  `json:"antenna_id"` // a catalogue antenna (GET /equipment/antennas)
}

// toDomain maps an explicit site onto the coverage's (its antenna
// resolved later, by coverage.Starter); field problems go to v.
func (st *siteJSON) toDomain(v *appliance.ValidationError) *coverage.Site {
	if st.Lat == nil {
		v.Add("site.lat", "is required")
	}
	if st.Lon == nil {
		v.Add("site.lon", "is required")
	}
	if st.HeightM == nil {
		v.Add("site.height_m", "is required")
	}
	if st.EIRPDBm == nil {
		v.Add("site.eirp_dbm", "is required")
	}
	az := math.NaN()
	if st.AzimuthDeg != nil {
		az = *st.AzimuthDeg
	}
	site := &coverage.Site{Pos: appliance.LatLon{Lat: num(st.Lat), Lon: num(st.Lon)}, HeightM: num(st.HeightM),
		EIRPDBm: num(st.EIRPDBm), AzimuthDeg: az, BeamwidthDeg: num(st.BeamwidthDeg), TiltDeg: st.TiltDeg}
	if st.AntennaID != nil {
		site.AntennaID = *st.AntennaID
		if *st.AntennaID == "" || len(*st.AntennaID) > 64 {
			v.Add("site.antenna_id", "must be a catalogue antenna id of 1 to 64 characters")
		}
	}
	return site
}

type bboxJSON struct {
	MinLat *float64 `json:"min_lat"`
	MinLon *float64 `json:"min_lon"`
	MaxLat *float64 `json:"max_lat"`
	MaxLon *float64 `json:"max_lon"`
}

type heatmapRequest struct {
	TowerID      *string   `json:"tower_id"`
	TowerIDs     []string  `json:"tower_ids"`
	Site         *siteJSON `json:"site"`
	BBox         *bboxJSON `json:"bbox"`
	Operator     *string   `json:"operator"`
	FrequencyMHz *float64  `json:"frequency_mhz"`
	RadiusKm     *float64  `json:"radius_km"`
	RxHeightM    *float64  `json:"rx_height_m"`
	ResolutionM  *float64  `json:"resolution_m"`
	Engine       *string   `json:"engine"`
	Exact        *bool     `json:"exact"`
}

func num(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// toSpec maps the body onto a coverage.Spec; missing and non-positive
// required numbers are named here, ranges by the service.
func (q *heatmapRequest) toSpec(best bool) (coverage.Spec, error) {
	v := &appliance.ValidationError{}
	var s coverage.Spec
	if q.FrequencyMHz == nil {
		v.Add("frequency_mhz", "is required")
	}
	s.FreqMHz = num(q.FrequencyMHz)
	pos := func(p *float64, field string) float64 {
		if p != nil && !(*p > 0) {
			v.Add(field, "must be greater than 0, got %g", *p)
		}
		return num(p)
	}
	s.RadiusM = pos(q.RadiusKm, "radius_km") * 1000
	s.RxHeightM = pos(q.RxHeightM, "rx_height_m")
	s.ResolutionM = pos(q.ResolutionM, "resolution_m")
	if q.Engine != nil {
		s.Engine = appliance.EngineID(*q.Engine)
	}
	s.Exact = q.Exact != nil && *q.Exact
	if best {
		if q.TowerID != nil || q.Site != nil {
			v.Add("tower_ids", "a best-server map takes tower_ids or bbox (not tower_id or site)")
		}
		s.TowerIDs = q.TowerIDs
		if q.BBox != nil {
			b := q.BBox
			if b.MinLat == nil || b.MinLon == nil || b.MaxLat == nil || b.MaxLon == nil {
				v.Add("bbox", "needs min_lat, min_lon, max_lat and max_lon")
			} else if !(*b.MinLat < *b.MaxLat && *b.MinLon < *b.MaxLon) || *b.MinLat < -90 || *b.MaxLat > 90 || *b.MinLon < -180 || *b.MaxLon > 180 {
				v.Add("bbox", "must have min_lat < max_lat and min_lon < max_lon within WGS84 ranges")
			} else {
				s.BBox = &appliance.BBox{MinLat: *b.MinLat, MinLon: *b.MinLon, MaxLat: *b.MaxLat, MaxLon: *b.MaxLon}
			}
		}
		if q.Operator != nil {
			s.Operator = *q.Operator
		}
		return s, v.Err()
	}
	if len(q.TowerIDs) > 0 || q.BBox != nil {
		v.Add("tower_ids", "tower_ids and bbox are for POST /coverage/best_server")
	}
	if q.TowerID != nil {
		s.TowerIDs = []string{*q.TowerID}
	}
	if q.Site != nil {
		s.Site = q.Site.toDomain(v)
	}
	if q.TowerID == nil && q.Site == nil {
		v.Add("tower_id", "give tower_id or site")
	}
	return s, v.Err()
}

// startHeatmap: POST /coverage/heatmap and /coverage/best_server start a
// map and stream its events (streamMap).
func (a *API) startHeatmap(best bool) handler {
	return func(w http.ResponseWriter, r *http.Request) (any, error) {
		var q heatmapRequest
		if err := decode(r, &q); err != nil {
			return nil, err
		}
		after, err := lastEventID(r)
		if err != nil {
			return nil, err
		}
		spec, err := q.toSpec(best)
		if err != nil {
			return nil, err
		}
		k := keyFrom(r.Context())
		id, note, err := a.resolveEngine(k, spec.Engine)
		if err != nil {
			return nil, err
		}
		spec.Engine, spec.EngineNote = id, note // the map warns engine_resolved
		mp, err := a.Heatmaps.Start(r.Context(), k, spec, best)
		if err != nil {
			return nil, err
		}
		return nil, a.streamMap(w, r, mp, after)
	}
}

// lastEventID is the sequence number a resumed stream continues after:
// the Last-Event-ID header, else the "after" query parameter, else 0. A
// value that is not a whole number ≥ 0 is refused naming its source (a
// stream sends only such ids, so only a client's own text can be one).
func lastEventID(r *http.Request) (int, error) {
	field, s := "Last-Event-ID", r.Header.Get("Last-Event-ID")
	if s == "" {
		field, s = "after", r.URL.Query().Get("after")
	}
	if s = strings.TrimSpace(s); s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, appliance.Invalid(field, "must be a whole number of events, 0 or more, got %q", truncate(s, 40))
	}
	return n, nil
}

// streamMap writes mp's events after seq after as text/event-stream until
// the map's last event or the client leaves; the stream is attached to the
// map, so that the last stream leaving cancels a computing map.
func (a *API) streamMap(w http.ResponseWriter, r *http.Request, mp *coverage.Map, after int) error {
	fl, ok := w.(http.Flusher)
	if !ok {
		return fmt.Errorf("stream map: response writer cannot flush")
	}
	// The server's write timeout bounds ordinary responses; a stream
	// pushes its deadline ahead at every write instead.
	rc := http.NewResponseController(w)
	extend := func() { _ = rc.SetWriteDeadline(time.Now().Add(4 * heartbeat)) }
	extend()
	detach := mp.Attach()
	defer detach()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	h.Set("X-Map-Id", mp.ID)
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, "retry: 3000\n\n")
	fl.Flush()
	ctx := r.Context()
	var buf bytes.Buffer
	for {
		evs, final, err := mp.Next(ctx, after, heartbeat)
		if err != nil {
			return nil // the client left; detach cancels if it was the last
		}
		extend()
		if len(evs) == 0 && !final {
			if _, err := fmt.Fprintf(w, ": heartbeat\n\n"); err != nil {
				return nil
			}
			fl.Flush()
			continue
		}
		for _, e := range evs {
			buf.Reset()
			data, err := json.Marshal(e.Data)
			if err != nil {
				return fmt.Errorf("stream map %s: event %d: %w", mp.ID, e.Seq, err)
			}
			fmt.Fprintf(&buf, "id: %d\nevent: %s\ndata: %s\n\n", e.Seq, e.Type, data)
			if _, err := w.Write(buf.Bytes()); err != nil {
				return nil
			}
			after = e.Seq
		}
		fl.Flush()
		if final && len(evs) == 0 {
			return nil
		}
	}
}

// heatmapEvents: GET /coverage/heatmap/{id}/events resumes a map's stream
// after Last-Event-ID (or ?after=).
func (a *API) heatmapEvents(w http.ResponseWriter, r *http.Request) (any, error) {
	mp, err := a.Heatmaps.Get(keyFrom(r.Context()).TenantID, mux.Vars(r)["id"])
	if err != nil {
		return nil, err
	}
	after, err := lastEventID(r)
	if err != nil {
		return nil, err
	}
	return nil, a.streamMap(w, r, mp, after)
}

// HeatmapJSON is the state of a map (GET /coverage/heatmap/{id}).
type HeatmapJSON struct {
	ID        string                     `json:"id"`
	Kind      string                     `json:"kind"` // single | best_server | raytrace
	State     string                     `json:"state"`
	CreatedAt string                     `json:"created_at"`
	Summary   *coverage.EventSummaryData `json:"summary"` // null until done
	Exports   []string                   `json:"exports"` // export URLs of a done map

	// QueuePosition is the map's 1-based place in the heavy-work queue
	// while it is queued (1: computed next); null otherwise.
	QueuePosition *int `json:"queue_position"`
}

func (a *API) getHeatmap(w http.ResponseWriter, r *http.Request) (any, error) {
	mp, err := a.Heatmaps.Get(keyFrom(r.Context()).TenantID, mux.Vars(r)["id"])
	if err != nil {
		return nil, err
	}
	out := HeatmapJSON{ID: mp.ID, Kind: mp.Kind, State: string(mp.State()), CreatedAt: mp.Created.UTC().Format(time.RFC3339Nano), Exports: []string{}}
	if pos := mp.QueuePosition(); pos > 0 {
		out.QueuePosition = &pos
	}
	if sum, ok := mp.Summary(); ok {
		s := coverage.SummaryData(*sum)
		out.Summary = &s
		for _, f := range []string{"geotiff", "kmz", "geojson", "shapefile", "kml"} {
			out.Exports = append(out.Exports, "/coverage/heatmap/"+mp.ID+"/export?format="+f)
		}
	}
	return out, nil
}

// defaultContourThresholds are the contour levels of a vector export
// without thresholds, dBm.
const defaultContourThresholds = "-75,-85,-95"

// exportHeatmap: GET /coverage/heatmap/{id}/export?format=...: a done
// map's raster (geotiff, kmz) or its contour polygons at thresholds
// (geojson, shapefile, kml), without recomputation.
func (a *API) exportHeatmap(w http.ResponseWriter, r *http.Request) (any, error) {
	mp, err := a.Heatmaps.Get(keyFrom(r.Context()).TenantID, mux.Vars(r)["id"])
	if err != nil {
		return nil, err
	}
	format := r.URL.Query().Get("format")
	if format == "" {
		format = "geotiff"
	}
	var ctype, ext string
	var thresholds []float64
	switch format {
	case "geotiff", "kmz":
		ctype, ext = "image/tiff", ".tif"
		if format == "kmz" {
			ctype, ext = "application/vnd.google-earth.kmz", ".kmz"
		}
		if r.URL.Query().Has("thresholds") { // silently dropped, it read as if it had shaped the file
			return nil, appliance.Invalid("thresholds", "apply to the contour formats (geojson, shapefile, kml); a %s export is the map's raster", format)
		}
	case "geojson", "shapefile", "kml":
		f, _ := geoexport.ParseFormat(format)
		ctype, ext = f.ContentType(), f.Extension()
		th := r.URL.Query().Get("thresholds")
		if th == "" && isNetworkMap(mp) {
			break // the map's own levels: SINR thresholds, or the viewshed's classes
		}
		if th == "" {
			th = defaultContourThresholds
		}
		var err error
		if thresholds, err = coverage.ParseThresholds(th); err != nil {
			return nil, err
		}
	default:
		return nil, appliance.Invalid("format", "unknown format %q; one of: geotiff, kmz (raster), geojson, shapefile, kml (contours)", format)
	}
	var buf bytes.Buffer
	if isNetworkMap(mp) { // interference maps and viewsheds: their own bands and areas
		if err := exportNetworkMap(&buf, mp, format, thresholds); err != nil {
			return nil, err
		}
		w.Header().Set("Content-Type", ctype)
		w.Header().Set("Content-Disposition", `attachment; filename="`+mp.Kind+"-"+mp.ID+ext+`"`)
		w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(buf.Bytes())
		return nil, nil
	}
	ras, _, sum, err := mp.Result()
	if err != nil {
		return nil, err
	}
	switch format {
	case "geotiff":
		err = geoexport.WriteGeoTIFFMeta(&buf, ras.West, ras.North, ras.PixelLonDeg, ras.PixelLatDeg, ras.Width, ras.Height, ras.DBm, math.NaN(),
			coverage.GeoTIFFMetadata(sum))
	case "kmz":
		err = coverage.WriteKMZ(&buf, ras, "linkplan coverage "+mp.ID, mp.Created, sum)
	default:
		var fs []geoexport.Feature
		if fs, err = coverage.Contours(ras, thresholds, sum); err == nil {
			f, _ := geoexport.ParseFormat(format)
			err = geoexport.Export(&buf, f, "contours_"+mp.ID, coverage.ContourSchema(), geoexport.Slice(fs), coverage.ContourKMLOptions(), mp.Created)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("export map %s: %w", mp.ID, err)
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Disposition", `attachment; filename="coverage-`+mp.ID+ext+`"`)
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
	return nil, nil
}
