package jsq

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"

	"linkplan/appliance"
)

// Headers of unit and result messages. The body of a unit message is the
// unit's body, of a result message the result; everything else travels
// in these headers.
const (
	hJob       = "Lp-Job"
	hRun       = "Lp-Run"
	hIndex     = "Lp-Index"
	hKind      = "Lp-Kind"
	hTenant    = "Lp-Tenant"
	hTier      = "Lp-Tier"
	hInputs    = "Lp-Inputs"
	hDeadline  = "Lp-Deadline"
	hMaxResult = "Lp-Max-Result"
	hWorker    = "Lp-Worker"
	hError     = "Lp-Error"
	hCode      = "Lp-Code"
	hComputeUS = "Lp-Compute-Us"
)

// unitMsg encodes u as a message for subject.
func unitMsg(subject string, u *appliance.WorkUnit) (*nats.Msg, error) {
	in, err := json.Marshal(u.Inputs)
	if err != nil {
		return nil, err
	}
	m := nats.NewMsg(subject)
	m.Data = u.Body
	m.Header.Set(hJob, u.JobID)
	m.Header.Set(hRun, u.Run)
	m.Header.Set(hIndex, strconv.Itoa(u.Index))
	m.Header.Set(hKind, string(u.Kind))
	m.Header.Set(hTenant, u.TenantID)
	m.Header.Set(hTier, string(u.Tier))
	m.Header.Set(hInputs, string(in))
	if !u.Deadline.IsZero() {
		m.Header.Set(hDeadline, u.Deadline.UTC().Format(time.RFC3339Nano))
	}
	if u.MaxResultBytes > 0 {
		m.Header.Set(hMaxResult, strconv.Itoa(u.MaxResultBytes))
	}
	m.Header.Set(nats.MsgIdHdr, u.Key())
	return m, nil
}

// decodeUnit reads a unit message.
func decodeUnit(h nats.Header, body []byte) (*appliance.WorkUnit, error) {
	u := &appliance.WorkUnit{JobID: h.Get(hJob), Run: h.Get(hRun), Kind: appliance.UnitKind(h.Get(hKind)),
		TenantID: h.Get(hTenant), Tier: appliance.Tier(h.Get(hTier)), Body: body}
	var err error
	if u.Index, err = strconv.Atoi(h.Get(hIndex)); err != nil || u.Index < 0 || u.JobID == "" || u.Kind == "" || u.TenantID == "" {
		return nil, fmt.Errorf("unit message without job, index, kind or tenant: %w", appliance.ErrInvalid)
	}
	if err := json.Unmarshal([]byte(h.Get(hInputs)), &u.Inputs); err != nil {
		return nil, fmt.Errorf("unit %s: inputs: %v: %w", u.Key(), err, appliance.ErrInvalid)
	}
	if d := h.Get(hDeadline); d != "" {
		if u.Deadline, err = time.Parse(time.RFC3339Nano, d); err != nil {
			return nil, fmt.Errorf("unit %s: deadline: %w", u.Key(), appliance.ErrInvalid)
		}
	}
	if m := h.Get(hMaxResult); m != "" {
		if u.MaxResultBytes, err = strconv.Atoi(m); err != nil {
			return nil, fmt.Errorf("unit %s: max result: %w", u.Key(), appliance.ErrInvalid)
		}
	}
	return u, nil
}

// result is a unit's result as the appliance reads it.
type result struct {
	job, run  string
	index     int
	worker    string
	body      []byte
	err       error // the unit's own error (UnitError), nil on success
	computeUS int64 // the runner's time, µs
}

// resultMsg encodes the result of u computed by worker.
func resultMsg(subject string, u *appliance.WorkUnit, worker string, body []byte, runErr error, compute time.Duration) *nats.Msg {
	m := nats.NewMsg(subject)
	m.Header.Set(hJob, u.JobID)
	m.Header.Set(hRun, u.Run)
	m.Header.Set(hIndex, strconv.Itoa(u.Index))
	m.Header.Set(hWorker, worker)
	m.Header.Set(hComputeUS, strconv.FormatInt(compute.Microseconds(), 10))
	m.Header.Set(nats.MsgIdHdr, u.Key())
	if runErr != nil {
		m.Header.Set(hError, runErr.Error())
		m.Header.Set(hCode, appliance.UnitErrorCode(runErr))
	} else {
		m.Data = body
	}
	return m
}

func decodeResult(h nats.Header, body []byte) (*result, error) {
	r := &result{job: h.Get(hJob), run: h.Get(hRun), worker: h.Get(hWorker), body: body}
	var err error
	if r.index, err = strconv.Atoi(h.Get(hIndex)); err != nil || r.job == "" {
		return nil, fmt.Errorf("result message without job or index: %w", appliance.ErrInvalid)
	}
	r.computeUS, _ = strconv.ParseInt(h.Get(hComputeUS), 10, 64)
	if msg := h.Get(hError); msg != "" {
		r.err = appliance.UnitErrorFrom(msg, h.Get(hCode))
	}
	return r, nil
}

// msgHeaderBytes is the size of m's headers as sent: "key: value\r\n"
// per value (the NATS/1.0 status line left out).
func msgHeaderBytes(m *nats.Msg) int {
	n := 0
	for k, vs := range m.Header {
		for _, v := range vs {
			n += len(k) + len(v) + 4
		}
	}
	return n
}
