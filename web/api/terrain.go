package api

import (
	"errors"
	"net/http"

	"github.com/gorilla/mux"

	"linkplan/appliance"
)

func (a *API) registerTerrain(r *mux.Router) {
	r.HandleFunc("/terrain/point", a.wrap(a.ready(a.authed(a.terrainPoint)))).Methods(http.MethodGet)
}

// ClutterJSON is the land cover at a point.
type ClutterJSON struct {
	Class   uint8   `json:"clutter_class"`    // 1 Forest … 10 Other (SPEC §2.5 order), 0 Unknown
	Label   string  `json:"clutter_label"`    // class name
	HeightM float64 `json:"clutter_height_m"` // representative clutter height, metres
}

// PointTerrain is the terrain the API reads (Deps.Terrain): heights for
// the engine cases and point queries, and whether a height was
// interpolated across a void of the source DEM.
type PointTerrain interface {
	appliance.Terrain
	// VoidStatusAt answers for the height ElevationM gives at p: filled is
	// true when it was interpolated across a void of the source DEM; known
	// is false (filled false) when the terrain cannot say: no void mask,
	// and its tile had samples filled by interpolation (packs older than
	// format 4). Errors are those of ElevationM.
	VoidStatusAt(p appliance.LatLon) (filled, known bool, err error)
}

// Warning codes of GET /terrain/point besides appliance.WarnVoidFilledTerrain.
const (
	// warnVoidMaskUnavailable: the pack has no void mask and the tile had
	// void-filled samples, so void_filled is null.
	warnVoidMaskUnavailable = "void_mask_unavailable"
)

// TerrainPoint is the body of GET /terrain/point.
type TerrainPoint struct {
	Lat        float64      `json:"lat"`
	Lon        float64      `json:"lon"`
	ElevationM float64      `json:"elevation_m"` // ground height, metres above mean sea level
	Clutter    *ClutterJSON `json:"clutter"`     // null when the loaded terrain has no land-cover layer here
	// ClutterStatus is "ok", or why there is no class (no land-cover layer):
	// the appliance never guesses a class.
	ClutterStatus string `json:"clutter_status"`
	// VoidFilled is true when ElevationM was interpolated across a void of
	// the source DEM (any of the samples it was interpolated from was a
	// void): the real ground may be far higher (an SRTM void on a steep
	// peak). False when every such sample was measured; null when the pack
	// cannot say (no void mask, and its tile had void-filled samples).
	VoidFilled *bool `json:"void_filled"`
	// Warnings: void_filled_terrain with void_filled true,
	// void_mask_unavailable with void_filled null; never null.
	Warnings []appliance.Warning `json:"warnings"`
}

func (a *API) terrainPoint(w http.ResponseWriter, r *http.Request) (any, error) {
	q := newQuery(r)
	lat := q.float("lat", 0, -90, 90, true)
	lon := q.float("lon", 0, -180, 180, true)
	if err := q.e.Err(); err != nil {
		return nil, err
	}
	p := appliance.LatLon{Lat: lat, Lon: lon}
	h, err := a.Terrain.ElevationM(p)
	if err != nil {
		return nil, err
	}
	out := TerrainPoint{Lat: lat, Lon: lon, ElevationM: r3(h), ClutterStatus: "ok", Warnings: []appliance.Warning{}}
	filled, known, err := a.Terrain.VoidStatusAt(p)
	if err != nil {
		return nil, err
	}
	switch {
	case !known:
		out.Warnings = append(out.Warnings, appliance.Warning{Code: warnVoidMaskUnavailable,
			Message: "The terrain pack has no void mask and this tile had void-filled samples, so whether this height was interpolated across a DEM void is unknown; rebuild the pack with a current linkplan to know."})
	case filled:
		out.VoidFilled = &filled
		out.Warnings = append(out.Warnings, appliance.Warning{Code: appliance.WarnVoidFilledTerrain,
			Message: "This height was interpolated across a void of the source DEM; the real ground may be far higher (SRTM voids lie on steep peaks and cliffs)."})
	default:
		out.VoidFilled = &filled
	}
	if a.Clutter == nil {
		out.ClutterStatus = "the loaded terrain has no land-cover (clutter) layer"
		return out, nil
	}
	c, err := a.Clutter.ClutterAt(p)
	switch {
	case errors.Is(err, appliance.ErrUnavailable):
		// The chain names the packs and operations for the logs; the client
		// reads one sentence (issue 7, finding 9).
		out.ClutterStatus = "the terrain pack holding this point has no land-cover (clutter) layer"
	case err != nil:
		return nil, err
	default:
		out.Clutter = &ClutterJSON{Class: c.Class, Label: c.Label, HeightM: c.HeightM}
	}
	return out, nil
}
