package search

import (
	"slices"
	"strings"
)

// wordIndex is the purpose-built in-memory index of place search (see the
// package doc, "Places"): the distinct folded words of a set of texts,
// sorted (exact match by binary search, a prefix as one contiguous range),
// each with the sorted ids of the texts that contain it, and the deletion
// neighbourhood of every word (SymSpell: each string obtained by deleting
// up to two runes, mapped to the words it came from), so that the words
// within edit distance 1 or 2 of a query word are found by a few map
// look-ups and verified with a bounded Levenshtein distance, instead of a
// scan of the vocabulary or an automaton over a term dictionary.
type wordIndex struct {
	vocab    []string           // distinct words, sorted
	postings [][]int32          // vocab index -> sorted text ids
	deletes  map[string][]int32 // deletion variant -> vocab indexes
}

// maxDeletes is the largest edit distance the deletion map serves
// (fuzziness never asks for more).
const maxDeletes = 2

// newWordIndex indexes texts[i] (each a list of folded words) under id i.
func newWordIndex(texts [][]string) *wordIndex {
	byWord := make(map[string][]int32)
	for i, ws := range texts {
		for _, w := range ws {
			ps := byWord[w]
			if len(ps) == 0 || ps[len(ps)-1] != int32(i) {
				byWord[w] = append(ps, int32(i))
			}
		}
	}
	wi := &wordIndex{vocab: make([]string, 0, len(byWord)), deletes: make(map[string][]int32)}
	for w := range byWord {
		wi.vocab = append(wi.vocab, w)
	}
	slices.Sort(wi.vocab)
	wi.postings = make([][]int32, len(wi.vocab))
	for v, w := range wi.vocab {
		wi.postings[v] = byWord[w]
		// Fuzziness is 1 for query words of 4 to 7 runes and 2 from 8, so
		// a word within distance 1 of a query word has at least 3 runes
		// and one within distance 2 at least 6: shorter words need no
		// deletions, and words of 3 to 5 runes only the first level.
		n := len([]rune(w))
		switch {
		case n >= 6:
			wi.addDeletes(w, int32(v), maxDeletes)
		case n >= 3:
			wi.addDeletes(w, int32(v), 1)
		}
	}
	return wi
}

func (wi *wordIndex) addDeletes(w string, v int32, depth int) {
	seen := map[string]bool{}
	for _, d := range deletions(w, depth) {
		if !seen[d] {
			seen[d] = true
			wi.deletes[d] = append(wi.deletes[d], v)
		}
	}
}

// deletions returns w and every string obtained from it by deleting up to
// depth runes (with repeats).
func deletions(w string, depth int) []string {
	out := []string{w}
	level := []string{w}
	for range depth {
		var next []string
		for _, s := range level {
			rs := []rune(s)
			if len(rs) <= 1 {
				continue
			}
			for i := range rs {
				next = append(next, string(rs[:i])+string(rs[i+1:]))
			}
		}
		out = append(out, next...)
		level = next
	}
	return out
}

// exact returns the vocab index of w, or -1.
func (wi *wordIndex) exact(w string) int {
	if i, ok := slices.BinarySearch(wi.vocab, w); ok {
		return i
	}
	return -1
}

// prefixRange returns the vocab indexes [lo, hi) of the words beginning
// with p.
func (wi *wordIndex) prefixRange(p string) (int, int) {
	lo, _ := slices.BinarySearch(wi.vocab, p)
	hi := lo
	for hi < len(wi.vocab) && strings.HasPrefix(wi.vocab[hi], p) {
		hi++
	}
	return lo, hi
}

// fuzzy calls fn with the vocab index of every word within Levenshtein
// distance k (runes) of w, each once.
func (wi *wordIndex) fuzzy(w string, k int, fn func(v int)) {
	if k <= 0 {
		return
	}
	seen := map[int32]bool{}
	qr := []rune(w)
	for _, d := range deletions(w, k) {
		for _, v := range wi.deletes[d] {
			if seen[v] {
				continue
			}
			seen[v] = true
			if levenshteinWithin(qr, []rune(wi.vocab[v]), k) {
				fn(int(v))
			}
		}
	}
}

// levenshteinWithin reports whether the Levenshtein distance (insertions,
// deletions, substitutions of runes) between a and b is at most k.
func levenshteinWithin(a, b []rune, k int) bool {
	if d := len(a) - len(b); d > k || -d > k {
		return false
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			c = min(c, prev[j]+1, cur[j-1]+1)
			cur[j] = c
			best = min(best, c)
		}
		if best > k {
			return false
		}
		prev, cur = cur, prev
	}
	return prev[len(b)] <= k
}
