package api_test

import (
	"encoding/json"
	"fmt"
	"math"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"linkplan/web/api"
)

// This file holds a small JSON Schema validator for the subset of JSON
// Schema 2020-12 that openapi.json uses, and the helpers that find the
// schema of a route and status in the document. TestOpenAPIKeywords fails
// when the document uses a keyword the validator does not know, so that no
// constraint is silently ignored.

// validatorKeywords are the assertion and applicator keywords checked by
// validate; annotationKeywords are ignored on purpose.
var (
	validatorKeywords = []string{"$ref", "type", "enum", "const", "required", "properties", "additionalProperties",
		"items", "minItems", "maxItems", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
		"minLength", "maxLength", "pattern", "anyOf"}
	annotationKeywords = []string{"description", "default", "examples", "title", "deprecated"}
)

// openAPI is the parsed document.
type openAPI struct {
	root     map[string]any
	mu       sync.Mutex // guards patterns: the mixed-load test validates from many goroutines
	patterns map[string]*regexp.Regexp
}

func loadOpenAPI(tb testing.TB) *openAPI {
	tb.Helper()
	var root map[string]any
	if err := json.Unmarshal(api.OpenAPI(), &root); err != nil {
		tb.Fatalf("openapi.json is not valid JSON: %v", err)
	}
	return &openAPI{root: root, patterns: map[string]*regexp.Regexp{}}
}

// obj walks a path of object keys; nil when a key is missing.
func obj(v any, keys ...string) map[string]any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	m, _ := v.(map[string]any)
	return m
}

// resolve follows a local $ref ("#/components/...") until the value is not
// a reference.
func (d *openAPI) resolve(v map[string]any) (map[string]any, error) {
	for i := 0; i < 16; i++ {
		ref, ok := v["$ref"].(string)
		if !ok {
			return v, nil
		}
		if !strings.HasPrefix(ref, "#/") {
			return nil, fmt.Errorf("non-local $ref %q", ref)
		}
		parts := strings.Split(strings.TrimPrefix(ref, "#/"), "/")
		next := obj(d.root, parts...)
		if next == nil {
			return nil, fmt.Errorf("dangling $ref %q", ref)
		}
		v = next
	}
	return nil, fmt.Errorf("$ref chain too deep")
}

// templateFor returns the document path template matching a request path,
// preferring the template with the most literal segments (so /towers/nearest
// beats /towers/{id}); "" when none matches.
func (d *openAPI) templateFor(path string) string {
	segs := strings.Split(path, "/")
	best, bestLit := "", -1
	for tpl := range obj(d.root, "paths") {
		ts := strings.Split(tpl, "/")
		if len(ts) != len(segs) {
			continue
		}
		lit, ok := 0, true
		for i := range ts {
			switch {
			case strings.HasPrefix(ts[i], "{") && strings.HasSuffix(ts[i], "}"):
				ok = ok && segs[i] != ""
			case ts[i] == segs[i]:
				lit++
			default:
				ok = false
			}
		}
		if ok && lit > bestLit {
			best, bestLit = tpl, lit
		}
	}
	return best
}

// operation returns the operation object of method and template, or nil.
func (d *openAPI) operation(method, tpl string) map[string]any {
	if tpl == "" {
		return nil
	}
	return obj(d.root, "paths", tpl, strings.ToLower(method))
}

// responseFor returns the documented response object for a request and
// status. An unknown path is described by the Error404 response, a known
// path with another method by Error405.
func (d *openAPI) responseFor(method, path string, status int) (map[string]any, string, error) {
	tpl := d.templateFor(path)
	op := d.operation(method, tpl)
	var ref map[string]any
	switch {
	case tpl == "":
		ref = map[string]any{"$ref": "#/components/responses/Error404"}
		tpl = "(unmatched)"
	case op == nil:
		ref = map[string]any{"$ref": "#/components/responses/Error405"}
	default:
		ref = obj(op, "responses", strconv.Itoa(status))
		if ref == nil {
			return nil, tpl, fmt.Errorf("status %d is not documented for %s %s", status, method, tpl)
		}
	}
	r, err := d.resolve(ref)
	return r, tpl, err
}

// checkResponse validates a response (headers and body) against the
// document and returns every violation.
func (d *openAPI) checkResponse(method, path string, res *response) []string {
	doc, tpl, err := d.responseFor(method, path, res.status)
	if err != nil {
		return []string{err.Error()}
	}
	var errs []string
	for name, hv := range obj(doc, "headers") {
		hdr, err := d.resolve(hv.(map[string]any))
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		val, present := res.header[http.CanonicalHeaderKey(name)]
		if !present {
			if req, _ := hdr["required"].(bool); req {
				errs = append(errs, fmt.Sprintf("%s %s %d: header %s missing", method, tpl, res.status, name))
			}
			continue
		}
		// A header is text: an integer schema (Retry-After, RateLimit-*)
		// takes its decimal digits only.
		var v any = val[0]
		if sch := obj(hdr, "schema"); sch["type"] == "integer" {
			n, err := strconv.ParseInt(val[0], 10, 64)
			if err != nil || strconv.FormatInt(n, 10) != val[0] {
				errs = append(errs, fmt.Sprintf("%s %s %d: header %s: %q is not an integer", method, tpl, res.status, name, val[0]))
				continue
			}
			v = float64(n)
		}
		errs = append(errs, d.validate(obj(hdr, "schema"), v, "header "+name)...)
	}
	if obj(doc, "content") == nil { // a response without a body (304)
		if len(res.body) > 0 {
			errs = append(errs, fmt.Sprintf("%s %s %d: %d body bytes where the document has no content", method, tpl, res.status, len(res.body)))
		}
		return errs
	}
	ct, _, err := mime.ParseMediaType(res.header.Get("Content-Type"))
	if err != nil {
		return append(errs, fmt.Sprintf("%s %s %d: Content-Type %q: %v", method, tpl, res.status, res.header.Get("Content-Type"), err))
	}
	media := obj(doc, "content", ct)
	if media == nil {
		return append(errs, fmt.Sprintf("%s %s %d: Content-Type %s is not documented", method, tpl, res.status, ct))
	}
	if ct == "text/event-stream" {
		// Each event's data line is one JSON value the schema describes.
		for _, block := range strings.Split(string(res.body), "\n\n") {
			for _, line := range strings.Split(block, "\n") {
				data, ok := strings.CutPrefix(line, "data: ")
				if !ok {
					continue
				}
				var v any
				if err := json.Unmarshal([]byte(data), &v); err != nil {
					errs = append(errs, fmt.Sprintf("%s %s %d: event data is not JSON: %.200s", method, tpl, res.status, data))
					continue
				}
				errs = append(errs, d.validate(obj(media, "schema"), v, "event data")...)
			}
		}
		return errs
	}
	var body any
	if ct == "application/json" {
		if err := json.Unmarshal(res.body, &body); err != nil {
			return append(errs, fmt.Sprintf("%s %s %d: body is not JSON: %v", method, tpl, res.status, err))
		}
	} else {
		body = string(res.body)
	}
	return append(errs, d.validate(obj(media, "schema"), body, "body")...)
}

// requestSchema returns the JSON schema of the request body of an
// operation, or nil.
func (d *openAPI) requestSchema(method, path string) map[string]any {
	op := d.operation(method, d.templateFor(path))
	rb := obj(op, "requestBody")
	if rb == nil {
		return nil
	}
	rb, err := d.resolve(rb)
	if err != nil {
		return nil
	}
	return obj(rb, "content", "application/json", "schema")
}

// checkQuery validates query parameters against the operation's declared
// parameters: unknown names, missing required ones, and values (converted
// by the schema's type) outside the schema.
func (d *openAPI) checkQuery(method, path string, q url.Values) []string {
	op := d.operation(method, d.templateFor(path))
	if op == nil {
		return []string{"no operation for " + method + " " + path}
	}
	declared := map[string]map[string]any{}
	var errs []string
	for _, pv := range op["parameters"].([]any) {
		p, err := d.resolve(pv.(map[string]any))
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		if p["in"] != "query" {
			continue
		}
		name := p["name"].(string)
		declared[name] = p
		if req, _ := p["required"].(bool); req && !q.Has(name) {
			errs = append(errs, "query parameter "+name+" is required")
		}
	}
	for name, vals := range q {
		p, ok := declared[name]
		if !ok {
			errs = append(errs, "query parameter "+name+" is not documented")
			continue
		}
		sch := obj(p, "schema")
		var v any = vals[0]
		switch sch["type"] {
		case "number", "integer":
			x, err := strconv.ParseFloat(vals[0], 64)
			if err != nil {
				errs = append(errs, fmt.Sprintf("query parameter %s: %q is not a number", name, vals[0]))
				continue
			}
			v = x
		}
		errs = append(errs, d.validate(sch, v, "query "+name)...)
	}
	return errs
}

func jsonTypeOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		if x == math.Trunc(x) && !math.IsInf(x, 0) {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func typeMatches(want, got string) bool {
	return want == got || (want == "number" && got == "integer")
}

func (d *openAPI) regexp(p string) (*regexp.Regexp, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if re, ok := d.patterns[p]; ok {
		return re, nil
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, err
	}
	d.patterns[p] = re
	return re, nil
}

func num(v any) (float64, bool) { x, ok := v.(float64); return x, ok }

// validate checks value against schema and returns every violation, each
// prefixed with the JSON path.
func (d *openAPI) validate(schema map[string]any, value any, path string) []string {
	if schema == nil {
		return []string{path + ": no schema"}
	}
	if _, ok := schema["$ref"]; ok {
		s, err := d.resolve(schema)
		if err != nil {
			return []string{path + ": " + err.Error()}
		}
		schema = s
	}
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, path+": "+fmt.Sprintf(format, args...)) }
	got := jsonTypeOf(value)
	switch t := schema["type"].(type) {
	case string:
		if !typeMatches(t, got) {
			fail("type %s, want %s", got, t)
			return errs
		}
	case []any:
		ok := false
		for _, w := range t {
			ok = ok || typeMatches(w.(string), got)
		}
		if !ok {
			fail("type %s, want one of %v", got, t)
			return errs
		}
	}
	if e, ok := schema["enum"].([]any); ok {
		found := false
		for _, x := range e {
			found = found || equalJSON(x, value)
		}
		if !found {
			fail("%v is not one of %v", value, e)
		}
	}
	if c, ok := schema["const"]; ok && !equalJSON(c, value) {
		fail("%v is not the constant %v", value, c)
	}
	if alts, ok := schema["anyOf"].([]any); ok {
		matched := false
		var all []string
		for _, s := range alts {
			sub := d.validate(s.(map[string]any), value, path)
			if len(sub) == 0 {
				matched = true
				break
			}
			all = append(all, sub...)
		}
		if !matched {
			fail("matches no anyOf alternative: %s", strings.Join(all, "; "))
		}
	}
	switch x := value.(type) {
	case float64:
		if m, ok := num(schema["minimum"]); ok && x < m {
			fail("%g < minimum %g", x, m)
		}
		if m, ok := num(schema["maximum"]); ok && x > m {
			fail("%g > maximum %g", x, m)
		}
		if m, ok := num(schema["exclusiveMinimum"]); ok && x <= m {
			fail("%g <= exclusiveMinimum %g", x, m)
		}
		if m, ok := num(schema["exclusiveMaximum"]); ok && x >= m {
			fail("%g >= exclusiveMaximum %g", x, m)
		}
	case string:
		n := float64(utf8.RuneCountInString(x))
		if m, ok := num(schema["minLength"]); ok && n < m {
			fail("length %g < minLength %g", n, m)
		}
		if m, ok := num(schema["maxLength"]); ok && n > m {
			fail("length %g > maxLength %g", n, m)
		}
		if p, ok := schema["pattern"].(string); ok {
			re, err := d.regexp(p)
			if err != nil {
				fail("bad pattern %q: %v", p, err)
			} else if !re.MatchString(x) {
				fail("%q does not match %q", x, p)
			}
		}
	case []any:
		if m, ok := num(schema["minItems"]); ok && float64(len(x)) < m {
			fail("%d items < minItems %g", len(x), m)
		}
		if m, ok := num(schema["maxItems"]); ok && float64(len(x)) > m {
			fail("%d items > maxItems %g", len(x), m)
		}
		if it := obj(schema, "items"); it != nil {
			for i, e := range x {
				errs = append(errs, d.validate(it, e, fmt.Sprintf("%s[%d]", path, i))...)
			}
		}
	case map[string]any:
		props := obj(schema, "properties")
		if req, ok := schema["required"].([]any); ok {
			for _, r := range req {
				if _, present := x[r.(string)]; !present {
					fail("required property %s missing", r)
				}
			}
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if ps := obj(props, k); ps != nil {
				errs = append(errs, d.validate(ps, x[k], path+"."+k)...)
				continue
			}
			switch ap := schema["additionalProperties"].(type) {
			case bool:
				if !ap {
					fail("property %s is not allowed", k)
				}
			case map[string]any:
				errs = append(errs, d.validate(ap, x[k], path+"."+k)...)
			}
		}
	}
	return errs
}

func equalJSON(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// walkSchemas calls fn for every schema object in the document, nested
// ones included, with a readable location.
func (d *openAPI) walkSchemas(fn func(loc string, s map[string]any)) {
	var walk func(loc string, s map[string]any)
	walk = func(loc string, s map[string]any) {
		fn(loc, s)
		for k, p := range obj(s, "properties") {
			walk(loc+".properties."+k, p.(map[string]any))
		}
		if it := obj(s, "items"); it != nil {
			walk(loc+".items", it)
		}
		if ap := obj(s, "additionalProperties"); ap != nil {
			walk(loc+".additionalProperties", ap)
		}
		if alts, ok := s["anyOf"].([]any); ok {
			for i, a := range alts {
				walk(fmt.Sprintf("%s.anyOf[%d]", loc, i), a.(map[string]any))
			}
		}
	}
	comp := obj(d.root, "components")
	for name, s := range obj(comp, "schemas") {
		walk("#/components/schemas/"+name, s.(map[string]any))
	}
	for name, p := range obj(comp, "parameters") {
		walk("#/components/parameters/"+name, obj(p, "schema"))
	}
	for name, h := range obj(comp, "headers") {
		walk("#/components/headers/"+name, obj(h, "schema"))
	}
	for name, r := range obj(comp, "responses") {
		for ct, m := range obj(r, "content") {
			walk("#/components/responses/"+name+"/"+ct, obj(m, "schema"))
		}
	}
	for tpl, item := range obj(d.root, "paths") {
		for method, opv := range item.(map[string]any) {
			op := opv.(map[string]any)
			loc := method + " " + tpl
			if ps, ok := op["parameters"].([]any); ok {
				for _, p := range ps {
					if s := obj(p, "schema"); s != nil {
						walk(loc+" parameter "+fmt.Sprint(p.(map[string]any)["name"]), s)
					}
				}
			}
			for ct, m := range obj(op, "requestBody", "content") {
				walk(loc+" requestBody "+ct, obj(m, "schema"))
			}
			for st, r := range obj(op, "responses") {
				for ct, m := range obj(r, "content") {
					walk(loc+" "+st+" "+ct, obj(m, "schema"))
				}
			}
		}
	}
}

func TestOpenAPIKeywords(t *testing.T) {
	d := loadOpenAPI(t)
	n := 0
	d.walkSchemas(func(loc string, s map[string]any) {
		n++
		if s == nil {
			t.Errorf("%s: no schema", loc)
			return
		}
		for k := range s {
			if !slices.Contains(validatorKeywords, k) && !slices.Contains(annotationKeywords, k) {
				t.Errorf("%s: keyword %q is not checked by the test validator", loc, k)
			}
		}
		if p, ok := s["pattern"].(string); ok {
			if _, err := regexp.Compile(p); err != nil {
				t.Errorf("%s: pattern %q: %v", loc, p, err)
			}
		}
		if ref, ok := s["$ref"]; ok {
			if _, err := d.resolve(map[string]any{"$ref": ref}); err != nil {
				t.Errorf("%s: %v", loc, err)
			}
		}
		// An object with declared properties is strict, except where the
		// server itself is not (the /openapi.json body).
		if _, hasProps := s["properties"]; hasProps {
			if ap, ok := s["additionalProperties"].(bool); !ok || ap {
				t.Errorf("%s: object schema without additionalProperties false", loc)
			}
			for _, r := range anySlice(s["required"]) {
				if obj(s, "properties", r.(string)) == nil {
					t.Errorf("%s: required property %v is not declared", loc, r)
				}
			}
		}
	})
	if n < 50 {
		t.Errorf("walked only %d schemas: the walker is broken", n)
	}
}

func anySlice(v any) []any { s, _ := v.([]any); return s }

// TestValidator checks the validator itself on hand-made cases, so that a
// broken validator cannot make the contract tests pass vacuously.
func TestValidator(t *testing.T) {
	d := loadOpenAPI(t)
	receiver := map[string]any{"$ref": "#/components/schemas/Receiver"}
	for _, c := range []struct {
		name   string
		schema map[string]any
		value  string
		ok     bool
	}{
		{"receiver ok", receiver, `{"lat":-22.9,"lon":-43.2,"height":10}`, true},
		{"receiver null height ok", receiver, `{"lat":-22.9,"lon":-43.2,"height":null}`, true},
		{"receiver missing lon", receiver, `{"lat":-22.9}`, false},
		{"receiver unknown field", receiver, `{"lat":-22.9,"lon":-43.2,"alt":3}`, false},
		{"receiver lat out of range", receiver, `{"lat":-91,"lon":-43.2}`, false},
		{"receiver height exclusive minimum", receiver, `{"lat":0,"lon":0,"height":0}`, false},
		{"receiver wrong type", receiver, `{"lat":"x","lon":0}`, false},
		{"receiver not an object", receiver, `[1]`, false},
		{"integer accepts whole number", map[string]any{"type": "integer"}, `3`, true},
		{"integer refuses fraction", map[string]any{"type": "integer"}, `3.5`, false},
		{"number accepts integer", map[string]any{"type": "number"}, `3`, true},
		{"type array null", map[string]any{"type": []any{"number", "null"}}, `null`, true},
		{"type array string", map[string]any{"type": []any{"number", "null"}}, `"x"`, false},
		{"enum", map[string]any{"enum": []any{"a", nil}}, `"b"`, false},
		{"enum null", map[string]any{"enum": []any{"a", nil}}, `null`, true},
		{"const", map[string]any{"const": "healthy"}, `"sick"`, false},
		{"pattern", map[string]any{"type": "string", "pattern": "^[0-9]{6}$"}, `"12345"`, false},
		{"maxItems", map[string]any{"type": "array", "maxItems": 1.0}, `[1,2]`, false},
		{"items", map[string]any{"type": "array", "items": map[string]any{"type": "string"}}, `["a",1]`, false},
		{"anyOf null", map[string]any{"anyOf": []any{receiver, map[string]any{"type": "null"}}}, `null`, true},
		{"anyOf neither", map[string]any{"anyOf": []any{receiver, map[string]any{"type": "null"}}}, `{"lat":1}`, false},
		{"additionalProperties schema", map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}}, `{"a":1}`, false},
		{"error body", map[string]any{"$ref": "#/components/schemas/Error401"}, `{"error":{"code":"forbidden","message":"m","request_id":"r"}}`, false},
		{"error body ok", map[string]any{"$ref": "#/components/schemas/Error401"}, `{"error":{"code":"key_erased","message":"m","request_id":"r","fields":[{"field":"a","reason":"b"}]}}`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var v any
			if err := json.Unmarshal([]byte(c.value), &v); err != nil {
				t.Fatal(err)
			}
			errs := d.validate(c.schema, v, "value")
			if (len(errs) == 0) != c.ok {
				t.Errorf("valid = %v, want %v; errors: %v", len(errs) == 0, c.ok, errs)
			}
		})
	}
}
