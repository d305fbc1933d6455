package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	bolt "go.etcd.io/bbolt"

	"linkplan/appliance"
)

// Data-subject requests (bucket dsar_requests, schema version 8) and the
// two erasures of a tenant: SoftEraseTenant (at once) and HardDeleteTenant
// (the daily worker of appliance/privacy, 30 days later).
//
// Every bucket is classified in TenantBuckets or GlobalBuckets. A bucket
// holding rows of a tenant must be in TenantBuckets with the function that
// finds and deletes them, or the hard delete would leave them behind; a
// test fails for a bucket in neither list.

// dsarRecord is the stored shape of a data-subject request.
type dsarRecord struct {
	ID                 string         `json:"id"`
	Type               string         `json:"request_type"`
	Status             string         `json:"status"`
	TenantID           string         `json:"tenant_id,omitempty"`
	KeyID              string         `json:"key_id,omitempty"`
	KeyPrefix          string         `json:"key_prefix,omitempty"`
	Subject            string         `json:"subject"`
	RequestedBy        string         `json:"requested_by"`
	ActorKey           string         `json:"actor_key,omitempty"`
	Justification      string         `json:"justification,omitempty"`
	CreatedUnix        int64          `json:"created_unix"`
	DueByUnix          int64          `json:"due_by"`
	AnsweredUnix       int64          `json:"answered_unix,omitempty"`
	EraseScheduledUnix int64          `json:"erase_scheduled_at,omitempty"`
	EraseExecutedUnix  int64          `json:"erase_executed_at,omitempty"`
	Counts             map[string]int `json:"counts,omitempty"`
	ErasedRefs         []string       `json:"erased_refs,omitempty"` // ErasedRef of the tenant id and of its payment customer ids
}

func toDSARRecord(r *appliance.DSARRequest) dsarRecord {
	return dsarRecord{ID: r.ID, Type: string(r.Type), Status: string(r.Status), TenantID: r.TenantID, KeyID: r.KeyID,
		KeyPrefix: r.KeyPrefix, Subject: r.Subject, RequestedBy: r.RequestedBy, ActorKey: r.ActorKey, Justification: r.Justification,
		CreatedUnix: r.CreatedUnix, DueByUnix: r.DueByUnix, AnsweredUnix: r.AnsweredUnix, EraseScheduledUnix: r.EraseScheduledUnix,
		EraseExecutedUnix: r.EraseExecutedUnix, Counts: r.Counts, ErasedRefs: r.ErasedRefs}
}

func (d dsarRecord) request() *appliance.DSARRequest {
	return &appliance.DSARRequest{ID: d.ID, Type: appliance.DSARType(d.Type), Status: appliance.DSARStatus(d.Status), TenantID: d.TenantID,
		KeyID: d.KeyID, KeyPrefix: d.KeyPrefix, Subject: d.Subject, RequestedBy: d.RequestedBy, ActorKey: d.ActorKey,
		Justification: d.Justification, CreatedUnix: d.CreatedUnix, DueByUnix: d.DueByUnix, AnsweredUnix: d.AnsweredUnix,
		EraseScheduledUnix: d.EraseScheduledUnix, EraseExecutedUnix: d.EraseExecutedUnix, Counts: d.Counts, ErasedRefs: d.ErasedRefs}
}

func putDSARTx(tx *bolt.Tx, r *appliance.DSARRequest, mustBeNew bool) error {
	b := tx.Bucket(bucketDSAR)
	if r.ID == "" {
		return fmt.Errorf("dsar request without id: %w", appliance.ErrInvalid)
	}
	if mustBeNew && b.Get([]byte(r.ID)) != nil {
		return fmt.Errorf("dsar request %s already exists: %w", r.ID, appliance.ErrConflict)
	}
	raw, err := json.Marshal(toDSARRecord(r))
	if err != nil {
		return err
	}
	return b.Put([]byte(r.ID), raw)
}

func getDSARTx(tx *bolt.Tx, id string) (*appliance.DSARRequest, error) {
	raw := tx.Bucket(bucketDSAR).Get([]byte(id))
	if raw == nil {
		return nil, fmt.Errorf("dsar request %s: %w", id, appliance.ErrNotFound)
	}
	var d dsarRecord
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, fmt.Errorf("dsar request %s: decode: %w", id, err)
	}
	return d.request(), nil
}

// PutDSAR stores a new data-subject request with its audit entries in one
// transaction.
func (db *DB) PutDSAR(r *appliance.DSARRequest, audit ...appliance.AuditEntry) error {
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		if err := putDSARTx(tx, r, true); err != nil {
			return err
		}
		return db.appendAuditsTx(tx, audit...)
	})
	if err != nil {
		return fmt.Errorf("put dsar request: %w", err)
	}
	return nil
}

// DSARRequests returns every data-subject request, oldest first.
func (db *DB) DSARRequests() ([]*appliance.DSARRequest, error) {
	var out []*appliance.DSARRequest
	err := db.bolt.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketDSAR).ForEach(func(_, v []byte) error {
			var d dsarRecord
			if err := json.Unmarshal(v, &d); err != nil {
				return err
			}
			out = append(out, d.request())
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list dsar requests: %w", err)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].CreatedUnix != out[j].CreatedUnix {
			return out[i].CreatedUnix < out[j].CreatedUnix
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// SoftEraseTenant erases tenantID at once (SPEC §3), in one transaction:
// every key of the tenant gets tier erased and pseudonym in place of its
// owner and e-mail; every audit row of the tenant or of one of its keys
// loses actor e-mail, IP address and user agent; its data dividend events
// and its billing account get the pseudonym as e-mail, its branding as
// support contact; its queued jobs are canceled and its running ones get
// CancelRequested (they stop at their next checkpoint); r (the erase
// request, its ErasedRefs set here to the ErasedRef of the tenant id and
// of each payment customer id of the tenant) and the audit entries are
// written. A tenant without keys is appliance.ErrNotFound; an already erased one
// appliance.ErrConflict. The transaction marks the file for
// CompactPending: the replaced values stay in freed pages until then.
func (db *DB) SoftEraseTenant(tenantID, pseudonym string, r *appliance.DSARRequest, audit ...appliance.AuditEntry) error {
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		keys, err := keysWhere(tx, func(k *keyRecord) bool { return k.TenantID == tenantID })
		if err != nil {
			return err
		}
		if len(keys) == 0 {
			return fmt.Errorf("tenant %s: %w", tenantID, appliance.ErrNotFound)
		}
		ids := map[string]bool{}
		for _, k := range keys {
			if k.Tier == appliance.TierErased {
				return fmt.Errorf("the tenant's data was already erased: %w", appliance.ErrConflict)
			}
			if k.Role == appliance.RoleAdmin {
				return fmt.Errorf("an admin key cannot be erased: %w", appliance.ErrForbidden)
			}
			ids[k.ID] = true
			k.Tier, k.Owner, k.Email = appliance.TierErased, pseudonym, pseudonym
			if err := putKeyTx(tx, k); err != nil {
				return err
			}
		}
		if err := scrubAuditTx(tx, tenantID, ids); err != nil {
			return err
		}
		if err := scrubDividendsTx(tx, tenantID, pseudonym); err != nil {
			return err
		}
		if err := scrubBillingTx(tx, tenantID, pseudonym); err != nil {
			return err
		}
		if err := scrubBrandingTx(tx, tenantID, pseudonym); err != nil {
			return err
		}
		if err := cancelTenantJobsTx(newJobTx(tx), tenantID, db.now().UTC()); err != nil {
			return err
		}
		r.ErasedRefs = erasedRefsTx(tx, tenantID)
		if err := putDSARTx(tx, r, true); err != nil {
			return err
		}
		if err := tx.Bucket(bucketMeta).Put(keyCompactPending, []byte{1}); err != nil {
			return err
		}
		return db.appendAuditsTx(tx, audit...)
	})
	if err != nil {
		return fmt.Errorf("soft erase tenant: %w", err)
	}
	return nil
}

// cancelTenantJobsTx cancels every live job of tenantID as the tenant's
// own cancel would: a queued job at once, a running one at its next
// checkpoint.
func cancelTenantJobsTx(t *jobTx, tenantID string, now time.Time) error {
	pfx := append(append([]byte{'t'}, tenantID...), 0)
	var ids []string
	c := t.index.Cursor()
	for k, v := c.Seek(pfx); k != nil && bytes.HasPrefix(k, pfx); k, v = c.Next() {
		ids = append(ids, string(v))
	}
	for _, id := range ids {
		j, err := t.get(id)
		if err != nil {
			return err
		}
		switch {
		case j.State.Terminal():
			continue
		case j.State == appliance.JobQueued:
			if err := t.finish(j, appliance.JobCanceled, now); err != nil {
				return err
			}
			j.Error = "canceled: the tenant's data was erased"
		default:
			j.CancelRequested, j.Updated = true, now
		}
		if err := t.put(j); err != nil {
			return err
		}
	}
	return nil
}

// scrubDividendsTx replaces the submitter e-mail of the tenant's data
// dividend events by the pseudonym (the events stay until the hard
// delete: their settlement is the operator's record).
func scrubDividendsTx(tx *bolt.Tx, tenantID, pseudonym string) error {
	b := tx.Bucket(bucketDividends)
	pfx := append([]byte(tenantID), 0)
	type row struct{ k, v []byte }
	var rows []row
	c := b.Cursor()
	for k, v := c.Seek(pfx); k != nil && bytes.HasPrefix(k, pfx); k, v = c.Next() {
		var ev appliance.DividendEvent
		if err := json.Unmarshal(v, &ev); err != nil {
			return fmt.Errorf("dividend event %q: %w", k, err)
		}
		ev.SubmitterEmail = pseudonym
		raw, err := json.Marshal(&ev)
		if err != nil {
			return err
		}
		rows = append(rows, row{append([]byte(nil), k...), raw})
	}
	for _, r := range rows {
		if err := b.Put(r.k, r.v); err != nil {
			return err
		}
	}
	return nil
}

// scrubBillingTx replaces the e-mail of the tenant's billing account by
// the pseudonym (the account's payment references stay until the hard
// delete: the provider's events still name them).
func scrubBillingTx(tx *bolt.Tx, tenantID, pseudonym string) error {
	b := tx.Bucket(bucketBillingAccounts)
	raw := b.Get([]byte(tenantID))
	if raw == nil {
		return nil
	}
	var a appliance.BillingAccount
	if err := json.Unmarshal(raw, &a); err != nil {
		return fmt.Errorf("billing account of %s: %w", tenantID, err)
	}
	if a.Email == "" {
		return nil
	}
	a.Email = pseudonym
	out, err := json.Marshal(&a)
	if err != nil {
		return err
	}
	return b.Put([]byte(tenantID), out)
}

// scrubBrandingTx replaces the support contact of the tenant's branding
// (an e-mail address or a phone number, maybe a person's) by the
// pseudonym.
func scrubBrandingTx(tx *bolt.Tx, tenantID, pseudonym string) error {
	b := tx.Bucket(bucketBranding)
	raw := b.Get([]byte(tenantID))
	if raw == nil {
		return nil
	}
	var r brandingRecord
	if err := json.Unmarshal(raw, &r); err != nil {
		return fmt.Errorf("branding of %s: %w", tenantID, err)
	}
	if r.SupportContact == "" {
		return nil
	}
	r.SupportContact = pseudonym
	out, err := json.Marshal(&r)
	if err != nil {
		return err
	}
	return b.Put([]byte(tenantID), out)
}

// scrubAuditTx clears actor e-mail, IP address and user agent of every
// audit row of tenantID or of a key in keyIDs.
func scrubAuditTx(tx *bolt.Tx, tenantID string, keyIDs map[string]bool) error {
	_, err := rewriteJSON(tx.Bucket(bucketAudit), func(e *appliance.AuditEntry) bool {
		if e.TenantID != tenantID && !keyIDs[e.ActorKey] || e.ActorEmail == "" && e.IP == "" && e.UserAgent == "" {
			return false
		}
		e.ActorEmail, e.IP, e.UserAgent = "", "", ""
		return true
	})
	return err
}

// tenantRows names what the hard delete of one tenant removes: the tenant
// id, its key ids and hashes, and its job ids (found first, from the keys
// and jobs buckets).
type tenantRows struct {
	tenantID string
	keyIDs   map[string]bool
	hashes   map[string]bool
	jobIDs   map[string]bool
	results  []string // result file names of its jobs
	towers   []string // ids of its towers
}

// bucketPurge deletes one bucket's rows of a tenant and returns how many.
type bucketPurge func(b *bolt.Bucket, t *tenantRows) (int, error)

// TenantBuckets lists, in deletion order, every bucket that holds rows of a
// tenant, with the function that deletes them. keys and jobs come first:
// they name the key and job ids that the other buckets are keyed by.
var tenantBuckets = []struct {
	name  []byte
	purge bucketPurge
}{
	{bucketKeys, purgeKeys},
	{bucketKeyIDs, purgeByKey(func(k []byte, t *tenantRows) bool { return t.keyIDs[string(k)] })},
	{bucketTOTPSteps, purgeByKey(func(k []byte, t *tenantRows) bool { return t.keyIDs[string(k)] })},
	{bucketJobs, purgeJobs},
	{bucketJobPayloads, purgeByKey(func(k []byte, t *tenantRows) bool { return t.jobIDs[string(k)] })},
	{bucketJobItems, purgeJobItems},
	{bucketJobQueue, purgeByKey(jobIndexOf)},
	{bucketTowers, purgeTowers},
	{bucketTowersOwner, purgeByKey(func(k []byte, t *tenantRows) bool {
		i := bytes.IndexByte(k, 0)
		return i >= 0 && t.keyIDs[string(k[:i])]
	})},
	{bucketAudit, purgeAudit},
	{bucketPDFUsage, purgeByKey(tenantPrefixed)},
	{bucketUsage, purgeByKey(tenantPrefixed)},
	{bucketLinkObservations, purgeByKey(tenantPrefixed)},
	{bucketCellSignalSamples, purgeByKey(tenantPrefixed)},
	{bucketObsDedup, purgeByKey(tenantPrefixed)},
	{bucketObsCounts, purgeByKey(func(k []byte, t *tenantRows) bool { return string(k) == t.tenantID })},
	{bucketDividends, purgeByKey(tenantPrefixed)},
	{bucketSSOBindings, purgeTenantField},
	{bucketBranding, purgeByKey(tenantKeyed)},
	{bucketRadios, purgeByKey(tenantPrefixed)},
	{bucketAntennas, purgeByKey(tenantPrefixed)},
	{bucketBillingAccounts, purgeByKey(tenantKeyed)},
	{bucketBillingCustomers, purgeByValue},
	{bucketKeyClaims, purgeTenantField},
	{bucketBillingEvents, unlinkBillingEvents},
	{bucketBuildingLayers, purgeByKey(tenantPrefixed)},
	{bucketBuildingData, purgeByKey(tenantPrefixed)},
	{bucketCalibrationSettings, purgeByKey(tenantKeyed)},
	{bucketCalibrations, purgeByKey(tenantKeyed)},
}

// tenantKeyed matches the key that is the tenant id itself.
func tenantKeyed(k []byte, t *tenantRows) bool { return string(k) == t.tenantID }

// purgeTenantField deletes the JSON records whose tenant_id is the
// tenant's.
var purgeTenantField = purgeWhere(func(r *struct {
	TenantID string `json:"tenant_id"`
}, t *tenantRows) bool {
	return r.TenantID == t.tenantID
})

// purgeByValue deletes the rows whose value is the tenant id (an index to
// the tenant, e.g. payment customer id -> tenant id).
func purgeByValue(b *bolt.Bucket, t *tenantRows) (int, error) {
	return deleteWhere(b, func(_, v []byte) (bool, error) { return string(v) == t.tenantID, nil })
}

// deleteWhere deletes the rows (not nested buckets) of b that match, after
// the walk (a bucket must not change under ForEach), and counts them.
func deleteWhere(b *bolt.Bucket, match func(k, v []byte) (bool, error)) (int, error) {
	var del [][]byte
	err := b.ForEach(func(k, v []byte) error {
		if v == nil {
			return nil
		}
		ok, err := match(k, v)
		if ok {
			del = append(del, append([]byte(nil), k...))
		}
		return err
	})
	if err != nil {
		return 0, err
	}
	for _, k := range del {
		if err := b.Delete(k); err != nil {
			return 0, err
		}
	}
	return len(del), nil
}

// unlinkBillingEvents clears the tenant id of the tenant's processed
// payment events instead of deleting them: an event record is what makes
// a replayed event a no-op (appliance/billing), and a replay of an old
// checkout must not provision the erased tenant again. The record holds
// the provider's event id, type and outcome, nothing of the person; the
// count is of records unlinked.
func unlinkBillingEvents(b *bolt.Bucket, t *tenantRows) (int, error) {
	return rewriteJSON(b, func(e *appliance.BillingEvent) bool {
		if e.TenantID != t.tenantID {
			return false
		}
		e.TenantID = ""
		return true
	})
}

// tenantPrefixed matches the keys led by the tenant id and a 0x00 byte.
func tenantPrefixed(k []byte, t *tenantRows) bool {
	return len(k) > len(t.tenantID) && k[len(t.tenantID)] == 0 && string(k[:len(t.tenantID)]) == t.tenantID
}

// globalBuckets hold no row of a tenant: appliance metadata, the tower
// source refresh history, and the privacy requests themselves (whose
// subject is cleared to the pseudonym by the hard delete), and the
// training side's counters and promotion decisions (about the global
// model; no tenant's rows).
var globalBuckets = [][]byte{bucketMeta, bucketRefreshes, bucketDSAR, bucketModelTraining, bucketModelDecisions}

// TenantBucketNames and GlobalBucketNames return the classification of
// the buckets (for the test that every bucket is classified).
func TenantBucketNames() []string {
	out := make([]string, len(tenantBuckets))
	for i, b := range tenantBuckets {
		out[i] = string(b.name)
	}
	return out
}

// GlobalBucketNames returns the buckets that hold no tenant rows.
func GlobalBucketNames() []string {
	out := make([]string, len(globalBuckets))
	for i, b := range globalBuckets {
		out[i] = string(b)
	}
	return out
}

// purgeByKey deletes the rows whose key match says belong to the tenant.
func purgeByKey(match func(k []byte, t *tenantRows) bool) bucketPurge {
	return func(b *bolt.Bucket, t *tenantRows) (int, error) {
		return deleteWhere(b, func(k, _ []byte) (bool, error) { return match(k, t), nil })
	}
}

// purgeWhere deletes the rows whose JSON value match says belong to the
// tenant, decoding each into a fresh T.
func purgeWhere[T any](match func(v *T, t *tenantRows) bool) bucketPurge {
	return func(b *bolt.Bucket, t *tenantRows) (int, error) {
		return deleteWhere(b, func(k, v []byte) (bool, error) {
			var rec T
			if err := json.Unmarshal(v, &rec); err != nil {
				return false, fmt.Errorf("decode %q: %w", k, err)
			}
			return match(&rec, t), nil
		})
	}
}

var purgeKeys = purgeWhere(func(r *keyRecord, t *tenantRows) bool {
	if r.TenantID != t.tenantID {
		return false
	}
	t.keyIDs[r.ID], t.hashes[r.HashHex] = true, true
	return true
})

var purgeJobs = purgeWhere(func(r *jobRecord, t *tenantRows) bool {
	if r.TenantID != t.tenantID {
		return false
	}
	t.jobIDs[r.ID] = true
	if r.Result != nil && r.Result.Name != "" {
		t.results = append(t.results, r.Result.Name)
	}
	return true
})

var purgeTowers = purgeWhere(func(r *towerRecord, t *tenantRows) bool {
	if r.OwnerTenantID != t.tenantID && (r.OwnerKeyID == "" || !t.keyIDs[r.OwnerKeyID]) {
		return false
	}
	t.towers = append(t.towers, r.ID)
	return true
})

var purgeAudit = purgeWhere(func(e *appliance.AuditEntry, t *tenantRows) bool {
	return e.TenantID == t.tenantID || (e.ActorKey != "" && t.keyIDs[e.ActorKey])
})

// purgeJobItems deletes the nested item buckets of the tenant's jobs; each
// bucket counts as one row.
func purgeJobItems(b *bolt.Bucket, t *tenantRows) (int, error) {
	n := 0
	for id := range t.jobIDs {
		if b.Bucket([]byte(id)) == nil {
			continue
		}
		if err := b.DeleteBucket([]byte(id)); err != nil {
			return 0, err
		}
		n++
	}
	return n, nil
}

// jobIndexOf reports whether a job_queue index key belongs to the tenant
// (store/jobs.go lists the key shapes).
func jobIndexOf(k []byte, t *tenantRows) bool {
	if len(k) < 2 {
		return false
	}
	switch k[0] {
	case 'q': // 'q' lane tenant 0x00 seq(8)
		rest := k[2:]
		return len(rest) > 9 && string(rest[:len(rest)-9]) == t.tenantID && rest[len(rest)-9] == 0
	case 'l': // 'l' lane tenant
		return string(k[2:]) == t.tenantID
	case 't': // 't' tenant 0x00 seq(8)
		rest := k[1:]
		return len(rest) > 9 && string(rest[:len(rest)-9]) == t.tenantID && rest[len(rest)-9] == 0
	case 'r', 'e', 'f': // tag ns(8) id
		return len(k) > 9 && t.jobIDs[string(k[9:])]
	}
	return false
}

// scrubDSARTx clears the tenant id, key id and prefix (and the actor when
// it was one of the tenant's keys) of every request of the tenant: the
// records stay as the proof that requests were answered, about the
// pseudonym only.
func scrubDSARTx(tx *bolt.Tx, t *tenantRows) error {
	var rs []*appliance.DSARRequest
	err := tx.Bucket(bucketDSAR).ForEach(func(_, v []byte) error {
		var d dsarRecord
		if err := json.Unmarshal(v, &d); err != nil {
			return err
		}
		if (t.tenantID != "" && d.TenantID == t.tenantID) || t.keyIDs[d.KeyID] {
			rs = append(rs, d.request())
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, r := range rs {
		r.TenantID, r.KeyID, r.KeyPrefix = "", "", ""
		if t.keyIDs[r.ActorKey] {
			r.ActorKey = ""
		}
		if err := putDSARTx(tx, r, false); err != nil {
			return err
		}
	}
	return nil
}

// HardDeleteTenant runs the hard delete of erase request reqID (SPEC §3):
// in one transaction it deletes every row of the request's tenant in every
// bucket of TenantBuckets (its keys included), sets erase_executed_at and
// status completed, clears the request's tenant id, key id and prefix, and
// its actor when that was one of the tenant's keys (Subject, the
// pseudonym, stays), and appends the audit entry that audit
// builds from the per-bucket counts. A request already executed changes
// nothing (done false); one not yet due at now is appliance.ErrConflict.
// The transaction marks the file for CompactPending.
//
// It returns whether it deleted, and what: the counts, the names of the
// tenant's job result files (which the caller removes from the jobs
// directory) and the ids of its towers (which the caller drops from the
// in-memory indexes).
func (db *DB) HardDeleteTenant(reqID string, now time.Time, audit func(counts map[string]int) appliance.AuditEntry) (done bool, purged appliance.Purged, err error) {
	err = db.bolt.Update(func(tx *bolt.Tx) error {
		r, err := getDSARTx(tx, reqID)
		if err != nil {
			return err
		}
		if r.Type != appliance.DSARErase {
			return fmt.Errorf("dsar request %s is %s, not erase: %w", reqID, r.Type, appliance.ErrInvalid)
		}
		if r.EraseExecutedUnix != 0 {
			return nil
		}
		if r.EraseScheduledUnix == 0 || now.Unix() < r.EraseScheduledUnix {
			return fmt.Errorf("dsar request %s is not due before %d: %w", reqID, r.EraseScheduledUnix, appliance.ErrConflict)
		}
		t := &tenantRows{tenantID: r.TenantID, keyIDs: map[string]bool{}, hashes: map[string]bool{}, jobIDs: map[string]bool{}}
		counts := map[string]int{}
		if t.tenantID != "" {
			for _, tb := range tenantBuckets {
				b := tx.Bucket(tb.name)
				if b == nil {
					continue
				}
				n, err := tb.purge(b, t)
				if err != nil {
					return fmt.Errorf("purge %s: %w", tb.name, err)
				}
				counts[string(tb.name)] = n
			}
		}
		if err := scrubDSARTx(tx, t); err != nil {
			return err
		}
		r.Status, r.EraseExecutedUnix, r.Counts = appliance.DSARCompleted, now.Unix(), counts
		r.TenantID, r.KeyID, r.KeyPrefix = "", "", ""
		if t.keyIDs[r.ActorKey] { // the subject asked itself
			r.ActorKey = ""
		}
		if err := putDSARTx(tx, r, false); err != nil {
			return err
		}
		if err := tx.Bucket(bucketMeta).Put(keyCompactPending, []byte{1}); err != nil {
			return err
		}
		if err := db.appendAuditsTx(tx, audit(counts)); err != nil {
			return err
		}
		done, purged = true, appliance.Purged{Counts: counts, ResultFiles: t.results, TowerIDs: t.towers}
		return nil
	})
	if err != nil {
		return false, appliance.Purged{}, fmt.Errorf("hard delete tenant: %w", err)
	}
	return done, purged, nil
}
