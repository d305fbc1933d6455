package geoexport

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"linkplan/appliance"
)

// TestDBFSpreadsheetSafe: GDAL reads the text fields of a .dbf written here
// neutralised (doc.go, "Spreadsheet safety") and its numbers as numbers,
// a negative margin included.
func TestDBFSpreadsheetSafe(t *testing.T) {
	requireOgrinfo(t)
	rows := []LinkRow{
		{ReceiverID: `=HYPERLINK("http://x","y")`, Row: 1, Receiver: appliance.LatLon{Lat: -22.9, Lon: -43.2}, Operator: "+1+1", MarginDB: -12.5, RxPowerDBm: -80, Status: "ok"},
		{ReceiverID: "@SUM(1+1)", Row: 2, Receiver: appliance.LatLon{Lat: -22.91, Lon: -43.21}, Operator: "Vivo", TowerID: "-2+3", MarginDB: 3, RxPowerDBm: -70, Status: "ok"},
	}
	src := func(yield func(Feature) bool) {
		for _, r := range rows {
			if !yield(r.Feature()) {
				return
			}
		}
	}
	var shp, shx, dbf, prj, cpg bytes.Buffer
	if err := WriteShapefile(ShapefileSet{&shp, &shx, &dbf, &prj, &cpg}, LinkSchema(), src, ShapefileOptions{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for ext, b := range map[string]*bytes.Buffer{".shp": &shp, ".shx": &shx, ".dbf": &dbf, ".prj": &prj, ".cpg": &cpg} {
		if err := os.WriteFile(filepath.Join(dir, "links"+ext), b.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	l := runOgrinfo(t, filepath.Join(dir, "links.dbf"))
	if l.fields["margin_db"] != "Real" || l.fields["row"] != "Integer" && l.fields["row"] != "Integer64" {
		t.Errorf("field types %v: numbers must stay numbers", l.fields)
	}
	want := []map[string]string{
		{"receiver_i": `'=HYPERLINK("http://x","y")`, "operator": "'+1+1", "margin_db": "-12.50"},
		{"receiver_i": "'@SUM(1+1)", "operator": "Vivo", "tower_id": "'-2+3", "margin_db": "3.00"},
	}
	if len(l.features) != len(want) {
		t.Fatalf("%d features, want %d", len(l.features), len(want))
	}
	for i, w := range want {
		for k, v := range w {
			if got := l.features[i].values[k]; got != v {
				t.Errorf("feature %d %s = %q, want %q", i+1, k, got, v)
			}
		}
	}
}
