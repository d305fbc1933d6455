package packer

// FillVoidsSeaPinned is the membrane fill with the sea border held at its
// height (Dirichlet), the fill of format 4 before the land-only border;
// TestFillError measures it against FillVoids.
func FillVoidsSeaPinned(s []int16, n int) (filled int, ok bool) { return fillVoids(s, n, true) }
