package tenancy

import (
	"net/netip"
	"strconv"
	"sync"
	"time"
)

// TOTP brute-force guard (the arithmetic is in the package doc). Each
// attempt reserves a failure before its code is checked, under one lock, so
// concurrent attempts cannot pass a limit together; a valid code releases
// its reservation. An attempt is refused unchecked (ErrQuota) while
//
//   - its (admin key, address group) had MaxTOTPFailures failures within
//     TOTPFailureWindow (an address group is an IPv4 address or an IPv6
//     /64, since one IPv6 user holds a whole /64), or
//   - the key had MaxTOTPFailuresPerKey failures within TOTPFailureWindow
//     from all addresses together (a distributed guess), or
//   - the key had MaxTOTPFailuresPerKeyPerDay failures within
//     TOTPFailureDay from all addresses together.
const (
	MaxTOTPFailures             = 5
	MaxTOTPFailuresPerKey       = 20
	MaxTOTPFailuresPerKeyPerDay = 100
	TOTPFailureWindow           = 5 * time.Minute
	TOTPFailureDay              = 24 * time.Hour
	// maxThrottled bounds the throttle tables; beyond it expired entries
	// are swept on the next attempt.
	maxThrottled = 4096
)

// Throttle reasons, the "limit" parameter of admin.totp.throttled rows.
const (
	limitAddress = "address_group" // MaxTOTPFailures of one key and address group
	limitKey     = "key"           // MaxTOTPFailuresPerKey
	limitKeyDay  = "key_day"       // MaxTOTPFailuresPerKeyPerDay
)

// addressGroup returns what the throttle counts a client address as: the
// IPv4 address itself (IPv4-mapped IPv6 included), the /64 of an IPv6
// address, or the text as given when it is not an address.
func addressGroup(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return ip
	}
	a = a.WithZone("").Unmap()
	if a.Is4() {
		return a.String()
	}
	return netip.PrefixFrom(a, 64).Masked().String()
}

// groupKey is an admin key and an address group.
type groupKey struct{ keyID, group string }

// throttledRows is the deduplication state of admin.totp.throttled rows of
// one (key, address group) or, for the per-key limits, one key.
type throttledRows struct {
	first      time.Time // the written row of this window
	suppressed int       // throttled attempts since, not written one by one
}

// throttle holds the failure counts; safe for concurrent use.
type throttle struct {
	mu     sync.Mutex
	groups map[groupKey][]time.Time // failures (and reservations) per key and address group, last window
	keys   map[string][]time.Time   // failures (and reservations) per key, last day
	rows   map[groupKey]*throttledRows
}

func newThrottle() *throttle {
	return &throttle{groups: map[groupKey][]time.Time{}, keys: map[string][]time.Time{}, rows: map[groupKey]*throttledRows{}}
}

// reservation is one attempt counted as a failure until released.
type reservation struct {
	gk groupKey
	at time.Time
}

// decision is what reserve decided about a throttled attempt: the limit
// and whether to write its audit row.
type decision struct {
	limit    string
	writeRow bool
}

// reserve counts an attempt of key from group at now as a failure, unless a
// limit is reached: then it returns ok false and what to audit.
func (t *throttle) reserve(keyID, group string, now time.Time) (r reservation, d decision, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sweep(now)
	gk := groupKey{keyID, group}
	g := prune(t.groups, gk, now.Add(-TOTPFailureWindow))
	k := prune(t.keys, keyID, now.Add(-TOTPFailureDay))
	switch {
	case len(g) >= MaxTOTPFailures:
		d.limit = limitAddress
	case since(k, now.Add(-TOTPFailureWindow)) >= MaxTOTPFailuresPerKey:
		d.limit = limitKey
	case len(k) >= MaxTOTPFailuresPerKeyPerDay:
		d.limit = limitKeyDay
	default:
		t.groups[gk] = append(g, now)
		t.keys[keyID] = append(k, now)
		return reservation{gk: gk, at: now}, decision{}, true
	}
	// One row per (key, address group) and window for the address limit,
	// one per key and window for the per-key limits (so rotating addresses
	// does not multiply rows): the first refused attempt's. The attempts
	// after it are counted, and pendingSummaries hands the count over once
	// the window has ended.
	rk := gk
	if d.limit != limitAddress {
		rk = groupKey{keyID, anyAddress}
	}
	if st := t.rows[rk]; st != nil && now.Sub(st.first) < TOTPFailureWindow {
		st.suppressed++
		return reservation{}, d, false
	}
	t.rows[rk] = &throttledRows{first: now}
	d.writeRow = true
	return reservation{}, d, false
}

// release takes back a reservation (the attempt was not a wrong code); with
// forgetGroup, the address group's other failures are forgotten too.
func (t *throttle) release(r reservation, forgetGroup bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if forgetGroup {
		delete(t.groups, r.gk)
	} else {
		t.groups[r.gk] = removeOne(t.groups[r.gk], r.at)
	}
	t.keys[r.gk.keyID] = removeOne(t.keys[r.gk.keyID], r.at)
}

// pendingSummaries removes and returns the suppressed counts of keyID's
// throttled-row windows that ended before now, by address group
// (anyAddress for the per-key limits), for summary rows.
func (t *throttle) pendingSummaries(keyID string, now time.Time) map[string]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out map[string]int
	for rk, st := range t.rows {
		if rk.keyID != keyID || now.Sub(st.first) < TOTPFailureWindow {
			continue
		}
		if st.suppressed > 0 {
			if out == nil {
				out = map[string]int{}
			}
			out[rk.group] = st.suppressed
		}
		delete(t.rows, rk)
	}
	return out
}

// sweep drops expired entries once a table is over maxThrottled. Summaries
// of expired throttled-row windows are dropped with them (the row of the
// window's first attempt stays).
func (t *throttle) sweep(now time.Time) {
	if len(t.groups) > maxThrottled {
		for gk := range t.groups {
			prune(t.groups, gk, now.Add(-TOTPFailureWindow))
		}
	}
	if len(t.keys) > maxThrottled {
		for k := range t.keys {
			prune(t.keys, k, now.Add(-TOTPFailureDay))
		}
	}
	if len(t.rows) > maxThrottled {
		for rk, st := range t.rows {
			if now.Sub(st.first) >= TOTPFailureWindow {
				delete(t.rows, rk)
			}
		}
	}
}

// prune forgets the times of m[k] before cutoff (deleting an empty entry)
// and returns what is left.
func prune[K comparable](m map[K][]time.Time, k K, cutoff time.Time) []time.Time {
	ts := m[k]
	i := 0
	for i < len(ts) && !ts[i].After(cutoff) {
		i++
	}
	if i == len(ts) {
		delete(m, k)
		return nil
	}
	m[k] = ts[i:]
	return ts[i:]
}

// since counts the times after cutoff in ts (ascending).
func since(ts []time.Time, cutoff time.Time) int {
	n := 0
	for i := len(ts) - 1; i >= 0 && ts[i].After(cutoff); i-- {
		n++
	}
	return n
}

// removeOne removes the last occurrence of at from ts.
func removeOne(ts []time.Time, at time.Time) []time.Time {
	for i := len(ts) - 1; i >= 0; i-- {
		if ts[i].Equal(at) {
			return append(ts[:i:i], ts[i+1:]...)
		}
	}
	return ts
}

func itoa(n int) string { return strconv.Itoa(n) }
