// Package admission is the appliance's one scheduler of heavy work (issue
// 20, scope 2; /work/shared/design/WORK.md): coverage maps, best-server
// maps, asynchronous batch reports and repeater plans ask it for CPU workers
// and memory before they run, and wait in one queue with a visible position
// when the budget is spent. It implements appliance.Admitter; the services
// size their work (appliance.HeavyWork) and appliance/cmd/linkplan wires one
// Scheduler into all of them. A raytrace job (to come) submits its
// HeavyWork the same way: a Kind, its workers and its memory estimate.
//
// # Budget
//
//   - CPU: Options.Workers worker slots, default max(1, GOMAXPROCS−1). The
//     slots are goroutines: a piece of heavy work runs at most its grant's
//     Workers goroutines (coverage radials, batch rows, repeater edges), so
//     heavy work in all never keeps more than max(1, GOMAXPROCS−1) cores
//     busy and at least one core (on a machine with two or more) stays for
//     the cheap routes (/health, /analyze_link, tower queries), the HTTP
//     server and the garbage collector. Cheap routes never pass through
//     the scheduler, so they never wait behind it.
//   - A piece of work gets min(HeavyWork.Workers, Options.MaxJobWorkers,
//     free slots) workers, at least one; MaxJobWorkers defaults to
//     ceil(Workers/2), so that two pieces run side by side on a large
//     machine instead of one taking every slot.
//   - Memory: Options.MemBytes, default DefaultMemBytes (768 MiB). Work is
//     admitted only when its estimate (HeavyWork.MemBytes) fits in what the
//     running work has not reserved; the reservation is held until
//     Release. Work whose estimate exceeds the whole budget can never run
//     and is refused at Submit (appliance.ErrInvalid, naming the sizes).
//     Estimates are the services' (coverage.EstimateMemBytes, ...), checked
//     against measured peaks in their benchmarks. The operator sizes the
//     budget with `linkplan serve --heavy-memory-mib` and the Go runtime's
//     soft limit is raised by the same amount, so that the collector does
//     not spin when the budget is in use.
//
// # Order and fair shares
//
// Waiting work is admitted in the order of a virtual tag (start-time fair
// queuing across tenants): at Submit,
//
//	tag = max(V, last tag of the tenant) + 1/weight(tier)
//
// where V is the tag of the work admitted last and the weights are Free 1,
// Starter 1, Pro 2, Business 2, Enterprise 4, Ultra 4 (any other tier, e.g.
// the appliance's own jobs, 1). The lowest tag goes first, ties by
// submission order. So a tenant that submits many pieces at once gets
// every other turn, not the whole queue, against a tenant of the same tier
// that submits one; an Enterprise tenant gets up to 4 turns for a Free
// tenant's 1 while both have work waiting; a tenant that comes back after
// idling starts at V, not with credit saved up.
//
// The order is strict: when the work at the head does not fit the free
// budget (memory, or no free slot), nothing behind it starts, so large work
// is never starved by a stream of small work. A queue position is the
// 1-based rank in this order (1: admitted next); it can grow when work
// with a lower tag arrives (another tenant's first map) and shrinks as work
// ahead is admitted or leaves.
//
// # Queue bounds and refusals
//
// At most Options.MaxQueue pieces wait in all (default DefaultMaxQueue, 32)
// and Options.MaxQueuePerTenant per tenant (default 4). A Submit beyond
// either is refused with a *appliance.RetryAfterError matching
// appliance.ErrUnavailable (HTTP 503 with Retry-After): nothing is queued
// that the appliance could not hold. Retry-After estimates when a queue
// place frees: the mean run time of the last finished pieces (an
// exponential average, 30 s before any finished) divided by the number
// running, within 1 s and 5 min. Memory is never the reason for a refusal
// of work that fits the whole budget: such work waits.
//
// # States
//
//	| State    | Entered when                                      | Next                         |
//	|----------|---------------------------------------------------|------------------------------|
//	| refused  | Submit: queue or tenant share full (503 +         | (terminal; nothing queued)   |
//	|          | Retry-After), or estimate over the whole budget   |                              |
//	|          | (ErrInvalid)                                      |                              |
//	| waiting  | Submit accepted it                                | running, withdrawn           |
//	| running  | it is at the head of the order and its workers    | released                     |
//	|          | (one free slot at least) and memory fit the free  |                              |
//	|          | budget: Wait returns the grant                    |                              |
//	| withdrawn| Wait's context ended, or Release, while waiting   | (terminal)                   |
//	| released | Release after running: slots and memory return   | (terminal)                   |
//	|          | and the next waiting work is admitted             |                              |
//
// Every change of the waiting list (a submit, an admission, a withdrawal)
// wakes the waiting pieces, and Wait reports a changed position to its
// caller (a coverage map's queued event, a job's queue_position).
//
// # Metrics
//
// The scheduler writes, with HELP and TYPE, linkplan_admission_waiting,
// linkplan_admission_running, linkplan_admission_workers{state="busy"|"total"},
// linkplan_admission_memory_bytes{state="reserved"|"budget"} and
// linkplan_admission_refused_total{reason="queue_full"|"over_budget"}.
package admission
