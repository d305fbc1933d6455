package api

import (
	"context"
	"net/http"

	"github.com/gorilla/mux"

	"linkplan/appliance"
	"linkplan/appliance/prediction"
)

// Predictions serves the learned coverage models (appliance/prediction).
type Predictions interface {
	Predict(ctx context.Context, k *appliance.APIKey, q prediction.Query) (*prediction.Prediction, error)
	ModelInfo(k *appliance.APIKey) (*prediction.ModelInfo, error)
	ClaimReadiness() *prediction.ClaimReadiness
	EffectiveBand() *prediction.EffectiveBand
	PromotionReadiness() *prediction.PromotionReadiness
	AuditGate() *prediction.AuditGate
}

// registerPrediction adds the prediction and model routes. The readiness
// reports and the audit gate are public: model figures only, no tenant
// data.
func (a *API) registerPrediction(r *mux.Router) {
	if a.Predictions == nil {
		return
	}
	r.HandleFunc("/coverage/predict", a.wrap(a.ready(a.authed(a.predictCoverage)))).Methods(http.MethodPost)
	r.HandleFunc("/coverage/model/info", a.wrap(a.authed(a.modelInfo))).Methods(http.MethodGet)
	r.HandleFunc("/coverage/claim-readiness", a.wrap(func(http.ResponseWriter, *http.Request) (any, error) {
		return a.Predictions.ClaimReadiness(), nil
	})).Methods(http.MethodGet)
	r.HandleFunc("/coverage/effective-band", a.wrap(func(http.ResponseWriter, *http.Request) (any, error) {
		return a.Predictions.EffectiveBand(), nil
	})).Methods(http.MethodGet)
	r.HandleFunc("/coverage/promotion-readiness", a.wrap(func(http.ResponseWriter, *http.Request) (any, error) {
		return a.Predictions.PromotionReadiness(), nil
	})).Methods(http.MethodGet)
	r.HandleFunc("/health/audit-gate", a.wrap(func(http.ResponseWriter, *http.Request) (any, error) {
		return a.Predictions.AuditGate(), nil
	})).Methods(http.MethodGet)
}

// predictCoverage is POST /coverage/predict.
func (a *API) predictCoverage(w http.ResponseWriter, r *http.Request) (any, error) {
	var q prediction.Query
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	return a.Predictions.Predict(r.Context(), keyFrom(r.Context()), q)
}

// modelInfo is GET /coverage/model/info.
func (a *API) modelInfo(w http.ResponseWriter, r *http.Request) (any, error) {
	return a.Predictions.ModelInfo(keyFrom(r.Context()))
}
