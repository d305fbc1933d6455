package search_test

import (
	"slices"
	"testing"

	"linkplan/store/search"
)

// TestFinding9PlacesImportance is the regression test of the places item of
// issue 7, finding 9: /places?q=rio ranked Rio Branco above Rio de Janeiro.
// The composition root passes no state names (the embedded municipality
// table has none), so the name-length term of the text score decided; the
// documented importance rule (PlaceHit) now does. Both with and without
// state names, since the rule must not depend on a coincidence of the state
// name.
func TestFinding9PlacesImportance(t *testing.T) {
	withStates := loadPlaces(t)
	bare := slices.Clone(withStates)
	for i := range bare {
		bare[i].StateName = ""
	}
	tests := []struct {
		name string
		q    string
		want []string // the first hits, in order
	}{
		{name: "rio: the larger capital first", q: "rio", want: []string{"Rio de Janeiro/RJ", "Rio Branco/AC"}},
		{name: "sao: capitals by population", q: "sao", want: []string{"São Paulo/SP", "São Luís/MA"}},
		{name: "porto: the whole name first, then capitals", q: "porto", want: []string{"Porto/PI", "Porto Alegre/RS", "Porto Velho/RO"}},
		{name: "campo grande: capital before namesake", q: "campo grande", want: []string{"Campo Grande/MS", "Campo Grande/AL"}},
		{name: "natal: whole word before prefix", q: "natal", want: []string{"Natal/RN", "Feliz Natal/MT", "Natalândia/MG"}},
		{name: "boa vista: capital of the same name first", q: "boa vista", want: []string{"Boa Vista/RR"}},
		{name: "type-ahead keeps prefix before inner word", q: "petrop", want: []string{"Petrópolis/RJ", "Nova Petrópolis/RS"}},
	}
	for _, mode := range []struct {
		name   string
		places []search.Place
	}{{"without state names", bare}, {"with state names", withStates}} {
		t.Run(mode.name, func(t *testing.T) {
			ix := search.New(mode.places, search.Options{})
			if err := ix.Open(t.Context()); err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					hits, err := ix.SearchPlaces(t.Context(), tc.q, search.MaxLimit)
					if err != nil {
						t.Fatal(err)
					}
					got := labels(hits)
					if len(got) < len(tc.want) || !slices.Equal(got[:len(tc.want)], tc.want) {
						t.Fatalf("first hits %v, want %v", got[:min(len(got), len(tc.want)+2)], tc.want)
					}
					for i := 1; i < len(hits); i++ {
						if err := checkPlaceOrder(hits[i-1], hits[i]); err != "" {
							t.Fatalf("hit %d: %s", i, err)
						}
					}
				})
			}
		})
	}
	if got := search.CapitalRank(search.Place{IBGECode: "3304557", Capital: true}); got != 2 {
		t.Errorf("CapitalRank(Rio de Janeiro) = %d, want 2", got)
	}
}
