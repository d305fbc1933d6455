package worker

import (
	"bytes"
	"context"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"linkplan/appliance"
	"linkplan/engines/raytrace"
)

// Routes of the worker's HTTP API on its unix socket.
const (
	PathHealth = "/v1/health"
	PathPoint  = "/v1/point"
	PathMap    = "/v1/map"
)

// ProtocolVersion names the wire format; the appliance and the worker are
// the same binary, so a mismatch means a stale worker process.
const ProtocolVersion = "rtw-1"

// HeaderProtocol carries ProtocolVersion on every request and answer.
const HeaderProtocol = "X-Raytrace-Protocol"

// Error codes of the worker's error answers (ErrorBody.Code).
const (
	CodeInvalid       = "invalid"        // 422: the request or the scene is invalid (Fields name it)
	CodeSceneUnknown  = "scene_unknown"  // 409: the worker holds no scene of that hash; send the input
	CodeSceneMismatch = "scene_mismatch" // 422: the input does not build a scene of the named hash
	CodeUnauthorized  = "unauthorized"   // 401: the secret is missing or wrong
	CodeBadRequest    = "bad_request"    // 400: the body is not a unit of this protocol
	CodeInternal      = "internal"       // 500: a bug (a panic recovered in the worker)
	CodeStopping      = "stopping"       // 503: the worker is shutting down
)

// SceneRef names the scene a unit is computed on: Hash is the hex SHA-256
// of raytrace.Scene.Hash; Input, when set, is what the scene is built
// from. The worker builds and caches the scene by hash: a unit normally
// carries the hash only, and the input only when the worker answered
// CodeSceneUnknown. A worker whose built scene has another hash refuses
// the unit (CodeSceneMismatch): units are pure functions of named data
// (WORK.md).
type SceneRef struct {
	Hash  string
	Input *raytrace.SceneInput
}

// Scene is what an executor is given: the hash of the scene, and how to
// get its input when the executor does not hold it (loaded from the store
// and the terrain packs by the appliance, the only reader of tenant data).
type Scene struct {
	Hash  string
	Input func(ctx context.Context) (*raytrace.SceneInput, error)
}

// pointUnit and mapUnit are the bodies of PathPoint and PathMap (gob).
// Antenna patterns (func values) do not travel: the worker traces with
// isotropic antennas, and the appliance's link budget applies the
// patterns, as it does for every engine.
type pointUnit struct {
	Scene   SceneRef
	Request raytrace.PointRequest
}

type mapUnit struct {
	Scene   SceneRef
	Request raytrace.MapRequest
}

// ErrorBody is an error answer of the worker (JSON).
type ErrorBody struct {
	Code    string                 `json:"code"`
	Message string                 `json:"message"`
	Fields  []appliance.FieldError `json:"fields,omitempty"`
}

// Health is the answer of PathHealth.
type Health struct {
	Protocol      string `json:"protocol"`
	Backend       string `json:"backend"`
	EngineVersion string `json:"engine_version"`
	PID           int    `json:"pid"`
	Scenes        int    `json:"scenes"` // scenes held in the cache
	Workers       int    `json:"workers"`
}

// encode writes v as gob.
func encode(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// decodeUnit reads one unit (gob) of at most limit bytes into v. Every
// failure matches appliance.ErrInvalid; a panic of the decoder (gob is
// not hardened against every hostile input) is one too.
func decodeUnit(r io.Reader, limit int64, v any) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("decode unit: %v: %w", p, appliance.ErrInvalid)
		}
	}()
	lr := &io.LimitedReader{R: r, N: limit + 1}
	if err := gob.NewDecoder(lr).Decode(v); err != nil {
		if lr.N <= 0 {
			return fmt.Errorf("decode unit: larger than %d bytes: %w", limit, appliance.ErrInvalid)
		}
		return fmt.Errorf("decode unit: %v: %w", err, appliance.ErrInvalid)
	}
	return nil
}

// checkHash checks that h is the hex of a SHA-256.
func checkHash(h string) error {
	b, err := hex.DecodeString(h)
	if err != nil || len(b) != 32 {
		return appliance.Invalid("scene.hash", "must be 64 hex digits (a SHA-256), got %q", truncate(h, 80))
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// errSceneUnknown is the worker's answer to a unit whose scene it does
// not hold and whose input the unit lacks.
var errSceneUnknown = errors.New("scene unknown")
