package catalog_test

import (
	"bytes"
	"os"
	"testing"

	"linkplan/appliance/catalog"
)

func BenchmarkLoadGazetteer(b *testing.B) {
	mun, _ := os.ReadFile("data/municipios.csv")
	est, _ := os.ReadFile("data/estados.csv")
	b.ReportAllocs()
	for b.Loop() {
		ms, err := catalog.ParseMunicipalities(bytes.NewReader(mun), bytes.NewReader(est))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := catalog.NewGazetteer(ms); err != nil {
			b.Fatal(err)
		}
	}
}
