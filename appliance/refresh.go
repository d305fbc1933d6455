package appliance

// TowerRefresh records one import of one tower source (SPEC §8.6: sources
// refresh several times a day). Admins see these records.
type TowerRefresh struct {
	Seq        uint64     `json:"seq"`
	TimeUnix   float64    `json:"time_unix"`   // epoch seconds when the refresh finished
	Source     string     `json:"source"`      // file path or embedded sample name
	Format     string     `json:"format"`      // importer format name
	SHA256     string     `json:"sha256"`      // of the source bytes
	Changed    bool       `json:"changed"`     // false when the bytes equal the previous refresh's
	Rows       int        `json:"rows"`        // data rows read
	Towers     int        `json:"towers"`      // towers accepted (stations)
	Rejected   int        `json:"rejected"`    // rows refused
	Rejects    []RowIssue `json:"rejects"`     // the first refused rows with reasons (at most 100)
	DurationMs float64    `json:"duration_ms"` // milliseconds
	Error      string     `json:"error,omitempty"`
}

// RowIssue is one refused input row.
type RowIssue struct {
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}
