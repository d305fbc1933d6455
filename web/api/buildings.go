package api

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gorilla/mux"

	"linkplan/appliance"
	"linkplan/appliance/buildings"
)

// BuildingLayers keeps the tenants' building layers (appliance/buildings).
type BuildingLayers interface {
	CheckUpload(k *appliance.APIKey, req buildings.UploadRequest, paramsErr error, size int64) (int64, error)
	Upload(ctx context.Context, k *appliance.APIKey, req buildings.UploadRequest, data []byte, audit appliance.AuditEntry) (*appliance.BuildingLayer, *appliance.BuildingIndex, error)
	List(k *appliance.APIKey) ([]*appliance.BuildingLayer, buildings.Usage, error)
	Get(ctx context.Context, k *appliance.APIKey, id string) (*appliance.BuildingLayer, *appliance.BuildingIndex, error)
	Delete(k *appliance.APIKey, id string, audit appliance.AuditEntry) error
}

// Route of the building-layer upload, whose body is the file itself.
const routeBuildingLayers = "/buildings/layers"

// MaxBuildingLayerBodyBytes is the body limit of the upload route: the
// largest tier cap (Ultra, appliance.Tier.BuildingLayerLimits). Each
// upload is read under its key's own cap (the service's CheckUpload,
// before a byte is read), and charged to the uploads' own decode budget of
// this size (API.uploads), never to the appliance-wide one: an upload at
// the Ultra cap fits it whole, and no upload, waiting or parsing, takes
// the memory of another route's body (rvapi findings 3 and 4).
const MaxBuildingLayerBodyBytes = 128 << 20

func (a *API) registerBuildings(r *mux.Router) {
	r.HandleFunc(routeBuildingLayers, a.wrap(a.ready(a.authed(a.uploadBuildingLayer)))).Methods(http.MethodPost)
	r.HandleFunc(routeBuildingLayers, a.wrap(a.authed(a.listBuildingLayers))).Methods(http.MethodGet)
	r.HandleFunc(routeBuildingLayers+"/{layer_id}", a.wrap(a.ready(a.authed(a.getBuildingLayer)))).Methods(http.MethodGet)
	r.HandleFunc(routeBuildingLayers+"/{layer_id}", a.wrap(a.authed(a.deleteBuildingLayer))).Methods(http.MethodDelete)
}

// BuildingLayerJSON is a layer on the wire.
type BuildingLayerJSON struct {
	appliance.BuildingLayer
	// Bounds is the box of the layer's footprints: [min lon, min lat, max
	// lon, max lat], degrees (GeoJSON bbox order).
	Bounds [4]float64 `json:"bounds"`
}

// BuildingLayerDetail is the answer of GET (and POST) on one layer: the
// layer and its index.
type BuildingLayerDetail struct {
	Layer BuildingLayerJSON       `json:"layer"`
	Index appliance.BuildingIndex `json:"index"`
}

// BuildingLayerList is the answer of GET /buildings/layers.
type BuildingLayerList struct {
	Layers []BuildingLayerJSON `json:"layers"`
	Usage  buildings.Usage     `json:"usage"`
}

func layerJSON(l *appliance.BuildingLayer) BuildingLayerJSON {
	out := BuildingLayerJSON{BuildingLayer: *l, Bounds: [4]float64{l.Bounds.MinLon, l.Bounds.MinLat, l.Bounds.MaxLon, l.Bounds.MaxLat}}
	if out.Refusals == nil {
		out.Refusals = []appliance.FeatureRefusal{}
	}
	if out.Warnings == nil {
		out.Warnings = []appliance.Warning{}
	}
	return out
}

var errNoBuildings = &httpError{status: http.StatusServiceUnavailable, code: "unavailable", msg: "building layers are not available on this appliance"}

// uploadRequest reads the query parameters of an upload.
func uploadRequest(r *http.Request) (buildings.UploadRequest, error) {
	q := r.URL.Query()
	v := &appliance.ValidationError{}
	for k := range q {
		switch k {
		case "name", "material", "ground", "class_materials", "storey_height_m", "default_height_m":
		case "":
			v.Add("query", "holds a parameter without a name")
		default:
			v.Add(k, "is not a parameter of this route (name, material, ground, class_materials, storey_height_m, default_height_m)")
		}
	}
	req := buildings.UploadRequest{Name: q.Get("name"), Material: q.Get("material"), Ground: q.Get("ground")}
	if p := textProblem(req.Name, !utf8.ValidString(req.Name)); p != "" { // the hygiene of every JSON body's text
		v.Add("name", "%s", p)
	}
	for _, f := range []struct {
		name string
		x    *float64
	}{{"storey_height_m", &req.StoreyHeightM}, {"default_height_m", &req.DefaultHeightM}} {
		if s := q.Get(f.name); s != "" {
			x, err := strconv.ParseFloat(s, 64)
			if err != nil {
				v.Add(f.name, "must be a number of metres, got %q", truncate(s, 40))
			}
			*f.x = x
		}
	}
	if s := q.Get("class_materials"); s != "" {
		req.ClassMaterials = map[string]string{}
		for _, pair := range strings.Split(s, ",") {
			c, m, ok := strings.Cut(pair, ":")
			if !ok {
				v.Add("class_materials", "must be class:material pairs separated by commas, e.g. industrial:metal,house:brick")
				break
			}
			req.ClassMaterials[strings.TrimSpace(c)] = strings.TrimSpace(m)
		}
	}
	return req, v.Err()
}

func (a *API) uploadBuildingLayer(w http.ResponseWriter, r *http.Request) (any, error) {
	if a.Buildings == nil {
		return nil, errNoBuildings
	}
	req, paramsErr := uploadRequest(r)
	k := keyFrom(r.Context())
	// The tier, its file cap (from Content-Length), the parameters and the
	// quota before a byte is read; the read is bounded by the key's cap.
	fileCap, err := a.Buildings.CheckUpload(k, req, paramsErr, r.ContentLength)
	if err != nil {
		return nil, uploadErr(err)
	}
	body, err := readBodyUpTo(w, r, fileCap, "the building-layer file cap of this key's tier")
	if err != nil {
		return nil, err
	}
	l, st, err := a.Buildings.Upload(r.Context(), k, req, body, auditBase(r, k, routeBuildingLayers))
	if err != nil {
		return nil, uploadErr(err)
	}
	return created{BuildingLayerDetail{Layer: layerJSON(l), Index: *st}}, nil
}

// uploadErr maps a file over its tier's cap to 413.
func uploadErr(err error) error {
	var tl *buildings.TooLargeError
	if errors.As(err, &tl) {
		return &httpError{status: http.StatusRequestEntityTooLarge, code: "body_too_large", msg: tl.Error()}
	}
	return err
}

func (a *API) listBuildingLayers(w http.ResponseWriter, r *http.Request) (any, error) {
	if a.Buildings == nil {
		return nil, errNoBuildings
	}
	ls, u, err := a.Buildings.List(keyFrom(r.Context()))
	if err != nil {
		return nil, err
	}
	out := BuildingLayerList{Layers: make([]BuildingLayerJSON, 0, len(ls)), Usage: u}
	for _, l := range ls {
		out.Layers = append(out.Layers, layerJSON(l))
	}
	return out, nil
}

func (a *API) getBuildingLayer(w http.ResponseWriter, r *http.Request) (any, error) {
	if a.Buildings == nil {
		return nil, errNoBuildings
	}
	l, st, err := a.Buildings.Get(r.Context(), keyFrom(r.Context()), mux.Vars(r)["layer_id"])
	if err != nil {
		return nil, err
	}
	return BuildingLayerDetail{Layer: layerJSON(l), Index: *st}, nil
}

// BuildingLayerDeleted is the answer of DELETE on a layer.
type BuildingLayerDeleted struct {
	ID      string `json:"id"`
	Deleted bool   `json:"deleted"`
}

func (a *API) deleteBuildingLayer(w http.ResponseWriter, r *http.Request) (any, error) {
	if a.Buildings == nil {
		return nil, errNoBuildings
	}
	k := keyFrom(r.Context())
	id := mux.Vars(r)["layer_id"]
	if err := a.Buildings.Delete(k, id, auditBase(r, k, routeBuildingLayers+"/{layer_id}")); err != nil {
		return nil, err
	}
	return BuildingLayerDeleted{ID: id, Deleted: true}, nil
}
