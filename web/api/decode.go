package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"linkplan/appliance"
)

// decode reads one JSON object from the body into v. Malformed JSON is a 400;
// a wrong type or an unknown field is a 422 naming the field; an oversized
// body is a 413.
func decode(r *http.Request, v any) error {
	// The Content-Type is not checked: curl's default form type on a JSON
	// body is the commonest client mistake, and the body is parsed as JSON
	// whatever the header says.
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		if dec.More() {
			return &httpError{status: http.StatusBadRequest, code: "malformed_json", msg: "request body holds more than one JSON value"}
		}
		if _, err := dec.Token(); err != io.EOF {
			return &httpError{status: http.StatusBadRequest, code: "malformed_json", msg: "request body has trailing data after the JSON object"}
		}
		return nil
	}
	var (
		syn *json.SyntaxError
		ute *json.UnmarshalTypeError
		mbe *http.MaxBytesError
	)
	switch {
	case errors.Is(err, io.EOF):
		return &httpError{status: http.StatusBadRequest, code: "malformed_json", msg: "request body is empty: a JSON object is required"}
	case errors.As(err, &mbe):
		return &httpError{status: http.StatusRequestEntityTooLarge, code: "body_too_large", msg: fmt.Sprintf("request body exceeds %d bytes", mbe.Limit)}
	case errors.As(err, &syn), errors.Is(err, io.ErrUnexpectedEOF):
		return &httpError{status: http.StatusBadRequest, code: "malformed_json", msg: "request body is not valid JSON: " + err.Error()}
	case errors.As(err, &ute):
		field := ute.Field
		if field == "" {
			field = "(body)"
		}
		return appliance.Invalid(field, "must be of JSON type %s, got %s", jsonType(ute.Type.Kind().String()), ute.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return appliance.Invalid(name, "is not a known field of this request")
	}
	return &httpError{status: http.StatusBadRequest, code: "malformed_json", msg: "request body could not be read: " + err.Error()}
}

func jsonType(kind string) string {
	switch kind {
	case "float64", "float32", "int", "int64", "int32", "uint", "uint64":
		return "number"
	case "string":
		return "string"
	case "bool":
		return "boolean"
	case "struct", "map":
		return "object"
	case "slice", "array":
		return "array"
	case "ptr":
		return "number or object"
	}
	return kind
}
