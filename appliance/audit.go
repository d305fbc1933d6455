package appliance

import (
	"unicode"
	"unicode/utf8"
)

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

// MaxUserAgentBytes is the most bytes of a client's user agent an audit row
// keeps (CleanUserAgent).
const MaxUserAgentBytes = 256

// CleanUserAgent returns ua as an audit row stores it: control and format
// characters (U+0000, newlines, U+202E and the like) and invalid UTF-8
// replaced by U+FFFD, cut on a character boundary to at most
// MaxUserAgentBytes bytes, "…" marking a cut. A client's header is up to
// the server's header limit (about 1 MiB), which a row must not copy.
func CleanUserAgent(ua string) string {
	const cut = "…"
	b := make([]byte, 0, min(len(ua), MaxUserAgentBytes+utf8.UTFMax))
	for _, r := range ua { // invalid UTF-8 comes as utf8.RuneError
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			r = utf8.RuneError
		}
		b = utf8.AppendRune(b, r)
		if len(b) > MaxUserAgentBytes {
			for len(b) > MaxUserAgentBytes-len(cut) {
				_, n := utf8.DecodeLastRune(b)
				b = b[:len(b)-n]
			}
			return string(b) + cut
		}
	}
	return string(b)
}

// AuditFilter selects audit entries for a page of the log, newest first
// (store and the audit service).
type AuditFilter struct {
	TenantID string  // "" : every tenant (admin view)
	Action   string  // "" : any action; else this exact action name
	FromUnix float64 // entries at or after this time (epoch seconds); 0: no bound
	ToUnix   float64 // entries before this time (epoch seconds); 0: no bound
	// BeforeSeq pages: entries with a sequence number below it; 0 starts
	// at the newest entry.
	BeforeSeq uint64
	Limit     int // most entries of the page, >= 1
}
