package quota

import (
	"time"

	"linkplan/appliance"
)

// Group is a route group: the routes that share one rate limit.
type Group string

// Route groups (the routes of each are listed in the package doc).
const (
	GroupRead         Group = "read"         // GET data routes
	GroupCompute      Group = "compute"      // synchronous analyses, exports and PDF reports
	GroupPrediction   Group = "prediction"   // POST /coverage/predict (SPEC §8.1 diagram: Pro 6/min)
	GroupMaps         Group = "maps"         // coverage map computations
	GroupBatch        Group = "batch"        // batch reports and job control
	GroupWrite        Group = "write"        // tower registration
	GroupObservations Group = "observations" // observation ingest (SPEC §8.1: Pro 600/min)
	GroupAI           Group = "ai"           // /ai/ routes (SPEC §4.7)
	GroupTenant       Group = "tenant"       // self-service: quota, audit log; not counted as calls
)

// Groups lists every route group, in the order of the doc's table.
func Groups() []Group {
	return []Group{GroupRead, GroupCompute, GroupPrediction, GroupMaps, GroupBatch, GroupWrite, GroupObservations, GroupAI, GroupTenant}
}

// RateWindow is the window of every rate limit: limits are requests per
// minute, with a burst of the whole minute's allowance.
const RateWindow = time.Minute

// tierIndex orders the metered tiers for the rate table.
func tierIndex(t appliance.Tier) int {
	switch t {
	case appliance.TierFree:
		return 0
	case appliance.TierStarter:
		return 1
	case appliance.TierPro:
		return 2
	case appliance.TierBusiness:
		return 3
	case appliance.TierEnterprise:
		return 4
	case appliance.TierUltra:
		return 5
	}
	return -1
}

// ratesPerMinute is the rate table: requests per minute of each group for
// Free, Starter, Pro, Business, Enterprise, Ultra. SPEC §8.1 fixes Pro
// observations (600) and Pro prediction (6); the rest are the appliance's
// choice, documented in doc.go. A tier that a route refuses (Free on
// observations) still gets a rate, so that the route answers its 403
// rather than a 429.
var ratesPerMinute = map[Group][6]int{
	GroupRead:         {30, 60, 300, 600, 1200, 2400},
	GroupCompute:      {10, 30, 120, 300, 600, 1200},
	GroupPrediction:   {6, 6, 6, 30, 120, 240},
	GroupMaps:         {2, 5, 20, 60, 120, 240},
	GroupBatch:        {5, 10, 30, 60, 120, 240},
	GroupWrite:        {10, 30, 60, 120, 300, 600},
	GroupObservations: {60, 60, 600, 1200, 3000, 6000},
	GroupAI:           {10, 10, 30, 60, 120, 240},
	GroupTenant:       {30, 30, 60, 60, 120, 120},
}

// RatePerMinute returns the requests per minute that tier t may send to
// group g; 0 for an unknown group or an erased or unknown tier.
func RatePerMinute(t appliance.Tier, g Group) int {
	i := tierIndex(t)
	r, ok := ratesPerMinute[g]
	if i < 0 || !ok {
		return 0
	}
	return r[i]
}

// Counter names a monthly counter.
type Counter string

// Monthly counters.
const (
	CounterCalls Counter = "calls" // API calls (every metered route but GroupTenant's)
	CounterPDFs  Counter = "pdfs"  // PDF reports (store/pdfquota.go counts them)
	CounterAI    Counter = "ai"    // AI endpoint calls (the hook of SPEC §4.7)
)

// MonthlyLimit returns the monthly cap of counter c for tier t.
func MonthlyLimit(t appliance.Tier, c Counter) int {
	switch c {
	case CounterCalls:
		return t.CallsPerMonth()
	case CounterPDFs:
		return t.PDFsPerMonth()
	case CounterAI:
		return t.AICallsPerMonth()
	}
	return 0
}
