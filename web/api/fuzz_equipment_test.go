package api_test

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"
)

func FuzzRadioBody(f *testing.F) {
	fuzzBodies(f, "/equipment/radios", []string{
		isoRadioBody,
		`{"name":"x","bands":[{"min_mhz":1e308,"max_mhz":-1}],"channels":[{"width_mhz":0,"modes":[{"name":"","tx_power_dbm":"a"}]}]}`,
		`{"name":"x","bands":[],"channels":[{"width_mhz":20,"modes":[{"name":"a","tx_power_dbm":1,"sensitivity_dbm":-90,"throughput_mbps":5},{"name":"b","tx_power_dbm":1,"sensitivity_dbm":-95,"throughput_mbps":4}]}]}`,
		`null`, `[]`, `{`, ``,
	})
}

func FuzzAntennaBody(f *testing.F) {
	fuzzBodies(f, "/equipment/antennas", []string{
		isoAntennaBody,
		`{"name":"d","gain_dbi":38,"parametric":{"model":"itu-f699-dish"}}`,
		`{"name":"t","gain_dbi":10,"pattern":{"horizontal":{"angles_deg":[0,45,90,135,180,225,270,315],"attenuation_db":[0,1,3,9,20,9,3,1]},"vertical":{"angles_deg":[0,45,90,135,180,225,270,315],"attenuation_db":[0,10,30,25,20,25,30,10]}}}`,
		`{"name":"x","gain_dbi":1e9,"parametric":{"model":"omni","v_beamwidth_deg":-1}}`,
		`{"name":"x","gain_dbi":5,"pattern":{"horizontal":{"angles_deg":[359,0],"attenuation_db":[0]}}}`,
		`null`, `{`, ``,
	})
}

func FuzzAntennaImportBody(f *testing.F) {
	seed := func(name string) string {
		b, err := os.ReadFile(filepath.Join("testdata", "antennas", name))
		if err != nil {
			f.Fatal(err)
		}
		return `{"file_name":"` + name + `","content_base64":"` + base64.StdEncoding.EncodeToString(b) + `","gain_dbi":12}`
	}
	fuzzBodies(f, "/equipment/antennas/import", []string{
		seed("B800A065-18-4E.pln"), seed("crc-covlib_generic_antenna.ant"),
		`{"file_name":"x.adf","content_base64":"UkVWTlVNOixUSUEvRUlBLTgwNC1CDQpQQVRDVVQ6LEgNCg=="}`,
		`{"file_name":"x.msi","content_base64":"!!"}`, `{"file_name":"","format":"dxf"}`, `null`, `{`, ``,
	})
}
