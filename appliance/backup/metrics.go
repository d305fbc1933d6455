package backup

import (
	"bytes"
	"fmt"
	"io"
	"strconv"

	"linkplan/appliance"
)

// Metric families of the backups (Prometheus text format).
const (
	MetricBackups         = "linkplan_backups_total"
	MetricLastSuccessTime = "linkplan_backup_last_success_timestamp_seconds"
	MetricAge             = "linkplan_backup_age_seconds"
	MetricLastOK          = "linkplan_backup_last_ok"
	MetricLastDuration    = "linkplan_backup_last_duration_seconds"
	MetricLastBytes       = "linkplan_backup_last_size_bytes"
)

// MetricTriggers is the closed set of the trigger label of MetricBackups
// (the pre-migration backup runs before the metrics exist).
func MetricTriggers() []string {
	return []string{appliance.BackupTriggerCLI, appliance.BackupTriggerRoute, appliance.BackupTriggerScheduled}
}

// writeMetrics writes the backup series: the counter for every trigger
// and result (0 until counted), and, with a schedule, its gauges (the
// time and age of the newest good scheduled backup only once there is
// one).
func (s *Service) writeMetrics(w io.Writer) {
	now := s.now()
	s.mu.Lock()
	st := s.st
	counts := make(map[[2]string]uint64, len(s.counts))
	for k, v := range s.counts {
		counts[k] = v
	}
	s.mu.Unlock()
	var b bytes.Buffer
	fmt.Fprintf(&b, "# HELP %s Backups taken (written and verified: ok; else failed), by trigger.\n# TYPE %s counter\n", MetricBackups, MetricBackups)
	for _, t := range MetricTriggers() {
		for _, r := range []string{"failed", "ok"} {
			fmt.Fprintf(&b, "%s{trigger=%q,result=%q} %d\n", MetricBackups, t, r, counts[[2]string{t, r}])
		}
	}
	if st.Scheduled {
		gauge := func(name, help, v string) {
			fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s gauge\n%s %s\n", name, help, name, name, v)
		}
		if !st.LastSuccess.IsZero() {
			gauge(MetricLastSuccessTime, "Time the newest good scheduled backup was taken, Unix seconds.", strconv.FormatFloat(float64(st.LastSuccess.UnixMilli())/1000, 'f', 3, 64))
			gauge(MetricAge, "Age of the newest good scheduled backup, seconds.", strconv.FormatFloat(now.Sub(st.LastSuccess).Seconds(), 'f', 3, 64))
			gauge(MetricLastBytes, "Size of the newest good scheduled backup file, bytes.", strconv.FormatInt(st.LastBytes, 10))
		}
		if !st.LastAttempt.IsZero() {
			ok := "1"
			if st.LastError != "" {
				ok = "0"
			}
			gauge(MetricLastOK, "Whether the latest scheduled backup attempt succeeded (1) or failed (0).", ok)
			gauge(MetricLastDuration, "Wall time of the latest scheduled backup attempt, seconds.", strconv.FormatFloat(st.LastDuration.Seconds(), 'f', 3, 64))
		}
	}
	_, _ = w.Write(b.Bytes())
}
