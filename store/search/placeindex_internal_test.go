package search

import (
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"
)

// levenshtein is the plain dynamic-programming distance in runes, the
// reference of levenshteinWithin and wordIndex.fuzzy.
func levenshtein(a, b []rune) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			c := d[i-1][j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			d[i][j] = min(c, d[i-1][j]+1, d[i][j-1]+1)
		}
	}
	return d[len(a)][len(b)]
}

// TestWordIndexFuzzyMatchesScan checks the deletion-neighbourhood look-up
// against a scan of the whole vocabulary with the reference distance, on
// random words over a small alphabet (so that near neighbours abound).
func TestWordIndexFuzzyMatchesScan(t *testing.T) {
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (set SEED to reproduce)", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	word := func() string {
		rs := make([]rune, 1+r.IntN(11))
		for i := range rs {
			rs[i] = []rune("abcdeã")[r.IntN(6)]
		}
		return string(rs)
	}
	texts := make([][]string, 300)
	for i := range texts {
		texts[i] = []string{word(), word()}
	}
	wi := newWordIndex(texts)
	for range 400 {
		q := word()
		k := fuzziness(len([]rune(q)))
		var got, want []int
		wi.fuzzy(q, k, func(v int) { got = append(got, v) })
		slices.Sort(got)
		if k > 0 {
			for v, w := range wi.vocab {
				if levenshtein([]rune(q), []rune(w)) <= k {
					want = append(want, v)
				}
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("fuzzy(%q, %d) = %v, want %v", q, k, got, want)
		}
		for _, w := range wi.vocab[:20] {
			d := levenshtein([]rune(q), []rune(w))
			for k := range 4 {
				if levenshteinWithin([]rune(q), []rune(w), k) != (d <= k) {
					t.Fatalf("levenshteinWithin(%q, %q, %d) disagrees with distance %d", q, w, k, d)
				}
			}
		}
	}
}
