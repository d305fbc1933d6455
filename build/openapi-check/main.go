// Command openapi-check lints web/api/openapi.json with Go only (issue 23,
// scope 5): make test runs it; the Node linters of build/openapi-lint
// (Redocly CLI, swagger-parser) stay in make check.
//
//	go run . [-ignore FILE] ../../web/api/openapi.json
//
// It is a module of its own so that the product's go.mod keeps only what
// the binary needs; its requirements are pinned in go.mod and go.sum.
//
// Two passes, both must be clean:
//
//  1. The document against the OpenAPI 3.1 JSON Schema, $refs resolved
//     (github.com/pb33f/libopenapi-validator's ValidateOpenAPIDocument and
//     libopenapi's model build): what swagger-parser validate checks.
//  2. The rules of Redocly's recommended set that this document relies on
//     (see rules.go), each failing as an error as recommended-strict makes
//     them. The exceptions are read from build/openapi-lint's
//     .redocly.lint-ignore.yaml, the same list with its reasons, so the Go
//     and the Node linters accept the same findings.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/pb33f/libopenapi"
	"github.com/pb33f/libopenapi-validator/schema_validation"
)

func main() {
	ignore := flag.String("ignore", "../openapi-lint/.redocly.lint-ignore.yaml", "the Redocly ignore file (rule: JSON pointers)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: openapi-check [-ignore FILE] openapi.json")
		os.Exit(2)
	}
	problems, err := check(flag.Arg(0), *ignore)
	if err != nil {
		fmt.Fprintln(os.Stderr, "openapi-check:", err)
		os.Exit(2)
	}
	for _, p := range problems {
		fmt.Println(p)
	}
	if len(problems) > 0 {
		fmt.Printf("openapi-check: %s: %d problems\n", flag.Arg(0), len(problems))
		os.Exit(1)
	}
	fmt.Printf("openapi-check: %s: valid OpenAPI 3.1, no rule broken\n", flag.Arg(0))
}

// check returns every problem of the document at path, as "rule: where:
// what", sorted.
func check(path, ignorePath string) ([]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var problems []string
	doc, err := libopenapi.NewDocument(raw)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if v := doc.GetVersion(); len(v) < 3 || v[:3] != "3.1" {
		problems = append(problems, fmt.Sprintf("spec: #/openapi: version %q, want 3.1.x", v))
	}
	if ok, errs := schema_validation.ValidateOpenAPIDocument(doc); !ok {
		for _, e := range errs {
			for _, se := range e.SchemaValidationErrors {
				problems = append(problems, fmt.Sprintf("spec: #/%s (line %d): %s", strings.Join(se.InstancePath, "/"), se.Line, se.Reason))
			}
			if len(e.SchemaValidationErrors) == 0 {
				problems = append(problems, fmt.Sprintf("spec: %s", e.Message))
			}
		}
	}
	if _, err := doc.BuildV3Model(); err != nil {
		problems = append(problems, fmt.Sprintf("spec: model: %v", err))
	}
	var tree map[string]any
	if err := json.Unmarshal(raw, &tree); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	ignored := map[string]map[string]bool{}
	if ignorePath != "" {
		if ignored, err = readIgnore(ignorePath); err != nil {
			return nil, err
		}
	}
	for _, f := range lint(tree) {
		if ignored[f.rule][f.where] {
			continue
		}
		problems = append(problems, f.String())
	}
	sort.Strings(problems)
	return problems, nil
}
