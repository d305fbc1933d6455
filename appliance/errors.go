package appliance

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors carry meaning across package boundaries. Wrap them with
// fmt.Errorf("operation: %w", ErrX); web/api maps them to HTTP status codes in
// exactly one function.
var (
	// ErrNotFound means the named resource does not exist.
	ErrNotFound = errors.New("not found")
	// ErrInvalid means the input is malformed or out of range.
	ErrInvalid = errors.New("invalid input")
	// ErrConflict means the request conflicts with stored state.
	ErrConflict = errors.New("conflict")
	// ErrUnauthenticated means no valid credential was presented.
	ErrUnauthenticated = errors.New("unauthenticated")
	// ErrForbidden means the credential is valid but lacks the tier or role.
	ErrForbidden = errors.New("forbidden")
	// ErrQuota means a tier limit or quota was reached.
	ErrQuota = errors.New("quota exceeded")
	// ErrUnavailable means a dependency (store, terrain, queue) is not ready.
	ErrUnavailable = errors.New("unavailable")
	// ErrOutsideEnvelope means a model or engine was asked outside its
	// validity range.
	ErrOutsideEnvelope = errors.New("outside validity envelope")
	// ErrTerrainMissing means a terrain tile needed by a computation is not
	// in any loaded pack. SPEC §8.6: there is no fallback, never sea level.
	ErrTerrainMissing = errors.New("terrain tile missing")
	// ErrErased means the API key was erased (privacy request).
	ErrErased = errors.New("API key has been erased")
)

// FieldError describes one bad input field. Field is the JSON path as the
// client sent it (for example "receiver.lat").
type FieldError struct {
	Field  string `json:"field"`
	Reason string `json:"reason"`
}

func (e FieldError) Error() string { return e.Field + ": " + e.Reason }

// ValidationError collects every bad field of one request, so that a client
// learns about all of them at once. It matches ErrInvalid with errors.Is.
type ValidationError struct {
	Fields []FieldError
}

// Add records one bad field.
func (v *ValidationError) Add(field, format string, args ...any) {
	v.Fields = append(v.Fields, FieldError{Field: field, Reason: fmt.Sprintf(format, args...)})
}

// Err returns v when it holds at least one field, else nil.
func (v *ValidationError) Err() error {
	if v == nil || len(v.Fields) == 0 {
		return nil
	}
	return v
}

func (v *ValidationError) Error() string {
	parts := make([]string, len(v.Fields))
	for i, f := range v.Fields {
		parts[i] = f.Error()
	}
	return "invalid input: " + strings.Join(parts, "; ")
}

// Is reports that a ValidationError is an ErrInvalid.
func (v *ValidationError) Is(target error) bool { return target == ErrInvalid }

// Invalid returns a ValidationError for a single field.
func Invalid(field, format string, args ...any) error {
	v := &ValidationError{}
	v.Add(field, format, args...)
	return v
}

// TileMissingError names the terrain tile that a computation needed and no
// loaded pack holds. It matches ErrTerrainMissing.
type TileMissingError struct {
	Tile string // SRTM-style tile name, e.g. "S24W047"
}

func (e *TileMissingError) Error() string {
	return fmt.Sprintf("terrain tile %s is not in any loaded terrain pack", e.Tile)
}

// Is reports that a TileMissingError is an ErrTerrainMissing.
func (e *TileMissingError) Is(target error) bool { return target == ErrTerrainMissing }
