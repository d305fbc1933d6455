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
	"linkplan/appliance/basemap/pmtiles"
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
	r.HandleFunc("/tiles/surface/{z}/{x}/{y}", a.wrap(a.mapTile(basemap.LayerSurface))).Methods(http.MethodGet)
	// The operator's basemap archive (serve --basemap): public for the
	// same reasons (an OpenStreetMap extract the operator chose, no
	// tenant data).
	r.HandleFunc("/basemap/ext", a.wrap(a.externalBasemapInfo)).Methods(http.MethodGet)
	r.HandleFunc("/basemap/ext/{z}/{x}/{y}", a.wrap(a.externalBasemapTile)).Methods(http.MethodGet)
	// A vector archive drawn by the appliance: PNG tiles and place labels.
	r.HandleFunc("/basemap/ext/raster/{z}/{x}/{y}", a.wrap(a.externalBasemapRendered)).Methods(http.MethodGet)
	r.HandleFunc("/basemap/ext/labels/{z}/{x}/{y}", a.wrap(a.externalBasemapLabels)).Methods(http.MethodGet)
}

// ExternalBasemap serves the operator's PMTiles archive
// (appliance/basemap.External).
type ExternalBasemap interface {
	Info() basemap.ExternalInfo
	Tile(ctx context.Context, t basemap.Tile, ifNoneMatch string) (basemap.ExternalTile, error)
	RenderedTile(ctx context.Context, t basemap.Tile, scale int, ifNoneMatch string) (basemap.Image, error)
	Labels(ctx context.Context, t basemap.Tile) ([]basemap.Label, error)
}

// URL templates of the operator's basemap.
const (
	extTiles         = "/basemap/ext/{z}/{x}/{y}"
	extRenderedTiles = "/basemap/ext/raster/{z}/{x}/{y}"
	extLabels        = "/basemap/ext/labels/{z}/{x}/{y}"
)

// externalBasemapBody is the answer of GET /basemap/ext.
type externalBasemapBody struct {
	Configured      bool       `json:"configured"`
	TileType        string     `json:"tile_type,omitempty"`
	ContentType     string     `json:"content_type,omitempty"`
	ContentEncoding string     `json:"content_encoding,omitempty"`
	Drawn           bool       `json:"drawn"`
	Rendered        bool       `json:"rendered,omitempty"`
	Note            string     `json:"note,omitempty"`
	Tiles           string     `json:"tiles,omitempty"`
	DrawnTiles      string     `json:"drawn_tiles,omitempty"`
	Labels          string     `json:"labels,omitempty"`
	DrawnMaxZoom    *int       `json:"drawn_max_zoom,omitempty"`
	DrawnLayers     []string   `json:"drawn_layers,omitempty"`
	SkippedLayers   []string   `json:"skipped_layers,omitempty"`
	MinZoom         *int       `json:"min_zoom,omitempty"`
	MaxZoom         *int       `json:"max_zoom,omitempty"`
	BoundsDeg       []float64  `json:"bounds_deg,omitempty"`
	Center          *extCenter `json:"center,omitempty"`
	Attribution     string     `json:"attribution"`
	Name            string     `json:"name,omitempty"`
	Description     string     `json:"description,omitempty"`
	VectorLayers    []string   `json:"vector_layers,omitempty"`
	FileBytes       int64      `json:"file_bytes,omitempty"`
}

type extCenter struct {
	Lat  float64 `json:"lat"`
	Lon  float64 `json:"lon"`
	Zoom int     `json:"zoom"`
}

// externalBasemapInfo answers GET /basemap/ext: what the operator's
// archive holds, or configured false.
func (a *API) externalBasemapInfo(w http.ResponseWriter, r *http.Request) (any, error) {
	w.Header().Set("Cache-Control", "no-cache")
	if a.ExternalBasemap == nil {
		return externalBasemapBody{}, nil
	}
	in := a.ExternalBasemap.Info()
	if !in.Configured {
		return externalBasemapBody{}, nil
	}
	body := externalBasemapBody{Configured: true, TileType: in.TileType, ContentType: in.ContentType, ContentEncoding: in.ContentEncoding,
		Drawn: in.Drawn, Rendered: in.Rendered, Note: in.Note, Tiles: extTiles, MinZoom: &in.MinZoom, MaxZoom: &in.MaxZoom,
		BoundsDeg: in.Bounds[:], Center: &extCenter{Lat: in.CenterLat, Lon: in.CenterLon, Zoom: in.CenterZoom},
		Attribution: in.Attribution, Name: in.Name, Description: in.Description, VectorLayers: in.VectorLayers, FileBytes: in.FileBytes}
	if in.Drawn {
		body.DrawnTiles, body.DrawnMaxZoom = extTiles, &in.DrawnMaxZoom
	}
	if in.Rendered {
		body.DrawnTiles, body.Labels = extRenderedTiles, extLabels
		body.DrawnLayers, body.SkippedLayers = in.DrawnLayers, in.SkippedLayers
	}
	return body, nil
}

// externalBasemapRendered answers GET /basemap/ext/raster/{z}/{x}/{y}: a
// tile of a vector archive drawn as a PNG, 256 pixels, or 512 when the
// row ends with @2x (Leaflet's {r}); 304 when If-None-Match holds its
// ETag; 404 when the archive cannot give the tile (or is raster, or
// absent).
func (a *API) externalBasemapRendered(w http.ResponseWriter, r *http.Request) (any, error) {
	v := mux.Vars(r)
	y, scale := v["y"], 1
	if rest, ok := strings.CutSuffix(y, "@2x"); ok {
		y, scale = rest, 2
	}
	t, err := basemap.ParseTileUpTo(v["z"], v["x"], y, pmtiles.MaxZoom)
	if err != nil {
		return nil, err
	}
	if a.ExternalBasemap == nil {
		return nil, fmt.Errorf("basemap tile %s: no --basemap archive: %w", t, appliance.ErrNotFound)
	}
	img, err := a.ExternalBasemap.RenderedTile(r.Context(), t, scale, r.Header.Get("If-None-Match"))
	if err != nil {
		return nil, err
	}
	return writePNG(w, img)
}

// externalLabelsBody is the answer of GET /basemap/ext/labels/{z}/{x}/{y}.
type externalLabelsBody struct {
	Tile   string          `json:"tile"`
	Labels []basemap.Label `json:"labels"`
}

// externalBasemapLabels answers GET /basemap/ext/labels/{z}/{x}/{y}: the
// place labels of a tile of a vector archive.
func (a *API) externalBasemapLabels(w http.ResponseWriter, r *http.Request) (any, error) {
	v := mux.Vars(r)
	t, err := basemap.ParseTileUpTo(v["z"], v["x"], v["y"], pmtiles.MaxZoom)
	if err != nil {
		return nil, err
	}
	if a.ExternalBasemap == nil {
		return nil, fmt.Errorf("basemap labels %s: no --basemap archive: %w", t, appliance.ErrNotFound)
	}
	ls, err := a.ExternalBasemap.Labels(r.Context(), t)
	if err != nil {
		return nil, err
	}
	w.Header().Set("Cache-Control", "public, max-age="+strconv.Itoa(int(basemap.MaxAge.Seconds())))
	return externalLabelsBody{Tile: t.String(), Labels: ls}, nil
}

// externalBasemapTile answers GET /basemap/ext/{z}/{x}/{y}: the tile as
// stored, 304 when If-None-Match holds its ETag, 404 when the archive has
// no such tile (or there is no archive).
func (a *API) externalBasemapTile(w http.ResponseWriter, r *http.Request) (any, error) {
	v := mux.Vars(r)
	t, err := basemap.ParseTileUpTo(v["z"], v["x"], v["y"], pmtiles.MaxZoom)
	if err != nil {
		return nil, err
	}
	if a.ExternalBasemap == nil {
		return nil, fmt.Errorf("basemap tile %s: no --basemap archive: %w", t, appliance.ErrNotFound)
	}
	tile, err := a.ExternalBasemap.Tile(r.Context(), t, r.Header.Get("If-None-Match"))
	if err != nil {
		return nil, err
	}
	h := w.Header()
	h.Set("ETag", tile.ETag)
	h.Set("Cache-Control", "public, max-age="+strconv.Itoa(int(basemap.MaxAge.Seconds())))
	if tile.NotModified {
		w.WriteHeader(http.StatusNotModified)
		return nil, nil
	}
	h.Set("Content-Type", tile.ContentType)
	if tile.ContentEncoding != "" {
		h.Set("Content-Encoding", tile.ContentEncoding)
	}
	h.Set("Content-Length", strconv.Itoa(len(tile.Data)))
	h.Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(tile.Data)
	return nil, nil
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
	return writePNG(w, img)
}

// writePNG writes a rendered tile with its validator and cache lifetime,
// or 304 when the client's copy is current.
func writePNG(w http.ResponseWriter, img basemap.Image) (any, error) {
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
