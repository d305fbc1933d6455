package catalog_test

import (
	"os"
	"testing"

	"linkplan/appliance/catalog"
)

// TestAddresses checks the street address each registry format carries,
// on the real samples (the tower search indexes it).
func TestAddresses(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		format     catalog.Format
		station    string
		want       string
	}{
		{"ERBs: street and district, trailing separators trimmed", "testdata/anatel_erbs_sample.csv", catalog.FormatAnatelERBs, "anatel:1000017564", "AVENIDA LÚCIO COSTA, 2630, BARRA DA TIJUCA"},
		{"licensed stations: quoted street", "testdata/anatel_estacoes_licenciadas_smp_sample.csv", catalog.FormatAnatelLicenciadas, "anatel:3565", "Rua Duque de Caxias,298,Centro"},
		{"MOSAICO licensing: address and complement", "testdata/anatel_mosaico_licenciamento_sample.tsv", catalog.FormatMosaicoLicenciamento, "anatel:738255", "AV. ANTÔNIO CARLOS MAGALHÃES, RODOVIÁRIA"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := os.Open(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			res, err := catalog.Parse(tc.format, f)
			if err != nil {
				t.Fatal(err)
			}
			for _, tw := range res.Towers() {
				if tw.ID == tc.station {
					if tw.Address != tc.want {
						t.Fatalf("address %q, want %q", tw.Address, tc.want)
					}
					return
				}
			}
			t.Fatalf("station %s not found", tc.station)
		})
	}
}
