package batch

import (
	"encoding/json"

	"linkplan/appliance"
)

// Terms of Cost's memory estimate, bytes.
const (
	costBase      = 8 << 20 // the handler, the zip writer, the geo exports' buffers
	costPerRow    = 8 << 10 // a row of the payload and its result, held until the bundle is written
	costPerWorker = 4 << 20 // one row analysed (profiles) or one PDF report rendered at a time
)

// Cost sizes a batch_report job for the appliance's heavy-work scheduler
// (appliance/admission): the payload's tier (its fair share), the workers
// it can use (Deps.Workers: rows analysed and PDFs rendered at once) and
// its memory estimate, costBase + costPerRow·rows + costPerWorker·workers.
// The handler reads the grant from its context (appliance.WorkersFrom).
// ok is false for another kind of job.
func (s *Service) Cost(j *appliance.Job) (w appliance.HeavyWork, ok bool) {
	if j.Kind != appliance.JobKindBatchReport {
		return w, false
	}
	var p struct {
		Tier appliance.Tier `json:"tier"` // of Payload; the rows are skipped
	}
	_ = json.Unmarshal(j.Payload, &p) // an unreadable payload fails in the handler
	return appliance.HeavyWork{Tier: p.Tier, Workers: s.d.Workers,
		MemBytes: costBase + costPerRow*max(j.Total, 0) + costPerWorker*int64(s.d.Workers)}, true
}
