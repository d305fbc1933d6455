package itm_test

import (
	"fmt"
	"math"

	"linkplan/engines/itm"
)

func ExampleP2PTLS() {
	// 20 km of rolling terrain, 100 m spacing: np = 200 intervals, 201 points.
	pfl := []float64{200, 100}
	for i := 0; i <= 200; i++ {
		pfl = append(pfl, 300+80*math.Sin(float64(i)/25))
	}
	res, err := itm.P2PTLS(itm.P2PInput{PFL: pfl, HTxM: 40, HRxM: 10,
		ClimateCode: itm.ClimateContinentalSubtropical, N0: 330, FreqMHz: 700,
		Pol: itm.PolVertical, Epsilon: 15, SigmaSm: 0.005, MdVar: itm.MdVarAccidental},
		90, 50, 50)
	if err != nil {
		fmt.Println(err)
		return
	}
	im := res.Intermediate
	fmt.Printf("loss %.1f dB (free space %.1f dB), %v, warnings: %v\n",
		res.LossDB, im.FreeSpaceLossDB, im.Mode, res.Warnings)
	// Output: loss 150.9 dB (free space 115.4 dB), line of sight, warnings: no warnings
}

func ExampleWarning_Strings() {
	w := itm.WarnPathShort | itm.WarnExtremeVariability
	for _, s := range w.Strings() {
		fmt.Println(s)
	}
	// Output:
	// path shorter than 1 km; use the result with care
	// a requested percentage lies far in the tail of its distribution
}
