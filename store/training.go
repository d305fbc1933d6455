package store

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"linkplan/appliance"
)

// Buckets of the training side (appliance/training). Both are global: they
// hold counters and decisions about the global model, no tenant's rows.
var (
	// bucketModelTraining holds keyConsentGrants (big-endian uint64) and
	// keyRetrainState (JSON appliance.RetrainState).
	bucketModelTraining = []byte("model_training")
	// bucketModelDecisions maps a retrain's job id to its JSON
	// appliance.ModelDecision.
	bucketModelDecisions = []byte("model_decisions")

	keyConsentGrants = []byte("consent_grants")
	keyRetrainState  = []byte("retrain_state")
)

// createTrainingBuckets (one migration) creates the training buckets and
// starts the consent-grant counter at the number of consented rows already
// stored, so that rows consented before the counter existed are not new.
func createTrainingBuckets(tx *bolt.Tx) error {
	b, err := tx.CreateBucketIfNotExists(bucketModelTraining)
	if err != nil {
		return err
	}
	if _, err := tx.CreateBucketIfNotExists(bucketModelDecisions); err != nil {
		return err
	}
	if b.Get(keyConsentGrants) != nil {
		return nil
	}
	var n uint64
	for _, name := range [][]byte{bucketLinkObservations, bucketCellSignalSamples} {
		err := eachTenantJSON(tx.Bucket(name), "", func(o appliance.Observation) bool {
			if o.Consent == appliance.ConsentConsented {
				n++
			}
			return true
		})
		if err != nil {
			return err
		}
	}
	return putUint64(b, keyConsentGrants, n)
}

func putUint64(b *bolt.Bucket, k []byte, v uint64) error {
	var raw [8]byte
	binary.BigEndian.PutUint64(raw[:], v)
	return b.Put(k, raw[:])
}

func getUint64(b *bolt.Bucket, k []byte) uint64 {
	if raw := b.Get(k); len(raw) == 8 {
		return binary.BigEndian.Uint64(raw)
	}
	return 0
}

// addConsentGrantsTx adds n to the consent-grant counter: the number of
// times a row became consented for training (stored consented, or stamped
// consented). It only grows: a withdrawal or a deletion does not undo a
// grant, so "new consented rows since the last training" is a difference
// of two readings.
func addConsentGrantsTx(tx *bolt.Tx, n int) error {
	if n <= 0 {
		return nil
	}
	b := tx.Bucket(bucketModelTraining)
	return putUint64(b, keyConsentGrants, getUint64(b, keyConsentGrants)+uint64(n))
}

// ConsentGrants returns the consent-grant counter (see addConsentGrantsTx).
func (db *DB) ConsentGrants() (uint64, error) {
	var n uint64
	err := db.bolt.View(func(tx *bolt.Tx) error {
		n = getUint64(tx.Bucket(bucketModelTraining), keyConsentGrants)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("consent grants: %w", err)
	}
	return n, nil
}

func retrainStateTx(tx *bolt.Tx) (appliance.RetrainState, error) {
	var st appliance.RetrainState
	if raw := tx.Bucket(bucketModelTraining).Get(keyRetrainState); raw != nil {
		if err := json.Unmarshal(raw, &st); err != nil {
			return st, fmt.Errorf("retrain state: %w", err)
		}
	}
	return st, nil
}

func putRetrainStateTx(tx *bolt.Tx, st appliance.RetrainState) error {
	raw, err := json.Marshal(st)
	if err != nil {
		return err
	}
	return tx.Bucket(bucketModelTraining).Put(keyRetrainState, raw)
}

// RetrainState returns the training bookkeeping (zero before the first
// retrain).
func (db *DB) RetrainState() (appliance.RetrainState, error) {
	var st appliance.RetrainState
	err := db.bolt.View(func(tx *bolt.Tx) error {
		var err error
		st, err = retrainStateTx(tx)
		return err
	})
	if err != nil {
		return st, fmt.Errorf("retrain state: %w", err)
	}
	return st, nil
}

// UpdateRetrainState applies change to the training bookkeeping in one
// transaction and returns the state it stored; change returning false
// stores nothing (and the unchanged state is returned).
func (db *DB) UpdateRetrainState(change func(*appliance.RetrainState) bool) (appliance.RetrainState, error) {
	var st appliance.RetrainState
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		var err error
		if st, err = retrainStateTx(tx); err != nil {
			return err
		}
		if !change(&st) {
			return nil
		}
		return putRetrainStateTx(tx, st)
	})
	if err != nil {
		return st, fmt.Errorf("update retrain state: %w", err)
	}
	return st, nil
}

// errDecided stops PutModelDecision's transaction when the job's decision
// is already stored.
var errDecided = errors.New("decided")

// PutModelDecision records d under d.JobID together with the bookkeeping
// of a finished retrain (GrantsAtLastTraining = grants, LastTrainedUnix,
// LastJobID, and Seq moved past nextSeq-1: Seq = max(Seq, nextSeq)) and the
// audit entries, in one transaction. A job id already recorded writes
// nothing and returns false with the stored decision, so a re-run of the
// same job never records or audits twice.
func (db *DB) PutModelDecision(d *appliance.ModelDecision, grants, nextSeq uint64, audit ...appliance.AuditEntry) (bool, *appliance.ModelDecision, error) {
	if d.JobID == "" {
		return false, nil, fmt.Errorf("put model decision: empty job id: %w", appliance.ErrInvalid)
	}
	var prev appliance.ModelDecision
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketModelDecisions)
		if raw := b.Get([]byte(d.JobID)); raw != nil {
			if err := json.Unmarshal(raw, &prev); err != nil {
				return fmt.Errorf("decision of %s: %w", d.JobID, err)
			}
			return errDecided
		}
		raw, err := json.Marshal(d)
		if err != nil {
			return err
		}
		if err := b.Put([]byte(d.JobID), raw); err != nil {
			return err
		}
		st, err := retrainStateTx(tx)
		if err != nil {
			return err
		}
		st.GrantsAtLastTraining, st.LastTrainedUnix, st.LastJobID = grants, d.DecidedAtUnix, d.JobID
		st.Seq = max(st.Seq, nextSeq)
		if err := putRetrainStateTx(tx, st); err != nil {
			return err
		}
		return db.appendAuditsTx(tx, audit...)
	})
	if errors.Is(err, errDecided) {
		return false, &prev, nil
	}
	if err != nil {
		return false, nil, fmt.Errorf("put model decision: %w", err)
	}
	return true, d, nil
}

// ModelDecision returns the decision recorded for a job id, or an
// appliance.ErrNotFound error.
func (db *DB) ModelDecision(jobID string) (*appliance.ModelDecision, error) {
	var d *appliance.ModelDecision
	err := db.bolt.View(func(tx *bolt.Tx) error {
		raw := tx.Bucket(bucketModelDecisions).Get([]byte(jobID))
		if raw == nil {
			return nil
		}
		d = new(appliance.ModelDecision)
		return json.Unmarshal(raw, d)
	})
	if err != nil {
		return nil, fmt.Errorf("model decision %s: %w", jobID, err)
	}
	if d == nil {
		return nil, fmt.Errorf("model decision %s: %w", jobID, appliance.ErrNotFound)
	}
	return d, nil
}

// ModelDecisions returns every recorded decision, in job id order.
func (db *DB) ModelDecisions() ([]appliance.ModelDecision, error) {
	var out []appliance.ModelDecision
	err := db.bolt.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketModelDecisions).ForEach(func(k, v []byte) error {
			var d appliance.ModelDecision
			if err := json.Unmarshal(v, &d); err != nil {
				return fmt.Errorf("decision %s: %w", k, err)
			}
			out = append(out, d)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("model decisions: %w", err)
	}
	return out, nil
}
