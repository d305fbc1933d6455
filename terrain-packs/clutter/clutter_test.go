package clutter_test

import (
	"bufio"
	"encoding/csv"
	"errors"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/terrain-packs/clutter"
	"linkplan/terrain-packs/geotiff"
)

// openAP opens the real MapBiomas AP raster (Open reads only its IFD).
func openAP(tb testing.TB) *geotiff.Image {
	tb.Helper()
	f, err := os.Open("testdata/utm_cover_AP_rio_2020.tif")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.Close() })
	st, err := f.Stat()
	if err != nil {
		tb.Fatal(err)
	}
	img, err := geotiff.Open(f, st.Size())
	if err != nil {
		tb.Fatal(err)
	}
	return img
}

func TestEveryLegendCodeIsMapped(t *testing.T) {
	f, err := os.Open("testdata/mapbiomas_legend_collection6.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	table := map[int]clutter.MapBiomasEntry{}
	for _, e := range clutter.MapBiomasTable() {
		if _, dup := table[e.Code]; dup {
			t.Fatalf("code %d twice in MapBiomasTable", e.Code)
		}
		table[e.Code] = e
	}
	if len(rows) != 27 {
		t.Fatalf("legend has %d rows, want header + 26", len(rows))
	}
	for _, r := range rows[1:] {
		code, err := strconv.Atoi(r[0])
		if err != nil {
			t.Fatal(err)
		}
		t.Run(r[0]+" "+r[1], func(t *testing.T) {
			e, ok := table[code]
			if !ok {
				t.Fatalf("legend code %d (%s) missing from MapBiomasTable", code, r[1])
			}
			if e.LabelPT != r[1] {
				t.Errorf("label %q, legend %q", e.LabelPT, r[1])
			}
			if got := clutter.FromMapBiomas(code); got != e.Class {
				t.Errorf("FromMapBiomas(%d) = %s, table %s", code, got, e.Class)
			}
			if code != 27 && !e.Class.Valid() {
				t.Errorf("legend code %d maps to %s", code, e.Class)
			}
		})
	}
	t.Run("table agrees with FromMapBiomas", func(t *testing.T) {
		for c := -1; c <= 256; c++ {
			want := clutter.Unknown
			if e, ok := table[c]; ok {
				want = e.Class
			}
			if got := clutter.FromMapBiomas(c); got != want {
				t.Errorf("FromMapBiomas(%d) = %s, table %s", c, got, want)
			}
		}
	})
	t.Run("flooded forest", func(t *testing.T) {
		if got := clutter.FromMapBiomas(6); got != clutter.Forest {
			t.Errorf("FromMapBiomas(6) = %s, want Forest", got)
		}
	})
	t.Run("every class is reachable", func(t *testing.T) {
		seen := map[clutter.Class]bool{}
		for _, e := range clutter.MapBiomasTable() {
			seen[e.Class] = true
		}
		for _, c := range clutter.Classes() {
			if !seen[c] {
				t.Errorf("no MapBiomas code maps to %s", c)
			}
		}
	})
}

func TestFromMapBiomasSample(t *testing.T) {
	cases := []struct {
		name string
		v    float64
		want clutter.Class
	}{
		{"forest", 3, clutter.Forest},
		{"soybean", 39, clutter.Soybean},
		{"not observed", 27, clutter.Unknown},
		{"zero", 0, clutter.Unknown},
		{"fraction", 3.5, clutter.Unknown},
		{"negative", -3, clutter.Unknown},
		{"nan", math.NaN(), clutter.Unknown},
		{"uint16 nodata", 65535, clutter.Unknown},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := clutter.FromMapBiomasSample(c.v); got != c.want {
				t.Errorf("FromMapBiomasSample(%g) = %s, want %s", c.v, got, c.want)
			}
		})
	}
}

func TestMappingMarkdownMatchesTable(t *testing.T) {
	f, err := os.Open("MAPPING.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []clutter.MapBiomasEntry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "| ") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		code, err := strconv.Atoi(cells[0])
		if err != nil || len(cells) != 4 {
			continue // header or the class-parameter table
		}
		cls, err := clutter.ParseClass(cells[2])
		if err != nil {
			t.Fatalf("MAPPING.md code %d: %v", code, err)
		}
		got = append(got, clutter.MapBiomasEntry{Code: code, LabelPT: cells[1], Class: cls, Note: cells[3]})
	}
	want := clutter.MapBiomasTable()
	if len(got) != len(want) {
		t.Fatalf("MAPPING.md has %d rows, MapBiomasTable %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d: MAPPING.md %+v, table %+v", i, got[i], want[i])
		}
	}
}

func TestClassParameters(t *testing.T) {
	cases := []struct {
		class   clutter.Class
		name    string
		heightM float64
		dkKm    float64
		zone    clutter.Zone
		onehot  int
	}{
		{clutter.Unknown, "Unknown", 0, 0, clutter.ZoneInland, -1},
		{clutter.Forest, "Forest", 20, 0.03, clutter.ZoneInland, 0},
		{clutter.Savanna, "Savanna", 4, 0.1, clutter.ZoneInland, 1},
		{clutter.Grassland, "Grassland", 0, 0, clutter.ZoneInland, 2},
		{clutter.Pasture, "Pasture", 0, 0, clutter.ZoneInland, 3},
		{clutter.Mosaic, "Mosaic", 4, 0.1, clutter.ZoneInland, 4},
		{clutter.Urban, "Urban", 20, 0.02, clutter.ZoneInland, 5},
		{clutter.Bare, "Bare", 0, 0, clutter.ZoneInland, 6},
		{clutter.Water, "Water", 0, 0, clutter.ZoneSea, 7},
		{clutter.Soybean, "Soybean", 0, 0, clutter.ZoneInland, 8},
		{clutter.Other, "Other", 4, 0.1, clutter.ZoneInland, 9},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.class.String() != c.name || c.class.HeightM() != c.heightM || c.class.NominalDistanceKm() != c.dkKm ||
				c.class.Zone() != c.zone || c.class.OneHotIndex() != c.onehot || c.class.HeightSource() == "" {
				t.Errorf("%d: %s %g m %g km %s onehot %d", c.class, c.class, c.class.HeightM(), c.class.NominalDistanceKm(), c.class.Zone(), c.class.OneHotIndex())
			}
			p, err := clutter.ParseClass(strings.ToLower(c.name))
			if err != nil || p != c.class {
				t.Errorf("ParseClass(%q) = %s, %v", c.name, p, err)
			}
			v := c.class.OneHot()
			sum := 0.0
			for _, x := range v {
				sum += x
			}
			if (c.onehot < 0 && sum != 0) || (c.onehot >= 0 && (sum != 1 || v[c.onehot] != 1)) {
				t.Errorf("OneHot = %v", v)
			}
		})
	}
	if _, err := clutter.ParseClass("Suburban"); err == nil {
		t.Error("ParseClass(Suburban) succeeded")
	}
	if s := clutter.Class(11).String(); s != "Class(11)" || clutter.Class(11).Valid() {
		t.Errorf("Class(11) = %q valid %v", s, clutter.Class(11).Valid())
	}
	if len(clutter.Classes()) != clutter.NumClasses {
		t.Errorf("Classes() has %d", len(clutter.Classes()))
	}
}

// TestAPHistogram decodes all 34 699 893 pixels of the real AP raster and
// compares the MapBiomas histogram with gdalinfo -hist (GDAL 3.6.2; it leaves
// out the NoData value 27, whose count is the remainder) and PROVENANCE.md,
// then the clutter histogram with the sums the mapping implies.
func TestAPHistogram(t *testing.T) {
	img := openAP(t)
	if img.Width != 6059 || img.Height != 5727 || img.Format != geotiff.Uint8 || img.EPSG != 31976 || img.NoData != 27 {
		t.Fatalf("AP raster %d×%d %s epsg %d nodata %g", img.Width, img.Height, img.Format, img.EPSG, img.NoData)
	}
	raw := map[int]int{}
	classes := map[clutter.Class]int{}
	row := make([]float64, img.Width)
	for r := 0; r < img.Height; r++ {
		if _, err := img.ReadWindow(0, r, img.Width, 1, row); err != nil {
			t.Fatal(err)
		}
		for _, v := range row {
			raw[int(v)]++
			classes[clutter.FromMapBiomasSample(v)]++
		}
	}
	gdal := map[int]int{3: 28225986, 4: 58233, 6: 230100, 9: 955120, 11: 614464, 12: 4035014, 15: 265075,
		24: 12681, 30: 46609, 33: 148654, 39: 42213, 41: 51087}
	valid := 0
	for _, n := range gdal {
		valid += n
	}
	gdal[27] = 6059*5727 - valid // 14 657, "27 15 k" in PROVENANCE.md
	t.Run("mapbiomas codes", func(t *testing.T) {
		if len(raw) != len(gdal) {
			t.Errorf("%d distinct codes, GDAL %d: %v", len(raw), len(gdal), raw)
		}
		for code, n := range gdal {
			if raw[code] != n {
				t.Errorf("code %d: %d pixels, GDAL %d", code, raw[code], n)
			}
		}
	})
	t.Run("clutter classes", func(t *testing.T) {
		want := map[clutter.Class]int{
			clutter.Forest:    28225986 + 230100 + 955120, // 3, 6, 9
			clutter.Savanna:   58233,                      // 4
			clutter.Grassland: 614464 + 4035014,           // 11, 12
			clutter.Pasture:   265075,                     // 15
			clutter.Urban:     12681,                      // 24
			clutter.Bare:      46609,                      // 30
			clutter.Water:     148654,                     // 33
			clutter.Soybean:   42213,                      // 39
			clutter.Mosaic:    51087,                      // 41
			clutter.Unknown:   14657,                      // 27
		}
		if len(classes) != len(want) {
			t.Errorf("classes %v, want %v", classes, want)
		}
		for c, n := range want {
			if classes[c] != n {
				t.Errorf("%s: %d pixels, want %d", c, classes[c], n)
			}
		}
		for c := clutter.Unknown; c <= clutter.Other; c++ {
			t.Logf("%-9s %9d px (%.3f %%)", c, classes[c], 100*float64(classes[c])/float64(6059*5727))
		}
	})
}

// Pixel centres of the AP raster converted with PROJ (cs2cs EPSG:31976 ->
// EPSG:4326, 9 decimals) and the value GDAL reads there (gdallocationinfo
// -wgs84 and by pixel; both agree), one per MapBiomas code present.
var apLookups = []struct {
	col, row int
	lat, lon float64
	code     int
}{
	{13, 37, 1.794130192, -52.464974331, 3},
	{5798, 37, 1.794718165, -50.910300228, 12},
	{5709, 134, 1.768485846, -50.934221675, 11},
	{5798, 134, 1.768484838, -50.910301497, 6},
	{5976, 425, 1.689781998, -50.862466857, 33},
	{5798, 1104, 1.506151177, -50.910313157, 24},
	{4374, 2462, 1.138869435, -51.292942225, 15},
	{4997, 2947, 1.007714375, -51.125543032, 30},
	{4730, 3044, 0.981477419, -51.197278854, 41},
	{4819, 3141, 0.955245335, -51.173365279, 39},
	{4730, 3238, 0.929010651, -51.197275862, 9},
	{5887, 3917, 0.745379818, -50.886425545, 4},
}

func TestClassAtLatLon(t *testing.T) {
	img := openAP(t)
	for _, c := range apLookups {
		t.Run(strconv.Itoa(c.code), func(t *testing.T) {
			col, row, err := img.PixelAtLatLon(c.lat, c.lon)
			if err != nil {
				t.Fatal(err)
			}
			if col != c.col || row != c.row {
				t.Errorf("pixel (%d, %d), want (%d, %d)", col, row, c.col, c.row)
			}
			// The UTM inverse lands back on the pixel centre within 1 mm.
			lat, lon, err := img.PixelToLatLon(float64(c.col)+0.5, float64(c.row)+0.5)
			if err != nil || math.Abs(lat-c.lat) > 1e-8 || math.Abs(lon-c.lon) > 1e-8 { // degrees
				t.Errorf("PixelToLatLon = (%.9f, %.9f), PROJ (%.9f, %.9f), %v", lat, lon, c.lat, c.lon, err)
			}
			got, err := clutter.ClassAtLatLon(img, c.lat, c.lon)
			if err != nil {
				t.Fatal(err)
			}
			if want := clutter.FromMapBiomas(c.code); got != want {
				t.Errorf("ClassAtLatLon = %s, want %s (code %d)", got, want, c.code)
			}
		})
	}
	t.Run("nodata corner", func(t *testing.T) {
		lat, lon, _ := img.PixelToLatLon(0.5, 0.5)
		if got, err := clutter.ClassAtLatLon(img, lat, lon); err != nil || got != clutter.Unknown {
			t.Errorf("corner = %s, %v; want Unknown (code 27)", got, err)
		}
	})
	t.Run("outside", func(t *testing.T) {
		if _, err := clutter.ClassAtLatLon(img, -23, -43); !errors.Is(err, geotiff.ErrOutOfBounds) {
			t.Errorf("err = %v", err)
		}
	})
}

func TestResampleTileArguments(t *testing.T) {
	img := openAP(t)
	cases := []struct {
		name                           string
		latMin, lonMin, latMax, lonMax float64
		n                              int
	}{
		{"inverted latitudes", 1, -52, 0, -51, 10},
		{"empty longitudes", 0, -52, 1, -52, 10},
		{"one sample", 0, -52, 1, -51, 1},
		{"too many samples", 0, -52, 1, -51, clutter.MaxTileSamples + 1},
		{"nan", math.NaN(), -52, 1, -51, 10},
		{"latitude beyond pole", 80, -52, 91, -51, 10},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := clutter.ResampleTile(img, c.latMin, c.lonMin, c.latMax, c.lonMax, c.n)
			if !errors.Is(err, clutter.ErrBadTile) || !errors.Is(err, appliance.ErrInvalid) {
				t.Errorf("err = %v, want ErrBadTile", err)
			}
		})
	}
}
