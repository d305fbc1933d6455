package search

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"

	"linkplan/appliance"
)

// Place is one Brazilian municipality as the search index sees it.
type Place = appliance.SearchPlace

// PlaceHit is one result of SearchPlaces.
//
// Hits are ordered by the importance rule: first by Match (the whole name
// equals the query; every query word is a whole word of the name; the name
// begins with the query; any other match), then, within one Match, state
// capitals by population (CapitalRank) before every other municipality, then
// by Score, then by folded name, then by IBGE code: a total order. So "rio"
// gives Rio de Janeiro, then Rio Branco, then the other towns named "Rio …",
// whatever the lengths of the names.
type PlaceHit = appliance.SearchPlaceHit

// Result size limits of SearchPlaces and SearchTowers, in hits.
const (
	DefaultLimit = 10                       // used when limit <= 0
	MaxLimit     = appliance.SearchMaxLimit // larger limits are clamped to this
)

// Query boosts (dimensionless multipliers: of bleve scores for towers, of
// the place index's text score for places).
const (
	boostExactName  = 8.0 // the whole query equals the whole folded name
	boostNamePrefix = 2.0 // the folded name starts with the whole query
	boostCapital    = 2.0 // state capitals rank above namesakes
	boostTerm       = 3.0 // a query word equals a name word
	boostPrefix     = 1.5 // the last query word is a prefix of a name word
	boostFuzzy      = 1.0 // a query word is within edit distance of a name word
	boostState      = 0.3 // a query word matches the state name or UF
)

// ufSuffix matches "Name, UF", "Name - UF", "Name/UF" and "Name (UF)".
var ufSuffix = regexp.MustCompile(`^(.*?)\s*(?:[,/(]|\s-)\s*([A-Za-z]{2})\s*\)?\s*$`)

// places is the immutable in-memory places index: a wordIndex over the
// folded name words, a second one over the folded state-name words, and
// the order keys of the importance rule. bleve is not used for places: its
// analyzer is (the same folding as the tower index), its index is not.
type places struct {
	an     analysis.Analyzer
	list   []Place // by internal id
	byCode map[string]Place
	words  map[string][]string // IBGE code -> folded words of the name
	ufs    map[string]bool     // upper-case UF codes present
	// per internal id: folded words of the name, the whole folded name,
	// the importance prefix and the lower-case UF.
	nameWords [][]string
	key       []string
	uf        []string
	names     *wordIndex         // name words -> place ids
	states    map[string][]int32 // folded state-name word -> place ids
	byUF      map[string][]int32 // lower-case UF -> place ids
	// keys are the folded whole names, sorted: they tell whether a
	// MatchWhole or MatchPrefix hit exists at all.
	keys []string
	// rank is the importance rank (0..26 capitals by population, 98 an
	// unlisted capital, 99 the rest) and order the position by folded
	// name then IBGE code, per internal id: integer sort keys.
	rank  []int
	order []int32

	scratch sync.Pool // of *placeScratch sized for list
}

func buildPlaces(ps []Place) (*places, error) {
	im, err := newPlaceMapping()
	if err != nil {
		return nil, err
	}
	pl := &places{
		an:     im.AnalyzerNamed(foldedAnalyzer),
		byCode: make(map[string]Place, len(ps)),
		words:  make(map[string][]string, len(ps)),
		ufs:    make(map[string]bool, 27),
		states: make(map[string][]int32),
		byUF:   make(map[string][]int32, 27),
	}
	for i, p := range ps {
		if p.IBGECode == "" || p.Name == "" {
			return nil, appliance.Invalid(fmt.Sprintf("places[%d]", i), "IBGE code and name are required")
		}
		if _, dup := pl.byCode[p.IBGECode]; dup {
			return nil, appliance.Invalid(fmt.Sprintf("places[%d].IBGECode", i), "duplicate IBGE code %q", p.IBGECode)
		}
		pl.byCode[p.IBGECode] = p
	}
	// Internal ids follow the IBGE code, so that nothing depends on the
	// order the places were given in.
	pl.list = slices.Clone(ps)
	slices.SortFunc(pl.list, func(a, b Place) int { return strings.Compare(a.IBGECode, b.IBGECode) })
	for i, p := range pl.list {
		ws := tokens(pl.an, p.Name)
		key := strings.Join(ws, " ")
		pl.words[p.IBGECode] = ws
		pl.nameWords = append(pl.nameWords, ws)
		pl.key = append(pl.key, key)
		pl.keys = append(pl.keys, key)
		uf := strings.ToLower(p.UF)
		pl.uf = append(pl.uf, uf)
		pl.byUF[uf] = append(pl.byUF[uf], int32(i))
		pl.ufs[strings.ToUpper(p.UF)] = true
		for _, w := range tokens(pl.an, p.StateName) {
			if s := pl.states[w]; len(s) == 0 || s[len(s)-1] != int32(i) {
				pl.states[w] = append(s, int32(i))
			}
		}
	}
	pl.names = newWordIndex(pl.nameWords)
	n := len(pl.list)
	pl.scratch.New = func() any {
		return &placeScratch{acc: make([]float64, n), cur: make([]float64, n), cnt: make([]uint8, n), seen: make([]uint8, n)}
	}
	slices.Sort(pl.keys)
	pl.rank = make([]int, len(pl.list))
	pl.order = make([]int32, len(pl.list))
	ids := make([]int32, len(pl.list))
	for i, p := range pl.list {
		ids[i] = int32(i)
		switch r := CapitalRank(p); {
		case r > 0:
			pl.rank[i] = r - 1
		case p.Capital:
			pl.rank[i] = 98
		default:
			pl.rank[i] = 99
		}
	}
	slices.SortFunc(ids, func(a, b int32) int {
		return cmp.Or(strings.Compare(pl.key[a], pl.key[b]), strings.Compare(pl.list[a].IBGECode, pl.list[b].IBGECode))
	})
	for pos, id := range ids {
		pl.order[id] = int32(pos)
	}
	return pl, nil
}

// capitalsByPopulation returns the IBGE codes of the 27 capitals (26 state
// capitals and Brasília), most populous first, after the population counted
// by the IBGE Censo Demográfico 2022. It is the importance rule of place
// search: the embedded municipality table (kelvins/municipios-brasileiros)
// has a capital flag but no population, so only capitals carry a rank.
func capitalsByPopulation() [27]string {
	return [...]string{
		"3550308", // São Paulo
		"3304557", // Rio de Janeiro
		"5300108", // Brasília
		"2304400", // Fortaleza
		"2927408", // Salvador
		"3106200", // Belo Horizonte
		"1302603", // Manaus
		"4106902", // Curitiba
		"2611606", // Recife
		"5208707", // Goiânia
		"4314902", // Porto Alegre
		"1501402", // Belém
		"2111300", // São Luís
		"2704302", // Maceió
		"5002704", // Campo Grande
		"2211001", // Teresina
		"2507507", // João Pessoa
		"2408102", // Natal
		"5103403", // Cuiabá
		"2800308", // Aracaju
		"4205407", // Florianópolis
		"1100205", // Porto Velho
		"1600303", // Macapá
		"1400100", // Boa Vista
		"1200401", // Rio Branco
		"3205309", // Vitória
		"1721000", // Palmas
	}
}

// CapitalRank returns the population rank of a capital (1 São Paulo, 2 Rio
// de Janeiro, ... 27 Palmas; IBGE Censo 2022), 0 for a place that is not a
// listed capital.
func CapitalRank(p Place) int {
	if !p.Capital {
		return 0
	}
	for i, code := range capitalsByPopulation() {
		if code == p.IBGECode {
			return i + 1
		}
	}
	return 0
}

func (pl *places) close() error { return nil }

// splitUF separates a trailing ", UF" from q when UF is a known state code.
func (pl *places) splitUF(q string) (string, string) {
	m := ufSuffix.FindStringSubmatch(q)
	if m == nil || strings.TrimSpace(m[1]) == "" {
		return q, ""
	}
	uf := strings.ToUpper(m[2])
	if !pl.ufs[uf] {
		return q, ""
	}
	return m[1], uf
}

func (pl *places) search(ctx context.Context, q, uf string, limit int) ([]PlaceHit, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("search places %q: %w", q, err)
	}
	if uf == "" {
		q, uf = pl.splitUF(q)
	}
	toks := tokens(pl.an, q)
	if len(toks) == 0 {
		return nil, nil
	}
	if len(toks) > maxPlaceWords {
		return nil, appliance.Invalid("q", "at most %d words", maxPlaceWords)
	}
	uf = strings.ToLower(strings.TrimSpace(uf))
	limit = clampLimit(limit)
	// Every query word must match (a name word exactly, as a prefix for
	// the last word, within the typo tolerance, or the state): a place is
	// a candidate when each word matched it, scored by the sum of its
	// words' scores. Dense per-place arrays (5,571 places: a few tens of
	// kB per query) instead of maps: this loop is the whole cost.
	sc := pl.scratch.Get().(*placeScratch)
	defer pl.scratch.Put(sc)
	defer sc.reset()
	acc, cur, cnt, seen := sc.acc, sc.cur, sc.cnt, sc.seen
	var touched []int32
	for i, w := range toks {
		mark := uint8(i + 1)
		touched = touched[:0]
		pl.wordScores(w, i == len(toks)-1, func(id int32, s float64, add bool) {
			if int(cnt[id]) != i {
				return // an earlier word missed it
			}
			if seen[id] != mark {
				if seen[id] == 0 {
					sc.dirty = append(sc.dirty, id)
				}
				seen[id], cur[id] = mark, 0
				touched = append(touched, id)
			}
			if add {
				cur[id] += s
			} else {
				cur[id] = max(cur[id], s)
			}
		})
		for _, id := range touched {
			cnt[id]++
			acc[id] += cur[id]
		}
		if len(touched) == 0 {
			return nil, nil
		}
	}
	// touched now holds the places every word matched. Keep the limit
	// best under the importance rule with an insertion-sorted page.
	whole := strings.Join(toks, " ")
	page := make([]placeCand, 0, limit+1)
	for _, id := range touched {
		if uf != "" && pl.uf[id] != uf {
			continue
		}
		s := acc[id]
		switch {
		case pl.key[id] == whole:
			s += boostExactName + boostNamePrefix
		case strings.HasPrefix(pl.key[id], whole):
			s += boostNamePrefix
		}
		if pl.list[id].Capital {
			s += boostCapital
		}
		c := placeCand{id: id, class: matchClass(toks, pl.nameWords[id]), rank: pl.rank[id], order: pl.order[id], score: s}
		if len(page) == limit && !c.before(page[limit-1]) {
			continue
		}
		at, _ := slices.BinarySearchFunc(page, c, func(a, b placeCand) int {
			if a.before(b) {
				return -1
			}
			return 1
		})
		page = slices.Insert(page, at, c)
		if len(page) > limit {
			page = page[:limit]
		}
	}
	out := make([]PlaceHit, len(page))
	for i, c := range page {
		out[i] = PlaceHit{Place: pl.list[c.id], Match: c.class, Score: c.score}
	}
	return out, nil
}

// maxPlaceWords is the most words a place query may have (the per-place
// word counters are bytes; no municipality name has more than 8 words).
const maxPlaceWords = 32

// placeScratch is the per-query work space of places.search: dense
// per-place arrays, reused through a sync.Pool (allocating and zeroing
// them for every query cost more than the search); dirty lists the
// entries to clear afterwards.
type placeScratch struct {
	acc, cur  []float64
	cnt, seen []uint8
	dirty     []int32
}

func (sc *placeScratch) reset() {
	for _, id := range sc.dirty {
		sc.acc[id], sc.cur[id], sc.cnt[id], sc.seen[id] = 0, 0, 0, 0
	}
	sc.dirty = sc.dirty[:0]
}

// placeCand is one candidate hit with its sort key under the importance
// rule.
type placeCand struct {
	id    int32
	class int     // match class, larger first
	rank  int     // importance rank (capital population rank), smaller first
	score float64 // text score, larger first
	order int32   // position by folded name then IBGE code, smaller first
}

func (a placeCand) before(b placeCand) bool {
	switch {
	case a.class != b.class:
		return a.class > b.class
	case a.rank != b.rank:
		return a.rank < b.rank
	case a.score != b.score:
		return a.score > b.score
	}
	return a.order < b.order
}

// wordScores returns the places one query word w matches, each with the
// word's score: over the place's name words, the best sum of boostTerm
// (the word equals w), boostPrefix (w is the last query word, of 2 runes
// or more, and begins it) and boostFuzzy (within the typo tolerance of w);
// plus boostState when w is a word of the state's name or (2 letters) its
// UF.
func (pl *places) wordScores(w string, last bool, fn func(id int32, score float64, add bool)) {
	var vs []int32
	var ss []float64
	add := func(v int, b float64) {
		for i, x := range vs {
			if x == int32(v) {
				ss[i] += b
				return
			}
		}
		vs, ss = append(vs, int32(v)), append(ss, b)
	}
	if v := pl.names.exact(w); v >= 0 {
		add(v, boostTerm)
	}
	n := len([]rune(w))
	if last && n >= 2 {
		lo, hi := pl.names.prefixRange(w)
		for v := lo; v < hi; v++ {
			if v == lo && pl.names.vocab[v] == w {
				ss[0] += boostPrefix // the exact word, added first
				continue
			}
			vs, ss = append(vs, int32(v)), append(ss, boostPrefix)
		}
	}
	pl.names.fuzzy(w, fuzziness(n), func(v int) { add(v, boostFuzzy) })
	for i, v := range vs {
		for _, id := range pl.names.postings[v] {
			fn(id, ss[i], false)
		}
	}
	for _, id := range pl.states[w] {
		fn(id, boostState, true)
	}
	if len(w) == 2 {
		for _, id := range pl.byUF[w] {
			fn(id, boostState, true)
		}
	}
}

// Match classes of PlaceHit.Match: how a place name matches the query,
// best first (see matchClass).
const (
	MatchOther  = 0 // prefix of a later word, typo, state or UF match
	MatchPrefix = 1 // the name begins with the query (last word as a prefix)
	MatchWords  = 2 // every query word is a whole word of the name
	MatchWhole  = 3 // the name is the query
)

// matchClass classifies how the folded query words q match the folded name
// words n.
func matchClass(q, n []string) int {
	if slices.Equal(q, n) {
		return MatchWhole
	}
	words := true
	for _, w := range q {
		words = words && slices.Contains(n, w)
	}
	if words {
		return MatchWords
	}
	if len(q) <= len(n) && slices.Equal(q[:len(q)-1], n[:len(q)-1]) && strings.HasPrefix(n[len(q)-1], q[len(q)-1]) {
		return MatchPrefix
	}
	return MatchOther
}

func clampLimit(limit int) int {
	switch {
	case limit <= 0:
		return DefaultLimit
	case limit > MaxLimit:
		return MaxLimit
	}
	return limit
}

// fuzziness returns the edit distance tolerated for a query word of n runes.
func fuzziness(n int) int {
	switch {
	case n >= 8:
		return 2
	case n >= 4:
		return 1
	}
	return 0
}
