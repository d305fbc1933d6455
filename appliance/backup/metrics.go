package backup

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"strconv"

	"linkplan/appliance/telemetry"
)

// writeMetrics writes the backup samples (their HELP and TYPE are declared
// in appliance/telemetry): the counter for every trigger and result, and,
// with a schedule, its gauges (the time, age and size of the newest good
// scheduled backup only once there is one; the result and duration of the
// latest attempt once one ran).
func (s *Service) writeMetrics(w io.Writer) {
	now := s.now()
	s.mu.Lock()
	st := s.st
	counts := maps.Clone(s.counts)
	s.mu.Unlock()
	var b bytes.Buffer
	for _, t := range telemetry.BackupTriggers() {
		for _, r := range []string{"failed", "ok"} {
			fmt.Fprintf(&b, "%s{trigger=%q,result=%q} %d\n", telemetry.Backups, t, r, counts[[2]string{t, r}])
		}
	}
	if st.Scheduled {
		gauge := func(name, v string) { fmt.Fprintf(&b, "%s %s\n", name, v) }
		if !st.LastSuccess.IsZero() {
			gauge(telemetry.BackupLastSuccessTime, strconv.FormatFloat(float64(st.LastSuccess.UnixMilli())/1000, 'f', 3, 64))
			gauge(telemetry.BackupAge, strconv.FormatFloat(now.Sub(st.LastSuccess).Seconds(), 'f', 3, 64))
			gauge(telemetry.BackupLastBytes, strconv.FormatInt(st.LastBytes, 10))
		}
		if !st.LastAttempt.IsZero() {
			ok := "1"
			if st.LastError != "" {
				ok = "0"
			}
			gauge(telemetry.BackupLastOK, ok)
			gauge(telemetry.BackupLastDuration, strconv.FormatFloat(st.LastDuration.Seconds(), 'f', 3, 64))
		}
	}
	_, _ = w.Write(b.Bytes())
}
