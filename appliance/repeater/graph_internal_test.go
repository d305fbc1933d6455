package repeater

import (
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
)

func seed(t testing.TB) uint64 {
	s := uint64(20261125)
	if v, err := strconv.ParseUint(os.Getenv("SEED"), 10, 64); err == nil {
		s = v
	}
	t.Logf("SEED=%d (set SEED to replay)", s)
	return s
}

// matrix serves the costs of a matrix and counts the calls.
type matrix struct {
	m           [][]float64
	lb          []int // minHops bounds; nil: 0
	rows, edges int
}

func (x *matrix) row(u, left int) ([]float64, error) {
	x.rows++
	if x.lb == nil {
		return x.m[u], nil
	}
	// Only what row promises: +Inf toward nodes too far from the target.
	r := append([]float64(nil), x.m[u]...)
	for v := range r {
		if x.lb[v] > left {
			r[v] = math.Inf(1)
		}
	}
	return r, nil
}

func (x *matrix) edge(u, v int) (float64, error) { x.edges++; return x.m[u][v], nil }

func (x *matrix) minHops(v int) int {
	if x.lb == nil {
		return 0
	}
	return x.lb[v]
}

// hopBounds returns admissible minHops bounds toward t: the breadth-first
// hop distance over the present edges, lowered at random by 0 or 1 (and
// len(m) for nodes that cannot reach t).
func hopBounds(rng *rand.Rand, m [][]float64, t int) []int {
	n := len(m)
	d := make([]int, n)
	for i := range d {
		d[i] = -1
	}
	d[t] = 0
	queue := []int{t}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for u := 0; u < n; u++ {
			if d[u] < 0 && !math.IsInf(m[u][v], 1) {
				d[u] = d[v] + 1
				queue = append(queue, u)
			}
		}
	}
	for i := range d {
		switch {
		case d[i] < 0:
			d[i] = n
		case d[i] > 0:
			d[i] -= rng.IntN(2)
		}
	}
	return d
}

// bruteForce enumerates every simple path from s to t with at most maxHops
// hops that avoids the banned edges and returns the least under lexLess.
func bruteForce(m [][]float64, s, t, maxHops int, banned map[edgeKey]bool) (route, bool) {
	n := len(m)
	var best route
	found := false
	onPath := make([]bool, n)
	var nodes []int
	var costs []float64
	var walk func(u int)
	walk = func(u int) {
		if u == t {
			r := route{nodes: append([]int(nil), nodes...), costs: append([]float64(nil), costs...), max: math.Inf(-1)}
			for _, c := range r.costs {
				r.max = math.Max(r.max, c)
				r.sum += c
			}
			if !found || lexLess(r, best) {
				best, found = r, true
			}
			return
		}
		if len(costs) == maxHops {
			return
		}
		for v := 0; v < n; v++ {
			c := m[u][v]
			if onPath[v] || math.IsInf(c, 1) || banned[edgeKey{u, v}] {
				continue
			}
			onPath[v] = true
			nodes = append(nodes, v)
			costs = append(costs, c)
			walk(v)
			onPath[v] = false
			nodes = nodes[:len(nodes)-1]
			costs = costs[:len(costs)-1]
		}
	}
	onPath[s] = true
	nodes = append(nodes, s)
	walk(s)
	return best, found
}

// randomGraph has n nodes, directed edges present with probability pEdge,
// and costs drawn from a small set of values (so that ties in the worst hop
// and in the sum are frequent) or a continuous range.
func randomGraph(rng *rand.Rand, n int, pEdge float64) [][]float64 {
	m := make([][]float64, n)
	discrete := rng.IntN(2) == 0
	for u := range m {
		m[u] = make([]float64, n)
		for v := range m[u] {
			switch {
			case u == v || rng.Float64() >= pEdge:
				m[u][v] = math.Inf(1)
			case discrete:
				m[u][v] = float64(80 + 5*rng.IntN(6)) // 80..105 dB in 5 dB steps
			default:
				m[u][v] = 60 + 80*rng.Float64()
			}
		}
	}
	return m
}

// checkRoute verifies that r is a simple path of m from s to t within
// maxHops hops, avoids banned edges, and that its label is recomputed
// exactly from the matrix.
func checkRoute(t *testing.T, m [][]float64, r route, s, tt, maxHops int, banned map[edgeKey]bool) {
	t.Helper()
	if r.nodes[0] != s || r.nodes[len(r.nodes)-1] != tt || r.hops() > maxHops || len(r.nodes) != r.hops()+1 {
		t.Fatalf("route %v does not go from %d to %d within %d hops", r.nodes, s, tt, maxHops)
	}
	seen := map[int]bool{}
	mx, sum := math.Inf(-1), 0.0
	for i, v := range r.nodes {
		if seen[v] {
			t.Fatalf("route %v is not simple", r.nodes)
		}
		seen[v] = true
		if i == 0 {
			continue
		}
		u := r.nodes[i-1]
		if banned[edgeKey{u, v}] || m[u][v] != r.costs[i-1] {
			t.Fatalf("route %v hop %d: cost %g, matrix %g, banned %v", r.nodes, i-1, r.costs[i-1], m[u][v], banned[edgeKey{u, v}])
		}
		mx = math.Max(mx, m[u][v])
		sum += m[u][v]
	}
	if mx != r.max || sum != r.sum {
		t.Fatalf("route %v label (%g, %g), recomputed (%g, %g)", r.nodes, r.max, r.sum, mx, sum)
	}
}

// TestBestRouteEqualsBruteForce: on random graphs the label-setting search
// returns a route whose (worst hop, sum, hops) equals the least over all
// simple paths with at most maxHops hops, for every hop limit, with and
// without banned edges; the alternatives equal the brute force repeated
// with the bottleneck hops banned.
func TestBestRouteEqualsBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(seed(t), 9))
	const graphs = 300
	for g := 0; g < graphs; g++ {
		n := 6 + rng.IntN(4) // 6..9 nodes
		m := randomGraph(rng, n, 0.3+0.5*rng.Float64())
		s, tt := 0, 1+rng.IntN(n-1)
		var lb []int // every other graph: admissible hop bounds
		if g%2 == 1 {
			lb = hopBounds(rng, m, tt)
		}
		for maxHops := 1; maxHops <= n; maxHops++ {
			got, ok, err := bestRoute(n, s, tt, maxHops, &matrix{m: m, lb: lb}, nil)
			if err != nil {
				t.Fatal(err)
			}
			want, wok := bruteForce(m, s, tt, maxHops, nil)
			if ok != wok {
				t.Fatalf("graph %d (n=%d, %d→%d, maxHops=%d): found %v, brute force %v\n%v", g, n, s, tt, maxHops, ok, wok, m)
			}
			if !ok {
				continue
			}
			checkRoute(t, m, got, s, tt, maxHops, nil)
			if got.max != want.max || got.sum != want.sum || got.hops() != want.hops() {
				t.Fatalf("graph %d (n=%d, %d→%d, maxHops=%d): got %v (%g, %g, %d), brute force %v (%g, %g, %d)\n%v",
					g, n, s, tt, maxHops, got.nodes, got.max, got.sum, got.hops(), want.nodes, want.max, want.sum, want.hops(), m)
			}
			// Alternatives: each equals the brute force with the
			// bottleneck hops of the routes before it banned.
			alts, err := routes(n, s, tt, maxHops, 3, &matrix{m: m, lb: lb})
			if err != nil {
				t.Fatal(err)
			}
			banned := map[edgeKey]bool{}
			for k := 0; ; k++ {
				want, wok := bruteForce(m, s, tt, maxHops, banned)
				if k == len(alts) {
					if wok && k <= 3 {
						t.Fatalf("graph %d: alternative %d missing, brute force has %v", g, k, want.nodes)
					}
					break
				}
				if !wok {
					t.Fatalf("graph %d: alternative %d %v, brute force has none", g, k, alts[k].nodes)
				}
				checkRoute(t, m, alts[k], s, tt, maxHops, banned)
				if alts[k].max != want.max || alts[k].sum != want.sum || alts[k].hops() != want.hops() {
					t.Fatalf("graph %d alternative %d: got %v, brute force %v", g, k, alts[k].nodes, want.nodes)
				}
				b := alts[k].bottleneckHop()
				banned[edgeKey{alts[k].nodes[b], alts[k].nodes[b+1]}] = true
			}
		}
	}
}

// TestBestRouteCases: named small graphs where a greedy or a plain
// minimax search goes wrong.
func TestBestRouteCases(t *testing.T) {
	inf := math.Inf(1)
	cases := []struct {
		name      string
		m         [][]float64
		maxHops   int
		wantNodes []int
		wantFound bool
	}{
		{
			// 0→1 direct costs 100; 0→2→1 has worst hop 90.
			name:      "relay beats a poor direct hop",
			m:         [][]float64{{inf, 100, 90}, {inf, inf, inf}, {inf, 90, inf}},
			maxHops:   2,
			wantNodes: []int{0, 2, 1},
			wantFound: true,
		},
		{
			name:      "hop limit forces the direct hop",
			m:         [][]float64{{inf, 100, 90}, {inf, inf, inf}, {inf, 90, inf}},
			maxHops:   1,
			wantNodes: []int{0, 1},
			wantFound: true,
		},
		{
			// Same worst hop 90 both ways; the sum decides (0→2→1: 180,
			// 0→3→1: 170).
			name:      "equal bottleneck, smaller total loss",
			m:         [][]float64{{inf, inf, 90, 80}, {inf, inf, inf, inf}, {inf, 90, inf, inf}, {inf, 90, inf, inf}},
			maxHops:   2,
			wantNodes: []int{0, 3, 1},
			wantFound: true,
		},
		{
			// Same worst hop and sum (180); fewer hops wins.
			name:      "equal bottleneck and sum, fewer hops",
			m:         [][]float64{{inf, inf, 90, 60}, {inf, inf, inf, inf}, {inf, 90, inf, inf}, {inf, inf, 30, inf}},
			maxHops:   3,
			wantNodes: []int{0, 2, 1},
			wantFound: true,
		},
		{
			// Reaching 2 through 3 has the better worst hop (50 < 70) but
			// the worse sum; the route's bottleneck is 90 either way, and
			// the sum must use the prefix 0→2 (70+90 < 50+50+90).
			name:      "prefix with worse worst hop gives the better route",
			m:         [][]float64{{inf, inf, 70, 50}, {inf, inf, inf, inf}, {inf, 90, inf, inf}, {inf, inf, 50, inf}},
			maxHops:   3,
			wantNodes: []int{0, 2, 1},
			wantFound: true,
		},
		{
			name:      "unreachable",
			m:         [][]float64{{inf, inf, 70}, {inf, inf, inf}, {inf, inf, inf}},
			maxHops:   3,
			wantFound: false,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok, err := bestRoute(len(tc.m), 0, 1, tc.maxHops, &matrix{m: tc.m}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if ok != tc.wantFound {
				t.Fatalf("found %v, want %v", ok, tc.wantFound)
			}
			if ok && !equalInts(got.nodes, tc.wantNodes) {
				t.Fatalf("route %v, want %v", got.nodes, tc.wantNodes)
			}
		})
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
