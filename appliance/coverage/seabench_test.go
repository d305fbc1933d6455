package coverage

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"linkplan/appliance"
)

// BenchmarkIssue22_SeaPack is the rio50 ITM map on the bench-splat pack's
// layout (S23W044 with its absent neighbours declared sea, built from the
// committed tile): the CPU time of the default mode, the case of
// `make bench-splat`.
func BenchmarkIssue22_SeaPack(b *testing.B) {
	ter := edgePack(b, true)
	reg := registry(b)
	svc := New(ter, reg.Get)
	req := sumare(50000)
	req.Engine = appliance.EngineITM
	var res *Result
	c0 := processCPU()
	for b.Loop() {
		var err error
		if res, err = svc.Compute(context.Background(), req, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	cpu := (processCPU() - c0).Seconds() / float64(b.N)
	a := measureAgreement(b, ter, reg.Get, []Request{req}, res.Raster, []float64{res.Summary.ProfileStepM},
		pixelsToCheck(res.Raster, []Request{req}, 2000, rand.New(rand.NewPCG(22, 22))), "default", "rio50-seapack-itm")
	fmt.Printf("%s cpu_s=%.2f\n", a, cpu)
}
