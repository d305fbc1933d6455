package api

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"linkplan/appliance"
)

// Searcher is the full-text index (store/search).
type Searcher interface {
	SearchTowers(ctx context.Context, q string, scope appliance.SearchScope, limit, offset int) (appliance.SearchTowerHits, error)
	SearchPlaces(ctx context.Context, q string, limit int) ([]appliance.SearchPlaceHit, error)
	SearchPlacesInUF(ctx context.Context, q, uf string, limit int) ([]appliance.SearchPlaceHit, error)
}

func (a *API) registerPlaces(r *mux.Router) {
	r.HandleFunc("/places", a.wrap(a.authed(a.searchPlaces))).Methods(http.MethodGet)
}

// PlaceJSON is one municipality of GET /places.
type PlaceJSON struct {
	IBGECode string  `json:"ibge_code"`
	Name     string  `json:"name"`
	UF       string  `json:"uf"`
	Region   string  `json:"region"` // macro-region: N, NE, CO, SE or S
	Lat      float64 `json:"lat"`    // municipality seat, degrees
	Lon      float64 `json:"lon"`    // degrees
	Capital  bool    `json:"capital"`
	Score    float64 `json:"score"` // text relevance, comparable only within one answer; the order is the importance rule of store/search
}

// PlaceList is the body of GET /places.
type PlaceList struct {
	Places []PlaceJSON `json:"places"`
	Count  int         `json:"count"`
}

func (a *API) searchPlaces(w http.ResponseWriter, r *http.Request) (any, error) {
	q := newQuery(r)
	text := strings.TrimSpace(q.v.Get("q"))
	if text == "" || len(text) > 200 {
		q.e.Add("q", "is required: 1 to 200 characters of a municipality name (accents and case do not matter)")
	}
	limit := q.int("limit", 10, 1, appliance.SearchMaxLimit)
	uf := strings.ToUpper(strings.TrimSpace(q.v.Get("uf")))
	if uf != "" && len(uf) != 2 {
		q.e.Add("uf", "must be a two-letter state code, got %q", uf)
	}
	if err := q.e.Err(); err != nil {
		return nil, err
	}
	var hits []appliance.SearchPlaceHit
	var err error
	if uf != "" {
		hits, err = a.Search.SearchPlacesInUF(r.Context(), text, uf, limit)
	} else {
		hits, err = a.Search.SearchPlaces(r.Context(), text, limit)
	}
	if err != nil {
		return nil, fmt.Errorf("search places: %w", err)
	}
	out := PlaceList{Places: make([]PlaceJSON, 0, len(hits))}
	for _, h := range hits {
		p := h.Place
		out.Places = append(out.Places, PlaceJSON{IBGECode: p.IBGECode, Name: p.Name, UF: p.UF, Region: p.Region, Lat: p.Lat, Lon: p.Lon, Capital: p.Capital, Score: r3(h.Score)})
	}
	out.Count = len(out.Places)
	return out, nil
}
