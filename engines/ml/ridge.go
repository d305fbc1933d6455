package ml

// Ridge is a linear model fitted by ridge regression on standardised
// features: prediction = YMean + Σ Coef[j]·(x[j] - Mean[j])/Scale[j].
type Ridge struct {
	// Lambda is the L2 penalty on the standardised coefficients.
	Lambda float64 `json:"lambda"`
	// YMean is the mean training target (the unpenalised intercept).
	YMean float64 `json:"y_mean"`
	// Mean and Scale standardise each feature: the training mean and
	// population standard deviation. A constant feature has Scale 0 and
	// Coef 0 (it carries no information).
	Mean  []float64 `json:"mean"`
	Scale []float64 `json:"scale"`
	// Coef are the coefficients of the standardised features.
	Coef []float64 `json:"coef"`
}

// Predict returns the model's prediction for feature vector x (of the
// training length; a shorter one panics).
func (m *Ridge) Predict(x []float64) float64 {
	s := m.YMean
	for j, c := range m.Coef {
		if m.Scale[j] > 0 {
			s += c * (x[j] - m.Mean[j]) / m.Scale[j]
		}
	}
	return s
}
