package assemble

import (
	"context"

	"linkplan/appliance"
	"linkplan/appliance/features"
	"linkplan/appliance/observations"
)

// maxObservedPerSubmission bounds how many rows of one submission feed the
// live band (each is one residual-engine prediction, tens of
// microseconds): a 10,000-row batch stays within its ingest budget, and
// the band's windows (500 residuals a class) fill from many submissions.
const maxObservedPerSubmission = 256

// observingStore is the observation store of the observations service
// with the serving side's live band behind it: after a commit, the
// consented stored rows (at most maxObservedPerSubmission) are predicted
// by the served residual engine and their residuals recorded
// (appliance/prediction Observe; GET /coverage/effective-band).
type observingStore struct {
	observations.Store
	observe func(ctx context.Context, l features.Link, cableLossDB, observedDBm float64, metric string) bool
	// consented learns how many consented rows a submission stored for a
	// tenant (appliance/calibration queues a refit); nil: nobody.
	consented func(ctx context.Context, tenantID string, n int)
}

func (s observingStore) PutObservations(tenant string, kind appliance.ObservationKind, rows []appliance.Observation, keys []string,
	dividends []*appliance.DividendEvent, audit ...appliance.AuditEntry) ([]bool, error) {
	stored, err := s.Store.PutObservations(tenant, kind, rows, keys, dividends, audit...)
	if err != nil {
		return stored, err
	}
	n, consented := 0, 0
	for i, ok := range stored {
		if ok && rows[i].Consent == appliance.ConsentConsented {
			consented++
		}
	}
	if s.consented != nil {
		s.consented(context.Background(), tenant, consented)
	}
	for i, ok := range stored {
		if n >= maxObservedPerSubmission {
			break
		}
		o := &rows[i]
		if !ok || o.Consent != appliance.ConsentConsented {
			continue
		}
		n++
		s.observe(context.Background(), features.Link{Tx: appliance.LatLon{Lat: o.TxLat, Lon: o.TxLon}, Rx: appliance.LatLon{Lat: o.RxLat, Lon: o.RxLon},
			TxHeightM: o.TxHeightM, RxHeightM: o.RxHeightM, FreqMHz: o.FreqHz / 1e6, TxPowerDBm: o.TxPowerDBm, TxGainDBi: o.TxGainDBi,
			RxGainDBi: o.RxGainDBi}, o.CableLossDB, o.ObservedDBm, o.Metric)
	}
	return stored, nil
}
