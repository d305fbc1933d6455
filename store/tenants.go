package store

import (
	"encoding/json"
	"fmt"
	"sort"

	bolt "go.etcd.io/bbolt"

	"linkplan/appliance"
)

// TenantsPage returns the tenants whose id sorts after after (all of them
// when after is ""), at most limit of them, sorted by tenant id, and
// whether more follow. A tenant is a tenant id that some key other than an
// admin key carries; admin keys are nobody's tenant and are skipped.
//
// It reads in one transaction: one walk of the keys bucket, which keeps
// the keys of the limit smallest tenant ids seen so far (the page's, never
// more), then a lookup by tenant id of each page tenant's branding and
// observation counts, and, only when a page tenant was erased, one walk of
// the privacy requests for its erase request.
func (db *DB) TenantsPage(after string, limit int) ([]appliance.TenantRecord, bool, error) {
	if limit < 1 {
		return nil, false, fmt.Errorf("tenants page: limit %d: %w", limit, appliance.ErrInvalid)
	}
	var out []appliance.TenantRecord
	more := false
	err := db.bolt.View(func(tx *bolt.Tx) error {
		var ids []string // sorted, at most limit
		keys := map[string][]*appliance.APIKey{}
		err := tx.Bucket(bucketKeys).ForEach(func(_, v []byte) error {
			var r keyRecord
			if err := json.Unmarshal(v, &r); err != nil {
				return err
			}
			t := r.TenantID
			if appliance.Role(r.Role) == appliance.RoleAdmin || t <= after {
				return nil
			}
			if _, ok := keys[t]; !ok {
				if len(ids) == limit && t > ids[limit-1] { // beyond the page
					more = true
					return nil
				}
				i := sort.SearchStrings(ids, t)
				ids = append(ids, "")
				copy(ids[i+1:], ids[i:])
				ids[i] = t
				if len(ids) > limit { // the largest leaves the page
					delete(keys, ids[limit])
					ids, more = ids[:limit], true
				}
			}
			keys[t] = append(keys[t], r.key())
			return nil
		})
		if err != nil {
			return err
		}
		out = make([]appliance.TenantRecord, len(ids))
		erased := map[string]int{}
		for i, t := range ids {
			ks := keys[t]
			sort.Slice(ks, func(a, b int) bool {
				if ks[a].CreatedUnix != ks[b].CreatedUnix {
					return ks[a].CreatedUnix < ks[b].CreatedUnix
				}
				return ks[a].ID < ks[b].ID
			})
			out[i] = appliance.TenantRecord{TenantID: t, Keys: ks}
			if raw := tx.Bucket(bucketBranding).Get([]byte(t)); raw != nil {
				var b struct {
					DisplayName string `json:"display_name"`
				}
				if err := json.Unmarshal(raw, &b); err != nil {
					return fmt.Errorf("branding of %s: %w", t, err)
				}
				out[i].DisplayName = b.DisplayName
			}
			if raw := tx.Bucket(bucketObsCounts).Get([]byte(t)); raw != nil {
				if err := json.Unmarshal(raw, &out[i].Observations); err != nil {
					return fmt.Errorf("observation counts of %s: %w", t, err)
				}
			}
			for _, k := range ks {
				if k.Tier == appliance.TierErased {
					erased[t] = i
					break
				}
			}
		}
		if len(erased) == 0 {
			return nil
		}
		return tx.Bucket(bucketDSAR).ForEach(func(_, v []byte) error {
			var d dsarRecord
			if err := json.Unmarshal(v, &d); err != nil {
				return err
			}
			i, ok := erased[d.TenantID]
			if !ok || appliance.DSARType(d.Type) != appliance.DSARErase {
				return nil
			}
			if e := out[i].Erase; e == nil || d.CreatedUnix > e.CreatedUnix || (d.CreatedUnix == e.CreatedUnix && d.ID > e.ID) {
				out[i].Erase = d.request()
			}
			return nil
		})
	})
	if err != nil {
		return nil, false, fmt.Errorf("tenants page: %w", err)
	}
	return out, more, nil
}
