package main

import (
	"net/http"

	"linkplan/web/console"
)

// withConsole composes the appliance's HTTP surface: the console's paths
// ("/", "/index.html" and those under /css/, /js/, /vendor/, /data/; see
// console.Owns) go to the console, everything else to the API, which
// keeps every route it had (no API route starts with a console prefix:
// TestConsoleShadowsNoAPIRoute checks each path of the OpenAPI document).
func withConsole(apiH, consoleH http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if console.Owns(r.URL.Path) {
			consoleH.ServeHTTP(w, r)
			return
		}
		apiH.ServeHTTP(w, r)
	})
}
