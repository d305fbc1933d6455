package geoexport_test

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"linkplan/appliance/batch"
	"linkplan/appliance/coverage"
	"linkplan/appliance/geoexport"
)

// TestIssue20_FormatsDocumented: FORMATS.md exists (the README and the
// comments of this package point to it) and documents what the code
// writes: every export format with its media type and extension, every
// field of the link, link-line and contour schemas with its dBase name
// and width, every results.csv column, and the sections the comments
// name.
func TestIssue20_FormatsDocumented(t *testing.T) {
	raw, err := os.ReadFile("FORMATS.md")
	if err != nil {
		t.Fatalf("FORMATS.md: %v", err)
	}
	doc := string(raw)
	for _, f := range geoexport.Formats() {
		for _, want := range []string{"`" + string(f) + "`", "`" + f.ContentType() + "`", "`" + f.Extension() + "`"} {
			if !strings.Contains(doc, want) {
				t.Errorf("format %s: FORMATS.md lacks %s", f, want)
			}
		}
	}
	// section returns the text of the section headed h, up to the next
	// heading of its level or above.
	section := func(h string) string {
		i := strings.Index(doc, "\n"+h+"\n")
		if i < 0 {
			t.Fatalf("FORMATS.md has no section %q", h)
		}
		rest := doc[i+len(h)+2:]
		if j := strings.Index(rest, "\n## "); j >= 0 {
			rest = rest[:j]
		}
		return rest
	}
	for _, c := range []struct {
		section string
		schema  geoexport.Schema
	}{
		{"## Link results", geoexport.LinkSchema()},
		{"## Link analysis", geoexport.LinkLineSchema()},
		{"## Point-to-point link", geoexport.PTPSchema()},
		{"## Coverage contours", coverage.ContourSchema()},
	} {
		name, s, text := c.section, c.schema, section(c.section)
		short := geoexport.ShortNames(s)
		rows := strings.Count(text, "\n| `")
		if rows != len(s.Fields) {
			t.Errorf("%s: %d field rows, the schema has %d fields", name, rows, len(s.Fields))
		}
		for i, f := range s.Fields {
			row := regexp.MustCompile("(?m)^\\| `" + regexp.QuoteMeta(f.Name) + "` \\| `" + regexp.QuoteMeta(short[i]) + "` \\| ([^|]+) \\|")
			m := row.FindStringSubmatch(text)
			if m == nil {
				t.Errorf("%s field %s (dBase %s) has no row in FORMATS.md", name, f.Name, short[i])
				continue
			}
			kind := map[geoexport.FieldType]string{geoexport.TypeString: "text", geoexport.TypeInt: "integer", geoexport.TypeFloat: "float", geoexport.TypeBool: "logical"}[f.Type]
			if !strings.HasPrefix(strings.TrimSpace(m[1]), kind) {
				t.Errorf("%s field %s: FORMATS.md says %q, the code %s", name, f.Name, m[1], kind)
			}
			if f.Width > 0 {
				w := "(" + strconv.Itoa(f.Width)
				if f.Type == geoexport.TypeFloat {
					w += "." + strconv.Itoa(f.Decimals)
				}
				if !strings.Contains(m[1], w+")") {
					t.Errorf("%s field %s: FORMATS.md says %q, the code width %s)", name, f.Name, m[1], w)
				}
			}
		}
	}
	for _, c := range batch.ResultColumns() {
		if !strings.Contains(doc, "`"+c+"`") {
			t.Errorf("results.csv column %s is not in FORMATS.md", c)
		}
	}
	for _, h := range []string{"### The .dbf", "## Link results", "## Link analysis", "## GeoTIFF", "## Coverage KMZ", "## Coverage contours", "## Shapefile"} {
		if !strings.Contains(doc, "\n"+h+"\n") {
			t.Errorf("FORMATS.md has no section %q", h)
		}
	}
	for _, want := range []string{geoexport.PRJWGS84, "EPSG:4326", "UTF-8"} {
		if !strings.Contains(doc, want) {
			t.Errorf("FORMATS.md lacks %q", want)
		}
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "appliance/geoexport/FORMATS.md") {
		t.Error("the README does not point to appliance/geoexport/FORMATS.md")
	}
}
