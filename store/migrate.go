package store

import (
	"encoding/binary"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"linkplan/appliance"
)

var (
	bucketMeta        = []byte("meta")
	bucketKeys        = []byte("keys")            // key hash hex -> keyRecord
	bucketKeyIDs      = []byte("key_ids")         // key id -> key hash hex
	bucketTowers      = []byte("towers")          // tower id -> towerRecord (user-registered towers)
	bucketTowersOwner = []byte("towers_owner")    // owner key id + 0x00 + tower id -> empty
	bucketAudit       = []byte("audit")           // big-endian seq -> auditRecord
	bucketRefreshes   = []byte("tower_refreshes") // big-endian seq -> appliance.TowerRefresh
	bucketTOTPSteps   = []byte("totp_steps")      // admin key id -> big-endian last accepted TOTP time step
	bucketJobs        = []byte("jobs")            // job id -> job record (store/jobs.go)
	bucketJobQueue    = []byte("job_queue")       // lease index of queued jobs (store/jobs.go)
	bucketJobItems    = []byte("job_items")       // job id -> nested bucket: big-endian item index -> item
	bucketPDFUsage    = []byte("pdf_usage")       // monthly PDF report counters per tenant (store/pdfquota.go)
	bucketJobPayloads = []byte("job_payloads")    // job id -> payload of a job not yet terminal (store/jobs.go)
	bucketDSAR        = []byte("dsar_requests")   // request id -> dsarRecord (store/privacy.go)
	bucketUsage       = []byte("usage")           // monthly usage counters per tenant (store/usage.go)

	// Buckets of SSO, branding and billing (issue 10). Per tenant: each
	// record carries its tenant_id (store/sso.go, branding.go, billing.go).
	bucketSSOBindings      = []byte("sso_bindings")      // issuer + 0x00 + subject -> appliance.SSOBinding
	bucketBranding         = []byte("branding")          // tenant id -> brandingRecord
	bucketBillingAccounts  = []byte("billing_accounts")  // tenant id -> appliance.BillingAccount
	bucketBillingCustomers = []byte("billing_customers") // payment customer id -> tenant id
	bucketBillingEvents    = []byte("billing_events")    // payment event id -> appliance.BillingEvent
	bucketKeyClaims        = []byte("key_claims")        // hex SHA-256 of a checkout session id -> appliance.KeyClaim

	keySchemaVersion = []byte("schema_version")

	// The equipment catalogue (issue 25): per tenant, keyed by tenant id +
	// 0x00 + record id (store/equipment.go).
	bucketRadios   = []byte("equipment_radios")   // -> radioRecord
	bucketAntennas = []byte("equipment_antennas") // -> antennaRecord
)

// migration moves the schema from version-1 to version.
type migration struct {
	version int
	name    string
	apply   func(tx *bolt.Tx) error
}

// migrations is the ordered schema history. Append, never edit or reorder.
var migrations = []migration{
	{1, "create core buckets", func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketKeys, bucketKeyIDs, bucketTowers, bucketTowersOwner, bucketAudit} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	}},
	{2, "tower source refresh history", func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(bucketRefreshes)
		return err
	}},
	{3, "last accepted TOTP step per admin key", func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(bucketTOTPSteps)
		return err
	}},
	{4, "durable job queue", func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketJobs, bucketJobQueue, bucketJobItems} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	}},
	{5, "monthly PDF report counters", func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(bucketPDFUsage)
		return err
	}},
	{6, "job payloads out of the job records", moveJobPayloads},
	{7, "monthly usage counters per tenant", func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(bucketUsage)
		return err
	}},
	{8, "observations, their dedup index, per-tenant counts and data dividend events", func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketLinkObservations, bucketCellSignalSamples, bucketObsDedup, bucketObsCounts, bucketDividends} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	}},
	{9, "SSO bindings, tenant branding, billing accounts, events and key claims", func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketSSOBindings, bucketBranding, bucketBillingAccounts, bucketBillingCustomers, bucketBillingEvents, bucketKeyClaims} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	}},
	{10, "data-subject requests", func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(bucketDSAR)
		return err
	}},
	{11, "model training bookkeeping (consent-grant counter, retrain state) and promotion decisions", createTrainingBuckets},
	{12, "tenants' building layers and their buildings (raytrace)", func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketBuildingLayers, bucketBuildingData} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	}},
	{13, "equipment catalogue: radios and antennas per tenant", func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketRadios, bucketAntennas} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	}},
	{14, "tenants' calibration settings and fitted calibrations", func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketCalibrationSettings, bucketCalibrations} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	}},
}

// SchemaVersion is the schema version this binary writes.
func SchemaVersion() int { return migrations[len(migrations)-1].version }

// SchemaError is a file of a schema version this binary cannot open
// (Is appliance.ErrNewerSchema).
type SchemaError struct {
	File, Binary int // schema versions of the file and of this binary
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("the database has schema version %d, newer than this linkplan's schema version %d: run the linkplan release that wrote it (or a later one), or restore a backup taken with this release", e.File, e.Binary)
}

// Is makes errors.Is(err, appliance.ErrNewerSchema) hold.
func (e *SchemaError) Is(target error) bool { return target == appliance.ErrNewerSchema }

func (db *DB) migrate(before func(db *DB, from, to int) error) error {
	// The version is read before anything is written: a file of a newer
	// schema is left byte for byte as it was.
	cur, err := db.Version()
	if err != nil {
		return err
	}
	if cur > SchemaVersion() {
		return fmt.Errorf("open store %s: %w", db.path, &SchemaError{File: cur, Binary: SchemaVersion()})
	}
	if err := db.bolt.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(bucketMeta)
		return err
	}); err != nil {
		return fmt.Errorf("migrate: create meta: %w", err)
	}
	if before != nil && cur > 0 && cur < SchemaVersion() {
		if err := before(db, cur, SchemaVersion()); err != nil {
			return fmt.Errorf("migrate from schema version %d to %d: %w", cur, SchemaVersion(), err)
		}
	}
	for _, m := range migrations {
		if m.version <= cur {
			continue
		}
		if err := db.bolt.Update(func(tx *bolt.Tx) error {
			if err := m.apply(tx); err != nil {
				return err
			}
			var v [8]byte
			binary.BigEndian.PutUint64(v[:], uint64(m.version))
			return tx.Bucket(bucketMeta).Put(keySchemaVersion, v[:])
		}); err != nil {
			return fmt.Errorf("migrate to version %d (%s): %w", m.version, m.name, err)
		}
	}
	return nil
}

// Version returns the schema version stored in the file (0 for a new file).
func (db *DB) Version() (int, error) {
	var v int
	err := db.bolt.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketMeta)
		if b == nil {
			return nil
		}
		raw := b.Get(keySchemaVersion)
		if len(raw) == 8 {
			v = int(binary.BigEndian.Uint64(raw))
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v, nil
}

// moveJobPayloads (schema version 6) creates job_payloads and moves each
// job record's payload there; a terminal job's payload is dropped, as
// finish does since.
func moveJobPayloads(tx *bolt.Tx) error {
	payloads, err := tx.CreateBucketIfNotExists(bucketJobPayloads)
	if err != nil {
		return err
	}
	jobs := tx.Bucket(bucketJobs)
	type move struct {
		id, rec, payload []byte
	}
	var moves []move
	err = jobs.ForEach(func(k, v []byte) error {
		var r jobRecord
		if err := json.Unmarshal(v, &r); err != nil {
			return fmt.Errorf("job %s: decode: %w", k, err)
		}
		if r.Payload == nil {
			return nil
		}
		m := move{id: append([]byte{}, k...)}
		if !appliance.JobState(r.State).Terminal() {
			m.payload = r.Payload
		}
		r.Payload = nil
		if m.rec, err = json.Marshal(&r); err != nil {
			return fmt.Errorf("job %s: encode: %w", k, err)
		}
		moves = append(moves, m)
		return nil
	})
	if err != nil {
		return err
	}
	for _, m := range moves {
		if m.payload != nil {
			if err := payloads.Put(m.id, m.payload); err != nil {
				return err
			}
		}
		if err := jobs.Put(m.id, m.rec); err != nil {
			return err
		}
	}
	return nil
}
