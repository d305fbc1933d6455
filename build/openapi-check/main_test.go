package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRepositoryDocument: web/api/openapi.json passes, with the ignore
// list of the Node linters.
func TestRepositoryDocument(t *testing.T) {
	problems, err := check("../../web/api/openapi.json", "../openapi-lint/.redocly.lint-ignore.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) > 0 {
		t.Errorf("%d problems:\n%s", len(problems), strings.Join(problems, "\n"))
	}
}

// TestRulesCatch: a document that breaks each rule is refused for each.
func TestRulesCatch(t *testing.T) {
	doc := `{
  "openapi": "3.1.0",
  "info": {"title": "t", "version": "1", "license": {"name": "MIT"}},
  "servers": [],
  "tags": [{"name": "a"}],
  "paths": {
    "/x/{id}/": {"get": {"operationId": "same", "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Missing"}}}}}}},
    "/x/{key}": {"get": {"operationId": "k", "summary": "s", "security": [], "responses": {"200": {"description": "ok"}, "404": {"description": "no"}}}},
    "/x/{other}": {"post": {"operationId": "same", "summary": "s", "security": [{"nokey": []}], "parameters": [{"name": "other", "in": "path", "required": true, "schema": {"type": "string"}}], "responses": {"400": {"description": "bad"}}}}
  },
  "components": {"schemas": {"Unused": {"type": "string"}}}
}`
	dir := t.TempDir()
	path := filepath.Join(dir, "openapi.json")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	problems, err := check(path, "")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(problems, "\n")
	for _, rule := range []string{
		"info-license-url:", "no-empty-servers:", "tag-description:", "operation-operationId-unique:",
		"operation-summary:", "operation-2xx-response:", "operation-4xx-response:", "path-parameters-defined:",
		"no-path-trailing-slash:", "no-identical-paths:", "security-defined:", "no-unresolved-refs:", "no-unused-components:",
	} {
		if !strings.Contains(got, rule) {
			t.Errorf("no %s finding in:\n%s", rule, got)
		}
	}
}
