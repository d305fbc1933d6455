package appliance

// This file holds the types of full-text search (store/search) that the
// handlers name: store/search declares them as aliases, so web/api reads
// search answers without importing the store.

// Result size limits of full-text search (store/search.SearchPlaces and
// SearchTowers), in hits.
const (
	SearchMaxLimit = 100 // larger limits are clamped to this
	// SearchMaxWindow bounds offset+limit of a tower search, in hits: deeper
	// pages cost a heap of offset+limit entries per query.
	SearchMaxWindow = 10000
)

// SearchScope says whose user-registered towers a tower search may return.
// Catalogue towers (regulator, crowd-sourced, synthetic) are visible to
// every scope. The zero value sees catalogue towers only, so a forgotten
// scope fails closed.
type SearchScope struct {
	All    bool   // operator view: every tenant's towers (admin keys)
	Tenant string // the caller's tenant id: its own user towers are visible too
}

// Sees reports whether t is visible in the scope: the rule the index query
// applies, for callers that hold towers from elsewhere.
func (s SearchScope) Sees(t *Tower) bool {
	return s.All || t.Source != SourceUser || (s.Tenant != "" && t.OwnerTenantID == s.Tenant)
}

// SearchTowerHits is one page of a tower search.
type SearchTowerHits struct {
	IDs   []string // tower ids of this page, best first, ties by id
	Total int      // number of towers matching the query, all pages together
}

// SearchPlace is one Brazilian municipality as the search index sees it.
type SearchPlace struct {
	IBGECode  string  // 7-digit IBGE municipality code, unique; the document id
	Name      string  // municipality name with accents, e.g. "São Paulo"
	UF        string  // two-letter state code, upper case, e.g. "SP"
	StateName string  // state name with accents, e.g. "São Paulo"
	Region    string  // macro-region: "N", "NE", "CO", "SE" or "S"
	Lat       float64 // centroid latitude, degrees WGS84
	Lon       float64 // centroid longitude, degrees WGS84
	Capital   bool    // true for a state (or federal) capital
}

// SearchPlaceHit is one result of a place search.
//
// Hits are ordered by the importance rule: first by Match (the whole name
// equals the query; every query word is a whole word of the name; the name
// begins with the query; any other match), then, within one Match, state
// capitals by population before every other municipality, then by Score,
// then by folded name, then by IBGE code: a total order. So "rio" gives Rio
// de Janeiro, then Rio Branco, then the other towns named "Rio …", whatever
// the lengths of the names.
type SearchPlaceHit struct {
	Place SearchPlace
	// Match is the match class, store/search.MatchWhole (best) to
	// MatchOther.
	Match int
	// Score is the text score (dimensionless, higher is better): the sum
	// of the query words' scores and of the whole-name, name-prefix and
	// capital boosts; it orders hits of one Match and importance.
	Score float64
}
