package api

import (
	"net/http"

	"github.com/gorilla/mux"

	"linkplan/appliance/batch"
	"linkplan/appliance/coverage"
)

// LimitsJSON is the body of GET /v1/me/limits: the caller's tier limits
// that a form can show before it is submitted (the console's Coverage and
// Batch screens), from the same functions the services check them with.
type LimitsJSON struct {
	Tier     string             `json:"tier"`
	Coverage CoverageLimitsJSON `json:"coverage"`
	// BatchMaxRows is the most rows of one batch (0: batches are not
	// offered to the tier).
	BatchMaxRows int `json:"batch_max_rows"`
}

// CoverageLimitsJSON are a tier's coverage-map caps (coverage.CapsFor).
type CoverageLimitsJSON struct {
	MaxRadiusKm    float64 `json:"max_radius_km"`    // largest radius_km, km
	MinResolutionM float64 `json:"min_resolution_m"` // finest resolution_m, metres
	MaxServers     int     `json:"max_servers"`      // transmitters of a best-server map; 0: none
}

func (a *API) registerLimits(r *mux.Router) {
	r.HandleFunc("/v1/me/limits", a.wrap(a.authed(a.myLimits))).Methods(http.MethodGet)
}

// myLimits answers the calling key's tier limits (GET /v1/me/limits).
func (a *API) myLimits(_ http.ResponseWriter, r *http.Request) (any, error) {
	k := keyFrom(r.Context())
	caps := coverage.CapsFor(k.Tier)
	return LimitsJSON{Tier: string(k.Tier), BatchMaxRows: batch.Limit(k.Tier),
		Coverage: CoverageLimitsJSON{MaxRadiusKm: caps.MaxRadiusM / 1000, MinResolutionM: caps.MinResolutionM, MaxServers: caps.MaxServers}}, nil
}
