package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"
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
	// The copy of what was read names nested unknown fields by their full
	// path ("receiver.alt"): encoding/json reports only the member name.
	var seen bytes.Buffer
	dec := json.NewDecoder(io.TeeReader(r.Body, &seen))
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
		var raw any
		if json.NewDecoder(&seen).Decode(&raw) == nil { // the first value only
			var paths []string
			unknownFields(raw, reflect.TypeOf(v), "", &paths)
			slices.Sort(paths)
			if len(paths) > 0 {
				ve := &appliance.ValidationError{}
				for _, p := range paths {
					ve.Add(p, "is not a known field of this request")
				}
				return ve
			}
		}
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		if name == "" {
			name = `""`
		}
		return appliance.Invalid(name, "is not a known field of this request")
	}
	return &httpError{status: http.StatusBadRequest, code: "malformed_json", msg: "request body could not be read: " + err.Error()}
}

func jsonType(kind string) string {
	switch kind {
	case "float64", "float32":
		return "number"
	case "int", "int64", "int32", "uint", "uint64":
		return "integer"
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

// unknownFields appends to out the JSON paths of the object members in raw
// that type t (a struct, through pointers, slices and arrays) does not
// declare, matching names case-insensitively like encoding/json.
func unknownFields(raw any, t reflect.Type, path string, out *[]string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch x := raw.(type) {
	case map[string]any:
		if t.Kind() != reflect.Struct {
			return
		}
		for k, val := range x {
			name := k
			if name == "" {
				name = `""` // a member with an empty name still gets a visible path
			}
			p := name
			if path != "" {
				p = path + "." + name
			}
			f, ok := jsonField(t, k)
			if !ok {
				*out = append(*out, p)
				continue
			}
			unknownFields(val, f.Type, p, out)
		}
	case []any:
		if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
			return
		}
		for i, e := range x {
			unknownFields(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i), out)
		}
	}
}

// jsonField returns the field of struct type t that decodes the JSON member
// name.
func jsonField(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == "-" || !f.IsExported() {
			continue
		}
		if tag == "" {
			tag = f.Name
		}
		if strings.EqualFold(tag, name) {
			return f, true
		}
	}
	return reflect.StructField{}, false
}
