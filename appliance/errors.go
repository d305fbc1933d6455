package appliance

import (
	"errors"
	"fmt"
	"strings"
	"time"
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
	// ErrTooManyRows means a request carries more rows than a batch may
	// hold (SPEC §7: 400 with a parseable message, never queued).
	ErrTooManyRows = errors.New("too many rows")
)

// RetryAfterError is a refusal the client may retry after a known wait (a
// throttle or a rate limit: Err matches ErrQuota). The API answers it with
// a Retry-After header of After, rounded up to whole seconds.
type RetryAfterError struct {
	Err   error
	After time.Duration // wait before a retry can succeed, at most
}

func (e *RetryAfterError) Error() string { return e.Err.Error() }

// Unwrap returns the refusal, so errors.Is finds its sentinel.
func (e *RetryAfterError) Unwrap() error { return e.Err }

// FieldError describes one bad input field. Field is the JSON path as the
// client sent it (for example "receiver.lat").
type FieldError struct {
	Field  string `json:"field"`
	Reason string `json:"reason"`
}

func (e FieldError) Error() string { return e.Field + ": " + e.Reason }

// MaxFieldErrors is the most field errors one ValidationError keeps. A
// hostile body can hold hundreds of thousands of bad elements; reporting
// each one would make the error larger than the request (issue 7, finding
// 5). Fields beyond the cap are only counted (Omitted).
const MaxFieldErrors = 50

// ValidationError collects the bad fields of one request, so that a client
// learns about all of them at once: the first MaxFieldErrors in Fields, and
// how many more there were in Omitted. It matches ErrInvalid with
// errors.Is.
type ValidationError struct {
	Fields []FieldError
	// Omitted counts the bad fields found after Fields was full.
	Omitted int
}

// Add records one bad field. Once MaxFieldErrors are kept it only counts
// (and does not format the reason).
func (v *ValidationError) Add(field, format string, args ...any) {
	if len(v.Fields) >= MaxFieldErrors {
		v.Omitted++
		return
	}
	v.Fields = append(v.Fields, FieldError{Field: field, Reason: fmt.Sprintf(format, args...)})
}

// Merge records the bad fields of o (kept and omitted) after those of v,
// within the cap. A nil o adds nothing.
func (v *ValidationError) Merge(o *ValidationError) {
	if o == nil {
		return
	}
	room := max(MaxFieldErrors-len(v.Fields), 0)
	n := min(room, len(o.Fields))
	v.Fields = append(v.Fields, o.Fields[:n]...)
	v.Omitted += len(o.Fields) - n + o.Omitted
}

// Full reports whether v holds MaxFieldErrors fields, so that a loop over
// many elements can stop checking them: further Adds are only counted.
func (v *ValidationError) Full() bool { return len(v.Fields) >= MaxFieldErrors }

// Len returns the number of bad fields found, kept and omitted.
func (v *ValidationError) Len() int { return len(v.Fields) + v.Omitted }

// Err returns v when it holds at least one field, else nil.
func (v *ValidationError) Err() error {
	if v == nil || v.Len() == 0 {
		return nil
	}
	return v
}

// Error lists the kept fields and says how many more there were. Fields
// built by appending to v.Fields directly (not through Add or Merge) may
// exceed the cap; Error still lists at most MaxFieldErrors of them.
func (v *ValidationError) Error() string {
	kept := v.Fields[:min(len(v.Fields), MaxFieldErrors)]
	parts := make([]string, len(kept))
	for i, f := range kept {
		parts[i] = f.Error()
	}
	msg := "invalid input: " + strings.Join(parts, "; ")
	if more := v.Len() - len(kept); more > 0 {
		msg += fmt.Sprintf("; and %d more", more)
	}
	return msg
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
