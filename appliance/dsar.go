package appliance

import "time"

// DSARType is the kind of a data-subject request (SPEC §2.12).
type DSARType string

// Data-subject request types.
const (
	DSARExport DSARType = "export" // a copy of the subject's data (LGPD art. 18 II/V)
	DSARErase  DSARType = "erase"  // erasure: soft at once, hard after DSARHardDeleteAfter
)

// DSARStatus is the state of a data-subject request; the transitions are
// the state table of package appliance/privacy.
type DSARStatus string

// Data-subject request states (SPEC §2.12).
const (
	DSARReceived   DSARStatus = "received"
	DSARProcessing DSARStatus = "processing"
	DSARCompleted  DSARStatus = "completed"
)

// Privacy time limits (SPEC §8.5).
const (
	// DSARAnswerDue is the SLA of a substantive answer: 15 calendar days.
	DSARAnswerDue = 15 * 24 * time.Hour
	// DSARHardDeleteAfter is how long after the soft erase the hard
	// delete is scheduled: 30 days.
	DSARHardDeleteAfter = 30 * 24 * time.Hour
	// DSARHardDeleteWithin is how long after its scheduled time the hard
	// delete must have run: 24 hours (at most 31 days in all).
	DSARHardDeleteWithin = 24 * time.Hour
)

// DSARRequest is one data-subject request (dsar_requests, SPEC §2.12).
// Times are epoch seconds, 0 while not happened.
type DSARRequest struct {
	ID     string // dsar_ + 26 base32 characters; returned as dsar_request_id
	Type   DSARType
	Status DSARStatus
	// TenantID, KeyID and KeyPrefix name the subject until the hard delete
	// ran; then they are cleared and only Subject (the pseudonym) stays.
	TenantID  string
	KeyID     string
	KeyPrefix string
	// Subject is the deterministic pseudonym of the tenant
	// (appliance/privacy.Pseudonym).
	Subject string
	// RequestedBy is "self" (the tenant's own key) or "admin"; ActorKey is
	// the id of the key that asked.
	RequestedBy string
	ActorKey    string
	// Justification is the admin's reason (admin requests only).
	Justification      string
	CreatedUnix        int64
	DueByUnix          int64 // CreatedUnix + DSARAnswerDue
	AnsweredUnix       int64 // substantive answer given: bundle served, or soft erase done
	EraseScheduledUnix int64 // erase: soft erase + DSARHardDeleteAfter
	EraseExecutedUnix  int64 // erase: when the hard delete ran
	// Counts are the rows the hard delete removed, per bucket.
	Counts map[string]int
	// ErasedRefs are one-way hashes (hex SHA-256, store.ErasedRef) of the
	// tenant id and of the payment customer ids the erasure covered,
	// written by the soft erase and kept after the hard delete, so that a
	// payment event naming them is ignored (appliance/billing) and never
	// brings the person back. They hold no id in clear.
	ErasedRefs []string
}

// Open reports whether the request still waits for something: an answer,
// or (erase) its hard delete.
func (r *DSARRequest) Open() bool { return r.Status != DSARCompleted }

// Purged is what a hard delete removed: the rows per bucket, and what the
// caller must drop outside the database after the commit (job result
// files, the tenant's towers in the in-memory indexes).
type Purged struct {
	Counts      map[string]int
	ResultFiles []string // names of job result files in the jobs directory
	TowerIDs    []string // ids of the tenant's user-registered towers
}
