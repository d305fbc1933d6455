package repeater

import (
	"container/heap"
	"math"
)

// costs gives the edge costs of a graph (dB, never negative; +Inf where
// the edge is absent) from the nodes to a target. The search asks lazily:
// row for a node it expands, edge alone for a node whose only useful hop is
// the last one. Answers are deterministic; the implementation memoizes.
type costs interface {
	// row returns the costs from u to every node, or at least to every v
	// with minHops(v) ≤ left (the others may read +Inf).
	row(u, left int) ([]float64, error)
	// edge returns the cost from u to v.
	edge(u, v int) (float64, error)
	// minHops is a lower bound of the hops from v to the target (0 for the
	// target itself, or when nothing is known).
	minHops(v int) int
}

// route is a path of the graph and its lexicographic label.
type route struct {
	nodes []int     // node indices, source first, target last
	costs []float64 // cost of each hop, dB; len(nodes)-1 entries
	max   float64   // worst hop cost, dB
	sum   float64   // sum of the hop costs in path order, dB
}

func (r route) hops() int { return len(r.costs) }

// edgeKey names a directed edge.
type edgeKey struct{ u, v int }

// state is a (node, hops) state of the label-setting search.
type state struct {
	key float64 // the label being minimised: worst hop (phase 1) or sum (phase 2), dB
	h   int     // hops from the source
	v   int     // node
}

// stateHeap orders states by (key, h, v): a total order, so the pop
// sequence, and with it the answer, is deterministic.
type stateHeap []state

func (q stateHeap) Len() int { return len(q) }
func (q stateHeap) Less(i, j int) bool {
	a, b := q[i], q[j]
	if a.key != b.key {
		return a.key < b.key
	}
	if a.h != b.h {
		return a.h < b.h
	}
	return a.v < b.v
}
func (q stateHeap) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *stateHeap) Push(x any)   { *q = append(*q, x.(state)) }
func (q *stateHeap) Pop() any     { o := *q; x := o[len(o)-1]; *q = o[:len(o)-1]; return x }
func (q *stateHeap) push(s state) { heap.Push(q, s) }
func (q *stateHeap) pop() state   { return heap.Pop(q).(state) }

// bestRoute returns the best route from s to t with at most maxHops hops
// among n nodes under the lexicographic order (worst hop cost, sum of hop
// costs, hop count), skipping the banned edges; ok is false when t cannot
// be reached. The algorithm is described in doc.go ("Search"); it is exact
// for non-negative costs and equals a brute-force enumeration of the
// simple paths (graph_test.go).
func bestRoute(n, s, t, maxHops int, g costs, banned map[edgeKey]bool) (route, bool, error) {
	if s == t || maxHops < 1 {
		return route{}, false, nil
	}
	// Phase 1: the least worst hop B over walks of at most maxHops hops.
	first, ok, err := search(n, s, t, maxHops, g, banned, math.Inf(1), true)
	if err != nil || !ok {
		return route{}, false, err
	}
	// Phase 2: the least sum, then the fewest hops, over the edges of cost
	// at most B: every such route has worst hop exactly B, and one exists
	// (phase 1's).
	return search(n, s, t, maxHops, g, banned, first.max, false)
}

// search is Dijkstra over the states (v, h), h ≤ maxHops, ordered by (key,
// h, v). The key grows along an edge (max or sum of non-negative costs;
// floating-point max and + are monotone) and h grows by one, so a state's
// first pop carries its least key. A popped state (v, h) is dominated, and
// skipped, when v was popped before with h' ≤ h: that earlier state has a
// key no greater and more hops left, so no route through (v, h) is better.
func search(n, s, t, maxHops int, g costs, banned map[edgeKey]bool, limit float64, minimax bool) (route, bool, error) {
	// dist[v*(maxHops+1)+h] is the best key found for (v, h); parent the
	// node before v on that walk.
	w := maxHops + 1
	dist := make([]float64, n*w)
	parent := make([]int32, n*w)
	hopCost := make([]float64, n*w)
	for i := range dist {
		dist[i] = math.Inf(1)
		parent[i] = -1
	}
	settledH := make([]int, n) // least h at which v was popped; maxHops+1 when never
	for i := range settledH {
		settledH[i] = w
	}
	q := stateHeap{}
	dist[s*w] = math.Inf(-1)
	if !minimax {
		dist[s*w] = 0
	}
	q.push(state{key: dist[s*w], h: 0, v: s})
	for q.Len() > 0 {
		cur := q.pop()
		if cur.key > dist[cur.v*w+cur.h] || settledH[cur.v] <= cur.h {
			continue // stale or dominated
		}
		settledH[cur.v] = cur.h
		if cur.v == t {
			return walkBack(s, t, cur.h, w, parent, hopCost), true, nil
		}
		if cur.h == maxHops {
			continue
		}
		relax := func(v int, c float64) {
			if v == cur.v || v == s || math.IsInf(c, 1) || c > limit || settledH[v] <= cur.h+1 ||
				cur.h+1+g.minHops(v) > maxHops || banned[edgeKey{cur.v, v}] {
				return
			}
			k := cur.key + c
			if minimax {
				k = math.Max(cur.key, c)
			}
			if i := v*w + cur.h + 1; k < dist[i] {
				dist[i] = k
				parent[i] = int32(cur.v)
				hopCost[i] = c
				q.push(state{key: k, h: cur.h + 1, v: v})
			}
		}
		if cur.h == maxHops-1 {
			// Only a hop into t can still finish within maxHops.
			c, err := g.edge(cur.v, t)
			if err != nil {
				return route{}, false, err
			}
			relax(t, c)
			continue
		}
		row, err := g.row(cur.v, maxHops-cur.h-1)
		if err != nil {
			return route{}, false, err
		}
		for v, c := range row {
			relax(v, c)
		}
	}
	return route{}, false, nil
}

// walkBack rebuilds the route ending in state (t, h) from the parents.
func walkBack(s, t, h, w int, parent []int32, hopCost []float64) route {
	nodes := make([]int, h+1)
	costs := make([]float64, h)
	v := t
	for k := h; k > 0; k-- {
		nodes[k] = v
		costs[k-1] = hopCost[v*w+k]
		v = int(parent[v*w+k])
	}
	nodes[0] = s
	r := route{nodes: nodes, costs: costs, max: math.Inf(-1)}
	for _, c := range costs {
		r.max = math.Max(r.max, c)
		r.sum += c
	}
	return r
}

// lexLess orders labels (worst hop, sum, hops).
func lexLess(a, b route) bool {
	if a.max != b.max {
		return a.max < b.max
	}
	if a.sum != b.sum {
		return a.sum < b.sum
	}
	return a.hops() < b.hops()
}

// bottleneckHop returns the index of the first hop of r whose cost is its
// worst.
func (r route) bottleneckHop() int {
	for i, c := range r.costs {
		if c == r.max {
			return i
		}
	}
	return -1
}

// routes returns the best route and up to alternatives more: each next
// route is the best one that uses none of the bottleneck hops of the routes
// before it (doc.go, "Alternatives").
func routes(n, s, t, maxHops, alternatives int, g costs) ([]route, error) {
	banned := map[edgeKey]bool{}
	var out []route
	for len(out) <= alternatives {
		r, ok, err := bestRoute(n, s, t, maxHops, g, banned)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		out = append(out, r)
		b := r.bottleneckHop()
		banned[edgeKey{r.nodes[b], r.nodes[b+1]}] = true
	}
	return out, nil
}
