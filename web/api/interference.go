package api

import (
	"context"
	"math"
	"net/http"

	"github.com/gorilla/mux"

	"linkplan/appliance"
	"linkplan/appliance/interference"
)

// LinkInterference checks one link against the interferers around its
// ends (appliance/interference, issue 26 scope 2).
type LinkInterference interface {
	CheckFor(ctx context.Context, k *appliance.APIKey, req interference.LinkRequest, ants interference.LinkAntennas) (*interference.LinkResult, error)
}

func (a *API) registerInterference(r *mux.Router) {
	if a.LinkInterference == nil {
		return
	}
	r.HandleFunc("/links/interference", a.wrap(a.ready(a.authed(a.linkInterference)))).Methods(http.MethodPost)
}

type linkEndJSON struct {
	Lat          *float64 `json:"lat"`
	Lon          *float64 `json:"lon"`
	HeightM      *float64 `json:"height_m"`
	GainDBi      *float64 `json:"gain_dbi"`
	BeamwidthDeg *float64 `json:"beamwidth_deg"`
	AntennaID    *string  `json:"antenna_id"`
}

type linkInterferenceRequest struct {
	A              *linkEndJSON `json:"a"`
	B              *linkEndJSON `json:"b"`
	FrequencyMHz   *float64     `json:"frequency_mhz"`
	BandwidthMHz   *float64     `json:"bandwidth_mhz"`
	TxPowerDBm     *float64     `json:"tx_power_dbm"`
	RequiredCIDB   *float64     `json:"required_ci_db"`
	RadiusKm       *float64     `json:"radius_km"`
	ACSDB          *float64     `json:"acs_db"`
	NoiseFigureDB  *float64     `json:"noise_figure_db"`
	Engine         *string      `json:"engine"`
	MaxInterferers *int         `json:"max_interferers"`
}

// toDomain maps the body; missing ends and coordinates are named here,
// ranges by the service.
func (q *linkInterferenceRequest) toDomain() (interference.LinkRequest, interference.LinkAntennas, error) {
	v := &appliance.ValidationError{}
	var r interference.LinkRequest
	var ants interference.LinkAntennas
	end := func(e *linkEndJSON, name string, dst *interference.LinkEnd, ant *string) {
		if e == nil {
			v.Add(name, "is required")
			return
		}
		for _, m := range []struct {
			p *float64
			n string
		}{{e.Lat, "lat"}, {e.Lon, "lon"}, {e.HeightM, "height_m"}} {
			if m.p == nil {
				v.Add(name+"."+m.n, "is required")
			}
		}
		*dst = interference.LinkEnd{Pos: appliance.LatLon{Lat: num(e.Lat), Lon: num(e.Lon)}, HeightM: num(e.HeightM),
			GainDBi: num(e.GainDBi), BeamwidthDeg: num(e.BeamwidthDeg)}
		if e.AntennaID != nil {
			*ant = *e.AntennaID
		}
	}
	end(q.A, "a", &r.A, &ants.A)
	end(q.B, "b", &r.B, &ants.B)
	if q.FrequencyMHz == nil {
		v.Add("frequency_mhz", "is required")
	}
	r.FreqMHz = num(q.FrequencyMHz)
	r.BandwidthMHz = num(q.BandwidthMHz)
	r.TxPowerDBm = num(q.TxPowerDBm)
	r.RequiredCIDB = math.NaN()
	if q.RequiredCIDB != nil {
		r.RequiredCIDB = *q.RequiredCIDB
	}
	if q.RadiusKm != nil {
		if !(*q.RadiusKm > 0) {
			v.Add("radius_km", "must be greater than 0, got %g", *q.RadiusKm)
		}
		r.RadiusM = *q.RadiusKm * 1000
	}
	r.ACSDB = num(q.ACSDB)
	r.NoiseFigureDB = num(q.NoiseFigureDB)
	if q.Engine != nil {
		r.Engine = appliance.EngineID(*q.Engine)
	}
	if q.MaxInterferers != nil {
		r.MaxInterferers = *q.MaxInterferers
	}
	return r, ants, v.Err()
}

// LinkInterferenceJSON is the answer of POST /links/interference.
type LinkInterferenceJSON struct {
	A            linkEndResultJSON   `json:"a"`
	B            linkEndResultJSON   `json:"b"`
	RequiredCIDB *float64            `json:"required_ci_db"`
	Warnings     []appliance.Warning `json:"warnings"`
}

type linkEndResultJSON struct {
	CarrierDBm      float64          `json:"carrier_dbm"`
	PathLossDB      float64          `json:"path_loss_db"`
	InterferenceDBm *float64         `json:"interference_dbm"`
	NoiseDBm        float64          `json:"noise_dbm"`
	CIDB            *float64         `json:"ci_db"`
	SINRDB          float64          `json:"sinr_db"`
	Evaluated       int              `json:"evaluated_towers"`
	Coupled         int              `json:"coupled_towers"`
	Interferers     []interfererJSON `json:"interferers"`
}

type interfererJSON struct {
	TowerID         string  `json:"tower_id"`
	Operator        string  `json:"operator"`
	DistanceM       float64 `json:"distance_m"`
	BandMHz         float64 `json:"band_mhz"`
	Coupling        string  `json:"coupling"`
	LevelDBm        float64 `json:"level_dbm"`
	EIRPDBm         float64 `json:"eirp_dbm"`
	TxPatternLossDB float64 `json:"tx_pattern_loss_db"`
	RxPatternLossDB float64 `json:"rx_pattern_loss_db"`
	PathLossDB      float64 `json:"path_loss_db"`
	CouplingLossDB  float64 `json:"coupling_loss_db"`
	EngineVersion   string  `json:"engine_version"`
}

func r2(v float64) float64 { return appliance.Round(v, 2) }

func optR2(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	x := r2(v)
	return &x
}

func linkEndJSONOf(e interference.EndResult) linkEndResultJSON {
	out := linkEndResultJSON{CarrierDBm: r2(e.CarrierDBm), PathLossDB: r2(e.PathLossDB), InterferenceDBm: optR2(e.InterferenceDBm),
		NoiseDBm: r2(e.NoiseDBm), CIDB: optR2(e.CIDB), SINRDB: r2(e.SINRDB), Evaluated: e.Evaluated, Coupled: e.Coupled,
		Interferers: []interfererJSON{}}
	for _, in := range e.Interferers {
		out.Interferers = append(out.Interferers, interfererJSON{TowerID: in.TowerID, Operator: in.Operator, DistanceM: r2(in.DistanceM),
			BandMHz: in.BandMHz, Coupling: in.Coupling, LevelDBm: r2(in.LevelDBm), EIRPDBm: r2(in.EIRPDBm), TxPatternLossDB: r2(in.TxPatternLossDB),
			RxPatternLossDB: r2(in.RxPatternLossDB), PathLossDB: r2(in.PathLossDB), CouplingLossDB: r2(in.CouplingLossDB), EngineVersion: in.EngineVersion})
	}
	return out
}

func (a *API) linkInterference(w http.ResponseWriter, r *http.Request) (any, error) {
	var q linkInterferenceRequest
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	req, ants, err := q.toDomain()
	if err != nil {
		return nil, err
	}
	k := keyFrom(r.Context())
	id, note, err := a.resolveEngine(k, req.Engine)
	if err != nil {
		return nil, err
	}
	req.Engine = id
	res, err := a.LinkInterference.CheckFor(r.Context(), k, req, ants)
	if err != nil {
		return nil, err
	}
	out := LinkInterferenceJSON{A: linkEndJSONOf(res.A), B: linkEndJSONOf(res.B), RequiredCIDB: optR2(res.RequiredCIDB),
		Warnings: append([]appliance.Warning{}, res.Warnings...)}
	out.Warnings = withEngineNote(out.Warnings, note)
	return out, nil
}
