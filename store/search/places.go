package search

import (
	"context"
	"fmt"
	"regexp"
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
type PlaceHit struct {
	Place Place
	// Score is the bleve relevance score (dimensionless, higher is better).
	// Hits with equal scores are ordered capital first, then by folded name,
	// then by IBGE code.
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
	ufs    map[string]bool // upper-case UF codes present
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
		ufs:    make(map[string]bool, 27),
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
	return pl, nil
}

func (pl *places) doc(p Place) map[string]any {
	key := strings.Join(tokens(pl.an, p.Name), " ")
	capital, order := "0", "1"
	if p.Capital {
		capital, order = "1", "0"
	}
	return map[string]any{
		fName:    p.Name,
		fState:   p.StateName,
		fUF:      strings.ToLower(p.UF),
		fKey:     key,
		fCapital: capital,
		fOrder:   order + key + "\x00" + p.IBGECode,
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
	qq := placeQuery(toks, strings.ToLower(strings.TrimSpace(uf)))
	req := bleve.NewSearchRequestOptions(qq, clampLimit(limit), 0, false)
	req.SortBy([]string{"-_score", fOrder})
	res, err := pl.idx.SearchInContext(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("search places %q: %w", q, err)
	}
	hits := make([]PlaceHit, 0, len(res.Hits))
	for _, h := range res.Hits {
		hits = append(hits, PlaceHit{Place: pl.byCode[h.ID], Score: h.Score})
	}
	return hits, nil
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

func placeQuery(toks []string, uf string) query.Query {
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
