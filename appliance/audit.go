package appliance

// AuditEntry is one row of the audit log (SPEC §2.11).
type AuditEntry struct {
	Seq        uint64            // monotonically increasing sequence number
	TimeUnix   float64           // epoch seconds
	Action     string            // action name, e.g. "admin.key.issue" (SPEC §6)
	ActorKey   string            // id of the acting key
	ActorEmail string            // e-mail of the acting key's owner
	TenantID   string            // tenant the action concerns
	Route      string            // route template, e.g. "/admin/keys"
	Params     map[string]string // non-secret parameters
	IP         string
	UserAgent  string
	RequestID  string
}
