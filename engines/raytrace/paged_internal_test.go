package raytrace

import "testing"

// TestPaged: a paged array reads def where nothing was written, allocates
// a page on the first write that differs from def only, and reset brings
// every entry back to def.
func TestPaged(t *testing.T) {
	p := newPaged[int32](3*pageLen+5, -1)
	if p.size() != 4*pageLen {
		t.Fatalf("size %d, want %d", p.size(), 4*pageLen)
	}
	for _, c := range []struct {
		name string
		i    int32
		v    int32
	}{{"first entry", 0, 7}, {"last of page 0", pageLen - 1, 8}, {"first of page 2", 2 * pageLen, 9}, {"last entry", 3*pageLen + 4, 10}} {
		t.Run(c.name, func(t *testing.T) {
			if got := p.get(c.i); got != -1 {
				t.Fatalf("unwritten entry %d reads %d, want -1", c.i, got)
			}
			p.set(c.i, c.v)
			if got := p.get(c.i); got != c.v {
				t.Fatalf("entry %d reads %d after writing %d", c.i, got, c.v)
			}
		})
	}
	if p.pages[1] != nil {
		t.Fatal("page 1 was allocated without a write")
	}
	p.set(pageLen+3, -1)
	if p.pages[1] != nil {
		t.Fatal("writing def allocated page 1")
	}
	if got := p.get(pageLen + 3); got != -1 {
		t.Fatalf("page 1 reads %d", got)
	}
	if got := p.get(1); got != -1 {
		t.Fatalf("a neighbour of a written entry reads %d, want -1", got)
	}
	p.reset()
	for _, i := range []int32{0, pageLen - 1, 2 * pageLen, 3*pageLen + 4} {
		if got := p.get(i); got != -1 {
			t.Fatalf("entry %d reads %d after reset", i, got)
		}
	}
	if allocs := testing.AllocsPerRun(100, func() { p.set(5, 3); _ = p.get(5) }); allocs != 0 {
		t.Fatalf("%v allocations writing a page already there", allocs)
	}
}
