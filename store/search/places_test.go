package search_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/store/search"
)

func TestPlacesData(t *testing.T) {
	t.Parallel()
	ps := loadPlaces(t)
	capitals, perRegion := 0, map[string]int{}
	for _, p := range ps {
		if p.Capital {
			capitals++
		}
		perRegion[p.Region]++
	}
	if len(ps) != 5571 || capitals != 27 {
		t.Fatalf("got %d places and %d capitals, want 5571 and 27", len(ps), capitals)
	}
	for _, r := range []string{"N", "NE", "CO", "SE", "S"} {
		if perRegion[r] == 0 {
			t.Errorf("no place in region %s", r)
		}
	}
	ix := openIndex(t, search.Options{})
	p, ok := ix.Place("3304557")
	if !ok || p.Name != "Rio de Janeiro" || p.UF != "RJ" || p.Region != "SE" || !p.Capital {
		t.Errorf("Place(3304557) = %+v, %v", p, ok)
	}
}

func TestSearchPlaces(t *testing.T) {
	t.Parallel()
	ix := openIndex(t, search.Options{})
	tests := []struct {
		name  string
		q     string
		first string // Name/UF of the first hit; "" means no hit
		next  string // Name/UF of the second hit, when checked
		allUF string // every hit must be in this UF, when set
	}{
		{name: "plain ascii finds accented", q: "sao paulo", first: "São Paulo/SP"},
		{name: "accented", q: "São Paulo", first: "São Paulo/SP"},
		{name: "upper case no accents", q: "GOIANIA", first: "Goiânia/GO", next: "Aparecida de Goiânia/GO"},
		{name: "capital with state name first", q: "rio", first: "Rio de Janeiro/RJ", next: "Rio Branco/AC"},
		{name: "type-ahead prefix", q: "petrop", first: "Petrópolis/RJ", next: "Nova Petrópolis/RS"},
		{name: "type-ahead two words", q: "belo horiz", first: "Belo Horizonte/MG"},
		{name: "uf suffix comma", q: "Rio de Janeiro, RJ", first: "Rio de Janeiro/RJ", allUF: "RJ"},
		{name: "uf suffix dash", q: "bom jesus - rs", first: "Bom Jesus/RS", allUF: "RS"},
		{name: "uf suffix slash", q: "Campinas/SP", first: "Campinas/SP", allUF: "SP"},
		{name: "uf as a word", q: "campinas sp", first: "Campinas/SP"},
		{name: "typo one edit", q: "florianopolys", first: "Florianópolis/SC"},
		{name: "typo two edits long word", q: "florinopolys", first: "Florianópolis/SC"},
		{name: "apostrophe dropped", q: "santa barbara doeste", first: "Santa Bárbara d'Oeste/SP"},
		{name: "apostrophe typed", q: "Santa Bárbara d'Oeste", first: "Santa Bárbara d'Oeste/SP"},
		{name: "hyphenated name", q: "embu guacu", first: "Embu-Guaçu/SP"},
		{name: "exact name beats longer names", q: "natal", first: "Natal/RN", next: "Feliz Natal/MT"},
		{name: "unknown uf suffix is text", q: "Porto, XY", first: ""},
		{name: "nothing matches", q: "xyzzyq", first: ""},
		{name: "empty", q: "   ", first: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hits, err := ix.SearchPlaces(t.Context(), tc.q, 10)
			if err != nil {
				t.Fatal(err)
			}
			if tc.first == "" {
				if len(hits) != 0 {
					t.Fatalf("got %d hits, first %s, want none", len(hits), label(hits[0].Place))
				}
				return
			}
			if len(hits) == 0 || label(hits[0].Place) != tc.first {
				t.Fatalf("first hit = %v, want %s", labels(hits), tc.first)
			}
			if tc.next != "" && (len(hits) < 2 || label(hits[1].Place) != tc.next) {
				t.Errorf("hits = %v, want %s second", labels(hits), tc.next)
			}
			for _, h := range hits {
				if tc.allUF != "" && h.Place.UF != tc.allUF {
					t.Errorf("hit %s outside %s", label(h.Place), tc.allUF)
				}
			}
		})
	}
}

func labels(hs []search.PlaceHit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = label(h.Place)
	}
	return out
}

func TestSearchPlacesInUF(t *testing.T) {
	t.Parallel()
	ix := openIndex(t, search.Options{})
	hits, err := ix.SearchPlacesInUF(t.Context(), "bom jesus", "pi", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || label(hits[0].Place) != "Bom Jesus/PI" {
		t.Fatalf("hits = %v, want Bom Jesus/PI first", labels(hits))
	}
	for _, h := range hits {
		if h.Place.UF != "PI" {
			t.Errorf("hit %s outside PI", label(h.Place))
		}
	}
	if _, err := ix.SearchPlacesInUF(t.Context(), "bom jesus", "XX", 10); !errors.Is(err, appliance.ErrInvalid) {
		t.Errorf("unknown uf: err = %v, want ErrInvalid", err)
	}
}

func TestSearchPlacesLimit(t *testing.T) {
	t.Parallel()
	ix := openIndex(t, search.Options{})
	tests := []struct {
		name  string
		limit int
		want  int
	}{
		{name: "default", limit: 0, want: search.DefaultLimit},
		{name: "negative is default", limit: -5, want: search.DefaultLimit},
		{name: "explicit", limit: 3, want: 3},
		{name: "clamped", limit: 1000, want: search.MaxLimit},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hits, err := ix.SearchPlaces(t.Context(), "sao", tc.limit) // more than 100 "São ..." places
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) != tc.want {
				t.Errorf("got %d hits, want %d", len(hits), tc.want)
			}
		})
	}
}

// TestSearchPlacesDeterministic checks that the order is a total order (score
// descending, then capital, then name, then IBGE code for equal scores) and
// that an index built from the places in another order answers identically.
func TestSearchPlacesDeterministic(t *testing.T) {
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (set SEED to reproduce)", seed)
	ps := loadPlaces(t)
	shuffled := slices.Clone(ps)
	rand.New(rand.NewPCG(seed, seed)).Shuffle(len(shuffled), func(i, j int) {
		shuffled[i], shuffled[j] = shuffled[j], shuffled[i]
	})
	a := openIndex(t, search.Options{})
	b := search.New(shuffled, search.Options{})
	if err := b.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, q := range []string{"bom jesus", "sao", "santa", "rio", "nova", "porto", "sao jose", "boa vista"} {
		t.Run(q, func(t *testing.T) {
			first, err := a.SearchPlaces(t.Context(), q, search.MaxLimit)
			if err != nil {
				t.Fatal(err)
			}
			for range 3 {
				again, err := a.SearchPlaces(t.Context(), q, search.MaxLimit)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(first, again) {
					t.Fatalf("repeated query differs:\n%v\n%v", labels(first), labels(again))
				}
			}
			other, err := b.SearchPlaces(t.Context(), q, search.MaxLimit)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(first, other) {
				t.Fatalf("index built in another order differs:\n%v\n%v", labels(first), labels(other))
			}
			for i := 1; i < len(first); i++ {
				if err := checkPlaceOrder(first[i-1], first[i]); err != "" {
					t.Fatalf("hit %d: %s", i, err)
				}
			}
		})
	}
}

// checkPlaceOrder returns why c may not follow p under the importance rule
// of PlaceHit, "" when it may.
func checkPlaceOrder(p, c search.PlaceHit) string {
	switch {
	case c.Match > p.Match:
		return fmt.Sprintf("%s (match %d) after %s (match %d)", label(c.Place), c.Match, label(p.Place), p.Match)
	case c.Match < p.Match:
		return ""
	}
	pr, cr := search.CapitalRank(p.Place), search.CapitalRank(c.Place)
	switch {
	case cr > 0 && (pr == 0 || cr < pr):
		return fmt.Sprintf("capital %s (rank %d) after %s (rank %d) in one match class", label(c.Place), cr, label(p.Place), pr)
	case pr > 0 && cr != pr:
		return ""
	}
	if c.Score > p.Score {
		return fmt.Sprintf("%s score %g > previous %s %g", label(c.Place), c.Score, label(p.Place), p.Score)
	}
	if c.Score == p.Score {
		if fp, fc := fold(p.Place.Name), fold(c.Place.Name); fp > fc || (fp == fc && p.Place.IBGECode > c.Place.IBGECode) {
			return fmt.Sprintf("equal-score hits out of order: %s (%s) before %s (%s)", label(p.Place), p.Place.IBGECode, label(c.Place), c.Place.IBGECode)
		}
	}
	return ""
}

func TestPlacesInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		places []search.Place
	}{
		{name: "duplicate code", places: []search.Place{{IBGECode: "1", Name: "A"}, {IBGECode: "1", Name: "B"}}},
		{name: "missing name", places: []search.Place{{IBGECode: "1"}}},
		{name: "missing code", places: []search.Place{{Name: "A"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ix := search.New(tc.places, search.Options{})
			err := ix.Open(t.Context())
			if !errors.Is(err, appliance.ErrInvalid) {
				t.Errorf("Open err = %v, want ErrInvalid", err)
			}
			_ = ix.Close()
		})
	}
}

func FuzzSearchPlaces(f *testing.F) {
	for _, s := range []string{"sao paulo", "Rio de Janeiro, RJ", "GOIANIA", "petrop", "Campinas/SP", "bom jesus - rs",
		"Santa Bárbara d'Oeste", "Embu-Guaçu", "(RJ)", ", SP", "a*b?c", "\xff\xfe", ""} {
		f.Add(s)
	}
	ix := openIndex(f, search.Options{})
	f.Fuzz(func(t *testing.T, q string) {
		a, err := ix.SearchPlaces(t.Context(), q, 5)
		if err != nil {
			t.Fatalf("SearchPlaces(%q): %v", q, err)
		}
		if len(a) > 5 {
			t.Fatalf("SearchPlaces(%q): %d hits > limit 5", q, len(a))
		}
		b, err := ix.SearchPlaces(t.Context(), q, 5)
		if err != nil || !slices.Equal(a, b) {
			t.Fatalf("SearchPlaces(%q) not repeatable: %v / %v (%v)", q, labels(a), labels(b), err)
		}
	})
}

// TestSearchPlacesTooManyWords: the per-place word counters of the place
// index are bounded, so a query of more words is refused with the field.
func TestSearchPlacesTooManyWords(t *testing.T) {
	t.Parallel()
	ix := openIndex(t, search.Options{})
	q := strings.Repeat("rio ", 33)
	if _, err := ix.SearchPlaces(t.Context(), q, 10); !errors.Is(err, appliance.ErrInvalid) {
		t.Fatalf("33 words: err = %v, want ErrInvalid", err)
	}
	if hits, err := ix.SearchPlaces(t.Context(), strings.Repeat("rio ", 32), 10); err != nil || len(hits) == 0 {
		t.Fatalf("32 words: %d hits, err %v; want hits", len(hits), err)
	}
}
