// Package api is linkplan's HTTP contract: gorilla/mux routes (one file per
// resource), the middleware chain (request id, panic recovery, body limit,
// metrics, authentication), JSON decoding and validation, and the single
// function that maps errors to HTTP status codes (errors.go).
//
// # Basics
//
// Handlers return error; wrap adapts them, writes JSON on success and the
// structured error body otherwise:
//
//	{"error": {"code": "invalid_input", "message": "...", "request_id": "...",
//	           "fields": [{"field": "receiver.lat", "reason": "..."}]}}
//
// Every response, errors included, carries X-Request-Id (the client's value
// when it sent a sane one, else a new random id). An unexpected error or a
// panic is a bug: the body is the plain text "Internal Server Error" (SPEC
// §7) and the request id goes to the log with the error.
//
// The OpenAPI 3.1 document (openapi.json) describes every route and is
// served at /openapi.json; tests check real responses against it.
//
// # Design notes
//
// The interfaces this package consumes are declared here (Engines,
// Searcher, LinkAnalyzer, ...). Their method signatures use the result
// types of two leaves, linkplan/engines (Info, Case, CaseResult,
// CompareRow) and linkplan/store/search (TowerHits, PlaceHit): those are
// already wire-shaped, JSON-tagged values, and wrapping them in API-owned
// copies would only duplicate fields. The concrete registry and index are
// still only met in the composition root.
//
// The middleware lives here rather than in package web (as the starting
// layout proposed) because the request id and the error body are part of
// the same wire contract as the handlers: one package owns all of it, and
// web only runs the server (lifecycle, timeouts, graceful shutdown).
package api
