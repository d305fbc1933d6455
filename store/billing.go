package store

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"linkplan/appliance"
)

// ApplyBillingEvent applies ch in one transaction: unless an event with
// ch.Event.ID was stored before, it stores the new key, the account (and
// its customer index), the tier change, the claim, the audit entries and
// the event record, and returns true. A stored event id returns false and
// changes nothing (a replay). ch.NewCustomer with a customer that already
// has an account is an appliance.ErrConflict error.
func (db *DB) ApplyBillingEvent(ch *appliance.BillingChange) (bool, error) {
	applied := false
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		events := tx.Bucket(bucketBillingEvents)
		if events.Get([]byte(ch.Event.ID)) != nil {
			return nil
		}
		if k := ch.NewKey; k != nil {
			raw, err := json.Marshal(toKeyRecord(k))
			if err != nil {
				return err
			}
			keys, ids := tx.Bucket(bucketKeys), tx.Bucket(bucketKeyIDs)
			if keys.Get([]byte(k.HashHex)) != nil || ids.Get([]byte(k.ID)) != nil {
				return fmt.Errorf("key %s already exists: %w", k.ID, appliance.ErrConflict)
			}
			if err := keys.Put([]byte(k.HashHex), raw); err != nil {
				return err
			}
			if err := ids.Put([]byte(k.ID), []byte(k.HashHex)); err != nil {
				return err
			}
		}
		if a := ch.Account; a != nil {
			cust := tx.Bucket(bucketBillingCustomers)
			if prev := cust.Get([]byte(a.CustomerID)); prev != nil && (ch.NewCustomer || string(prev) != a.TenantID) {
				return fmt.Errorf("customer %q already has an account: %w", a.CustomerID, appliance.ErrConflict)
			}
			raw, err := json.Marshal(a)
			if err != nil {
				return err
			}
			if err := tx.Bucket(bucketBillingAccounts).Put([]byte(a.TenantID), raw); err != nil {
				return err
			}
			if err := cust.Put([]byte(a.CustomerID), []byte(a.TenantID)); err != nil {
				return err
			}
		}
		if ch.SetTier.TenantID != "" {
			if err := setTenantTierTx(tx, ch.SetTier.TenantID, ch.SetTier.Tier); err != nil {
				return err
			}
		}
		if c := ch.Claim; c != nil {
			claims := tx.Bucket(bucketKeyClaims)
			if claims.Get([]byte(c.ID)) != nil {
				return fmt.Errorf("checkout session already has a key claim: %w", appliance.ErrConflict)
			}
			raw, err := json.Marshal(c)
			if err != nil {
				return err
			}
			if err := claims.Put([]byte(c.ID), raw); err != nil {
				return err
			}
		}
		raw, err := json.Marshal(ch.Event)
		if err != nil {
			return err
		}
		if err := events.Put([]byte(ch.Event.ID), raw); err != nil {
			return err
		}
		if err := db.appendAuditsTx(tx, ch.Audit...); err != nil {
			return err
		}
		applied = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("apply billing event %q: %w", ch.Event.ID, err)
	}
	return applied, nil
}

// setTenantTierTx moves every active tenant or internal key of tenantID to
// tier; erased, revoked and admin keys keep theirs.
func setTenantTierTx(tx *bolt.Tx, tenantID string, tier appliance.Tier) error {
	keys := tx.Bucket(bucketKeys)
	type upd struct{ k, v []byte }
	var ups []upd
	err := keys.ForEach(func(k, v []byte) error {
		var rec keyRecord
		if err := json.Unmarshal(v, &rec); err != nil {
			return err
		}
		if rec.TenantID != tenantID || rec.Tier == string(appliance.TierErased) || rec.RevokedUnix != 0 || rec.Role == string(appliance.RoleAdmin) {
			return nil
		}
		rec.Tier = string(tier)
		raw, err := json.Marshal(rec)
		if err != nil {
			return err
		}
		ups = append(ups, upd{append([]byte(nil), k...), raw})
		return nil
	})
	if err != nil {
		return err
	}
	for _, u := range ups {
		if err := keys.Put(u.k, u.v); err != nil {
			return err
		}
	}
	return nil
}

// BillingEventByID returns the stored record of a processed event, or an
// appliance.ErrNotFound error.
func (db *DB) BillingEventByID(id string) (*appliance.BillingEvent, error) {
	var e appliance.BillingEvent
	err := db.bolt.View(func(tx *bolt.Tx) error {
		raw := tx.Bucket(bucketBillingEvents).Get([]byte(id))
		if raw == nil {
			return fmt.Errorf("event %q: %w", id, appliance.ErrNotFound)
		}
		return json.Unmarshal(raw, &e)
	})
	if err != nil {
		return nil, fmt.Errorf("billing event: %w", err)
	}
	return &e, nil
}

// BillingAccountByCustomer returns the account of a payment customer, or an
// appliance.ErrNotFound error.
func (db *DB) BillingAccountByCustomer(customerID string) (*appliance.BillingAccount, error) {
	var a appliance.BillingAccount
	err := db.bolt.View(func(tx *bolt.Tx) error {
		tid := tx.Bucket(bucketBillingCustomers).Get([]byte(customerID))
		if tid == nil {
			return fmt.Errorf("customer %q: %w", customerID, appliance.ErrNotFound)
		}
		raw := tx.Bucket(bucketBillingAccounts).Get(tid)
		if raw == nil {
			return fmt.Errorf("account of customer %q: %w", customerID, appliance.ErrNotFound)
		}
		return json.Unmarshal(raw, &a)
	})
	if err != nil {
		return nil, fmt.Errorf("billing account: %w", err)
	}
	return &a, nil
}

// BillingAccount returns the account of a tenant, or an
// appliance.ErrNotFound error.
func (db *DB) BillingAccount(tenantID string) (*appliance.BillingAccount, error) {
	var a appliance.BillingAccount
	err := db.bolt.View(func(tx *bolt.Tx) error {
		raw := tx.Bucket(bucketBillingAccounts).Get([]byte(tenantID))
		if raw == nil {
			return fmt.Errorf("tenant %q has no billing account: %w", tenantID, appliance.ErrNotFound)
		}
		return json.Unmarshal(raw, &a)
	})
	if err != nil {
		return nil, fmt.Errorf("billing account: %w", err)
	}
	return &a, nil
}

// KeyClaim returns the claim whose id is id, or an appliance.ErrNotFound
// error.
func (db *DB) KeyClaim(id string) (*appliance.KeyClaim, error) {
	var c appliance.KeyClaim
	err := db.bolt.View(func(tx *bolt.Tx) error {
		raw := tx.Bucket(bucketKeyClaims).Get([]byte(id))
		if raw == nil {
			return fmt.Errorf("no key claim for this checkout session: %w", appliance.ErrNotFound)
		}
		return json.Unmarshal(raw, &c)
	})
	if err != nil {
		return nil, fmt.Errorf("key claim: %w", err)
	}
	return &c, nil
}

// MarkKeyClaimed moves the claim id from pending to claimed at nowUnix and
// drops its sealed key, with the audit entries, in one transaction. A claim
// that is not pending (claimed meanwhile) is an appliance.ErrConflict
// error.
func (db *DB) MarkKeyClaimed(id string, nowUnix int64, audit ...appliance.AuditEntry) error {
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketKeyClaims)
		raw := b.Get([]byte(id))
		if raw == nil {
			return fmt.Errorf("no key claim for this checkout session: %w", appliance.ErrNotFound)
		}
		var c appliance.KeyClaim
		if err := json.Unmarshal(raw, &c); err != nil {
			return err
		}
		if c.State != appliance.ClaimPending {
			return fmt.Errorf("the key of this checkout was already claimed: %w", appliance.ErrConflict)
		}
		c.State, c.Sealed, c.ClaimedUnix = appliance.ClaimClaimed, "", nowUnix
		out, err := json.Marshal(c)
		if err != nil {
			return err
		}
		if err := b.Put([]byte(id), out); err != nil {
			return err
		}
		return db.appendAuditsTx(tx, audit...)
	})
	if err != nil {
		return fmt.Errorf("mark key claimed: %w", err)
	}
	return nil
}

// Kinds of ErasedRef.
const (
	ErasedTenant   = "tenant"   // a tenant id
	ErasedCustomer = "customer" // a payment customer id
)

// ErasedRef is the one-way reference an erase request keeps of an id of
// kind (ErasedTenant, ErasedCustomer): the hex SHA-256 of a fixed label,
// the kind and the id. It lets BillingErased recognise the id after the
// hard delete without the store holding the id itself.
func ErasedRef(kind, id string) string {
	h := sha256.Sum256([]byte("linkplan/erased/v1\x00" + kind + "\x00" + id))
	return hex.EncodeToString(h[:])
}

// erasedRefsTx returns the ErasedRef of tenantID and of every payment
// customer id that maps to it (a tenant re-pointed to a new customer
// keeps the older one in the index too).
func erasedRefsTx(tx *bolt.Tx, tenantID string) []string {
	refs := []string{ErasedRef(ErasedTenant, tenantID)}
	_ = tx.Bucket(bucketBillingCustomers).ForEach(func(k, v []byte) error {
		if string(v) == tenantID {
			refs = append(refs, ErasedRef(ErasedCustomer, string(k)))
		}
		return nil
	})
	return refs
}

// BillingErased reports whether a payment event naming customerID and/or
// tenantID ("" for none) concerns an erased tenant: the customer maps to a
// tenant whose keys are erased, the tenant's keys are erased (soft erase
// done, hard delete not yet), or an erase request holds the ErasedRef of
// either (after the hard delete too). Erasures made before erase requests
// kept these references are recognised until their hard delete only.
func (db *DB) BillingErased(customerID, tenantID string) (bool, error) {
	erased := false
	err := db.bolt.View(func(tx *bolt.Tx) error {
		tenants := map[string]bool{}
		if tenantID != "" {
			tenants[tenantID] = true
		}
		if customerID != "" {
			if tid := tx.Bucket(bucketBillingCustomers).Get([]byte(customerID)); tid != nil {
				tenants[string(tid)] = true
			}
		}
		if len(tenants) > 0 {
			err := tx.Bucket(bucketKeys).ForEach(func(_, v []byte) error {
				var rec keyRecord
				if err := json.Unmarshal(v, &rec); err != nil {
					return err
				}
				erased = erased || tenants[rec.TenantID] && rec.Tier == string(appliance.TierErased)
				return nil
			})
			if err != nil || erased {
				return err
			}
		}
		want := map[string]bool{}
		if customerID != "" {
			want[ErasedRef(ErasedCustomer, customerID)] = true
		}
		if tenantID != "" {
			want[ErasedRef(ErasedTenant, tenantID)] = true
		}
		return tx.Bucket(bucketDSAR).ForEach(func(k, v []byte) error {
			var d dsarRecord
			if err := json.Unmarshal(v, &d); err != nil {
				return fmt.Errorf("dsar request %s: decode: %w", k, err)
			}
			for _, r := range d.ErasedRefs {
				erased = erased || want[r]
			}
			return nil
		})
	})
	if err != nil {
		return false, fmt.Errorf("billing erased: %w", err)
	}
	return erased, nil
}
