package store

import (
	"bytes"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"linkplan/appliance"
)

// Source attestations live in the global bucket model_training (they are
// statements about the global model's sources, no tenant's rows), one JSON
// appliance.SourceAttestation per source under keyAttestationPrefix +
// source.
var keyAttestationPrefix = []byte("source_attestation/")

func attestationKey(source string) []byte {
	return append(bytes.Clone(keyAttestationPrefix), source...)
}

// AttestSource records or withdraws the attestation of a.Source with its
// audit entry in one transaction. Recording counts the stored rows of the
// source (every tenant's, both kinds) ingested at or before
// a.AttestedAtUnix into a.Rows, adds it to the audit entry's params
// ("rows") and replaces any earlier record of the source. Withdrawing
// (a.WithdrawnAtUnix set, WithdrawnBy and WithdrawBasis given) marks the
// live record withdrawn; a source with no live record is
// appliance.ErrNotFound and nothing changes. It returns the stored record.
func (db *DB) AttestSource(a appliance.SourceAttestation, audit appliance.AuditEntry) (appliance.SourceAttestation, error) {
	var out appliance.SourceAttestation
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketModelTraining)
		k := attestationKey(a.Source)
		if a.WithdrawnAtUnix != nil {
			raw := b.Get(k)
			var cur appliance.SourceAttestation
			if raw != nil {
				if err := json.Unmarshal(raw, &cur); err != nil {
					return fmt.Errorf("attestation of %q: %w", a.Source, err)
				}
			}
			if raw == nil || !cur.Live() {
				return fmt.Errorf("source %q has no standing attestation to withdraw: %w", a.Source, appliance.ErrNotFound)
			}
			cur.WithdrawnAtUnix, cur.WithdrawnBy, cur.WithdrawBasis = a.WithdrawnAtUnix, a.WithdrawnBy, a.WithdrawBasis
			out = cur
		} else {
			a.Rows = 0
			for _, name := range [][]byte{bucketLinkObservations, bucketCellSignalSamples} {
				err := eachTenantJSON(tx.Bucket(name), "", func(o appliance.Observation) bool {
					if o.Source == a.Source && o.IngestedAt <= a.AttestedAtUnix {
						a.Rows++
					}
					return true
				})
				if err != nil {
					return err
				}
			}
			out = a
		}
		raw, err := json.Marshal(out)
		if err != nil {
			return err
		}
		if err := b.Put(k, raw); err != nil {
			return err
		}
		if audit.Params == nil {
			audit.Params = map[string]string{}
		}
		audit.Params["rows"] = fmt.Sprint(out.Rows)
		return db.appendAuditsTx(tx, audit)
	})
	if err != nil {
		return appliance.SourceAttestation{}, fmt.Errorf("attest source: %w", err)
	}
	return out, nil
}

// SourceAttestations returns every attestation record, withdrawn ones
// included, sorted by source.
func (db *DB) SourceAttestations() ([]appliance.SourceAttestation, error) {
	out := []appliance.SourceAttestation{}
	err := db.bolt.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketModelTraining).Cursor()
		for k, v := c.Seek(keyAttestationPrefix); k != nil && bytes.HasPrefix(k, keyAttestationPrefix); k, v = c.Next() {
			var a appliance.SourceAttestation
			if err := json.Unmarshal(v, &a); err != nil {
				return fmt.Errorf("attestation %q: %w", k, err)
			}
			out = append(out, a)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("source attestations: %w", err)
	}
	return out, nil
}
