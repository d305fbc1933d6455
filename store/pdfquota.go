package store

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"linkplan/appliance"
)

// PDF report counters (bucket pdf_usage, schema version 5): the PDF reports
// a tenant's batch jobs included per calendar month, for the monthly quota
// of SPEC §8.1 (package appliance/batch).
//
// Keys:
//
//	tenant 0x00 "YYYY-MM"              -> big-endian uint64: PDFs granted that month
//	tenant 0x00 "YYYY-MM" 0x00 job id  -> JSON {granted, used_before}: one job's grant
//
// The month is the calendar month in America/Sao_Paulo (the appliance
// serves Brazil). The zone is loaded with time.LoadLocation; where the
// system has no zone database it is the fixed offset −03:00, which is the
// same: Brazil has had no daylight saving time since 2019.

// pdfGrant is the record of one job's grant.
type pdfGrant struct {
	Granted    int `json:"granted"`
	UsedBefore int `json:"used_before"`
}

// SaoPaulo returns the America/Sao_Paulo zone, or the fixed −03:00 offset
// when the zone database is missing.
func SaoPaulo() *time.Location {
	if loc, err := time.LoadLocation("America/Sao_Paulo"); err == nil {
		return loc
	}
	return time.FixedZone("-03", -3*60*60)
}

// PDFMonth returns the quota month of t: "YYYY-MM" in America/Sao_Paulo.
func PDFMonth(t time.Time) string { return t.In(SaoPaulo()).Format("2006-01") }

func pdfMonthKey(tenantID, month string) []byte {
	return []byte(tenantID + "\x00" + month)
}

// ReservePDFs grants up to want PDF reports to job jobID of tenantID
// against monthlyLimit for the month of now (America/Sao_Paulo), and
// returns the grant and the month's count before it. It is idempotent per
// job: a second call for the same tenant, job and month (a job re-run after
// a crash) returns the first grant and counts nothing. A negative want or
// limit, an empty tenant or job id, or a tenant or job id holding a NUL
// byte match appliance.ErrInvalid. The audit entries are written in the
// same transaction when a new grant of at least one PDF is recorded.
func (db *DB) ReservePDFs(ctx context.Context, tenantID, jobID string, want, monthlyLimit int, now time.Time, audit ...appliance.AuditEntry) (granted, usedBefore int, err error) {
	if err := ctx.Err(); err != nil {
		return 0, 0, err
	}
	switch {
	case want < 0 || monthlyLimit < 0:
		return 0, 0, fmt.Errorf("reserve pdfs: want %d, limit %d: %w", want, monthlyLimit, appliance.ErrInvalid)
	case tenantID == "" || jobID == "" || strings.ContainsRune(tenantID, 0) || strings.ContainsRune(jobID, 0):
		return 0, 0, fmt.Errorf("reserve pdfs: tenant %q, job %q: %w", tenantID, jobID, appliance.ErrInvalid)
	}
	mk := pdfMonthKey(tenantID, PDFMonth(now))
	jk := append(append(append([]byte(nil), mk...), 0), jobID...)
	err = db.bolt.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketPDFUsage)
		if raw := b.Get(jk); raw != nil {
			var g pdfGrant
			if err := json.Unmarshal(raw, &g); err != nil {
				return fmt.Errorf("job grant: %w", err)
			}
			granted, usedBefore = g.Granted, g.UsedBefore
			return nil
		}
		used := uint64(0)
		if raw := b.Get(mk); len(raw) == 8 {
			used = binary.BigEndian.Uint64(raw)
		}
		usedBefore = int(used)
		granted = max(0, min(want, monthlyLimit-usedBefore))
		raw, err := json.Marshal(pdfGrant{Granted: granted, UsedBefore: usedBefore})
		if err != nil {
			return err
		}
		if err := b.Put(jk, raw); err != nil {
			return err
		}
		var v [8]byte
		binary.BigEndian.PutUint64(v[:], used+uint64(granted))
		if err := b.Put(mk, v[:]); err != nil {
			return err
		}
		if granted == 0 {
			return nil
		}
		return db.appendAuditsTx(tx, audit...)
	})
	if err != nil {
		return 0, 0, fmt.Errorf("reserve pdfs: %w", err)
	}
	return granted, usedBefore, nil
}

// PDFUsage returns the PDF reports granted to tenantID in the month of now
// (America/Sao_Paulo).
func (db *DB) PDFUsage(tenantID string, now time.Time) (int, error) {
	n := 0
	err := db.bolt.View(func(tx *bolt.Tx) error {
		if raw := tx.Bucket(bucketPDFUsage).Get(pdfMonthKey(tenantID, PDFMonth(now))); len(raw) == 8 {
			n = int(binary.BigEndian.Uint64(raw))
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("pdf usage: %w", err)
	}
	return n, nil
}
