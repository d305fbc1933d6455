package api

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	"linkplan/appliance"
	"linkplan/appliance/basemap"
)

// Basemap renders the console's offline map tiles from the appliance's
// terrain (appliance/basemap).
type Basemap interface {
	Tile(ctx context.Context, l basemap.Layer, t basemap.Tile, ifNoneMatch string) (basemap.Image, error)
}

// registerTiles serves the hillshade and elevation tiles. They are
// public: the console loads them with <img>, which cannot send X-API-Key,
// and they show only terrain (public SRTM data), never a tenant's data, so
// they are neither authenticated nor metered. The terrain is open before
// the API is built, so they are not gated by readiness either.
func (a *API) registerTiles(r *mux.Router) {
	r.HandleFunc("/tiles/hillshade/{z}/{x}/{y}", a.wrap(a.mapTile(basemap.LayerHillshade))).Methods(http.MethodGet)
	r.HandleFunc("/tiles/elevation/{z}/{x}/{y}", a.wrap(a.mapTile(basemap.LayerElevation))).Methods(http.MethodGet)
}

// mapTile answers GET /tiles/{layer}/{z}/{x}/{y}.png: the PNG, or 304 when
// If-None-Match holds its ETag.
func (a *API) mapTile(l basemap.Layer) handler {
	return func(w http.ResponseWriter, r *http.Request) (any, error) { return a.tile(w, r, l) }
}

func (a *API) tile(w http.ResponseWriter, r *http.Request, l basemap.Layer) (any, error) {
	if a.Basemap == nil {
		return nil, fmt.Errorf("this appliance serves no %s map tiles: %w", l, appliance.ErrUnavailable)
	}
	v := mux.Vars(r)
	y, ok := strings.CutSuffix(v["y"], ".png")
	if !ok {
		return nil, &httpError{status: http.StatusBadRequest, code: "invalid_tile", msg: "tiles are PNG images: the last path segment must be the row followed by .png",
			fields: []appliance.FieldError{{Field: "y", Reason: fmt.Sprintf("must be the tile row followed by .png, e.g. 2316.png, got %q", clean(v["y"], 40))}}}
	}
	t, err := basemap.ParseTile(v["z"], v["x"], y)
	if err != nil {
		return nil, err
	}
	img, err := a.Basemap.Tile(r.Context(), l, t, r.Header.Get("If-None-Match"))
	if err != nil {
		return nil, err
	}
	h := w.Header()
	h.Set("ETag", img.ETag)
	h.Set("Cache-Control", "public, max-age="+strconv.Itoa(int(img.MaxAge.Seconds())))
	if img.NotModified {
		w.WriteHeader(http.StatusNotModified)
		return nil, nil
	}
	h.Set("Content-Type", "image/png")
	h.Set("Content-Length", strconv.Itoa(len(img.PNG)))
	h.Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(img.PNG)
	return nil, nil
}
