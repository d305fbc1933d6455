package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

// BenchmarkDecodeHostileBody times decode alone on the 1 MB body of issue 7,
// finding 5 (524,188 bad bands): the array is refused by the byte scan
// (longArray) before encoding/json decodes it.
func BenchmarkDecodeHostileBody(b *testing.B) {
	body := `{"operator":"x","lat":-22.9,"lon":-43.2,"bands_mhz":[0` + strings.Repeat(",0", 524187) + "]}"
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var q registerTowerRequest
		req := httptest.NewRequest(http.MethodPost, "/towers", strings.NewReader(body))
		if err := decode(req, &q); err == nil || !strings.Contains(err.Error(), "bands_mhz: must hold at most 10000 elements") {
			b.Fatalf("decode: %v", err)
		}
	}
}

// BenchmarkDecodeHostileBodyUnknownMembers times decode on a body of 80,000
// unknown members: the unknown-field walk counts past the cap without
// formatting paths.
func BenchmarkDecodeHostileBodyUnknownMembers(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"operator":"x"`)
	for i := range 80000 {
		sb.WriteString(`,"z`)
		sb.WriteString(strings.Repeat("0", 6-len(itoa(i))) + itoa(i))
		sb.WriteString(`":1`)
	}
	sb.WriteString("}")
	body := sb.String()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var q registerTowerRequest
		req := httptest.NewRequest(http.MethodPost, "/towers", strings.NewReader(body))
		if err := decode(req, &q); err == nil {
			b.Fatal("unknown members accepted")
		}
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var d []byte
	for ; i > 0; i /= 10 {
		d = append([]byte{byte('0' + i%10)}, d...)
	}
	return string(d)
}

// TestLongArray checks the byte scan that refuses over-long arrays before
// decoding: the path it names and that it stays quiet on valid bodies and
// on text that is not JSON (the decoder reports those).
func TestLongArray(t *testing.T) {
	many := func(n int, elem string) string {
		return "[" + strings.TrimSuffix(strings.Repeat(elem+",", n), ",") + "]"
	}
	cases := []struct {
		name, body string
		want       string
	}{
		{"short arrays pass", `{"a":[1,2,3],"b":{"c":["x","y"]}}`, ""},
		{"exactly the limit passes", `{"a":` + many(5, "0") + `}`, ""},
		{"top-level member", `{"bands_mhz":` + many(6, "0") + `}`, "bands_mhz"},
		{"nested member", `{"receiver":{"x":1,"zones":` + many(6, "true") + `}}`, "receiver.zones"},
		{"array in an array", `{"a":[1,` + many(6, "null") + `]}`, "a[1]"},
		{"strings with commas and brackets", `{"t":` + many(6, `"a,]\"b"`) + `}`, "t"},
		{"objects as elements", `{"o":` + many(6, `{"k":[1,2]}`) + `}`, "o"},
		{"escaped member name", `{"b\u0061nds":` + many(6, "0") + `}`, "bands"},
		{"top-level array", many(6, "0"), "(body)"},
		{"not JSON", `{"a":[1,2,3,4,5,6,7`, "a"},
		{"unterminated string", `{"a":"`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := longArray([]byte(tc.body), 5)
			if got != tc.want {
				t.Errorf("longArray(%.60q) = %q, want %q", tc.body, got, tc.want)
			}
		})
	}
}

// FuzzLongArray: the scan never panics, and on valid JSON it names an
// array only when one really holds more than the limit.
func FuzzLongArray(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,3]}`, `[[],[[1,2],[3]],{"x":[1,2,3,4]}]`, `{"a":"[,,,]"}`, `{`, `"\\"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		path, _ := longArray([]byte(s), 3)
		if !json.Valid([]byte(s)) {
			return
		}
		var v any
		_ = json.Unmarshal([]byte(s), &v)
		if long := hasLongArray(v, 3); long != (path != "") {
			t.Fatalf("longArray(%q) = %q, but an array over 3 elements exists: %v", s, path, long)
		}
	})
}

func hasLongArray(v any, limit int) bool {
	switch x := v.(type) {
	case []any:
		if len(x) > limit {
			return true
		}
		for _, e := range x {
			if hasLongArray(e, limit) {
				return true
			}
		}
	case map[string]any:
		for _, e := range x {
			if hasLongArray(e, limit) {
				return true
			}
		}
	}
	return false
}

// TestValuePath: the path of the value encoding/json refused is read from
// the client's JSON, array indices included, and never names a Go type
// (issue 20: "observationJSON.ts").
func TestValuePath(t *testing.T) {
	type in struct {
		Ts float64 `json:"ts"`
	}
	type outer struct {
		in
		Rows []struct {
			R struct {
				Lat float64 `json:"lat"`
			} `json:"receiver"`
		} `json:"rows"`
		M map[string]int `json:"m"`
	}
	cases := []struct{ name, body, want string }{
		{"embedded member", `{"ts":"2024"}`, "ts"},
		{"number too large", `{"ts":1e400}`, "ts"},
		{"array element member", `{"rows":[{},{"receiver":{"lat":"x"}}]}`, "rows[1].receiver.lat"},
		{"an object where a number goes", `{"rows":[{},{"receiver":{"lat":{"a":[1,2]}}}]}`, "rows[1].receiver.lat"},
		{"an array where an object goes", `{"rows":[{}, {"receiver":[1,2]}]}`, "rows[1].receiver"},
		{"map value", `{"m":{"k":"v"}}`, "m.k"},
		{"escaped member name", `{"m":{"a\"b":"v"}}`, `m.a"b`},
		{"an object where an array goes", `{"rows":{"a":1}}`, "rows"},
		{"the body", `[1]`, "(body)"},
		{"spaces", "{ \"rows\" : [ { } , { \"receiver\" : { \"lat\" : true } } ] }", "rows[1].receiver.lat"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var o outer
			err := json.Unmarshal([]byte(c.body), &o)
			var ute *json.UnmarshalTypeError
			if !errors.As(err, &ute) {
				t.Fatalf("no type error: %v", err)
			}
			if got := valuePath([]byte(c.body), ute.Offset); got != c.want {
				t.Errorf("valuePath = %q, want %q (encoding/json says %q)", got, c.want, ute.Field)
			}
		})
	}
	if got := jsonFieldPath(reflect.TypeOf(&outer{}), "in.ts"); got != "ts" {
		t.Errorf("jsonFieldPath(in.ts) = %q, want ts", got)
	}
}

// FuzzValuePath: for any body encoding/json refuses with a type error,
// valuePath finds the value it stopped at; on any text and offset it never
// panics.
func FuzzValuePath(f *testing.F) {
	f.Add(`{"a":[1,{"b":"c"}]}`, int64(14))
	f.Add(`{"rows":[{"receiver":{"lat":"x"}}],"m":{"k":[]}}`, int64(2))
	f.Add(`"\`, int64(2))
	type target struct {
		A    []float64 `json:"a"`
		Rows []struct {
			R struct {
				Lat float64 `json:"lat"`
			} `json:"receiver"`
		} `json:"rows"`
		M map[string]int `json:"m"`
		S string         `json:"s"`
	}
	f.Fuzz(func(t *testing.T, s string, off int64) {
		_ = valuePath([]byte(s), off)
		var v target
		var ute *json.UnmarshalTypeError
		if err := json.Unmarshal([]byte(s), &v); errors.As(err, &ute) {
			if valuePath([]byte(s), ute.Offset) == "" {
				t.Fatalf("no path for the type error at %d (%q) in %q", ute.Offset, ute.Field, s)
			}
		}
	})
}

func TestDecimal(t *testing.T) {
	for s, want := range map[string]bool{"-22.95": true, "1.8e9": true, "+3": true, ".5": true, "5.": true, "1E-3": true,
		"NaN": false, "Inf": false, "-Infinity": false, "0x1p-2": false, "1_000": false, "1e400": false, "": false, "-": false,
		"e5": false, "1e": false, "1.2.3": false, "1e5e5": false, " 1": true, "-22,95": true, "1.234,5": true} {
		if _, ok := decimal(s); ok != want {
			t.Errorf("decimal(%q) ok = %v, want %v", s, ok, want)
		}
	}
}
