package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	bolt "go.etcd.io/bbolt"

	"linkplan/appliance"
)

// Observations (appliance/observations) live in two buckets named after
// the SPEC's tables, keyed by tenant id + 0x00 + observation id. The dedup
// index maps tenant id + 0x00 + dedup key to the observation id, and the
// counts bucket keeps each tenant's row counts (JSON
// appliance.ObservationCounts) so that stats never scan the rows.
var (
	bucketLinkObservations  = []byte("link_observations")
	bucketCellSignalSamples = []byte("cell_signal_samples")
	bucketObsDedup          = []byte("observation_dedup")
	bucketObsCounts         = []byte("observation_counts")
	bucketDividends         = []byte("data_dividend_events") // tenant id + 0x00 + observation id -> appliance.DividendEvent
)

func obsBucket(kind appliance.ObservationKind) ([]byte, error) {
	switch kind {
	case appliance.KindLinkObservation:
		return bucketLinkObservations, nil
	case appliance.KindCellSignalSample:
		return bucketCellSignalSamples, nil
	}
	return nil, fmt.Errorf("observation kind %q: %w", kind, appliance.ErrInvalid)
}

func obsKey(tenant, rest string) []byte {
	return append(append([]byte(tenant), 0), rest...)
}

// PutObservations stores, for tenant, the rows of kind whose dedup key
// (keys[i] for rows[i]) the tenant has not stored yet, updates the
// tenant's counts and appends the audit entries, in one transaction. For
// every stored row i with dividends[i] non-nil (dividends may be nil) it
// also creates that data dividend event, with the row's observation id and
// the tenant. It returns which rows it stored (the others' keys were
// stored already).
func (db *DB) PutObservations(tenant string, kind appliance.ObservationKind, rows []appliance.Observation, keys []string,
	dividends []*appliance.DividendEvent, audit ...appliance.AuditEntry) ([]bool, error) {
	if len(rows) != len(keys) {
		return nil, fmt.Errorf("put observations: %d rows and %d keys: %w", len(rows), len(keys), appliance.ErrInvalid)
	}
	name, err := obsBucket(kind)
	if err != nil {
		return nil, fmt.Errorf("put observations: %w", err)
	}
	stored := 0
	var fresh []bool
	err = db.bolt.Update(func(tx *bolt.Tx) error {
		stored = 0
		b, dedup, counts := tx.Bucket(name), tx.Bucket(bucketObsDedup), tx.Bucket(bucketObsCounts)
		// Keys are written in ascending order: bbolt keeps a transaction's
		// inserts in its nodes until commit, so that an insert in the
		// middle of a grown node moves everything after it; ascending
		// inserts append. Rows whose dedup key is stored are skipped.
		byKey := make([]int, len(rows))
		for i := range byKey {
			byKey[i] = i
		}
		slices.SortFunc(byKey, func(x, y int) int { return strings.Compare(keys[x], keys[y]) })
		fresh = make([]bool, len(rows))
		for _, i := range byKey {
			dk := obsKey(tenant, keys[i])
			if dedup.Get(dk) != nil {
				continue
			}
			if err := dedup.Put(dk, []byte(rows[i].ID)); err != nil {
				return err
			}
			fresh[i] = true
			stored++
		}
		slices.SortFunc(byKey, func(x, y int) int { return strings.Compare(rows[x].ID, rows[y].ID) })
		grants := 0
		for _, i := range byKey {
			if !fresh[i] {
				continue
			}
			if rows[i].Consent == appliance.ConsentConsented {
				grants++
			}
			raw, err := json.Marshal(&rows[i])
			if err != nil {
				return err
			}
			if err := b.Put(obsKey(tenant, rows[i].ID), raw); err != nil {
				return err
			}
			if i < len(dividends) && dividends[i] != nil {
				ev := *dividends[i]
				ev.ObservationID, ev.TenantID = rows[i].ID, tenant
				raw, err := json.Marshal(&ev)
				if err != nil {
					return err
				}
				if err := tx.Bucket(bucketDividends).Put(obsKey(tenant, rows[i].ID), raw); err != nil {
					return err
				}
			}
		}
		var c appliance.ObservationCounts
		if raw := counts.Get([]byte(tenant)); raw != nil {
			if err := json.Unmarshal(raw, &c); err != nil {
				return fmt.Errorf("counts of tenant %q: %w", tenant, err)
			}
		}
		if kind == appliance.KindLinkObservation {
			c.LinkObservations += stored
		} else {
			c.CellSignalSamples += stored
		}
		raw, err := json.Marshal(c)
		if err != nil {
			return err
		}
		if err := counts.Put([]byte(tenant), raw); err != nil {
			return err
		}
		if err := addConsentGrantsTx(tx, grants); err != nil {
			return err
		}
		return db.appendAuditsTx(tx, audit...)
	})
	if err != nil {
		return nil, fmt.Errorf("put observations: %w", err)
	}
	return fresh, nil
}

// ObservationCounts returns a tenant's stored row counts, or every
// tenant's summed when tenant is "".
func (db *DB) ObservationCounts(tenant string) (appliance.ObservationCounts, error) {
	var out appliance.ObservationCounts
	add := func(raw []byte) error {
		var c appliance.ObservationCounts
		if err := json.Unmarshal(raw, &c); err != nil {
			return err
		}
		out.LinkObservations += c.LinkObservations
		out.CellSignalSamples += c.CellSignalSamples
		return nil
	}
	err := db.bolt.View(func(tx *bolt.Tx) error {
		counts := tx.Bucket(bucketObsCounts)
		if tenant != "" {
			if raw := counts.Get([]byte(tenant)); raw != nil {
				return add(raw)
			}
			return nil
		}
		return counts.ForEach(func(_, v []byte) error { return add(v) })
	})
	if err != nil {
		return appliance.ObservationCounts{}, fmt.Errorf("observation counts: %w", err)
	}
	return out, nil
}

// Observations calls fn with every stored row of kind of a tenant ("" for
// every tenant), in key order, until fn returns false.
func (db *DB) Observations(tenant string, kind appliance.ObservationKind, fn func(appliance.Observation) bool) error {
	name, err := obsBucket(kind)
	if err != nil {
		return fmt.Errorf("observations: %w", err)
	}
	err = db.bolt.View(func(tx *bolt.Tx) error { return eachTenantJSON(tx.Bucket(name), tenant, fn) })
	if err != nil {
		return fmt.Errorf("observations: %w", err)
	}
	return nil
}

// ConsentedObservations calls fn, in one read transaction, with every
// stored row of every tenant that is consented for training (SPEC §3):
// link observations first, then cell signal samples, each in key order,
// until fn returns false. It returns how many rows of both kinds are
// stored, consented or not (for the message of a refused retrain).
func (db *DB) ConsentedObservations(fn func(appliance.ObservationKind, appliance.Observation) bool) (stored int, err error) {
	err = db.bolt.View(func(tx *bolt.Tx) error {
		stop := false
		for _, kind := range []appliance.ObservationKind{appliance.KindLinkObservation, appliance.KindCellSignalSample} {
			name, _ := obsBucket(kind)
			b := tx.Bucket(name)
			stored += b.Stats().KeyN
			if stop {
				continue
			}
			err := eachTenantJSON(b, "", func(o appliance.Observation) bool {
				if o.Consent != appliance.ConsentConsented {
					return true
				}
				stop = !fn(kind, o)
				return !stop
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("consented observations: %w", err)
	}
	return stored, nil
}

// eachTenantJSON decodes, in key order, every value of b whose key is
// under tenant's prefix (tenant id + 0x00; every value when tenant is "")
// and calls fn with it until fn returns false.
func eachTenantJSON[T any](b *bolt.Bucket, tenant string, fn func(T) bool) error {
	c := b.Cursor()
	pfx := obsKey(tenant, "")
	k, v := c.First()
	if tenant != "" {
		k, v = c.Seek(pfx)
	}
	for ; k != nil && (tenant == "" || bytes.HasPrefix(k, pfx)); k, v = c.Next() {
		var x T
		if err := json.Unmarshal(v, &x); err != nil {
			return fmt.Errorf("row %q: %w", k, err)
		}
		if !fn(x) {
			break
		}
	}
	return nil
}

// rewriteJSON decodes every value of b, lets change edit it, and stores
// the values change reports changed (after the walk: a bucket must not
// change under its cursor). It returns how many it stored.
func rewriteJSON[T any](b *bolt.Bucket, change func(*T) bool) (int, error) {
	type upd struct{ k, v []byte }
	var ups []upd
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		var x T
		if err := json.Unmarshal(v, &x); err != nil {
			return 0, fmt.Errorf("row %q: %w", k, err)
		}
		if !change(&x) {
			continue
		}
		raw, err := json.Marshal(&x)
		if err != nil {
			return 0, err
		}
		ups = append(ups, upd{slices.Clone(k), raw})
	}
	for _, u := range ups {
		if err := b.Put(u.k, u.v); err != nil {
			return 0, err
		}
	}
	return len(ups), nil
}

// StampConsent sets the consent of every stored row (both kinds, every
// tenant) whose source is exactly source to state, with the audit entry,
// in one transaction. It returns how many rows changed.
func (db *DB) StampConsent(source string, state appliance.Consent, audit appliance.AuditEntry) (int, error) {
	changed := 0
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		changed = 0
		for _, name := range [][]byte{bucketLinkObservations, bucketCellSignalSamples} {
			n, err := rewriteJSON(tx.Bucket(name), func(o *appliance.Observation) bool {
				if o.Source != source || o.Consent == state {
					return false
				}
				o.Consent = state
				return true
			})
			if err != nil {
				return err
			}
			changed += n
		}
		if state == appliance.ConsentConsented {
			if err := addConsentGrantsTx(tx, changed); err != nil {
				return err
			}
		}
		audit.Params["rows"] = fmt.Sprint(changed)
		return db.appendAuditsTx(tx, audit)
	})
	if err != nil {
		return 0, fmt.Errorf("stamp consent: %w", err)
	}
	return changed, nil
}

// DividendEvents calls fn with every data dividend event (every tenant's
// when tenant is ""), in key order, until fn returns false.
func (db *DB) DividendEvents(tenant string, fn func(appliance.DividendEvent) bool) error {
	err := db.bolt.View(func(tx *bolt.Tx) error { return eachTenantJSON(tx.Bucket(bucketDividends), tenant, fn) })
	if err != nil {
		return fmt.Errorf("dividend events: %w", err)
	}
	return nil
}

// SettleDividends sets amount, form and settlement time on every unsettled
// data dividend event, with the audit entry, in one transaction, and
// returns how many it settled.
func (db *DB) SettleDividends(amountBRLCents int64, form string, settledAt float64, audit appliance.AuditEntry) (int, error) {
	n := 0
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		var err error
		n, err = rewriteJSON(tx.Bucket(bucketDividends), func(e *appliance.DividendEvent) bool {
			if e.SettledAt != nil {
				return false
			}
			amt, f, at := amountBRLCents, form, settledAt
			e.AmountBRLCents, e.SettlementForm, e.SettledAt = &amt, &f, &at
			return true
		})
		if err != nil {
			return err
		}
		audit.Params["events"] = fmt.Sprint(n)
		return db.appendAuditsTx(tx, audit)
	})
	if err != nil {
		return 0, fmt.Errorf("settle dividends: %w", err)
	}
	return n, nil
}
