package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"linkplan/appliance"
	"linkplan/appliance/decodebudget"
)

// decode reads one JSON object from the body into v (the Content-Type was
// checked by the middleware: see jsonContentType). Malformed JSON is a 400; a wrong type, an unknown
// field or a string that is not clean text (invalid UTF-8, a control or
// bidirectional-override character) is a 422 naming the field; an oversized
// body is a 413. At most appliance.MaxFieldErrors fields are named, the rest
// counted, and the per-element work stops at the cap (issue 7, finding 5).
func decode(r *http.Request, v any) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	return decodeBytes(body, v, maxArrayElements)
}

// readBody reads a request body, charged to the request's lease on the
// appliance-wide decode budget (a 503 with Retry-After when the budget is
// spent for now, a 413 when the body is larger than the whole budget); a
// body over the route's limit is a 413, refused before a byte is read when
// its Content-Length says so.
func readBody(r *http.Request) ([]byte, error) {
	return readLimited(r, bodyFrom(r.Context()).limit, "the limit of this route")
}

// readBodyUpTo is readBody under a limit of the caller's own below the
// route's (a building-layer upload: the key's tier's file cap), which
// whose names in the 413: the lease grows with the body read, so it never
// holds more than limit.
func readBodyUpTo(w http.ResponseWriter, r *http.Request, limit int64, whose string) ([]byte, error) {
	if rl := bodyFrom(r.Context()).limit; rl > 0 && rl < limit {
		return readBody(r)
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	return readLimited(r, limit, whose)
}

func readLimited(r *http.Request, limit int64, whose string) ([]byte, error) {
	rb := bodyFrom(r.Context())
	if limit > 0 && r.ContentLength > limit {
		return nil, tooLargeFor(limit, whose)
	}
	body, err := rb.lease.ReadAll(r.Body, r.ContentLength, "the request body")
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe) && mbe.Limit == limit:
		return nil, tooLargeFor(mbe.Limit, whose)
	case errors.As(err, &mbe):
		return nil, tooLarge(mbe.Limit)
	case isOverBudget(err):
		return nil, overBudget(err)
	case errors.Is(err, appliance.ErrUnavailable): // the decode budget
		return nil, err
	case err != nil:
		return nil, &httpError{status: http.StatusBadRequest, code: "malformed_json", msg: "request body could not be read to its end (the connection ended early)"}
	}
	return body, nil
}

// isOverBudget reports a body larger than the whole decode budget
// (decodebudget.OverBudgetError): a retry can never pass it.
func isOverBudget(err error) bool {
	var ob *decodebudget.OverBudgetError
	return errors.As(err, &ob)
}

// overBudget is the 413 of a body larger than the whole decode budget.
func overBudget(err error) error {
	return &httpError{status: http.StatusRequestEntityTooLarge, code: "body_too_large", msg: err.Error()}
}

// tooLarge is the 413 of a body over its route's limit of limit bytes.
func tooLarge(limit int64) error { return tooLargeFor(limit, "the limit of this route") }

// tooLargeFor is the 413 of a body over a limit of limit bytes, whose
// names.
func tooLargeFor(limit int64, whose string) error {
	return &httpError{status: http.StatusRequestEntityTooLarge, code: "body_too_large",
		msg: fmt.Sprintf("request body exceeds %d bytes (%s), %s", limit, decodebudget.Size(limit), whose)}
}

// requestBody is what the middleware tells the decoders about a request's
// body: its route's limit and the request's lease on the decode budget.
type requestBody struct {
	limit int64
	lease *decodebudget.Lease
}

// bodyFrom returns the body facts the middleware stored (zero values, which
// charge nothing and check no limit, outside it: unit tests of decoders).
func bodyFrom(ctx context.Context) requestBody {
	rb, _ := ctx.Value(ctxBody).(requestBody)
	return rb
}

// unnamedPart names, in an error body, a multipart part sent without a
// name (a field is never empty).
const unnamedPart = "(unnamed part)"

// multipartErr maps an error reading a multipart body: over the route's
// body limit a 413, else a 400 malformed_multipart.
func multipartErr(err error) error {
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return tooLarge(mbe.Limit)
	case isOverBudget(err):
		return overBudget(err)
	case errors.Is(err, appliance.ErrInvalid), errors.Is(err, appliance.ErrUnavailable): // a part's own limit, the decode budget
		return err
	}
	msg := "the multipart body is not well-formed multipart/form-data (a part's headers or a boundary line is malformed)"
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		msg = "the multipart body ends before its closing boundary line"
	}
	return &httpError{status: http.StatusBadRequest, code: "malformed_multipart", msg: msg}
}

// decodeBytes is decode of a body already read, with arrays of at most
// maxElems elements.
func decodeBytes(body []byte, v any, maxElems int) error {
	// An array longer than any request can hold is refused before
	// encoding/json spends its per-element work on it (issue 7, finding 5).
	if path, n := longArray(body, maxElems); path != "" {
		return appliance.Invalid(path, "must hold at most %d elements, holds more (%d read)", maxElems, n)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		if dec.More() {
			return &httpError{status: http.StatusBadRequest, code: "malformed_json", msg: "request body holds more than one JSON value"}
		}
		if _, err := dec.Token(); err != io.EOF {
			return &httpError{status: http.StatusBadRequest, code: "malformed_json", msg: "request body has trailing data after the JSON object"}
		}
		if err := textErrors(v, body); err != nil {
			return err
		}
		return applyRenames(v) // deprecated member names (renames.go)
	}
	var (
		syn *json.SyntaxError
		ute *json.UnmarshalTypeError
	)
	switch {
	case errors.Is(err, io.EOF):
		return &httpError{status: http.StatusBadRequest, code: "malformed_json", msg: "request body is empty: a JSON object is required"}
	case errors.As(err, &syn), errors.Is(err, io.ErrUnexpectedEOF):
		return &httpError{status: http.StatusBadRequest, code: "malformed_json", msg: "request body is not valid JSON: " + err.Error()}
	case errors.As(err, &ute):
		// The field is named by its path in the client's JSON (array
		// indices included), never by encoding/json's Field, which names
		// an embedded struct by its Go type ("observationJSON.ts").
		field := valuePath(body, ute.Offset)
		if field == "" {
			field = jsonFieldPath(reflect.TypeOf(v), ute.Field)
		}
		return appliance.Invalid(field, "must be of JSON type %s, got %s", jsonType(ute.Type.Kind().String()), ute.Value)
	case errors.Is(err, appliance.ErrInvalid): // a typed refusal of a field's own decoder
		return err
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		var first json.RawMessage
		if json.NewDecoder(bytes.NewReader(body)).Decode(&first) == nil { // the first value only
			ve := &appliance.ValidationError{}
			unknownRaw(ve, first, reflect.TypeOf(v), "", "is not a known field of this request")
			if err := ve.Err(); err != nil {
				return err
			}
		}
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		if name == "" {
			name = `""`
		}
		return appliance.Invalid(name, "is not a known field of this request")
	}
	return &httpError{status: http.StatusBadRequest, code: "malformed_json", msg: "request body could not be read as JSON"}
}

// valuePath returns the JSON path (receiver.lat, rows[3].id) of the value
// of the JSON text b that encoding/json stopped at: a scalar that ends at
// offset, or an object or array that opens at offset-1 (the offsets of
// json.UnmarshalTypeError). It returns "(body)" for the top-level value,
// and "" when no value is there. Like longArray it is a byte scanner that
// does not validate: the decoder already has.
func valuePath(b []byte, offset int64) string {
	type frame struct {
		array bool
		n     int    // elements (array) started so far
		key   string // current member name (object)
		seg   string // this container's segment of the path
	}
	var st []frame
	expectKey := false
	// seg is the path segment of a value starting now in the innermost
	// container (counting it when the container is an array).
	seg := func() string {
		if len(st) == 0 {
			return ""
		}
		top := &st[len(st)-1]
		if top.array {
			top.n++
			return "[" + strconv.Itoa(top.n-1) + "]"
		}
		return memberPath("", top.key)
	}
	path := func(last string) string {
		var p strings.Builder
		for _, f := range append(st, frame{seg: last}) {
			if f.seg == "" {
				continue
			}
			if p.Len() > 0 && f.seg[0] != '[' {
				p.WriteByte('.')
			}
			p.WriteString(f.seg)
		}
		if p.Len() == 0 {
			return "(body)"
		}
		return p.String()
	}
	for i := 0; i < len(b) && int64(i) < offset; i++ {
		switch c := b[i]; c {
		case ' ', '\t', '\r', '\n', ':':
		case '"':
			j := i + 1
			for j < len(b) && b[j] != '"' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(b) {
				return ""
			}
			if expectKey && len(st) > 0 && !st[len(st)-1].array {
				key := string(b[i+1 : j])
				if bytes.IndexByte(b[i:j+1], '\\') >= 0 {
					_ = json.Unmarshal(b[i:j+1], &key)
				}
				st[len(st)-1].key, expectKey = key, false
			} else if sg := seg(); int64(j+1) == offset {
				return path(sg)
			}
			i = j
		case '{', '[':
			sg := seg()
			if int64(i+1) == offset {
				return path(sg)
			}
			st = append(st, frame{array: c == '[', seg: sg})
			expectKey = c == '{'
		case '}', ']':
			if len(st) == 0 {
				return ""
			}
			st, expectKey = st[:len(st)-1], false
		case ',':
			expectKey = len(st) > 0 && !st[len(st)-1].array
		default: // a number, true, false or null
			sg := seg()
			j := i
			for j+1 < len(b) && strings.IndexByte(",]} \t\r\n", b[j+1]) < 0 {
				j++
			}
			if int64(j+1) == offset {
				return path(sg)
			}
			i = j
		}
	}
	return ""
}

// jsonFieldPath rewrites the Field of a json.UnmarshalTypeError (Go's
// dotted path, where an embedded struct appears by its Go type name) as
// the JSON path the client wrote: the segment of an embedded struct is
// dropped. An empty field is the body.
func jsonFieldPath(t reflect.Type, field string) string {
	if field == "" {
		return "(body)"
	}
	var out []string
	for _, seg := range strings.Split(field, ".") {
		for t != nil && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map) {
			t = t.Elem()
		}
		if t == nil || t.Kind() != reflect.Struct {
			out, t = append(out, seg), nil
			continue
		}
		if f, ok := t.FieldByName(seg); ok && f.Anonymous && f.Tag.Get("json") == "" {
			t = f.Type // an embedded struct: its members are the parent's
			continue
		}
		next, ok := jsonMembers(t).field(seg)
		out, t = append(out, seg), next
		if !ok {
			t = nil
		}
	}
	return strings.Join(out, ".")
}

// maxArrayElements is the most elements one JSON array of a request body
// decoded by decode may hold (the largest batch of SPEC §8.2 is 10,000
// rows; no route takes more).
const maxArrayElements = 10000

// longArray scans JSON text and returns the path of the first array that
// holds more than limit elements, and how many it had read, or "" when
// there is none. It does not validate: on text that is not JSON it may
// answer either way (an unterminated text gives ""), and the decoder
// reports the syntax error when it does not name an array.
// It is a byte scanner without allocation per value, so that a hostile body
// costs a single pass instead of encoding/json's per-element work.
func longArray(b []byte, limit int) (string, int) {
	type frame struct {
		array bool
		n     int    // elements (array) read so far
		key   string // current member name (object)
		seg   string // this container's segment of the path
	}
	var st []frame
	expectKey := false
	// value counts one value in the innermost container; it reports an
	// array over the limit.
	value := func() bool {
		if len(st) == 0 || !st[len(st)-1].array {
			return false
		}
		st[len(st)-1].n++
		return st[len(st)-1].n > limit
	}
	path := func() string {
		var p strings.Builder
		for _, f := range st {
			if f.seg == "" {
				continue
			}
			if p.Len() > 0 && f.seg[0] != '[' {
				p.WriteByte('.')
			}
			p.WriteString(f.seg)
		}
		if p.Len() == 0 {
			return "(body)"
		}
		return p.String()
	}
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case ' ', '\t', '\r', '\n', ':':
		case '"':
			j := i + 1
			for j < len(b) && b[j] != '"' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(b) {
				return "", 0
			}
			if expectKey && len(st) > 0 && !st[len(st)-1].array {
				key := string(b[i+1 : j])
				if bytes.IndexByte(b[i:j+1], '\\') >= 0 {
					_ = json.Unmarshal(b[i:j+1], &key)
				}
				st[len(st)-1].key, expectKey = key, false
			} else if value() {
				return path(), st[len(st)-1].n
			}
			i = j
		case '{', '[':
			if value() {
				return path(), st[len(st)-1].n
			}
			seg := ""
			if len(st) > 0 {
				if top := st[len(st)-1]; top.array {
					seg = "[" + strconv.Itoa(top.n-1) + "]"
				} else {
					seg = memberPath("", top.key)
				}
			}
			st = append(st, frame{array: c == '[', seg: seg})
			expectKey = c == '{'
		case '}', ']':
			if len(st) == 0 {
				return "", 0
			}
			st, expectKey = st[:len(st)-1], false
		case ',':
			expectKey = len(st) > 0 && !st[len(st)-1].array
		default: // a number, true, false or null: skip to its end
			if value() {
				return path(), st[len(st)-1].n
			}
			for i+1 < len(b) && strings.IndexByte(",]} \t\r\n", b[i+1]) < 0 {
				i++
			}
		}
	}
	return "", 0
}

// jsonContentType accepts a request body's Content-Type (every request
// body of the API is JSON; the middleware checks it on every POST, PUT and
// PATCH of a known route, before readiness and authentication):
// application/json or any application/*+json type, with any parameters. A
// missing Content-Type is accepted as JSON (curl -d without -H, scripts and
// the examples of the documentation that omit it keep working: the body is
// still parsed strictly); any other type is a 415 naming the header, so
// that a form or text body is never read as JSON by accident.
func jsonContentType(ct string) error {
	if strings.TrimSpace(ct) == "" {
		return nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err == nil && (mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json")) {
		return nil
	}
	return &httpError{status: http.StatusUnsupportedMediaType, code: "unsupported_media_type",
		msg:    "request body must be JSON: send Content-Type: application/json",
		fields: []appliance.FieldError{{Field: "Content-Type", Reason: fmt.Sprintf("must be application/json, got %q", ct)}}}
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

// unknownRaw adds to v, with reason, the JSON path of each object member in
// the JSON text raw that type t (a struct, through pointers, slices and
// arrays) does not declare, matching names case-insensitively like
// encoding/json. Members are visited in sorted name order and elements in
// index order, so the paths kept are deterministic; once v is full the rest
// are counted without formatting a path. Only values whose type can hold a
// struct are descended into, so a long array of numbers costs nothing.
func unknownRaw(v *appliance.ValidationError, raw json.RawMessage, t reflect.Type, path, reason string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || !holdsStruct(t, 0) {
		return
	}
	switch raw[0] {
	case '{':
		if t.Kind() != reflect.Struct {
			return
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			return
		}
		members := jsonMembers(t)
		for _, k := range slices.Sorted(maps.Keys(m)) {
			f, ok := members.field(k)
			if !ok {
				if v.Full() {
					v.Omitted++
					continue
				}
				v.Add(memberPath(path, k), "%s", reason)
				continue
			}
			p := "" // once v is full, paths are only counted, never read
			if !v.Full() {
				p = memberPath(path, k)
			}
			unknownRaw(v, m[k], f, p, reason)
		}
	case '[':
		if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
			return
		}
		var a []json.RawMessage
		if json.Unmarshal(raw, &a) != nil {
			return
		}
		for i, e := range a {
			p := ""
			if !v.Full() {
				p = path + "[" + strconv.Itoa(i) + "]"
			}
			unknownRaw(v, e, t.Elem(), p, reason)
		}
	}
}

// holdsStruct reports whether a value of type t can hold a struct (the only
// kind with unknown members).
func holdsStruct(t reflect.Type, depth int) bool {
	if depth > 16 {
		return true
	}
	switch t.Kind() {
	case reflect.Struct:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return holdsStruct(t.Elem(), depth+1)
	}
	return false
}

func memberPath(path, name string) string {
	if name == "" {
		name = `""` // a member with an empty name still gets a visible path
	}
	if path == "" {
		return name
	}
	return path + "." + name
}

// members are the decoded fields of a struct type: JSON member name and
// Go type, in field order.
type members []struct {
	name string
	typ  reflect.Type
}

// jsonMembers lists the fields of struct type t that encoding/json decodes,
// read once per object so that a body of many members does not parse the
// struct tags again for each one.
func jsonMembers(t reflect.Type) members {
	var ms members
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if ft := f.Type; f.Anonymous && f.Tag.Get("json") == "" {
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				// An embedded struct: its members are the parent's, as
				// encoding/json decodes them (LinkFieldsJSON).
				ms = append(ms, jsonMembers(ft)...)
				continue
			}
		}
		if name, ok := jsonName(f); ok {
			ms = append(ms, struct {
				name string
				typ  reflect.Type
			}{name, f.Type})
		}
	}
	return ms
}

// field returns the type of the field that decodes the JSON member name,
// matched case-insensitively like encoding/json.
func (ms members) field(name string) (reflect.Type, bool) {
	for _, m := range ms {
		if strings.EqualFold(m.name, name) {
			return m.typ, true
		}
	}
	return nil, false
}

// jsonName returns the JSON member name of struct field f (its json tag's
// name, else the Go name) and false when the field is never decoded
// (unexported, or tagged "-").
func jsonName(f reflect.StructField) (string, bool) {
	tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if tag == "-" || !f.IsExported() {
		return "", false
	}
	if tag == "" {
		tag = f.Name
	}
	return tag, true
}

// textErrors returns the ValidationError naming each string of v (decoded
// from raw) that is not clean text (checkText), or nil. Routes that decode
// their body otherwise than with decode (engine cases) call it on the
// decoded value.
func textErrors(v any, raw []byte) error {
	ve := &appliance.ValidationError{}
	checkText(ve, reflect.ValueOf(v), "", !utf8.Valid(raw))
	return ve.Err()
}

// checkText adds to v each decoded string of x (by its JSON path) that is
// not clean text: a control character (C0, DEL, C1; tab and newline too: no
// request field is multi-line) or a bidirectional embedding, override or
// isolate character (U+202A..U+202E, U+2066..U+2069), which could reorder
// how a name reads where it is shown. badUTF8 says the raw body held
// invalid UTF-8, which encoding/json turned into U+FFFD: the strings
// holding U+FFFD are then the ones reported. Types without strings are not
// walked, so a large numeric array costs nothing here.
func checkText(v *appliance.ValidationError, x reflect.Value, path string, badUTF8 bool) {
	if !x.IsValid() || !hasString(x.Type(), 0) {
		return
	}
	full := v.Full() // then paths are only counted, never formatted
	switch x.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !x.IsNil() {
			checkText(v, x.Elem(), path, badUTF8)
		}
	case reflect.String:
		if reason := textProblem(x.String(), badUTF8); reason != "" {
			field := path
			if field == "" {
				field = "(body)"
			}
			v.Add(field, "%s", reason)
		}
	case reflect.Struct:
		t := x.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag, ok := jsonName(f)
			if !ok {
				continue
			}
			p := tag
			switch {
			case full:
				p = ""
			case f.Anonymous && f.Tag.Get("json") == "":
				p = path // embedded struct: its members are the parent's
			case path != "":
				p = path + "." + tag
			}
			checkText(v, x.Field(i), p, badUTF8)
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < x.Len(); i++ {
			p := ""
			if !v.Full() {
				p = path + "[" + strconv.Itoa(i) + "]"
			}
			checkText(v, x.Index(i), p, badUTF8)
		}
	case reflect.Map:
		keys := x.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
		for _, k := range keys {
			ks := fmt.Sprint(k)
			if k.Kind() == reflect.String {
				if reason := textProblem(ks, badUTF8); reason != "" {
					v.Add(memberPath(path, "(member name)"), "%s", reason)
					continue
				}
			}
			checkText(v, x.MapIndex(k), memberPath(path, ks), badUTF8)
		}
	}
}

// hasString reports whether a value of type t can hold a string.
func hasString(t reflect.Type, depth int) bool {
	if depth > 16 {
		return true // recursive types: walk them
	}
	switch t.Kind() {
	case reflect.String, reflect.Interface:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return hasString(t.Elem(), depth+1)
	case reflect.Map:
		return hasString(t.Key(), depth+1) || hasString(t.Elem(), depth+1)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if t.Field(i).IsExported() && hasString(t.Field(i).Type, depth+1) {
				return true
			}
		}
	}
	return false
}

// textProblem says why s is not clean text, or "" when it is.
func textProblem(s string, badUTF8 bool) string {
	for _, r := range s {
		switch {
		case r == utf8.RuneError && badUTF8:
			return "must be valid UTF-8 text"
		case isControl(r):
			return fmt.Sprintf("must not hold control character U+%04X", r)
		case isBidiControl(r):
			return fmt.Sprintf("must not hold bidirectional control character U+%04X", r)
		}
	}
	return ""
}

// isControl reports the C0 and C1 control characters and DEL.
func isControl(r rune) bool { return r < 0x20 || r >= 0x7f && r < 0xa0 }

// isBidiControl reports the characters that change the display order of
// text (embeddings, overrides, isolates and the directional marks).
func isBidiControl(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c
}
