package raytrace

// pageLen is the number of entries of one page of a paged array.
const pageLen = 1024

// paged is an array indexed by tile that allocates a page of pageLen
// entries the first time one of them is written, each entry def until
// then: a request or a worker writes the tiles around its ends, so its
// memory follows those, not the size of the layer (a layer may hold tens
// of millions of tiles). Reads of an unwritten entry give def and
// allocate nothing.
type paged[T comparable] struct {
	pages [][]T
	def   T
}

func newPaged[T comparable](n int, def T) paged[T] {
	return paged[T]{pages: make([][]T, (n+pageLen-1)/pageLen), def: def}
}

// size is the number of entries the array was made for, rounded up to
// whole pages.
func (p *paged[T]) size() int { return len(p.pages) * pageLen }

func (p *paged[T]) get(i int32) T {
	pg := p.pages[uint32(i)/pageLen]
	if pg == nil {
		return p.def
	}
	return pg[uint32(i)%pageLen]
}

func (p *paged[T]) set(i int32, v T) {
	k := uint32(i) / pageLen
	pg := p.pages[k]
	if pg == nil {
		if v == p.def {
			return
		}
		pg = make([]T, pageLen)
		var zero T
		if p.def != zero {
			for j := range pg {
				pg[j] = p.def
			}
		}
		p.pages[k] = pg
	}
	pg[uint32(i)%pageLen] = v
}

// reset sets every entry back to def, keeping the pages.
func (p *paged[T]) reset() {
	for _, pg := range p.pages {
		for j := range pg {
			pg[j] = p.def
		}
	}
}
