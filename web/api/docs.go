package api

import (
	_ "embed"
	"net/http"

	"github.com/gorilla/mux"
)

// OpenAPIDocument is the OpenAPI 3.1 description of every route.
//
//go:embed openapi.yaml
var OpenAPIDocument []byte

func (a *API) registerDocs(r *mux.Router) {
	r.HandleFunc("/openapi.yaml", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/yaml; charset=utf-8")
		_, _ = w.Write(OpenAPIDocument)
	}).Methods(http.MethodGet)
}
