package appliance_test

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The import rules of doc.go, enforced on every package's non-test imports
// (tests may use real parts: a service's test opens a real store). The
// rules, by kind of package (kindOf):
//
//	root      linkplan/appliance: imports no project package.
//	leaf      store/..., terrain-packs/..., engines/...: import the root and
//	          other leaves only, never a service, web or a main package.
//	service   appliance/<name>/...: never web, store or a concrete engine.
//	web       web/...: never store or a concrete engine.
//	main      appliance/cmd/linkplan, build/<tool>: anything.
//	assembly  appliance/cmd/linkplan/...: the composition root's packages
//	          (assemble, shared by serve and the web/api tests): anything;
//	          imported by main packages only.
//
// A concrete engine is a package that declares an implementation of
// appliance.Engine (a method ID() appliance.EngineID) or imports, directly
// or not, such a package: today linkplan/engines (the registry and its
// adapters) and engines/fspl. The other packages under engines/ (radio,
// itur, itm, p1812, p1411, antfile, raytrace, ml, ml/h3) are libraries of
// computation that services may use like engines/radio.
//
// pending lists the breaks another slice of issue 23 removes (web/api's
// handlers are being reshaped by the assembly work); the test fails when a
// pending entry no longer happens, so the list only shrinks (empty since
// issue 23 scope 3: web/api imports neither engines nor store/search).
var pending = map[string]string{}

type goPackage struct {
	ImportPath string
	Dir        string
	Name       string
	GoFiles    []string
	Imports    []string
}

func listPackages(t *testing.T) []goPackage {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", "linkplan/...")
	cmd.Dir = ".."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []goPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p goPackage
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 50 {
		t.Fatalf("go list found %d packages: the module is not where this test expects it", len(pkgs))
	}
	return pkgs
}

// kindOf is the kind of a project package (see the rules above).
func kindOf(p goPackage) string {
	rel := strings.TrimPrefix(p.ImportPath, "linkplan/")
	switch {
	case p.ImportPath == "linkplan/appliance":
		return "root"
	case p.Name == "main":
		return "main"
	case strings.HasPrefix(rel, "appliance/cmd/linkplan/"):
		return "assembly"
	case strings.HasPrefix(rel, "appliance/"):
		return "service"
	case strings.HasPrefix(rel, "store"), strings.HasPrefix(rel, "terrain-packs/"), rel == "engines" || strings.HasPrefix(rel, "engines/"):
		return "leaf"
	case rel == "web" || strings.HasPrefix(rel, "web/"):
		return "web"
	}
	return "unknown"
}

// implementsEngine reports whether the package's non-test files declare a
// method ID() appliance.EngineID: an implementation of appliance.Engine.
func implementsEngine(t *testing.T, p goPackage) bool {
	t.Helper()
	fset := token.NewFileSet()
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("parse %s: %v", name, err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || fn.Name.Name != "ID" || fn.Type.Results == nil || len(fn.Type.Results.List) != 1 {
				continue
			}
			switch r := fn.Type.Results.List[0].Type.(type) {
			case *ast.SelectorExpr:
				if r.Sel.Name == "EngineID" && p.ImportPath != "linkplan/appliance" {
					return true
				}
			}
		}
	}
	return false
}

// concreteEngines is the set of packages that are or contain a concrete
// engine: those declaring one, and those importing one, to any depth.
func concreteEngines(t *testing.T, pkgs []goPackage) map[string]bool {
	t.Helper()
	concrete := map[string]bool{}
	for _, p := range pkgs {
		if kindOf(p) == "leaf" && implementsEngine(t, p) {
			concrete[p.ImportPath] = true
		}
	}
	for changed := true; changed; {
		changed = false
		for _, p := range pkgs {
			if concrete[p.ImportPath] || kindOf(p) != "leaf" {
				continue
			}
			for _, imp := range p.Imports {
				if concrete[imp] {
					concrete[p.ImportPath] = true
					changed = true
					break
				}
			}
		}
	}
	return concrete
}

// importBreaks lists every import of pkgs against the rules, as
// "from -> to: rule".
func importBreaks(t *testing.T, pkgs []goPackage) []string {
	t.Helper()
	kind := map[string]string{}
	for _, p := range pkgs {
		kind[p.ImportPath] = kindOf(p)
	}
	concrete := concreteEngines(t, pkgs)
	var breaks []string
	for _, p := range pkgs {
		from := kind[p.ImportPath]
		if from == "unknown" {
			breaks = append(breaks, p.ImportPath+": a package of no known kind (root, leaf, service, web, main, assembly): place it or extend the rules of appliance/doc.go")
			continue
		}
		for _, imp := range p.Imports {
			to, project := kind[imp]
			if !project {
				continue // the standard library or a module
			}
			var why string
			switch {
			case to == "main":
				why = "a main package is never imported"
			case to == "assembly" && from != "main" && from != "assembly":
				why = "the assembly is the composition root's: only main packages import it (tests may)"
			case from == "assembly":
				// the composition root: anything
			case from == "root":
				why = "the root imports no project package"
			case from == "leaf" && (to == "service" || to == "web"):
				why = "a leaf knows no service and no web package"
			case (from == "service" || from == "web") && strings.HasPrefix(imp, "linkplan/store"):
				why = "services and web never import a store: concrete types meet in appliance/cmd/linkplan"
			case (from == "service" || from == "web") && concrete[imp]:
				why = "services and web never import a concrete engine: declare the interface you need and let appliance/cmd/linkplan pass the engine"
			case from == "service" && to == "web":
				why = "a service knows nothing of web"
			}
			if why != "" {
				breaks = append(breaks, p.ImportPath+" -> "+imp+": "+why)
			}
		}
	}
	sort.Strings(breaks)
	return breaks
}

func TestImportRules(t *testing.T) {
	pkgs := listPackages(t)
	breaks := importBreaks(t, pkgs)
	seen := map[string]bool{}
	for _, b := range breaks {
		key := b[:strings.Index(b, ": ")]
		if _, ok := pending[key]; ok {
			seen[key] = true
			continue
		}
		t.Errorf("import against the rules of appliance/doc.go: %s", b)
	}
	for key, why := range pending {
		if !seen[key] {
			t.Errorf("pending break %q (%s) no longer happens: remove it from the pending list", key, why)
		}
	}
}

// TestImportRulesCatch checks the checker on made-up packages: each
// forbidden import is found, each allowed one passes.
func TestImportRulesCatch(t *testing.T) {
	dir := t.TempDir()
	pkgs := []goPackage{
		{ImportPath: "linkplan/appliance", Name: "appliance", Dir: dir},
		{ImportPath: "linkplan/appliance/svc", Name: "svc", Dir: dir, Imports: []string{"linkplan/appliance", "linkplan/engines/radio", "linkplan/engines", "linkplan/store"}},
		{ImportPath: "linkplan/engines", Name: "engines", Dir: dir, Imports: []string{"linkplan/engines/fspl"}},
		{ImportPath: "linkplan/engines/fspl", Name: "fspl", Dir: dir, Imports: []string{"linkplan/appliance/svc"}},
		{ImportPath: "linkplan/engines/radio", Name: "radio", Dir: dir},
		{ImportPath: "linkplan/store", Name: "store", Dir: dir, Imports: []string{"linkplan/appliance"}},
		{ImportPath: "linkplan/web/api", Name: "api", Dir: dir, Imports: []string{"linkplan/appliance/svc"}},
		{ImportPath: "linkplan/appliance/cmd/linkplan", Name: "main", Dir: dir, Imports: []string{"linkplan/store", "linkplan/engines", "linkplan/web/api"}},
	}
	// Declare the engine in fspl.
	if err := os.WriteFile(filepath.Join(dir, "fspl.go"), []byte("package fspl\n\nimport \"linkplan/appliance\"\n\ntype E struct{}\n\nfunc (E) ID() appliance.EngineID { return \"fspl\" }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pkgs[3].GoFiles = []string{"fspl.go"}
	got := strings.Join(importBreaks(t, pkgs), "\n")
	for _, want := range []string{
		"linkplan/appliance/svc -> linkplan/engines: services and web never import a concrete engine",
		"linkplan/appliance/svc -> linkplan/store: services and web never import a store",
		"linkplan/engines/fspl -> linkplan/appliance/svc: a leaf knows no service",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing break %q in:\n%s", want, got)
		}
	}
	for _, allowed := range []string{"-> linkplan/engines/radio", "linkplan/web/api ->", "linkplan/appliance/cmd/linkplan ->", "linkplan/store ->"} {
		if strings.Contains(got, allowed) {
			t.Errorf("allowed import %q reported as a break:\n%s", allowed, got)
		}
	}
}
