package repeater

import (
	"encoding/json"

	"linkplan/appliance"
)

// Terms of Cost's memory estimate, bytes.
const (
	costBase   = 32 << 20 // the candidate nodes, their cost rows and the search state
	costPerHop = 8 << 20  // each hop of max_hops widens the search
)

// Cost sizes a repeater_plan job for the appliance's heavy-work scheduler
// (appliance/admission): the workers the plan can use (Service.Workers:
// edges evaluated at once) and its memory estimate, costBase +
// costPerHop·max_hops. The plan reads the grant from its context
// (appliance.WorkersFrom). ok is false for another kind of job.
func (s *Submitter) Cost(j *appliance.Job) (w appliance.HeavyWork, ok bool) {
	if j.Kind != appliance.JobKindRepeaterPlan {
		return w, false
	}
	var p payload
	_ = json.Unmarshal(j.Payload, &p) // an unreadable payload fails in the handler
	hops := p.Request.MaxHops
	if hops <= 0 {
		hops = MaxHops
	}
	return appliance.HeavyWork{Workers: s.Plans.Workers, MemBytes: costBase + costPerHop*int64(hops)}, true
}
