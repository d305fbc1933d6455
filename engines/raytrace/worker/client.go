package worker

import (
	"bytes"
	"cmp"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"time"

	"linkplan/appliance"
	"linkplan/engines/raytrace"
)

// Executor runs raytrace units for the appliance's services. Every method
// is a pure function of the named scene and the request (WORK.md: a unit
// is pure), deterministic whatever the executor: Client (the local worker
// process that serve supervises), InProcess (the CPU backend in the
// appliance's process: tests, and tools that have no worker) and, later,
// a remote worker over the job queue implement it.
//
// Errors: a request or scene the engine refuses matches
// appliance.ErrInvalid (naming the field); an executor that died while it
// ran the unit is an *appliance.ExecutorCrashError; an executor that is
// not running (starting, restarting) matches appliance.ErrUnavailable;
// ctx's error when ctx ended.
type Executor interface {
	Point(ctx context.Context, s Scene, r raytrace.PointRequest) (raytrace.Result, error)
	Map(ctx context.Context, s Scene, r raytrace.MapRequest) (raytrace.MapResult, error)
}

// ExecutorName is the executor's name in errors, quarantine reasons and
// logs.
const ExecutorName = "raytrace worker"

// Client is the Executor over the local worker's unix socket. It is safe
// for concurrent use.
type Client struct {
	socket string
	secret string // hex
	// Ready, when set, waits until the worker is up (Supervisor.Ready):
	// a unit that finds no worker listening waits for it instead of
	// failing at once.
	Ready func(ctx context.Context) error
	// ReadyWait bounds that wait (default 60 s); then the unit fails with
	// appliance.ErrUnavailable.
	ReadyWait time.Duration
	// PID and Exited, when set (the supervisor's), name the worker process
	// that held a unit and say how it ended, for the crash's detail.
	PID    func() int
	Exited func(ctx context.Context, pid int) string
	// Deadlines of one unit, a backstop behind the supervisor's liveness
	// probe (a worker that answers its health route but never this unit):
	// a point unit gets PointTimeout, a map unit MapTimeout plus
	// MapPixelTimeout per receiver (NX·NY). Past it the unit fails with an
	// *appliance.ExecutorCrashError saying so. Zero: DefaultPointTimeout,
	// DefaultMapTimeout, DefaultMapPixelTimeout.
	PointTimeout, MapTimeout, MapPixelTimeout time.Duration
	hc                                        *http.Client
}

// Default deadlines of a unit (Client): generous, so that they never end
// legitimate work on a loaded 2-core machine. A 40,000-receiver map with
// two reflections and one diffraction takes 60 s at most on 2 cores
// (1.5 ms a receiver, the engine's speed goal); a band gets 5 min plus
// 100 ms a receiver, over 60 times that. A point unit (at most 200 ms) gets 5 min.
const (
	DefaultPointTimeout    = 5 * time.Minute
	DefaultMapTimeout      = 5 * time.Minute
	DefaultMapPixelTimeout = 100 * time.Millisecond
)

// NewClient returns a client of the worker listening on socket with the
// shared secret.
func NewClient(socket string, secret []byte) *Client {
	c := &Client{socket: socket, secret: hex.EncodeToString(secret)}
	// One connection per request: a connection is then never reused
	// across a worker restart, so a failure on an established connection
	// means the worker died while it held this unit.
	c.hc = &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", socket)
		},
		DisableKeepAlives: true,
	}}
	return c
}

// Point traces every path between two antennas on the worker.
func (c *Client) Point(ctx context.Context, s Scene, r raytrace.PointRequest) (raytrace.Result, error) {
	var out raytrace.Result
	limit := cmp.Or(c.PointTimeout, DefaultPointTimeout)
	err := c.unit(ctx, limit, maxPointAnswerBytes, "point unit", PathPoint, s, func(ref SceneRef) any { return pointUnit{Scene: ref, Request: r} }, &out)
	return out, err
}

// Map computes a radio map on the worker.
func (c *Client) Map(ctx context.Context, s Scene, r raytrace.MapRequest) (raytrace.MapResult, error) {
	var out raytrace.MapResult
	limit := c.mapTimeout(r.NX, r.NY)
	what := fmt.Sprintf("map unit of %d×%d receivers", r.NX, r.NY)
	err := c.unit(ctx, limit, maxMapAnswerBytes(r.NX, r.NY), what, PathMap, s, func(ref SceneRef) any { return mapUnit{Scene: ref, Request: r} }, &out)
	return out, err
}

// Bounds of an answer the client decodes, bytes (package doc): a point
// answer lists at most raytrace.MaxPointPaths paths of at most
// raytrace.MaxPathBytes each, with 1 MiB for the rest; a map answer holds
// 3 float32 (gob: at most 9 bytes each) and a flag byte per receiver, and
// in mapAnswerSlackBytes the ids of the assumed-height buildings that
// shaped a path (at most 64 bytes each: over 100,000 of them) and the
// warnings.
const (
	mapAnswerSlackBytes = 8 << 20
	mapPixelAnswerBytes = 32
	maxPointAnswerBytes = 1<<20 + raytrace.MaxPointPaths*raytrace.MaxPathBytes
)

// maxMapAnswerBytes bounds the answer of a map unit of nx×ny receivers.
func maxMapAnswerBytes(nx, ny int) int64 {
	px := min(int64(max(nx, 0))*int64(max(ny, 0)), int64(raytrace.MaxMapReceivers))
	return mapAnswerSlackBytes + px*mapPixelAnswerBytes
}

// mapTimeout is the deadline of a map unit of nx×ny receivers.
func (c *Client) mapTimeout(nx, ny int) time.Duration {
	px := int64(max(nx, 0)) * int64(max(ny, 0))
	px = min(px, int64(raytrace.MaxMapReceivers)) // the worker refuses more
	return cmp.Or(c.MapTimeout, DefaultMapTimeout) + time.Duration(px)*cmp.Or(c.MapPixelTimeout, DefaultMapPixelTimeout)
}

// Health asks the worker for its health.
func (c *Client) Health(ctx context.Context) (Health, error) {
	var h Health
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://raytrace-worker"+PathHealth, nil)
	if err != nil {
		return h, err
	}
	c.header(req)
	res, err := c.hc.Do(req)
	if err != nil {
		return h, fmt.Errorf("raytrace worker health: %w", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return h, fmt.Errorf("raytrace worker health: %w", answerError(res))
	}
	if err := json.NewDecoder(io.LimitReader(res.Body, 1<<16)).Decode(&h); err != nil {
		return h, fmt.Errorf("raytrace worker health: %w", err)
	}
	return h, nil
}

func (c *Client) header(req *http.Request) {
	req.Header.Set("Authorization", "Bearer "+c.secret)
	req.Header.Set(HeaderProtocol, ProtocolVersion)
}

// unit sends one unit with the scene's hash; when the worker does not hold
// the scene, once more with its input; all within limit.
func (c *Client) unit(ctx context.Context, limit time.Duration, maxAnswer int64, what, path string, s Scene, body func(SceneRef) any, out any) error {
	uctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	err := c.tries(uctx, path, s, body, maxAnswer, out)
	if err != nil && ctx.Err() == nil && errors.Is(uctx.Err(), context.DeadlineExceeded) {
		return &appliance.ExecutorCrashError{Executor: ExecutorName,
			Detail: fmt.Sprintf("it did not answer this %s within %v, the deadline of such a unit", what, limit)}
	}
	return err
}

func (c *Client) tries(ctx context.Context, path string, s Scene, body func(SceneRef) any, maxAnswer int64, out any) error {
	ref := SceneRef{Hash: s.Hash}
	for try := 0; ; try++ {
		err := c.send(ctx, path, body(ref), maxAnswer, out)
		var ae *answerErr
		if try == 0 && errors.As(err, &ae) && ae.body.Code == CodeSceneUnknown && s.Input != nil {
			in, ierr := s.Input(ctx)
			if ierr != nil {
				return fmt.Errorf("raytrace worker: scene %s: %w", s.Hash, ierr)
			}
			ref.Input = in
			continue
		}
		return err
	}
}

// send posts one unit and decodes the answer into out, waiting for the
// worker when it is not listening.
func (c *Client) send(ctx context.Context, path string, unit any, maxAnswer int64, out any) error {
	b, err := encode(unit)
	if err != nil {
		return fmt.Errorf("raytrace worker: encode unit: %w", err)
	}
	wait := c.ReadyWait
	if wait <= 0 {
		wait = 60 * time.Second
	}
	deadline := time.Now().Add(wait)
	for {
		connected, pid := false, 0
		if c.PID != nil {
			pid = c.PID()
		}
		trace := &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) { connected = true }}
		req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), http.MethodPost, "http://raytrace-worker"+path, bytes.NewReader(b))
		if err != nil {
			return err
		}
		c.header(req)
		req.Header.Set("Content-Type", "application/x-gob")
		res, err := c.hc.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if connected {
				// The worker accepted this unit and its connection broke
				// before the answer: it died while it held the unit.
				return c.crash(ctx, pid, "its connection broke before the answer: "+errText(err))
			}
			// Not listening: starting or restarting.
			if time.Now().After(deadline) {
				return fmt.Errorf("the raytrace worker is not running (%s): %w", errText(err), appliance.ErrUnavailable)
			}
			if c.Ready != nil {
				rctx, cancel := context.WithDeadline(ctx, deadline)
				rerr := c.Ready(rctx)
				cancel()
				if ctx.Err() != nil {
					return ctx.Err()
				}
				if rerr != nil {
					return fmt.Errorf("the raytrace worker is not running (%s): %w", errText(rerr), appliance.ErrUnavailable)
				}
			}
			// Ready may not have seen the exit yet: pace the retries.
			{
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(200 * time.Millisecond):
				}
			}
			continue
		}
		err = decodeAnswer(res, maxAnswer, out)
		if err != nil && ctx.Err() == nil && errors.Is(err, errOversizedAnswer) {
			return err
		}
		if err != nil && ctx.Err() == nil && errors.Is(err, errBrokenAnswer) {
			return c.crash(ctx, pid, "its answer broke off: "+errText(err))
		}
		return err
	}
}

var errBrokenAnswer = errors.New("broken answer")

// crash is the error of a unit whose worker died holding it: how the
// process ended when the supervisor sees it within two seconds, else what
// the connection saw.
func (c *Client) crash(ctx context.Context, pid int, seen string) error {
	detail := seen
	if c.Exited != nil && pid != 0 {
		wctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		if exit := c.Exited(wctx, pid); exit != "" {
			detail = fmt.Sprintf("process %d %s", pid, exit)
		}
		cancel()
	}
	return &appliance.ExecutorCrashError{Executor: ExecutorName, Detail: detail}
}

// errOversizedAnswer: the worker's answer is larger than its request's
// bound (a bug of the worker, never the unit's data): the unit fails.
var errOversizedAnswer = errors.New("the raytrace worker's answer is larger than the request allows")

// decodeAnswer decodes an answer of at most limit bytes into out.
func decodeAnswer(res *http.Response, limit int64, out any) error {
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return answerError(res)
	}
	if res.ContentLength > limit {
		return fmt.Errorf("raytrace worker answer: %d bytes, at most %d: %w", res.ContentLength, limit, errOversizedAnswer)
	}
	lr := &io.LimitedReader{R: res.Body, N: limit + 1}
	if err := decodeUnit(lr, limit, out); err != nil {
		if lr.N <= 0 {
			return fmt.Errorf("raytrace worker answer: more than %d bytes: %w", limit, errOversizedAnswer)
		}
		return fmt.Errorf("raytrace worker answer: %v: %w", err, errBrokenAnswer)
	}
	return nil
}

// answerErr is an error answer of the worker.
type answerErr struct {
	status int
	body   ErrorBody
}

func (e *answerErr) Error() string { return "raytrace worker: " + e.body.Message }

// Unwrap gives the answer's meaning as a sentinel.
func (e *answerErr) Unwrap() error {
	switch e.body.Code {
	case CodeInvalid, CodeSceneMismatch:
		ve := &appliance.ValidationError{Fields: e.body.Fields}
		if len(ve.Fields) == 0 {
			ve.Add("request", "%s", e.body.Message)
		}
		return ve
	case CodeUnauthorized, CodeStopping:
		return appliance.ErrUnavailable
	}
	return nil
}

func answerError(res *http.Response) error {
	var body ErrorBody
	raw, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err := json.Unmarshal(raw, &body); err != nil || body.Code == "" {
		body = ErrorBody{Code: CodeInternal, Message: fmt.Sprintf("status %d", res.StatusCode)}
	}
	return &answerErr{status: res.StatusCode, body: body}
}

// errText is err's text without the URL prefix net/http adds.
func errText(err error) string {
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) {
		if inner := ue.Unwrap(); inner != nil {
			return inner.Error()
		}
	}
	return err.Error()
}
