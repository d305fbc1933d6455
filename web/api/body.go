package api

import (
	"fmt"
	"mime"
	"net/http"
	"strings"

	"linkplan/appliance"
	"linkplan/appliance/decodebudget"
)

// Routes whose request bodies differ from the JSON default.
const routeBatchReports = "/batch_reports"

// MaxBatchBodyBytes is the request body limit of POST /batch_reports
// (32 MiB): the largest batch (50,000 rows, Ultra) as JSON or CSV with room
// to spare. Every other route keeps API.MaxBodyBytes.
const MaxBatchBodyBytes = 32 << 20

// bodyLimit is the request body limit of route.
func (a *API) bodyLimit(route string) int64 {
	switch route {
	case routeBatchReports:
		return max(a.MaxBodyBytes, MaxBatchBodyBytes)
	case routeObservationsBatch, routeObservationsDriveTest:
		return max(a.MaxBodyBytes, MaxObservationBodyBytes)
	case routeBuildingLayers:
		return max(a.MaxBodyBytes, MaxBuildingLayerBodyBytes)
	case routeAntennaImport:
		return max(a.MaxBodyBytes, MaxAntennaImportBodyBytes)
	}
	return a.MaxBodyBytes
}

// budget is the decode budget that a request's body is charged to: the
// building-layer uploads' own (API.uploads), the appliance-wide one
// (Deps.Decode) for every other route.
func (a *API) budget(route, method string) *decodebudget.Budget {
	if route == routeBuildingLayers && method == http.MethodPost {
		return a.uploads
	}
	return a.decode
}

// bodyContentType checks the Content-Type of a request body for route:
// JSON everywhere (jsonContentType), and on POST /batch_reports also a CSV
// file, as multipart/form-data (a form field named "file") or as the raw
// body (text/csv).
func (a *API) bodyContentType(route, ct string) error {
	if route == routeBuildingLayers {
		return nil // the body is the building file; its format is detected from its bytes
	}
	if route == routeObservationsDriveTest {
		if mt, _, err := mime.ParseMediaType(ct); err == nil && mt == "multipart/form-data" {
			return nil
		}
		return &httpError{status: http.StatusUnsupportedMediaType, code: "unsupported_media_type",
			msg:    "a drive test is multipart/form-data with the CSV in the part csv_file",
			fields: []appliance.FieldError{{Field: "Content-Type", Reason: fmt.Sprintf("must be multipart/form-data, got %q", strings.TrimSpace(ct))}}}
	}
	if route == routeAntennaImport {
		if mt, _, err := mime.ParseMediaType(ct); err == nil && mt == "multipart/form-data" {
			return nil
		}
		return jsonContentType(ct)
	}
	if route != routeBatchReports {
		return jsonContentType(ct)
	}
	if jsonContentType(ct) == nil {
		return nil
	}
	if mt, _, err := mime.ParseMediaType(ct); err == nil && (mt == "multipart/form-data" || mt == "text/csv") {
		return nil
	}
	return &httpError{status: http.StatusUnsupportedMediaType, code: "unsupported_media_type",
		msg:    "a batch is JSON (application/json) or a CSV file (multipart/form-data with a file field, or text/csv)",
		fields: []appliance.FieldError{{Field: "Content-Type", Reason: fmt.Sprintf("must be application/json, multipart/form-data or text/csv, got %q", strings.TrimSpace(ct))}}}
}
