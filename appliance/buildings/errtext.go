package buildings

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// plain is the text of a decoder's error (encoding/json, encoding/xml,
// strconv, archive/zip, compress/*) as a refusal tells the user: without
// Go's package prefixes ("strconv.ParseFloat: ", "zip: ") and type names
// ("Go struct field .features of type []json.RawMessage").
func plain(err error) string {
	var (
		ne *strconv.NumError
		te *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &ne):
		if errors.Is(ne.Err, strconv.ErrRange) {
			return fmt.Sprintf("the number %q is out of range", ne.Num)
		}
		return fmt.Sprintf("%q is not a number", ne.Num)
	case errors.As(err, &te):
		where := "the document"
		if te.Field != "" {
			where = "member " + te.Field
		}
		got := te.Value // encoding/json's name of the JSON value
		if got == "bool" {
			got = "boolean"
		}
		return fmt.Sprintf("%s must be a JSON %s, not a %s", where, jsonKind(te.Type), got)
	}
	msg := err.Error()
	for _, p := range []string{"zip: ", "gzip: ", "flate: ", "zlib: ", "json: ", "xml: "} {
		msg = strings.TrimPrefix(msg, p)
	}
	return msg
}

// jsonKind names the JSON type a Go type decodes from.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "value"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "boolean"
	case reflect.String:
		return "string"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Struct, reflect.Map:
		return "object"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16,
		reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "number"
	}
	return "value"
}
