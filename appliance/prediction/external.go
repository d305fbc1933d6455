package prediction

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"time"

	"linkplan/appliance"
)

// DefaultExternalTimeout bounds one call of the external model endpoint.
const DefaultExternalTimeout = 2 * time.Second

// maxExternalBytes bounds the endpoint's answer.
const maxExternalBytes = 64 << 10

// External configures the operator's external model endpoint (SPEC §2.5:
// the first link of the fallback chain). A zero URL: none.
type External struct {
	URL     string
	Timeout time.Duration // 0: DefaultExternalTimeout
	Client  *http.Client  // nil: a client of its own
}

// Validate checks the URL: absolute http or https.
func (e External) Validate() error {
	if e.URL == "" {
		return nil
	}
	u, err := url.Parse(e.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("external model endpoint %q must be an absolute http or https URL: %w", e.URL, appliance.ErrInvalid)
	}
	if e.Timeout < 0 {
		return fmt.Errorf("external model endpoint timeout %v must not be negative: %w", e.Timeout, appliance.ErrInvalid)
	}
	return nil
}

// ExternalRequest is the body POSTed to the endpoint: the normalised
// query (transmitter from the tower when tower_id was given).
type ExternalRequest struct {
	TxLat        float64 `json:"tx_lat"`
	TxLon        float64 `json:"tx_lon"`
	TxHeightM    float64 `json:"tx_height_m"`
	RxLat        float64 `json:"rx_lat"`
	RxLon        float64 `json:"rx_lon"`
	RxHeightM    float64 `json:"rx_height_m"`
	FrequencyMHz float64 `json:"frequency_mhz"`
	TxPowerDBm   float64 `json:"tx_power_dbm"`
	TxGainDBi    float64 `json:"tx_gain_dbi"`
	RxGainDBi    float64 `json:"rx_gain_dbi"`
	CableLossDB  float64 `json:"cable_loss_db"`
}

// ExternalAnswer is what the endpoint must answer (200, JSON): signal_dbm
// in [-200, 50]; optional model_version (at most 64 bytes), confidence in
// [0, 1] and cv_rmse_db >= 0. Anything else is malformed.
type ExternalAnswer struct {
	SignalDBm    *float64 `json:"signal_dbm"`
	ModelVersion string   `json:"model_version"`
	Confidence   *float64 `json:"confidence"`
	CVRMSEDB     *float64 `json:"cv_rmse_db"`
}

// errExternal marks a refusal of the external endpoint; its message is the
// fallback reason.
type errExternal struct{ reason string }

func (e *errExternal) Error() string { return e.reason }

// call asks the endpoint; any failure is an *errExternal.
func (e External) call(ctx context.Context, q ExternalRequest) (*ExternalAnswer, error) {
	timeout := e.Timeout
	if timeout == 0 {
		timeout = DefaultExternalTimeout
	}
	client := e.Client
	if client == nil {
		client = &http.Client{}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	body, _ := json.Marshal(q) // plain numbers: cannot fail
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.URL, bytes.NewReader(body))
	if err != nil {
		return nil, &errExternal{"external model endpoint request could not be built"}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			return nil, &errExternal{fmt.Sprintf("external model endpoint did not answer within %v", timeout)}
		}
		return nil, &errExternal{"external model endpoint unreachable"}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, &errExternal{fmt.Sprintf("external model endpoint answered HTTP %d", resp.StatusCode)}
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxExternalBytes+1))
	if err != nil {
		if ctx.Err() != nil {
			return nil, &errExternal{fmt.Sprintf("external model endpoint did not answer within %v", timeout)}
		}
		return nil, &errExternal{"external model endpoint answer could not be read"}
	}
	if len(b) > maxExternalBytes {
		return nil, &errExternal{fmt.Sprintf("external model endpoint answer is malformed: larger than %d bytes", maxExternalBytes)}
	}
	a, why := parseExternal(b)
	if why != "" {
		return nil, &errExternal{"external model endpoint answer is malformed: " + why}
	}
	return a, nil
}

// parseExternal decodes and checks an answer; why is "" when valid.
func parseExternal(b []byte) (*ExternalAnswer, string) {
	var a ExternalAnswer
	if err := json.Unmarshal(b, &a); err != nil {
		return nil, "not a JSON object with numeric signal_dbm"
	}
	ok := func(p *float64, lo, hi float64) bool {
		return p == nil || (!math.IsNaN(*p) && *p >= lo && *p <= hi)
	}
	switch {
	case a.SignalDBm == nil:
		return nil, "signal_dbm is missing"
	case !ok(a.SignalDBm, -200, 50):
		return nil, "signal_dbm is outside [-200, 50] dBm"
	case !ok(a.Confidence, 0, 1):
		return nil, "confidence is outside [0, 1]"
	case !ok(a.CVRMSEDB, 0, 100):
		return nil, "cv_rmse_db is outside [0, 100] dB"
	case len(a.ModelVersion) > 64:
		return nil, "model_version is longer than 64 bytes"
	}
	return &a, ""
}
