package appliance

// AuditEntry is one row of the audit log (SPEC §2.11). Its JSON tags are
// the stored and wire shape: the log is append-only, so the shape only ever
// gains fields.
type AuditEntry struct {
	Seq        uint64            `json:"seq"`                   // monotonically increasing sequence number
	TimeUnix   float64           `json:"time_unix"`             // epoch seconds
	Action     string            `json:"action"`                // action name, e.g. "admin.key.issue" (SPEC §6)
	ActorKey   string            `json:"actor_key,omitempty"`   // id of the acting key
	ActorEmail string            `json:"actor_email,omitempty"` // e-mail of the acting key's owner
	TenantID   string            `json:"tenant_id,omitempty"`   // tenant the action concerns
	Route      string            `json:"route,omitempty"`       // route template, e.g. "/admin/keys"
	Params     map[string]string `json:"params,omitempty"`      // non-secret parameters
	IP         string            `json:"ip,omitempty"`
	UserAgent  string            `json:"user_agent,omitempty"`
	RequestID  string            `json:"request_id,omitempty"`
}
