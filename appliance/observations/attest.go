package observations

import (
	"fmt"
	"strings"
	"time"

	"linkplan/appliance"
)

// Audit actions of the source attestation.
const (
	ActionAttest         = appliance.ActionObservationSourceAttest
	ActionAttestWithdraw = appliance.ActionObservationSourceWithdraw
)

// SyntheticSource is the synthetic generator's source label
// (appliance/training): its rows are never field measurements and cannot
// be attested.
const SyntheticSource = "synthetic"

// AttestStore records attestations (store.DB).
type AttestStore interface {
	AttestSource(a appliance.SourceAttestation, audit appliance.AuditEntry) (appliance.SourceAttestation, error)
}

// AttestSource is the operator's statement that the rows of exactly one
// named source are field measurements (`linkplan observations attest`):
// only attested rows make a model's data provenance real, and so its
// grade and field-accuracy claim (appliance/training); a tenant's source
// label never does. Like the consent stamping of SPEC §3 it names one
// source (no wildcard, no --all), needs a basis text and is audited in the
// same transaction. It covers the source's rows stored until now; rows
// stored later need another attestation. withdraw reverses it (the next
// retrain counts the rows as unattested, and the serving side stops the
// claim of a model trained on them at its next start). The synthetic
// generator's source is refused: generated rows are not measurements.
func AttestSource(st AttestStore, source, basis string, withdraw bool, operator string, now time.Time) (appliance.SourceAttestation, error) {
	v := &appliance.ValidationError{}
	if !validSource(source) {
		v.Add("source", "must name exactly one source (1 to %d characters of a-z, 0-9, '_', '.' or '-'); wildcards and --all are refused", MaxSourceLen)
	} else if source == SyntheticSource && !withdraw {
		v.Add("source", "synthetic rows come from the generator (`linkplan model synth`) and are not field measurements: they cannot be attested")
	}
	basis = strings.TrimSpace(basis)
	if basis == "" || len([]rune(basis)) > MaxBasisLen {
		v.Add("basis", "is required: why the rows are field measurements (or why the attestation is withdrawn), at most %d characters", MaxBasisLen)
	}
	if err := v.Err(); err != nil {
		return appliance.SourceAttestation{}, fmt.Errorf("attest source: %w", err)
	}
	at := float64(now.UnixNano()) / 1e9
	a := appliance.SourceAttestation{Source: source, Basis: basis, AttestedBy: operator, AttestedAtUnix: at}
	action := ActionAttest
	if withdraw {
		a = appliance.SourceAttestation{Source: source, WithdrawnAtUnix: &at, WithdrawnBy: operator, WithdrawBasis: basis}
		action = ActionAttestWithdraw
	}
	return st.AttestSource(a, appliance.AuditEntry{Action: action, ActorEmail: operator, Route: "cli: linkplan observations attest",
		Params: map[string]string{"source": source, "basis": basis}})
}
