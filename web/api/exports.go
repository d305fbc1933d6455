package api

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"linkplan/appliance"
	"linkplan/appliance/geoexport"
)

// Geo exports (SPEC §4.8) live under /exports/{subject}: each subject takes
// the body of the JSON route it exports and the same ?format= parameter
// (geojson, kml, kmz, shapefile), and answers a file instead of JSON. Only
// /exports/link exists; the coverage heatmap and the repeater search are
// to join as /exports/coverage and /exports/repeater with that parameter.
func (a *API) registerExports(r *mux.Router) {
	r.HandleFunc("/exports/link", a.wrap(a.ready(a.authed(a.exportLink)))).Methods(http.MethodPost)
}

// exportFormat reads the format query parameter: geojson when absent, a
// 422 naming "format" when unknown.
func exportFormat(r *http.Request) (geoexport.Format, error) {
	s, ok := r.URL.Query()["format"]
	if !ok {
		return geoexport.FormatGeoJSON, nil
	}
	names := make([]string, 0, 4)
	for _, f := range geoexport.Formats() {
		names = append(names, string(f))
	}
	if len(s) != 1 {
		return "", appliance.Invalid("format", "must be given once, one of %s", strings.Join(names, ", "))
	}
	f, ok := geoexport.ParseFormat(s[0])
	if !ok {
		return "", appliance.Invalid("format", "must be one of %s, got %q", strings.Join(names, ", "), truncate(s[0], 40))
	}
	return f, nil
}

// analyzeLinkFor runs the analysis of an /analyze_link body q for the
// calling key, exactly as POST /analyze_link does (defaults, engine rules,
// tenant scope); profile asks for each result's path check.
func (a *API) analyzeLinkFor(r *http.Request, q *analyzeLinkRequest, profile bool) (*appliance.LinkAnalysis, error) {
	req, err := q.toDomain()
	if err != nil {
		return nil, err
	}
	k := keyFrom(r.Context())
	id, _, err := a.resolveEngine(k, req.Engine)
	if err != nil {
		return nil, err
	}
	req.Engine = id
	req.TenantID = scope(k)
	req.IncludeProfile = req.IncludeProfile || profile
	return a.Links.AnalyzeLink(r.Context(), req)
}

// writeFile answers 200 with body as an attachment named name.
func writeFile(w http.ResponseWriter, contentType, name string, body []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", name))
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// exportLink is POST /exports/link: the /analyze_link analysis as a geo
// file (geoexport.LinkLines: the receiver point and one line per returned
// tower).
func (a *API) exportLink(w http.ResponseWriter, r *http.Request) (any, error) {
	f, err := exportFormat(r)
	if err != nil {
		return nil, err
	}
	var q analyzeLinkRequest
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	res, err := a.analyzeLinkFor(r, &q, false)
	if err != nil {
		return nil, err
	}
	res.Warnings = append(res.Warnings, q.renames()...)
	var buf bytes.Buffer // whole, so that a writer error is still a clean 500
	if err := geoexport.WriteLinkAnalysis(&buf, f, res, time.Now()); err != nil {
		// The input was validated: a writer error is a bug (500), not the
		// client's ErrInvalid, hence %v.
		return nil, fmt.Errorf("export link: %v", err)
	}
	writeFile(w, f.ContentType(), "link"+f.Extension(), buf.Bytes())
	return nil, nil
}
