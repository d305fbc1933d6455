package api_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// warningCodePackages are the packages that raise coded warnings, relative
// to this package's folder.
func warningCodePackages() []string {
	return []string{"../../appliance", "../../appliance/planner", "../../engines", "../../engines/antfile", "../../engines/raytrace", "../../appliance/raytracing", "../../appliance/interference", "."}
}

// declaredWarningCodes parses the non-test Go files of the packages and
// returns the values of their string constants named Warn… or warn…, and
// the positions of any Code field given as a string literal (which would
// bypass the constants).
func declaredWarningCodes(t *testing.T) (codes map[string]string, literals []string) {
	t.Helper()
	codes = map[string]string{}
	fset := token.NewFileSet()
	for _, dir := range warningCodePackages() {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: %v %v", dir, files, err)
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.GenDecl:
					if n.Tok != token.CONST {
						return true
					}
					for _, spec := range n.Specs {
						vs := spec.(*ast.ValueSpec)
						for i, id := range vs.Names {
							if !strings.HasPrefix(strings.ToLower(id.Name), "warn") || i >= len(vs.Values) {
								continue
							}
							if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
								v, _ := strconv.Unquote(lit.Value)
								codes[v] = fset.Position(id.Pos()).String() + " " + id.Name
							}
						}
					}
				case *ast.KeyValueExpr:
					if k, ok := n.Key.(*ast.Ident); ok && k.Name == "Code" {
						if lit, ok := n.Value.(*ast.BasicLit); ok && lit.Kind == token.STRING {
							literals = append(literals, fset.Position(lit.Pos()).String()+" "+lit.Value)
						}
					}
				}
				return true
			})
		}
	}
	return codes, literals
}

// TestFinding3_WarningCodesMatchTheOpenAPIEnum: issue 7, finding 3 review.
// Every warning code the appliance, planner, engines and API packages
// declare is in the openapi Warning.code enum, and every enum value is
// declared: a new code cannot ship undocumented, nor a documented code
// linger after its removal. Codes are never raw string literals.
func TestFinding3_WarningCodesMatchTheOpenAPIEnum(t *testing.T) {
	declared, literals := declaredWarningCodes(t)
	for _, l := range literals {
		t.Errorf("warning code given as a literal, not a constant: %s", l)
	}
	doc := loadOpenAPI(t)
	code := obj(doc.root, "components", "schemas", "Warning", "properties", "code")
	raw, _ := code["enum"].([]any)
	var enum []string
	for _, v := range raw {
		s, _ := v.(string)
		enum = append(enum, s)
	}
	if len(enum) == 0 || len(declared) < 14 {
		t.Fatalf("enum %v, declared %v", enum, declared)
	}
	for c, where := range declared {
		if !slices.Contains(enum, c) {
			t.Errorf("code %q (%s) is not in the openapi Warning.code enum", c, where)
		}
	}
	for _, c := range enum {
		if _, ok := declared[c]; !ok {
			t.Errorf("openapi Warning.code enum value %q is declared by no package", c)
		}
	}
}
