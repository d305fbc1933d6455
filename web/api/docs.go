package api

import (
	"bytes"
	_ "embed"
	"net/http"

	"github.com/gorilla/mux"
)

// openAPIDocument is the OpenAPI 3.1 description of every route, as JSON.
// JSON rather than YAML keeps the appliance free of a YAML dependency; the
// document is edited by hand and checked against the router and against
// real responses by the contract tests.
//
//go:embed openapi.json
var openAPIDocument []byte

// OpenAPI returns a copy of the OpenAPI 3.1 document (JSON) served at
// GET /openapi.json.
func OpenAPI() []byte { return bytes.Clone(openAPIDocument) }

// Route is one method and path template served by the API.
type Route struct {
	Method string // HTTP method, e.g. "GET"; "" when the route takes any method
	Path   string // gorilla/mux path template, e.g. "/towers/{id}"
}

// Routes lists every method and path template the router serves, in
// registration order. The OpenAPI document describes exactly these.
func (a *API) Routes() []Route {
	var out []Route
	_ = a.router.Walk(func(rt *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		tpl, err := rt.GetPathTemplate()
		if err != nil {
			return nil // a route without a path (none today)
		}
		ms, err := rt.GetMethods()
		if err != nil {
			out = append(out, Route{Path: tpl})
			return nil
		}
		for _, m := range ms {
			out = append(out, Route{Method: m, Path: tpl})
		}
		return nil
	})
	return out
}

func (a *API) registerDocs(r *mux.Router) {
	r.HandleFunc("/openapi.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = w.Write(openAPIDocument)
	}).Methods(http.MethodGet)
}
