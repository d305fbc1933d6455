package h3_test

import (
	"fmt"

	"linkplan/engines/ml/h3"
)

// The centre agrees with h3-js 4.5.0: (-23.552962252442057, -46.63498742338605).
func ExampleLatLngToCell() {
	c, err := h3.LatLngToCell(-23.55052, -46.633308, 8) // São Paulo, Praça da Sé
	if err != nil {
		panic(err)
	}
	fmt.Println(c, c.Resolution(), c.BaseCell())
	lat, lon, err := h3.CellToLatLng(c)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%.5f %.5f\n", lat, lon)
	// Output:
	// 88a8100c03fffff 8 84
	// -23.55296 -46.63499
}
