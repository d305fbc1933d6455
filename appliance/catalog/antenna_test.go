package catalog_test

import (
	"math"
	"os"
	"testing"

	"linkplan/appliance/catalog"
)

// TestMosaicoAntennaFigures: a MOSAICO station's tower carries the
// antenna figures of its strongest emission (issue 25: they shape its
// generic pattern). Station 738255 of the real Licenciamento sample: the
// strongest emissions are the 61.5 W, 15 dBi LTE ones (ERP 60.74 dBm,
// against 60.63 for 60 W and 59.74 for 61.5 W at 14 dBi), with a
// front-to-back ratio of 25 dB, a 65° half-power angle and an elevation
// angle of 0°.
func TestMosaicoAntennaFigures(t *testing.T) {
	f, err := os.Open("testdata/anatel_mosaico_licenciamento_sample.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := catalog.Parse(catalog.FormatMosaicoLicenciamento, f)
	if err != nil {
		t.Fatal(err)
	}
	for _, tw := range res.Towers() {
		if tw.ID != "anatel:738255" {
			continue
		}
		if !tw.HasTx || tw.TxGainDBi != 15 || tw.FrontBackDB != 25 || tw.BeamwidthDeg != 65 || tw.TiltDeg != 0 || math.Abs(tw.ERPDBm-(10*math.Log10(61500)+15-2.15)) > 1e-9 {
			t.Fatalf("gain %g dBi, front-to-back %g dB, beamwidth %g°, tilt %g°, ERP %g dBm", tw.TxGainDBi, tw.FrontBackDB, tw.BeamwidthDeg, tw.TiltDeg, tw.ERPDBm)
		}
		return
	}
	t.Fatal("station 738255 not found")
}
