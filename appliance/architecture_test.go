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
// A package under engines/ is a concrete engine unless libraries lists it
// with the reason it is pure computation (formulas, a file format, a grid
// index, a model format) that no interface would abstract: the registry and
// its adapters, engines/fspl, the ITM, P.1812 and P.1411 models and
// engines/ml/learn (the learners) are concrete; a service reaches one
// through a narrow interface it declares, which appliance/cmd/linkplan
// fills. A listed library may import only other libraries and must not
// declare an appliance.Engine (a method ID() appliance.EngineID).
//
// pending lists the breaks an issue has yet to remove; the test fails when
// a pending entry no longer happens, so the list only shrinks. It is empty:
// issue 23 removed the engines/ml entries by moving the learners to
// engines/ml/learn behind training.Learners, and issue 24 the ray
// tracer's by moving its request, answer and frame types to the appliance
// root (appliance/raytrace.go) and declaring the executor the raytracing
// service calls (raytracing.Executor, filled by
// engines/raytrace/worker.LayerExecutor in the assembly). A new entry
// names "from -> to" and why the break is not yet removed.
var pending = map[string]string{}

// libraries are the packages under engines/ that services and web may
// import, each with why it is a library and not an engine.
var libraries = map[string]string{
	"linkplan/engines/radio":   "closed-form formulas (ITU-R P.525 free-space loss, P.526 knife-edge J(v), Fresnel radius, k-factor Earth bulge) that every engine and the planner's clearance check share: arithmetic with one right answer, no model to choose",
	"linkplan/engines/itur":    "the ITU-R availability formulas (P.530, P.837, P.838, P.676) with their digital maps: one fixed method per Recommendation, used by the ptp service's availability budget",
	"linkplan/engines/antfile": "a file-format reader: antenna pattern files (MSI, NSMA, Radio Mobile) into appliance.AntennaPattern",
	"linkplan/engines/ml":      "the learned models' artifact format (the contract training writes and prediction reads: feature schema, ridge and tree-ensemble evaluation, conformal bands, envelope, attestation) and its statistics (folds, cross-validation over a caller's trainer, conformal fits, RMSE by group); the learners that fit a model are engines/ml/learn, concrete, which training reaches through training.Learners",
	"linkplan/engines/ml/h3":   "the H3 hexagonal grid's cell index (a grid's arithmetic) that training and calibration group rows by",
}

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

// concreteEngines is the set of packages under engines/ that libraries
// does not list. A listed library that declares an engine or imports a
// concrete one is reported in breaks.
func concreteEngines(t *testing.T, pkgs []goPackage) (concrete map[string]bool, breaks []string) {
	t.Helper()
	concrete = map[string]bool{}
	for _, p := range pkgs {
		rel := strings.TrimPrefix(p.ImportPath, "linkplan/")
		if (rel == "engines" || strings.HasPrefix(rel, "engines/")) && libraries[p.ImportPath] == "" {
			concrete[p.ImportPath] = true
		}
	}
	for _, p := range pkgs {
		if libraries[p.ImportPath] == "" {
			continue
		}
		if implementsEngine(t, p) {
			breaks = append(breaks, p.ImportPath+": declares an appliance.Engine: a concrete engine cannot be listed in libraries")
		}
		for _, imp := range p.Imports {
			if concrete[imp] {
				breaks = append(breaks, p.ImportPath+" -> "+imp+": a library imports no concrete engine")
			}
		}
	}
	return concrete, breaks
}

// importBreaks lists every import of pkgs against the rules, as
// "from -> to: rule".
func importBreaks(t *testing.T, pkgs []goPackage) []string {
	t.Helper()
	kind := map[string]string{}
	for _, p := range pkgs {
		kind[p.ImportPath] = kindOf(p)
	}
	concrete, breaks := concreteEngines(t, pkgs)
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
	listed := map[string]bool{}
	for _, p := range pkgs {
		listed[p.ImportPath] = true
	}
	for lib := range libraries {
		if !listed[lib] {
			t.Errorf("libraries lists %s, which go list does not find: remove it", lib)
		}
	}
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
		{ImportPath: "linkplan/appliance/svc", Name: "svc", Dir: dir, Imports: []string{"linkplan/appliance", "linkplan/engines/radio", "linkplan/engines", "linkplan/engines/ml", "linkplan/engines/ml/learn", "linkplan/store"}},
		{ImportPath: "linkplan/engines/ml/learn", Name: "learn", Dir: dir, Imports: []string{"linkplan/appliance", "linkplan/engines/ml"}},
		{ImportPath: "linkplan/engines/ml", Name: "ml", Dir: dir, Imports: []string{"linkplan/appliance", "linkplan/engines/ml/h3"}},
		{ImportPath: "linkplan/engines/ml/h3", Name: "h3", Dir: dir, Imports: []string{"linkplan/engines/fspl"}},
		{ImportPath: "linkplan/engines", Name: "engines", Dir: dir, Imports: []string{"linkplan/engines/fspl"}},
		{ImportPath: "linkplan/engines/fspl", Name: "fspl", Dir: dir, Imports: []string{"linkplan/appliance/svc"}},
		{ImportPath: "linkplan/engines/radio", Name: "radio", Dir: dir},
		{ImportPath: "linkplan/store", Name: "store", Dir: dir, Imports: []string{"linkplan/appliance"}},
		{ImportPath: "linkplan/web/api", Name: "api", Dir: dir, Imports: []string{"linkplan/appliance/svc"}},
		{ImportPath: "linkplan/appliance/cmd/linkplan", Name: "main", Dir: dir, Imports: []string{"linkplan/store", "linkplan/engines", "linkplan/web/api"}},
	}
	// Declare an engine in fspl, and one in the library radio (a break).
	if err := os.WriteFile(filepath.Join(dir, "fspl.go"), []byte("package fspl\n\nimport \"linkplan/appliance\"\n\ntype E struct{}\n\nfunc (E) ID() appliance.EngineID { return \"fspl\" }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pkgs[6].GoFiles = []string{"fspl.go"}
	pkgs[7].GoFiles = []string{"fspl.go"}
	got := strings.Join(importBreaks(t, pkgs), "\n")
	for _, want := range []string{
		"linkplan/appliance/svc -> linkplan/engines: services and web never import a concrete engine",
		"linkplan/appliance/svc -> linkplan/engines/ml/learn: services and web never import a concrete engine",
		"linkplan/appliance/svc -> linkplan/store: services and web never import a store",
		"linkplan/engines/fspl -> linkplan/appliance/svc: a leaf knows no service",
		"linkplan/engines/radio: declares an appliance.Engine",
		"linkplan/engines/ml/h3 -> linkplan/engines/fspl: a library imports no concrete engine",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing break %q in:\n%s", want, got)
		}
	}
	for _, allowed := range []string{"-> linkplan/engines/radio", "-> linkplan/engines/ml/h3", "-> linkplan/engines/ml:", "linkplan/web/api ->", "linkplan/appliance/cmd/linkplan ->", "linkplan/store ->"} {
		if strings.Contains(got, allowed) {
			t.Errorf("allowed import %q reported as a break:\n%s", allowed, got)
		}
	}
}
