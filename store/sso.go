package store

import (
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"linkplan/appliance"
)

func ssoKey(issuer, subject string) []byte {
	return append(append([]byte(issuer), 0), subject...)
}

// keyByIDTx returns the key record whose id is id inside tx, or an
// appliance.ErrNotFound error.
func keyByIDTx(tx *bolt.Tx, id string) (*appliance.APIKey, error) {
	hash := tx.Bucket(bucketKeyIDs).Get([]byte(id))
	if hash == nil {
		return nil, fmt.Errorf("key %q: %w", id, appliance.ErrNotFound)
	}
	var rec keyRecord
	if err := json.Unmarshal(tx.Bucket(bucketKeys).Get(hash), &rec); err != nil {
		return nil, fmt.Errorf("decode key %s: %w", id, err)
	}
	return rec.key(), nil
}

// PutSSOBinding stores b with the audit entries in one transaction. check,
// when not nil, is called inside the transaction with the key b.KeyID
// names and whether (issuer, subject) is bound already (to any key), and
// refuses the binding with its error; every call reads the same records
// whatever the answer, so that the caller can give refusals it must not
// tell apart the same cost. b.TenantID is set from the key. A binding of
// the same issuer and subject that check let through is an
// appliance.ErrConflict; an unknown key an appliance.ErrNotFound.
func (db *DB) PutSSOBinding(b *appliance.SSOBinding, check func(k *appliance.APIKey, bound bool) error, audit ...appliance.AuditEntry) error {
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		k, err := keyByIDTx(tx, b.KeyID)
		if err != nil {
			return err
		}
		bk := tx.Bucket(bucketSSOBindings)
		id := ssoKey(b.Issuer, b.Subject)
		bound := bk.Get(id) != nil
		if check != nil {
			if err := check(k, bound); err != nil {
				return err
			}
		}
		if bound {
			return fmt.Errorf("subject %q of issuer %q is already bound to a key: %w", b.Subject, b.Issuer, appliance.ErrConflict)
		}
		b.TenantID = k.TenantID
		raw, err := json.Marshal(b)
		if err != nil {
			return err
		}
		if err := bk.Put(id, raw); err != nil {
			return err
		}
		for i := range audit {
			audit[i].TenantID = k.TenantID
		}
		return db.appendAuditsTx(tx, audit...)
	})
	if err != nil {
		return fmt.Errorf("put sso binding: %w", err)
	}
	return nil
}

// KeyByID returns the key whose id is id, or an appliance.ErrNotFound
// error.
func (db *DB) KeyByID(id string) (*appliance.APIKey, error) {
	var k *appliance.APIKey
	err := db.bolt.View(func(tx *bolt.Tx) error {
		var err error
		k, err = keyByIDTx(tx, id)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("key by id: %w", err)
	}
	return k, nil
}

// SSOKey returns the binding of (issuer, subject) and the key it names,
// read in one transaction. No binding is an appliance.ErrNotFound error.
func (db *DB) SSOKey(issuer, subject string) (*appliance.SSOBinding, *appliance.APIKey, error) {
	var (
		b appliance.SSOBinding
		k *appliance.APIKey
	)
	err := db.bolt.View(func(tx *bolt.Tx) error {
		raw := tx.Bucket(bucketSSOBindings).Get(ssoKey(issuer, subject))
		if raw == nil {
			return fmt.Errorf("no binding: %w", appliance.ErrNotFound)
		}
		if err := json.Unmarshal(raw, &b); err != nil {
			return err
		}
		var err error
		k, err = keyByIDTx(tx, b.KeyID)
		return err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("sso key: %w", err)
	}
	return &b, k, nil
}

// SSOBindings returns the bindings of a tenant, ordered by issuer and
// subject.
func (db *DB) SSOBindings(tenantID string) ([]appliance.SSOBinding, error) {
	out := []appliance.SSOBinding{}
	err := db.bolt.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketSSOBindings).ForEach(func(_, v []byte) error {
			var b appliance.SSOBinding
			if err := json.Unmarshal(v, &b); err != nil {
				return err
			}
			if b.TenantID == tenantID {
				out = append(out, b)
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list sso bindings: %w", err)
	}
	return out, nil
}

// DeleteSSOBinding removes the binding of (issuer, subject) when it
// belongs to tenantID ("" for any tenant: the admin), with the audit
// entries in the same transaction (an entry without a tenant gets the
// binding's). A binding that does not exist, or belongs to another
// tenant, is an appliance.ErrNotFound error (the other tenant's binding is
// not revealed).
func (db *DB) DeleteSSOBinding(tenantID, issuer, subject string, audit ...appliance.AuditEntry) error {
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(bucketSSOBindings)
		id := ssoKey(issuer, subject)
		raw := bk.Get(id)
		if raw == nil {
			return fmt.Errorf("no binding of this subject: %w", appliance.ErrNotFound)
		}
		var b appliance.SSOBinding
		if err := json.Unmarshal(raw, &b); err != nil {
			return err
		}
		if tenantID != "" && b.TenantID != tenantID {
			return fmt.Errorf("no binding of this subject: %w", appliance.ErrNotFound)
		}
		if err := bk.Delete(id); err != nil {
			return err
		}
		for i := range audit {
			if audit[i].TenantID == "" {
				audit[i].TenantID = b.TenantID
			}
		}
		return db.appendAuditsTx(tx, audit...)
	})
	if err != nil {
		return fmt.Errorf("delete sso binding: %w", err)
	}
	return nil
}
