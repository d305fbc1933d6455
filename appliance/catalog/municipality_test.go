package catalog_test

import (
	"math"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/catalog"
)

func gazetteer(tb testing.TB) *catalog.Gazetteer {
	tb.Helper()
	g, err := catalog.EmbeddedGazetteer()
	if err != nil {
		tb.Fatalf("EmbeddedGazetteer: %v", err)
	}
	return g
}

func TestLoadMunicipalitiesCounts(t *testing.T) {
	ms, err := catalog.LoadMunicipalities()
	if err != nil {
		t.Fatalf("LoadMunicipalities: %v", err)
	}
	if len(ms) != 5571 {
		t.Fatalf("got %d municipalities, want 5571", len(ms))
	}
	ufs := map[string]int{}
	regions := map[catalog.Region]int{}
	capitals := 0
	codes := map[string]bool{}
	for _, m := range ms {
		ufs[m.UF]++
		regions[m.Region]++
		if m.Capital {
			capitals++
		}
		if codes[m.IBGECode] {
			t.Errorf("duplicate IBGE code %s", m.IBGECode)
		}
		codes[m.IBGECode] = true
		if !catalog.InBrazil(m.Lat, m.Lon) {
			t.Errorf("%s (%s) at %v,%v outside Brazil", m.Name, m.UF, m.Lat, m.Lon)
		}
		if !(m.SpacingM > 0 && m.SpacingM < 400e3) {
			t.Errorf("%s (%s) SpacingM %v m implausible", m.Name, m.UF, m.SpacingM)
		}
	}
	if len(ufs) != 27 {
		t.Errorf("got %d UFs, want 27", len(ufs))
	}
	if capitals != 27 {
		t.Errorf("got %d capitals, want 27", capitals)
	}
	// Counts computed independently from estados.csv/municipios.csv (Python csv module).
	wantRegions := map[catalog.Region]int{
		catalog.RegionNortheast: 1794, catalog.RegionSoutheast: 1668, catalog.RegionSouth: 1191,
		catalog.RegionCentralWest: 468, catalog.RegionNorth: 450,
	}
	for r, n := range wantRegions {
		if regions[r] != n {
			t.Errorf("region %s: got %d municipalities, want %d", r, regions[r], n)
		}
	}
	for uf, n := range map[string]int{"RJ": 92, "SP": 645, "MG": 853, "DF": 1, "RR": 15} {
		if ufs[uf] != n {
			t.Errorf("UF %s: got %d municipalities, want %d", uf, ufs[uf], n)
		}
	}
}

func TestGazetteerLookups(t *testing.T) {
	g := gazetteer(t)
	cases := []struct {
		name, query, uf string
		wantCode        string
		wantRegion      catalog.Region
	}{
		{"exact", "Rio de Janeiro", "RJ", "3304557", catalog.RegionSoutheast},
		{"upper case without accents", "SAO PAULO", "sp", "3550308", catalog.RegionSoutheast},
		{"accents and extra spaces", "  vitória   da conquista ", "BA", "2933307", catalog.RegionNortheast},
		{"apostrophe variants", "ALTA FLORESTA D OESTE", "RO", "1100015", catalog.RegionNorth},
		{"hyphen dropped", "Pariquera Acu", "SP", "3536208", catalog.RegionSoutheast},
		{"federal district", "brasilia", "DF", "5300108", catalog.RegionCentralWest},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, ok := g.ByName(c.query, c.uf)
			if !ok {
				t.Fatalf("ByName(%q, %q) not found", c.query, c.uf)
			}
			if m.IBGECode != c.wantCode || m.Region != c.wantRegion {
				t.Errorf("ByName(%q, %q) = %s %s, want %s %s", c.query, c.uf, m.IBGECode, m.Region, c.wantCode, c.wantRegion)
			}
			byCode, ok := g.ByCode(c.wantCode)
			if !ok || byCode.Name != m.Name {
				t.Errorf("ByCode(%s) = %q, %v; want %q", c.wantCode, byCode.Name, ok, m.Name)
			}
		})
	}
	t.Run("wrong UF", func(t *testing.T) {
		if m, ok := g.ByName("Salvador", "RJ"); ok {
			t.Errorf("ByName(Salvador, RJ) = %+v, want not found", m)
		}
	})
	t.Run("unknown code", func(t *testing.T) {
		if _, ok := g.ByCode("9999999"); ok {
			t.Error("ByCode(9999999) found")
		}
	})
	t.Run("capital fields", func(t *testing.T) {
		m, _ := g.ByCode("3304557")
		// municipios.csv: 3304557,Rio de Janeiro,-22.9129,-43.2003,1,33,...
		if !m.Capital || m.UF != "RJ" || m.Lat != -22.9129 || m.Lon != -43.2003 {
			t.Errorf("Rio de Janeiro = %+v", m)
		}
	})
}

func TestGazetteerNearestMatchesBruteForce(t *testing.T) {
	g := gazetteer(t)
	all := g.All()
	points := []appliance.LatLon{
		{Lat: -24.738889, Lon: -47.5725}, // a MOSAICO station whose code says São Paulo
		{Lat: -3.0, Lon: -60.0},          // Amazon, sparse seats
		{Lat: -22.9, Lon: -43.2},
		{Lat: 4.5, Lon: -61.0},
		{Lat: -33.7, Lon: -53.4},
		{Lat: -7.0, Lon: -34.9},
	}
	for _, p := range points {
		t.Run(p.String(), func(t *testing.T) {
			best, bestD := "", math.Inf(1)
			for _, m := range all {
				if d := p.DistanceM(m.Pos()); d < bestD {
					best, bestD = m.IBGECode, d
				}
			}
			m, d, ok := g.Nearest(p)
			if !ok || m.IBGECode != best || math.Abs(d-bestD) > 1e-6 {
				t.Errorf("Nearest(%v) = %s %.1f m, brute force %s %.1f m", p, m.IBGECode, d, best, bestD)
			}
		})
	}
}

func TestParseMunicipalitiesErrors(t *testing.T) {
	estados := "\uFEFFcodigo_uf,uf,nome,latitude,longitude,regiao\n33,RJ,Rio de Janeiro,-22.25,-42.66,Sudeste\n"
	cases := []struct {
		name, municipios, estados, want string
	}{
		{"unknown state", "codigo_ibge,nome,latitude,longitude,capital,codigo_uf\n3304557,Rio de Janeiro,-22.9,-43.2,1,35\n", estados, "codigo_uf"},
		{"bad capital flag", "codigo_ibge,nome,latitude,longitude,capital,codigo_uf\n3304557,Rio de Janeiro,-22.9,-43.2,x,33\n", estados, "capital"},
		{"coordinates outside Brazil", "codigo_ibge,nome,latitude,longitude,capital,codigo_uf\n3304557,Rio de Janeiro,-22.9,43.2,1,33\n", estados, "coordinates"},
		{"missing column", "codigo_ibge,nome,latitude,capital,codigo_uf\n", estados, "longitude"},
		{"unknown region", "codigo_ibge,nome,latitude,longitude,capital,codigo_uf\n", strings.Replace(estados, "Sudeste", "Leste", 1), "regiao"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := catalog.ParseMunicipalities(strings.NewReader(c.municipios), strings.NewReader(c.estados))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one mentioning %q", err, c.want)
			}
		})
	}
}

// TestRegionAt names real places of each macro-region and places outside
// Brazil.
func TestRegionAt(t *testing.T) {
	g := gazetteer(t)
	cases := []struct {
		name     string
		lat, lon float64
		want     catalog.Region
	}{
		{"Manaus (AM)", -3.119, -60.022, catalog.RegionNorth},
		{"Belém (PA)", -1.456, -48.502, catalog.RegionNorth},
		{"Recife (PE)", -8.054, -34.881, catalog.RegionNortheast},
		{"Salvador (BA)", -12.971, -38.511, catalog.RegionNortheast},
		{"Brasília (DF)", -15.794, -47.882, catalog.RegionCentralWest},
		{"Cuiabá (MT)", -15.601, -56.097, catalog.RegionCentralWest},
		{"Rio de Janeiro (RJ), Copacabana", -22.971, -43.182, catalog.RegionSoutheast},
		{"São Paulo (SP)", -23.550, -46.633, catalog.RegionSoutheast},
		{"Porto Alegre (RS)", -30.034, -51.217, catalog.RegionSouth},
		{"Curitiba (PR)", -25.428, -49.273, catalog.RegionSouth},
		{"Fernando de Noronha (PE), 350 km offshore but a municipality seat", -3.840, -32.411, catalog.RegionNortheast},
		{"Dortmund, Germany", 51.514, 7.466, ""},
		{"Atlantic, 400 km off Rio", -25.5, -40.0, ""},
		{"Buenos Aires, Argentina", -34.604, -58.382, ""},
		{"Lima, Peru", -12.046, -77.043, ""},
		{"North Pole", 90, 0, ""},
		{"invalid latitude", 91, 0, ""},
		{"NaN", math.NaN(), -43, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := g.RegionAt(appliance.LatLon{Lat: tc.lat, Lon: tc.lon}); got != tc.want {
				t.Fatalf("RegionAt(%v, %v) = %q, want %q", tc.lat, tc.lon, got, tc.want)
			}
		})
	}
}

// TestRegionAtMatchesNearest checks RegionAt against Nearest and the
// 150 km limit on a grid over and around Brazil.
func TestRegionAtMatchesNearest(t *testing.T) {
	g := gazetteer(t)
	for lat := -36.0; lat <= 8; lat += 0.37 {
		for lon := -76.0; lon <= -28; lon += 0.41 {
			p := appliance.LatLon{Lat: lat, Lon: lon}
			m, d, _ := g.Nearest(p)
			want := catalog.Region("")
			if d <= catalog.MaxRegionDistanceM {
				want = m.Region
			}
			if got := g.RegionAt(p); got != want {
				t.Fatalf("RegionAt(%v) = %q, want %q (nearest %s at %.0f m)", p, got, want, m.Name, d)
			}
		}
	}
}
