package buildings

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestIssue24_DbfEncodings: every text attribute of the ogr2ogr-written
// test Shapefiles decodes to the UTF-8 of their GeoJSON source, whatever
// the encoding the .cpg or the language driver byte names; a UTF-8 .cpg
// over Latin-1 bytes falls back to Latin-1 rather than keep invalid
// UTF-8.
func TestIssue24_DbfEncodings(t *testing.T) {
	const (
		admin = "Prédio da Administração"
		aulas = "Pavilhão de Aulas «Ñandú»"
		cafe  = "Cantina «€ 5» — café"
	)
	cases := []struct {
		file  string
		cpg   string // replaces the zip's .cpg when not ""
		names []string
	}{
		{file: "sirgas.zip", names: []string{admin, aulas}},
		{file: "latin1.zip", names: []string{admin, aulas}},
		{file: "ldid87.zip", names: []string{admin, aulas}},
		{file: "cp1252.zip", names: []string{admin, cafe}},
		{file: "latin1.zip", cpg: "UTF-8", names: []string{admin, aulas}},
		{file: "latin1.zip", cpg: "LATIN1", names: []string{admin, aulas}},
		{file: "cp1252.zip", cpg: "1252", names: []string{admin, cafe}},
	}
	for _, c := range cases {
		t.Run(c.file+" "+c.cpg, func(t *testing.T) {
			data, err := os.ReadFile("testdata/shapefile/" + c.file)
			if err != nil {
				t.Fatal(err)
			}
			ents, err := zipEntries(data, newRun(context.Background(), int64(len(data)), Options{}.withDefaults()))
			if err != nil {
				t.Fatal(err)
			}
			cpg := ents[".cpg"]
			if c.cpg != "" {
				cpg = []byte(c.cpg)
			}
			rows, err := readDbf(ents[".dbf"], cpg)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range rows {
				got = append(got, r["name"])
			}
			if strings.Join(got, "|") != strings.Join(c.names, "|") {
				t.Fatalf("names %q, want %q", got, c.names)
			}
		})
	}
}

// TestIssue24_PrjCRS: the .prj texts GDAL writes (ESRI WKT in a
// Shapefile, OGC WKT1 from gdalsrsinfo -o wkt1, both GDAL 3.6.2).
func TestIssue24_PrjCRS(t *testing.T) {
	cases := []struct{ name, prj, want string }{
		{"WGS84 ESRI", `GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]`, ""},
		{"WGS84 OGC", `GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433],AUTHORITY["EPSG","4326"]]`, ""},
		{"SIRGAS 2000 ESRI", `GEOGCS["GCS_SIRGAS_2000",DATUM["D_SIRGAS_2000",SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]`, "buildings_sirgas2000_as_wgs84"},
		{"SIRGAS 2000 OGC", `GEOGCS["SIRGAS 2000",DATUM["Sistema_de_Referencia_Geocentrico_para_las_AmericaS_2000",SPHEROID["GRS 1980",6378137,298.257222101,AUTHORITY["EPSG","7019"]],AUTHORITY["EPSG","6674"]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433],AUTHORITY["EPSG","4674"]]`, "buildings_sirgas2000_as_wgs84"},
		{"SIRGAS 2000 UTM 23S", `PROJCS["SIRGAS_2000_UTM_Zone_23S",GEOGCS["GCS_SIRGAS_2000",DATUM["D_SIRGAS_2000",SPHEROID["GRS_1980",6378137.0,298.257222101]]],PROJECTION["Transverse_Mercator"]]`, "refused"},
		{"WGS84 UTM 23S", `PROJCS["WGS_1984_UTM_Zone_23S",GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]]],PROJECTION["Transverse_Mercator"]]`, "refused"},
		{"SAD69", `GEOGCS["GCS_South_American_1969",DATUM["D_South_American_1969",SPHEROID["GRS_1967_Truncated",6378160.0,298.25]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]`, "refused"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w, err := prjCRS([]byte(c.prj))
			got := ""
			switch {
			case err != nil:
				got = "refused"
				if !strings.Contains(err.Error(), "not WGS84 longitude/latitude") || !strings.Contains(err.Error(), "reproject to EPSG:4326") {
					t.Errorf("reason %v", err)
				}
			case w != nil:
				got = w.Code
			}
			if got != c.want {
				t.Fatalf("got %q (%v), want %q", got, err, c.want)
			}
		})
	}
}
