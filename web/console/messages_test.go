package console

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestIssue27_Translations: every code the API documents (each enum named
// code, counter, group or reason in web/api/openapi.json: error codes,
// the heatmap's error event, warning codes, quota counters, rate-limit
// groups, overdue reasons) has a non-empty pt-BR and English text in the
// console's js/messages.js, and the pt-BR text is not the English one.
func TestIssue27_Translations(t *testing.T) {
	src, err := os.ReadFile("dist/js/messages.js")
	if err != nil {
		t.Fatal(err)
	}
	const start = "export const MESSAGES = "
	i := strings.Index(string(src), start)
	j := strings.Index(string(src), "\n};\n")
	if i < 0 || j < i {
		t.Fatal("js/messages.js: no `export const MESSAGES = {...};` block")
	}
	var msgs map[string]map[string]map[string]string
	if err := json.Unmarshal(src[i+len(start):j+2], &msgs); err != nil {
		t.Fatalf("js/messages.js: MESSAGES is not strict JSON: %v", err)
	}
	doc, err := os.ReadFile("../api/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var spec any
	if err := json.Unmarshal(doc, &spec); err != nil {
		t.Fatal(err)
	}
	// want: kind → codes, found by walking the document.
	want := map[string][]string{}
	var walk func(v any, path []string)
	walk = func(v any, path []string) {
		switch v := v.(type) {
		case map[string]any:
			for k, c := range v {
				if m, ok := c.(map[string]any); ok {
					if enum, ok := m["enum"].([]any); ok && slices.Contains([]string{"code", "counter", "group", "reason"}, k) {
						kind := k
						if k == "code" {
							kind = "error"
							if slices.ContainsFunc(path, func(p string) bool { return strings.Contains(p, "Warning") }) {
								kind = "warning"
							}
						}
						for _, e := range enum {
							if s, ok := e.(string); ok && !slices.Contains(want[kind], s) {
								want[kind] = append(want[kind], s)
							}
						}
					}
				}
				walk(c, append(path, k))
			}
		case []any:
			for _, c := range v {
				walk(c, path)
			}
		}
	}
	walk(spec, nil)
	if len(want["error"]) < 20 || len(want["warning"]) < 20 || len(want["group"]) < 9 || len(want["counter"]) < 3 {
		t.Fatalf("the walk found too few codes in the OpenAPI document: %v", want)
	}
	n := 0
	for kind, codes := range want {
		for _, code := range codes {
			n++
			m := msgs[kind][code]
			pt, en := strings.TrimSpace(m["pt-BR"]), strings.TrimSpace(m["en"])
			switch {
			case pt == "" || en == "":
				t.Errorf("%s %q: no pt-BR or no English text in js/messages.js (pt-BR %q, en %q)", kind, code, pt, en)
			case pt == en && kind != "group":
				t.Errorf("%s %q: the pt-BR text is the English one: %q", kind, code, pt)
			}
		}
	}
	t.Logf("%d codes of the OpenAPI document, each in pt-BR and English", n)
}
