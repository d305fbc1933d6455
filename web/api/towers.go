package api

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	"linkplan/appliance"
	"linkplan/appliance/registry"
)

func (a *API) registerTowers(r *mux.Router) {
	r.HandleFunc("/towers", a.wrap(a.ready(a.authed(a.listTowers)))).Methods(http.MethodGet)
	r.HandleFunc("/towers", a.wrap(a.ready(a.authed(a.registerTower)))).Methods(http.MethodPost)
	r.HandleFunc("/towers/nearest", a.wrap(a.ready(a.authed(a.nearestTowers)))).Methods(http.MethodGet)
	r.HandleFunc("/towers/{id}", a.wrap(a.ready(a.authed(a.getTower)))).Methods(http.MethodGet)
}

// query reads typed query parameters and collects field errors.
type query struct {
	v url.Values
	e *appliance.ValidationError
}

func newQuery(r *http.Request) query { return query{v: r.URL.Query(), e: &appliance.ValidationError{}} }

func (q query) float(name string, def, min, max float64, required bool) float64 {
	s := strings.TrimSpace(q.v.Get(name))
	if s == "" {
		if required {
			q.e.Add(name, "is required")
		}
		return def
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < min || x > max {
		q.e.Add(name, "must be a number between %g and %g, got %q", min, max, s)
		return def
	}
	return x
}

func (q query) int(name string, def, min, max int) int {
	s := strings.TrimSpace(q.v.Get(name))
	if s == "" {
		return def
	}
	x, err := strconv.Atoi(s)
	if err != nil || x < min || x > max {
		q.e.Add(name, "must be an integer between %d and %d, got %q", min, max, s)
		return def
	}
	return x
}

// TowerPage is the body of GET /towers.
type TowerPage struct {
	Towers     []TowerJSON `json:"towers"`
	Total      int         `json:"total"`
	Limit      int         `json:"limit"`
	Offset     int         `json:"offset"`
	NextOffset *int        `json:"next_offset"` // null on the last page
}

func (a *API) listTowers(w http.ResponseWriter, r *http.Request) (any, error) {
	q := newQuery(r)
	box := appliance.BBox{MinLat: -90, MinLon: -180, MaxLat: 90, MaxLon: 180}
	if s := q.v.Get("bbox"); s != "" {
		parts := strings.Split(s, ",")
		var f [4]float64
		ok := len(parts) == 4
		for i := 0; ok && i < 4; i++ {
			var err error
			f[i], err = strconv.ParseFloat(strings.TrimSpace(parts[i]), 64)
			ok = err == nil && !math.IsNaN(f[i])
		}
		if !ok || f[0] > f[2] || f[1] > f[3] || f[0] < -180 || f[2] > 180 || f[1] < -90 || f[3] > 90 {
			q.e.Add("bbox", "must be min_lon,min_lat,max_lon,max_lat in degrees with min <= max, got %q", s)
		} else {
			box = appliance.BBox{MinLon: f[0], MinLat: f[1], MaxLon: f[2], MaxLat: f[3]}
		}
	}
	limit := q.int("limit", 100, 1, 1000)
	offset := q.int("offset", 0, 0, math.MaxInt32)
	operator := strings.TrimSpace(q.v.Get("operator"))
	source := strings.TrimSpace(q.v.Get("source"))
	text := strings.TrimSpace(q.v.Get("q"))
	if len(text) > 200 {
		q.e.Add("q", "must be at most 200 characters")
	}
	if text != "" && (q.v.Get("bbox") != "" || operator != "" || source != "") {
		q.e.Add("q", "full-text search cannot be combined with bbox, operator or source (put the operator in q)")
	}
	if err := q.e.Err(); err != nil {
		return nil, err
	}
	if text != "" {
		return a.searchTowerPage(r.Context(), text, searchScope(keyFrom(r.Context())), limit, offset)
	}
	all := a.Towers().InBox(box)
	tenant := scope(keyFrom(r.Context()))
	kept := all[:0:0]
	for _, t := range all {
		if t.VisibleTo(tenant) && (operator == "" || strings.EqualFold(t.Operator, operator)) && (source == "" || string(t.Source) == source) {
			kept = append(kept, t)
		}
	}
	all = kept
	page := TowerPage{Towers: []TowerJSON{}, Total: len(all), Limit: limit, Offset: offset}
	for i := offset; i < len(all) && i < offset+limit; i++ {
		page.Towers = append(page.Towers, towerJSON(all[i]))
	}
	if next := offset + limit; next < len(all) {
		page.NextOffset = &next
	}
	return page, nil
}

// NearTower is a tower with its distance and bearing from the query point.
type NearTower struct {
	TowerJSON
	DistanceKm float64 `json:"distance_km"`
	BearingDeg float64 `json:"bearing_deg"` // from the query point to the tower, degrees from true north
}

// NearestResult is the body of GET /towers/nearest.
type NearestResult struct {
	Towers []NearTower `json:"towers"`
	Count  int         `json:"count"`
}

func (a *API) nearestTowers(w http.ResponseWriter, r *http.Request) (any, error) {
	q := newQuery(r)
	lat := q.float("lat", 0, -90, 90, true)
	lon := q.float("lon", 0, -180, 180, true)
	k := q.int("k", 5, 1, 100)
	maxKm := q.float("max_km", 50, 0.001, 1000, false)
	operator := strings.TrimSpace(q.v.Get("operator"))
	if err := q.e.Err(); err != nil {
		return nil, err
	}
	p := appliance.LatLon{Lat: lat, Lon: lon}
	ix := a.Towers()
	tenant := scope(keyFrom(r.Context()))
	var ts []*appliance.Tower
	if operator == "" && tenant == "" {
		ts = ix.Nearest(p, k, maxKm*1000)
	} else {
		for _, t := range ix.Within(p, maxKm*1000) {
			if t.VisibleTo(tenant) && (operator == "" || strings.EqualFold(t.Operator, operator)) {
				ts = append(ts, t)
				if len(ts) == k {
					break
				}
			}
		}
	}
	out := NearestResult{Towers: make([]NearTower, 0, len(ts)), Count: len(ts)}
	for _, t := range ts {
		out.Towers = append(out.Towers, NearTower{TowerJSON: towerJSON(t), DistanceKm: r3(p.DistanceM(t.Pos()) / 1000), BearingDeg: r3(p.BearingDeg(t.Pos()))})
	}
	return out, nil
}

func (a *API) getTower(w http.ResponseWriter, r *http.Request) (any, error) {
	id := mux.Vars(r)["id"]
	t, ok := a.Towers().Get(id)
	if !ok || !t.VisibleTo(scope(keyFrom(r.Context()))) {
		return nil, fmt.Errorf("tower %q: %w", id, appliance.ErrNotFound)
	}
	return towerJSON(t), nil
}

type registerTowerRequest struct {
	renamed
	Operator *string  `json:"operator"`
	Lat      *float64 `json:"lat"`
	Lon      *float64 `json:"lon"`
	HeightM  *float64 `json:"height_m"` // metres above ground, default 30
	// Height is the deprecated name of height_m (renames.go).
	Height        *float64  `json:"height" deprecated:"height_m"`
	Power         *float64  `json:"power"`   // ERP dBm
	Azimuth       *float64  `json:"azimuth"` // degrees
	Tilt          *float64  `json:"tilt"`    // degrees
	AntennaID     *string   `json:"antenna_id"`
	GainDBi       *float64  `json:"gain_dbi"`      // dBi
	BeamwidthDeg  *float64  `json:"beamwidth_deg"` // degrees
	FrontBackDB   *float64  `json:"front_back_db"` // dB
	StationNumber *string   `json:"station_number"`
	Technologies  []string  `json:"technologies"`
	BandsMHz      []float64 `json:"bands_mhz"`
}

// input maps the wire shape onto the registry's; the rules live there.
func (q *registerTowerRequest) input() registry.Input {
	return registry.Input{Operator: q.Operator, Lat: q.Lat, Lon: q.Lon, Height: q.HeightM, Power: q.Power,
		Azimuth: q.Azimuth, Tilt: q.Tilt, AntennaID: q.AntennaID,
		GainDBi: q.GainDBi, BeamwidthDeg: q.BeamwidthDeg, FrontBackDB: q.FrontBackDB, StationNumber: q.StationNumber, Technologies: q.Technologies, BandsMHz: q.BandsMHz}
}

// toDomain validates the request as a tower (ad hoc towers of
// /coverage/link share the registration rules).
func (q *registerTowerRequest) toDomain() (*appliance.Tower, error) {
	return registry.Validate(q.input())
}

// RegisteredTowerJSON is the 201 answer of POST /towers: the tower and
// the request's warnings (deprecated_field; absent when none).
type RegisteredTowerJSON struct {
	TowerJSON
	Warnings []appliance.Warning `json:"warnings,omitempty"`
}

var errNoRegistry = &httpError{status: http.StatusServiceUnavailable, code: "unavailable", msg: "tower registration is not configured"}

// registerTower is POST /towers: decode, one registry call, encode.
func (a *API) registerTower(w http.ResponseWriter, r *http.Request) (any, error) {
	var q registerTowerRequest
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	if a.Registry == nil {
		return nil, errNoRegistry
	}
	t, err := a.Registry.Register(r.Context(), keyFrom(r.Context()), q.input(),
		registry.Client{IP: clientIP(r), UserAgent: r.UserAgent(), RequestID: requestID(r.Context())})
	if err != nil {
		return nil, err
	}
	return created{RegisteredTowerJSON{TowerJSON: towerJSON(t), Warnings: q.renames()}}, nil
}

// antennaCatalogue is the catalogue towers' antennas are checked against;
// nil without the equipment service.
func (a *API) antennaCatalogue() appliance.AntennaCatalogue {
	if a.Equipment == nil {
		return nil
	}
	return a.Equipment
}

// searchTowerPage answers GET /towers?q= from the full-text index. The
// tenant scope is part of the index query (issue 7, finding 4), so total and
// next_offset count only the towers the caller may see.
func (a *API) searchTowerPage(ctx context.Context, text string, sc appliance.SearchScope, limit, offset int) (TowerPage, error) {
	hits, err := a.Search.SearchTowers(ctx, text, sc, limit, offset)
	if err != nil {
		return TowerPage{}, fmt.Errorf("search towers: %w", err)
	}
	page := TowerPage{Towers: make([]TowerJSON, 0, len(hits.IDs)), Total: hits.Total, Limit: limit, Offset: offset}
	ix := a.Towers()
	for _, id := range hits.IDs {
		// The index may briefly hold a tower the snapshot lost (a catalogue
		// swap under way); VisibleTo is defence in depth behind the index
		// filter.
		if t, ok := ix.Get(id); ok && sc.Sees(t) {
			page.Towers = append(page.Towers, towerJSON(t))
		}
	}
	if next := offset + limit; next < hits.Total && next < appliance.SearchMaxWindow {
		page.NextOffset = &next
	}
	return page, nil
}

// searchScope is the full-text search scope of a key: admin keys see every
// tenant's towers, any other key the catalogue and its own tenant's.
func searchScope(k *appliance.APIKey) appliance.SearchScope {
	if k.Role == appliance.RoleAdmin {
		return appliance.SearchScope{All: true}
	}
	return appliance.SearchScope{Tenant: k.TenantID}
}

// scope is the tenant whose user-registered towers a key may see; admin
// keys see every tenant's ("").
func scope(k *appliance.APIKey) string {
	if k.Role == appliance.RoleAdmin {
		return ""
	}
	return k.TenantID
}
