package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"linkplan/appliance"
	"linkplan/store/search"
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
	Operator      *string   `json:"operator"`
	Lat           *float64  `json:"lat"`
	Lon           *float64  `json:"lon"`
	Height        *float64  `json:"height"`  // metres above ground, default 30
	Power         *float64  `json:"power"`   // ERP dBm
	Azimuth       *float64  `json:"azimuth"` // degrees
	Tilt          *float64  `json:"tilt"`    // degrees
	StationNumber *string   `json:"station_number"`
	Technologies  []string  `json:"technologies"`
	BandsMHz      []float64 `json:"bands_mhz"`
}

func (q *registerTowerRequest) toDomain() (*appliance.Tower, error) {
	v := &appliance.ValidationError{}
	t := &appliance.Tower{Source: appliance.SourceUser, HeightM: appliance.DefaultTowerHeightM, ERPDBm: math.NaN(),
		AzimuthDeg: math.NaN(), TiltDeg: math.NaN(), Placement: appliance.PlacementSurveyed, UncertaintyM: 10,
		Provenance: "registered through POST /towers"}
	if q.Operator == nil || strings.TrimSpace(*q.Operator) == "" || len(*q.Operator) > 64 {
		v.Add("operator", "is required, 1 to 64 characters")
	} else {
		t.Operator = strings.TrimSpace(*q.Operator)
	}
	num := func(p *float64, name string, min, max float64, required bool, dst *float64) {
		switch {
		case p == nil && required:
			v.Add(name, "is required")
		case p == nil:
		case math.IsNaN(*p) || *p < min || *p > max:
			v.Add(name, "must be between %g and %g, got %g", min, max, *p)
		default:
			*dst = *p
		}
	}
	num(q.Lat, "lat", -90, 90, true, &t.Lat)
	num(q.Lon, "lon", -180, 180, true, &t.Lon)
	num(q.Height, "height", 0.5, 500, false, &t.HeightM)
	num(q.Power, "power", -30, 100, false, &t.ERPDBm)
	num(q.Azimuth, "azimuth", 0, 360, false, &t.AzimuthDeg)
	num(q.Tilt, "tilt", -90, 90, false, &t.TiltDeg)
	if t.AzimuthDeg == 360 {
		t.AzimuthDeg = 0
	}
	if q.StationNumber != nil {
		if len(*q.StationNumber) > 32 {
			v.Add("station_number", "must be at most 32 characters")
		}
		t.StationNumber = *q.StationNumber
	}
	if len(q.Technologies) > 16 {
		v.Add("technologies", "at most 16 entries")
	}
	for i, s := range q.Technologies {
		if s == "" || len(s) > 16 {
			v.Add(fmt.Sprintf("technologies[%d]", i), "must be 1 to 16 characters")
		}
	}
	t.Technologies = q.Technologies
	if len(q.BandsMHz) > 32 {
		v.Add("bands_mhz", "at most 32 entries")
	}
	for i, b := range q.BandsMHz {
		if math.IsNaN(b) || b < 1 || b > 100000 {
			v.Add(fmt.Sprintf("bands_mhz[%d]", i), "must be between 1 and 100000 MHz, got %g", b)
		}
	}
	t.BandsMHz = q.BandsMHz
	return t, v.Err()
}

func (a *API) registerTower(w http.ResponseWriter, r *http.Request) (any, error) {
	key := keyFrom(r.Context())
	var q registerTowerRequest
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	t, err := q.toDomain()
	if err != nil {
		return nil, err
	}
	var raw [8]byte
	_, _ = rand.Read(raw[:])
	t.ID = appliance.TowerID(appliance.SourceUser, hex.EncodeToString(raw[:]))
	t.OwnerKeyID, t.OwnerTenantID = key.ID, key.TenantID
	t.UpdatedUnix = time.Now().Unix()
	limit := key.Tier.TowersPerKey()
	if key.Role == appliance.RoleAdmin {
		limit = -1
	}
	audit := appliance.AuditEntry{Action: "tower.register", ActorKey: key.ID, ActorEmail: key.Email,
		TenantID: key.TenantID, Route: "/towers", Params: map[string]string{"tower_id": t.ID},
		IP: clientIP(r), UserAgent: r.UserAgent(), RequestID: requestID(r.Context())}
	if err := a.TowerDB.PutUserTower(t, limit, audit); err != nil {
		return nil, err
	}
	a.Upsert(t) // only after the commit succeeded
	return created{towerJSON(t)}, nil
}

// searchTowerPage answers GET /towers?q= from the full-text index. The
// tenant scope is part of the index query (issue 7, finding 4), so total and
// next_offset count only the towers the caller may see.
func (a *API) searchTowerPage(ctx context.Context, text string, sc search.Scope, limit, offset int) (TowerPage, error) {
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
	if next := offset + limit; next < hits.Total && next < search.MaxWindow {
		page.NextOffset = &next
	}
	return page, nil
}

// searchScope is the full-text search scope of a key: admin keys see every
// tenant's towers, any other key the catalogue and its own tenant's.
func searchScope(k *appliance.APIKey) search.Scope {
	if k.Role == appliance.RoleAdmin {
		return search.Scope{All: true}
	}
	return search.Scope{Tenant: k.TenantID}
}

// scope is the tenant whose user-registered towers a key may see; admin
// keys see every tenant's ("").
func scope(k *appliance.APIKey) string {
	if k.Role == appliance.RoleAdmin {
		return ""
	}
	return k.TenantID
}
