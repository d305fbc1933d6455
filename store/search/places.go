package search

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/search/query"

	"linkplan/appliance"
)

// Place is one Brazilian municipality as the search index sees it.
type Place struct {
	IBGECode  string  // 7-digit IBGE municipality code, unique; the document id
	Name      string  // municipality name with accents, e.g. "São Paulo"
	UF        string  // two-letter state code, upper case, e.g. "SP"
	StateName string  // state name with accents, e.g. "São Paulo"
	Region    string  // macro-region: "N", "NE", "CO", "SE" or "S"
	Lat       float64 // centroid latitude, degrees WGS84
	Lon       float64 // centroid longitude, degrees WGS84
	Capital   bool    // true for a state (or federal) capital
}

// PlaceHit is one result of SearchPlaces.
//
// Hits are ordered by the importance rule: first by Match (the whole name
// equals the query; every query word is a whole word of the name; the name
// begins with the query; any other match), then, within one Match, state
// capitals by population (CapitalRank) before every other municipality, then
// by Score, then by folded name, then by IBGE code: a total order. So "rio"
// gives Rio de Janeiro, then Rio Branco, then the other towns named "Rio …",
// whatever the lengths of the names.
type PlaceHit struct {
	Place Place
	// Match is the match class, MatchWhole (best) to MatchOther.
	Match int
	// Score is the bleve relevance score (dimensionless, higher is better)
	// of the text match; it orders hits of one Match and importance.
	Score float64
}

// Result size limits of SearchPlaces and SearchTowers, in hits.
const (
	DefaultLimit = 10  // used when limit <= 0
	MaxLimit     = 100 // larger limits are clamped to this
)

// Query boosts (dimensionless multipliers of bleve scores).
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

// places is the immutable in-memory places index.
type places struct {
	idx    bleve.Index
	an     analysis.Analyzer
	byCode map[string]Place
	words  map[string][]string // IBGE code -> folded words of the name
	ufs    map[string]bool     // upper-case UF codes present
	// keys are the folded whole names, sorted, and nameWords every folded
	// name word: they tell which match classes a query can have at all,
	// so that search skips the searches of the others.
	keys      []string
	nameWords map[string]bool
}

func buildPlaces(ps []Place) (*places, error) {
	im, err := newPlaceMapping()
	if err != nil {
		return nil, err
	}
	idx, err := newMemIndex(im)
	if err != nil {
		return nil, fmt.Errorf("create places index: %w", err)
	}
	pl := &places{
		idx:    idx,
		an:     im.AnalyzerNamed(foldedAnalyzer),
		byCode: make(map[string]Place, len(ps)),
		words:  make(map[string][]string, len(ps)),
		ufs:    make(map[string]bool, 27),

		nameWords: make(map[string]bool, len(ps)),
	}
	b := idx.NewBatch()
	for i, p := range ps {
		if p.IBGECode == "" || p.Name == "" {
			_ = idx.Close()
			return nil, appliance.Invalid(fmt.Sprintf("places[%d]", i), "IBGE code and name are required")
		}
		if _, dup := pl.byCode[p.IBGECode]; dup {
			_ = idx.Close()
			return nil, appliance.Invalid(fmt.Sprintf("places[%d].IBGECode", i), "duplicate IBGE code %q", p.IBGECode)
		}
		pl.byCode[p.IBGECode] = p
		pl.words[p.IBGECode] = tokens(pl.an, p.Name)
		pl.keys = append(pl.keys, strings.Join(pl.words[p.IBGECode], " "))
		for _, w := range pl.words[p.IBGECode] {
			pl.nameWords[w] = true
		}
		pl.ufs[strings.ToUpper(p.UF)] = true
		if err := b.Index(p.IBGECode, pl.doc(p)); err != nil {
			_ = idx.Close()
			return nil, fmt.Errorf("index place %s: %w", p.IBGECode, err)
		}
	}
	if err := idx.Batch(b); err != nil {
		_ = idx.Close()
		return nil, fmt.Errorf("index places: %w", err)
	}
	slices.Sort(pl.keys)
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

// importance returns the tie-break prefix of p's order key: "0" and the
// two-digit population rank for a listed capital ("000" São Paulo, "001"
// Rio de Janeiro, ...), "099" for a capital the list lacks, "1" for every
// other municipality. Smaller sorts first.
func importance(p Place) string {
	if r := CapitalRank(p); r > 0 {
		return fmt.Sprintf("0%02d", r-1)
	}
	if p.Capital {
		return "099"
	}
	return "1"
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

func (pl *places) doc(p Place) map[string]any {
	key := strings.Join(tokens(pl.an, p.Name), " ")
	capital, order := "0", importance(p)
	if p.Capital {
		capital = "1"
	}
	return map[string]any{
		fName:       p.Name,
		fState:      p.StateName,
		fUF:         strings.ToLower(p.UF),
		fKey:        key,
		fCapital:    capital,
		fImportance: order,
		fOrder:      order + key + "\x00" + p.IBGECode,
	}
}

func (pl *places) close() error { return pl.idx.Close() }

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
	if uf == "" {
		q, uf = pl.splitUF(q)
	}
	toks := tokens(pl.an, q)
	if len(toks) == 0 {
		return nil, nil
	}
	uf = strings.ToLower(strings.TrimSpace(uf))
	// The match class is part of the query: one search per class, best
	// class first, sorted by the rest of the rule (importance, score, order
	// key) inside bleve, so only about a page of hits is fetched per class
	// and no match is left out for its score. A class's query also matches
	// places of better classes (a whole-name match has every word); they
	// were listed by their own class, so each search fetches as many more
	// as the better classes matched in all, and skips them.
	limit = clampLimit(limit)
	hits := make([]PlaceHit, 0, limit)
	better := 0 // places matched by the better classes' searches
	for class := MatchWhole; class >= MatchOther && len(hits) < limit; class-- {
		if !pl.possible(class, toks) {
			continue
		}
		req := bleve.NewSearchRequestOptions(placeQuery(toks, uf, classQuery(class, toks)), limit-len(hits)+better, 0, false)
		req.SortBy([]string{fImportance, "-_score", fOrder})
		res, err := pl.idx.SearchInContext(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("search places %q: %w", q, err)
		}
		for _, h := range res.Hits {
			if c := matchClass(toks, pl.words[h.ID]); c == class && len(hits) < limit {
				hits = append(hits, PlaceHit{Place: pl.byCode[h.ID], Score: h.Score, Match: c})
			}
		}
		better += int(res.Total)
	}
	return hits, nil
}

// possible reports whether some place name has the match class with the
// query words toks (MatchOther: always), from the names alone.
func (pl *places) possible(class int, toks []string) bool {
	whole := strings.Join(toks, " ")
	switch class {
	case MatchWhole:
		_, found := slices.BinarySearch(pl.keys, whole)
		return found
	case MatchWords:
		for _, w := range toks {
			if !pl.nameWords[w] {
				return false
			}
		}
		return true
	case MatchPrefix:
		i, _ := slices.BinarySearch(pl.keys, whole)
		return i < len(pl.keys) && strings.HasPrefix(pl.keys[i], whole)
	}
	return true
}

// classQuery matches the places of one match class or better (nil for
// MatchOther: every match); the classes nest that way except that a Words
// match need not be a Prefix one, which the Prefix search then skips
// anyway. Its score is 0, so that Score stays the text score of placeQuery.
// (bleve's must-not clauses would exclude the better classes in the index,
// but made scores depend on the order the places were indexed in.)
func classQuery(class int, toks []string) query.Query {
	whole := strings.Join(toks, " ")
	switch class {
	case MatchWhole:
		t := query.NewTermQuery(whole)
		t.SetField(fKey)
		t.SetBoost(0)
		return t
	case MatchWords:
		ws := make([]query.Query, len(toks))
		for i, w := range toks {
			t := query.NewTermQuery(w)
			t.SetField(fName)
			t.SetBoost(0)
			ws[i] = t
		}
		return query.NewConjunctionQuery(ws)
	case MatchPrefix:
		p := query.NewPrefixQuery(whole)
		p.SetField(fKey)
		p.SetBoost(0)
		return p
	}
	return nil
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

// wordQuery matches one query word against a name field: exact word, prefix
// (last word only, type-ahead) and fuzzy variants.
func wordQuery(field, w string, last bool) []query.Query {
	t := query.NewTermQuery(w)
	t.SetField(field)
	t.SetBoost(boostTerm)
	qs := []query.Query{t}
	n := len([]rune(w))
	if last && n >= 2 {
		p := query.NewPrefixQuery(w)
		p.SetField(field)
		p.SetBoost(boostPrefix)
		qs = append(qs, p)
	}
	if f := fuzziness(n); f > 0 {
		fz := query.NewFuzzyQuery(w)
		fz.SetField(field)
		fz.SetFuzziness(f)
		fz.SetBoost(boostFuzzy)
		qs = append(qs, fz)
	}
	return qs
}

// placeQuery matches places whose names match every query word (exactly,
// as a prefix for the last one, or within the typo tolerance) or the state,
// restricted to the state uf ("" any) and to the places class (nil any)
// matches; its score is the text score of the documented rule. class is
// one more must clause of the same boolean query: wrapped in a conjunction
// with it, bleve skipped should clauses when advancing, and the scores
// depended on the order the places were indexed in.
func placeQuery(toks []string, uf string, class query.Query) query.Query {
	must := make([]query.Query, 0, len(toks)+1)
	for i, w := range toks {
		last := i == len(toks)-1
		alts := wordQuery(fName, w, last)
		st := query.NewTermQuery(w)
		st.SetField(fState)
		st.SetBoost(boostState)
		alts = append(alts, st)
		if len(w) == 2 {
			u := query.NewTermQuery(w)
			u.SetField(fUF)
			u.SetBoost(boostState)
			alts = append(alts, u)
		}
		must = append(must, query.NewDisjunctionQuery(alts))
	}
	if uf != "" {
		u := query.NewTermQuery(uf)
		u.SetField(fUF)
		u.SetBoost(0)
		must = append(must, u)
	}
	if class != nil {
		must = append(must, class)
	}
	whole := strings.Join(toks, " ")
	exact := query.NewTermQuery(whole)
	exact.SetField(fKey)
	exact.SetBoost(boostExactName)
	pfx := query.NewPrefixQuery(whole)
	pfx.SetField(fKey)
	pfx.SetBoost(boostNamePrefix)
	capital := query.NewTermQuery("1")
	capital.SetField(fCapital)
	capital.SetBoost(boostCapital)
	return query.NewBooleanQuery(must, []query.Query{exact, pfx, capital}, nil)
}
