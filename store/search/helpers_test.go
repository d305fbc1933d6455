package search_test

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"linkplan/appliance"
	"linkplan/store/search"
)

// regions maps the regiao column of estados.csv to the macro-region code.
var regions = map[string]string{
	"Norte": "N", "Nordeste": "NE", "Centro-Oeste": "CO", "Sudeste": "SE", "Sul": "S",
}

func readCSV(tb testing.TB, name string) [][]string {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")) // estados.csv starts with a UTF-8 BOM
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		tb.Fatalf("parse %s: %v", name, err)
	}
	return rows[1:] // drop the header
}

// loadPlaces reads the 5,571 municipalities of testdata/municipios.csv joined
// with their states from testdata/estados.csv.
func loadPlaces(tb testing.TB) []search.Place {
	tb.Helper()
	type state struct{ uf, name, region string }
	states := map[string]state{}
	for _, r := range readCSV(tb, "estados.csv") {
		// codigo_uf,uf,nome,latitude,longitude,regiao
		reg, ok := regions[r[5]]
		if !ok {
			tb.Fatalf("estados.csv: unknown region %q", r[5])
		}
		states[r[0]] = state{uf: r[1], name: r[2], region: reg}
	}
	rows := readCSV(tb, "municipios.csv")
	out := make([]search.Place, 0, len(rows))
	for _, r := range rows {
		// codigo_ibge,nome,latitude,longitude,capital,codigo_uf,...
		lat, err1 := strconv.ParseFloat(r[2], 64)
		lon, err2 := strconv.ParseFloat(r[3], 64)
		st, ok := states[r[5]]
		if err1 != nil || err2 != nil || !ok {
			tb.Fatalf("municipios.csv: bad row %q", r)
		}
		out = append(out, search.Place{
			IBGECode: r[0], Name: r[1], UF: st.uf, StateName: st.name, Region: st.region,
			Lat: lat, Lon: lon, Capital: r[4] == "1",
		})
	}
	return out
}

func label(p search.Place) string { return fmt.Sprintf("%s/%s", p.Name, p.UF) }

// synthOperators are the operators of the synthetic towers.
var synthOperators = []string{"Vivo", "TIM", "Claro", "Oi", "Algar", "Sercomtel", "Brisanet"}

// streets are the street names of the synthetic addresses.
var streets = []string{
	"Rua das Flores", "Avenida Brasil", "Rua São João", "Travessa Tiradentes", "Avenida Getúlio Vargas",
	"Rua Sete de Setembro", "Rodovia BR-116", "Rua Dom Pedro II", "Alameda Santos", "Estrada do Açude",
}

// synthTowers returns n synthetic towers spread over the municipalities,
// deterministically: tower i sits in municipality i mod len(places) with an
// offset of up to about 0.01 degrees.
func synthTowers(places []search.Place, n int) ([]*appliance.Tower, map[string]string) {
	out := make([]*appliance.Tower, n)
	addr := make(map[string]string, n)
	for i := range n {
		p := places[(i*7919)%len(places)]
		key := fmt.Sprintf("%010d", 1000000000+i*37)
		t := &appliance.Tower{
			ID:            appliance.TowerID(appliance.SourceSynthetic, key),
			Source:        appliance.SourceSynthetic,
			Operator:      synthOperators[i%len(synthOperators)],
			Lat:           p.Lat + float64(i%21-10)*0.001,
			Lon:           p.Lon + float64(i%17-8)*0.001,
			HeightM:       appliance.DefaultTowerHeightM,
			Placement:     appliance.PlacementCentroid,
			Synthetic:     true,
			StationNumber: key,
			Municipality:  p.Name,
			UF:            p.UF,
			IBGECode:      p.IBGECode,
		}
		out[i] = t
		addr[t.ID] = fmt.Sprintf("%s, %d", streets[i%len(streets)], 10+i%1990)
	}
	return out, addr
}

// foldRunes is the naive folding of the test oracle and the baseline
// benchmark: the accented letters of Portuguese names.
var foldRunes = strings.NewReplacer(
	"á", "a", "à", "a", "â", "a", "ã", "a", "ä", "a", "é", "e", "ê", "e", "è", "e", "í", "i", "î", "i",
	"ó", "o", "ô", "o", "õ", "o", "ö", "o", "ú", "u", "ü", "u", "ç", "c", "ñ", "n", "'", "", "’", "",
)

// fold lower-cases s and strips Portuguese accents and apostrophes.
func fold(s string) string { return foldRunes.Replace(strings.ToLower(s)) }

// words returns the folded words of s.
func words(s string) []string {
	return strings.FieldsFunc(fold(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// loadERBs reads the 104 real Anatel stations of testdata/anatel_erbs_sample.csv
// as towers; the map gives each tower's address (street, district).
func loadERBs(tb testing.TB) ([]*appliance.Tower, map[string]string) {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "anatel_erbs_sample.csv"))
	if err != nil {
		tb.Fatal(err)
	}
	r := csv.NewReader(bytes.NewReader(b))
	r.Comma = ';'
	rows, err := r.ReadAll()
	if err != nil {
		tb.Fatalf("parse anatel_erbs_sample.csv: %v", err)
	}
	var out []*appliance.Tower
	addr := map[string]string{}
	for _, row := range rows[1:] {
		// Número Estação;Operadora;SiglaUf;MUN;Bairro;Logradouro;Latitude;Longitude;IBGE;...
		lat, err1 := strconv.ParseFloat(row[6], 64)
		lon, err2 := strconv.ParseFloat(row[7], 64)
		if err1 != nil || err2 != nil {
			tb.Fatalf("anatel_erbs_sample.csv: bad row %q", row)
		}
		t := &appliance.Tower{
			ID: appliance.TowerID(appliance.SourceAnatel, row[0]), Source: appliance.SourceAnatel,
			Operator: strings.TrimSpace(row[1]), Lat: lat, Lon: lon, HeightM: appliance.DefaultTowerHeightM,
			StationNumber: row[0], UF: row[2], Municipality: row[3], IBGECode: row[8],
		}
		out = append(out, t)
		addr[t.ID] = strings.TrimSpace(row[5]) + ", " + strings.TrimSpace(row[4])
	}
	return out, addr
}

// addressOf returns an Options.Address function over addr.
func addressOf(addr map[string]string) func(*appliance.Tower) string {
	return func(t *appliance.Tower) string { return addr[t.ID] }
}

// openIndex opens an index over the real municipalities and closes it at
// the end of the test.
func openIndex(tb testing.TB, opts search.Options) *search.Index {
	tb.Helper()
	ix := search.New(loadPlaces(tb), opts)
	if err := ix.Open(tb.Context()); err != nil {
		tb.Fatalf("open: %v", err)
	}
	tb.Cleanup(func() {
		if err := ix.Close(); err != nil {
			tb.Errorf("close: %v", err)
		}
	})
	return ix
}
