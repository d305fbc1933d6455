package appliance

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
)

// UnitKind names a kind of work unit; each kind has one runner.
type UnitKind string

// Unit kinds.
const (
	// UnitCoverageRadials is a range of radials of one coverage map
	// (appliance/coverage): the values of their pixels.
	UnitCoverageRadials UnitKind = "coverage.radials"
	// UnitBatchRows is a chunk of rows of a batch report job
	// (appliance/batch): their row results.
	UnitBatchRows UnitKind = "batch.rows"
)

// Inputs names the read-only data a unit is computed on, each by a hex
// SHA-256 digest: "terrain" (the packs), "towers" (the public tower
// snapshot), "engines" (the engines, their versions and parameters).
type Inputs map[string]string

// Mismatch returns why have cannot compute units that need want: the
// names whose digests differ or that have lacks, "" when none.
func (want Inputs) Mismatch(have Inputs) string {
	var bad []string
	for name, d := range want {
		switch h, ok := have[name]; {
		case !ok:
			bad = append(bad, name+" missing")
		case h != d:
			bad = append(bad, fmt.Sprintf("%s %s, the appliance has %s", name, short(h), short(d)))
		}
	}
	if len(bad) == 0 {
		return ""
	}
	sort.Strings(bad)
	return "inputs differ from the appliance's: " + strings.Join(bad, "; ")
}

func short(d string) string {
	if len(d) > 12 {
		return d[:12]
	}
	return d
}

// WorkUnit is one piece of heavy work that runs anywhere the inputs are
// (in the process, or on a worker): pure, its body and the named inputs
// give its result. It carries its tenant and its limits; a worker gets
// nothing else of the tenant's.
type WorkUnit struct {
	JobID string // the job or coverage map the unit belongs to
	// Run names one run of the job (a lease token, a map): results of
	// another run are not merged into this one.
	Run      string
	Index    int // 0-based, within the run
	Kind     UnitKind
	TenantID string
	Tier     Tier
	// Inputs are the digests the unit was planned on; a worker whose
	// inputs differ refuses it.
	Inputs Inputs
	// Deadline is when a worker gives the unit up (zero: none).
	Deadline time.Time
	// MaxResultBytes bounds the encoded result (0: the transport's own
	// bound).
	MaxResultBytes int
	Body           []byte
}

// Key is the unit's identity: results are merged once per key.
func (u *WorkUnit) Key() string { return fmt.Sprintf("%s/%s/%d", u.JobID, u.Run, u.Index) }

// UnitRunner computes units of one kind: the same code in the appliance
// and on a worker.
type UnitRunner interface {
	RunUnit(ctx context.Context, u *WorkUnit) ([]byte, error)
}

// UnitRunnerFunc is a function as a UnitRunner.
type UnitRunnerFunc func(ctx context.Context, u *WorkUnit) ([]byte, error)

// RunUnit calls f.
func (f UnitRunnerFunc) RunUnit(ctx context.Context, u *WorkUnit) ([]byte, error) { return f(ctx, u) }

// UnitExecutor runs the units of one run of a job, wherever it runs them,
// and hands each result to merge exactly once (never concurrently), in
// any order. A unit computed twice (its worker died after computing it)
// is merged once. Execute returns when every unit is merged, or with the
// first error: a unit's own error (as its runner returned it, its meaning
// kept: ErrInvalid, ErrOutsideEnvelope, ErrTerrainMissing), a quarantine
// (ErrUnitQuarantined), merge's error, or ctx's.
type UnitExecutor interface {
	Execute(ctx context.Context, units []WorkUnit, merge func(i int, result []byte) error) error
}

// ErrUnitQuarantined means a unit stopped its workers JobCrashLimit times
// (each died or went silent while it ran): it is not delivered again and
// its job fails.
var ErrUnitQuarantined = errors.New("a work unit stopped its workers twice; quarantined")

// UnitError is a unit's error as it crossed a process boundary: its
// message and the sentinel it matched.
type UnitError struct {
	Msg  string
	Kind error // nil, ErrInvalid, ErrOutsideEnvelope, ErrTerrainMissing, ErrUnitQuarantined, context.Canceled
}

func (e *UnitError) Error() string { return e.Msg }

// Unwrap returns the sentinel the error matched.
func (e *UnitError) Unwrap() error { return e.Kind }

// UnitErrorCode names the sentinel err matches for the wire ("" none).
func UnitErrorCode(err error) string {
	switch {
	case errors.Is(err, ErrUnitQuarantined):
		return "quarantined"
	case errors.Is(err, ErrOutsideEnvelope):
		return "outside_envelope"
	case errors.Is(err, ErrTerrainMissing):
		return "terrain_missing"
	case errors.Is(err, ErrInvalid):
		return "invalid"
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "canceled"
	}
	return ""
}

// UnitErrorFrom rebuilds a unit error from its wire form (UnitErrorCode).
func UnitErrorFrom(msg, code string) error {
	e := &UnitError{Msg: msg}
	switch code {
	case "quarantined":
		e.Kind = ErrUnitQuarantined
	case "outside_envelope":
		e.Kind = ErrOutsideEnvelope
	case "terrain_missing":
		e.Kind = ErrTerrainMissing
	case "invalid":
		e.Kind = ErrInvalid
	case "canceled":
		e.Kind = context.Canceled
	}
	return e
}
