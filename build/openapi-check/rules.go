package main

import (
	"bufio"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strings"
)

// finding is one broken rule: the rule's Redocly name, the JSON pointer
// ("#/paths/~1health/get/responses", as in the ignore file) and what.
type finding struct {
	rule, where, what string
}

func (f finding) String() string { return f.rule + ": " + f.where + ": " + f.what }

var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// pointer escapes the path segments of a JSON pointer (RFC 6901).
func pointer(segs ...string) string {
	var b strings.Builder
	b.WriteString("#")
	for _, s := range segs {
		b.WriteString("/")
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(s))
	}
	return b.String()
}

func obj(v any) map[string]any { m, _ := v.(map[string]any); return m }
func arr(v any) []any          { a, _ := v.([]any); return a }
func str(v any) string         { s, _ := v.(string); return s }

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// lint applies the rules of Redocly's recommended set that the document
// relies on (names as Redocly's):
//
//	info-license, info-license-url   info.license with a name and a url or SPDX identifier
//	no-empty-servers                 servers lists at least one, each with a url
//	no-server-trailing-slash         no server url ends in "/"
//	operation-operationId            every operation has an operationId,
//	operation-operationId-unique     unique,
//	operation-operationId-url-safe   made of URL-safe characters
//	operation-summary                every operation has a summary
//	operation-2xx-response           every operation answers a 2xx (or 3xx)
//	operation-4xx-response           every operation answers a 4xx
//	operation-parameters-unique      no two parameters with the same name and in
//	path-parameters-defined          every {template} is a path parameter and back
//	no-path-trailing-slash           no path ends in "/"
//	no-identical-paths               no two paths equal but for template names
//	tag-description                  every declared tag has a description
//	security-defined                 every operation says its security, and names known schemes
//	no-unresolved-refs               every local $ref resolves
//	no-unused-components             every component is referenced
//
// Redocly's operation-tag-defined is off in its recommended set, and off
// here (GET /terrain/point's tag "terrain" is not declared).
func lint(doc map[string]any) []finding {
	var out []finding
	add := func(rule, where, format string, a ...any) {
		out = append(out, finding{rule, where, fmt.Sprintf(format, a...)})
	}
	info := obj(doc["info"])
	lic := obj(info["license"])
	if lic == nil || str(lic["name"]) == "" {
		add("info-license", pointer("info"), "no license with a name")
	} else if str(lic["url"]) == "" && str(lic["identifier"]) == "" {
		add("info-license-url", pointer("info", "license"), "no url and no SPDX identifier")
	}
	servers := arr(doc["servers"])
	if len(servers) == 0 {
		add("no-empty-servers", pointer("servers"), "no server")
	}
	for i, s := range servers {
		u := str(obj(s)["url"])
		if u == "" {
			add("no-empty-servers", pointer("servers", fmt.Sprint(i)), "no url")
		} else if len(u) > 1 && strings.HasSuffix(u, "/") {
			add("no-server-trailing-slash", pointer("servers", fmt.Sprint(i), "url"), "%q ends in /", u)
		}
	}

	tags := map[string]bool{}
	for i, t := range arr(doc["tags"]) {
		name := str(obj(t)["name"])
		tags[name] = true
		if str(obj(t)["description"]) == "" {
			add("tag-description", pointer("tags", fmt.Sprint(i)), "tag %q has no description", name)
		}
	}
	schemes := obj(obj(doc["components"])["securitySchemes"])
	_, globalSecurity := doc["security"]
	checkSecurity := func(where string, reqs []any) {
		for _, r := range reqs {
			for name := range obj(r) {
				if _, ok := schemes[name]; !ok {
					add("security-defined", where, "security scheme %q is not in components.securitySchemes", name)
				}
			}
		}
	}
	checkSecurity(pointer("security"), arr(doc["security"]))

	opIDs := map[string]string{}
	urlSafe := regexp.MustCompile(`^[A-Za-z0-9_.~:-]+$`)
	template := regexp.MustCompile(`\{([^}]*)\}`)
	shapes := map[string]string{}
	paths := obj(doc["paths"])
	for _, p := range sortedKeys(paths) {
		item := obj(paths[p])
		if len(p) > 1 && strings.HasSuffix(p, "/") {
			add("no-path-trailing-slash", pointer("paths", p), "path ends in /")
		}
		shape := template.ReplaceAllString(p, "{}")
		if other, dup := shapes[shape]; dup {
			add("no-identical-paths", pointer("paths", p), "the same path as %s", other)
		}
		shapes[shape] = p
		inPath := map[string]bool{}
		for _, m := range template.FindAllStringSubmatch(p, -1) {
			inPath[m[1]] = true
		}
		for _, method := range methods {
			op := obj(item[method])
			if op == nil {
				continue
			}
			where := pointer("paths", p, method)
			id := str(op["operationId"])
			switch {
			case id == "":
				add("operation-operationId", where, "no operationId")
			case opIDs[id] != "":
				add("operation-operationId-unique", where+"/operationId", "%q is also %s", id, opIDs[id])
			case !urlSafe.MatchString(id):
				add("operation-operationId-url-safe", where+"/operationId", "%q is not URL-safe", id)
			}
			if id != "" && opIDs[id] == "" {
				opIDs[id] = where
			}
			if strings.TrimSpace(str(op["summary"])) == "" {
				add("operation-summary", where, "no summary")
			}
			var ok2xx, has4xx bool
			for code := range obj(op["responses"]) {
				ok2xx = ok2xx || strings.HasPrefix(code, "2") || strings.HasPrefix(code, "3")
				has4xx = has4xx || strings.HasPrefix(code, "4")
			}
			if !ok2xx {
				add("operation-2xx-response", where+"/responses", "no 2xx or 3xx response")
			}
			if !has4xx {
				add("operation-4xx-response", where+"/responses", "no 4xx response")
			}
			if sec, ok := op["security"]; ok {
				checkSecurity(where+"/security", arr(sec))
			} else if !globalSecurity {
				add("security-defined", where, "no security (and no global security)")
			}
			// Parameters: the path item's and the operation's, resolved.
			seen := map[string]bool{}
			pathParams := map[string]bool{}
			for _, list := range [][]any{arr(item["parameters"]), arr(op["parameters"])} {
				for _, prm := range list {
					prm = resolve(doc, prm)
					name, in := str(obj(prm)["name"]), str(obj(prm)["in"])
					if in == "path" {
						pathParams[name] = true
					}
					key := in + " " + name
					if seen[key] && len(arr(op["parameters"])) > 0 {
						add("operation-parameters-unique", where+"/parameters", "parameter %q in %s twice", name, in)
					}
					seen[key] = true
				}
			}
			for name := range inPath {
				if !pathParams[name] {
					add("path-parameters-defined", where, "path parameter {%s} is not declared", name)
				}
			}
			for name := range pathParams {
				if !inPath[name] {
					add("path-parameters-defined", where, "path parameter %q is not in the path", name)
				}
			}
		}
	}

	// References: every local $ref resolves; every component is referenced
	// from somewhere other than itself.
	used := map[string]bool{}
	var walk func(v any, at string)
	walk = func(v any, at string) {
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok {
				if strings.HasPrefix(ref, "#") {
					if resolve(doc, x) == nil {
						add("no-unresolved-refs", at, "$ref %q does not resolve", ref)
					}
					if !strings.HasPrefix(at, ref+"/") && at != ref {
						used[componentOf(ref)] = true
					}
				}
			}
			for _, k := range sortedKeys(x) {
				walk(x[k], at+"/"+strings.NewReplacer("~", "~0", "/", "~1").Replace(k))
			}
		case []any:
			for i, e := range x {
				walk(e, fmt.Sprintf("%s/%d", at, i))
			}
		}
	}
	walk(doc, "#")
	comps := obj(doc["components"])
	for _, kind := range sortedKeys(comps) {
		if kind == "securitySchemes" {
			continue // used by name in security requirements
		}
		for _, name := range sortedKeys(obj(comps[kind])) {
			where := pointer("components", kind, name)
			if !used[where] {
				add("no-unused-components", where, "never referenced")
			}
		}
	}
	return out
}

// componentOf is the pointer of the component a $ref names
// ("#/components/schemas/X/properties/y" -> "#/components/schemas/X").
func componentOf(ref string) string {
	parts := strings.Split(ref, "/")
	if len(parts) >= 4 && parts[1] == "components" {
		return strings.Join(parts[:4], "/")
	}
	return ref
}

// resolve follows v's local $ref (to any depth); v itself when it has
// none, nil when a reference does not resolve.
func resolve(doc map[string]any, v any) any {
	for range 32 {
		ref, ok := obj(v)["$ref"].(string)
		if !ok {
			return v
		}
		if !strings.HasPrefix(ref, "#/") {
			return v // not local: not checked here
		}
		var cur any = doc
		for _, seg := range strings.Split(ref[2:], "/") {
			seg, err := url.PathUnescape(seg)
			if err != nil {
				return nil
			}
			seg = strings.NewReplacer("~1", "/", "~0", "~").Replace(seg)
			switch c := cur.(type) {
			case map[string]any:
				cur = c[seg]
			default:
				return nil
			}
			if cur == nil {
				return nil
			}
		}
		v = cur
	}
	return nil
}

// readIgnore reads a Redocly ignore file: a document path, then rule
// names, each with a list of JSON pointers (the only shape Redocly
// writes). It returns rule -> pointer -> true, for whichever document.
func readIgnore(path string) (map[string]map[string]bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]map[string]bool{}
	rule := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		t := strings.TrimSpace(line)
		switch {
		case t == "" || strings.HasPrefix(t, "#"):
		case !strings.HasPrefix(line, " "):
			rule = "" // a document path
		case strings.HasPrefix(t, "- "):
			if rule == "" {
				return nil, fmt.Errorf("%s:%d: a pointer outside a rule", path, n)
			}
			out[rule][strings.Trim(strings.TrimSpace(t[2:]), `'"`)] = true
		case strings.HasSuffix(t, ":"):
			rule = strings.TrimSuffix(t, ":")
			if out[rule] == nil {
				out[rule] = map[string]bool{}
			}
		default:
			return nil, fmt.Errorf("%s:%d: unexpected line %q", path, n, line)
		}
	}
	return out, sc.Err()
}
