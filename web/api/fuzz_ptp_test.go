package api_test

import (
	"strings"
	"testing"
)

// Point-to-point bodies (issue 25): the answer is a documented status and
// body whatever the bytes, never a 500.
var ptpFuzzSeeds = []string{
	ptpBody(""),
	ptpBody(`,"engine":"p1812","polarization":"horizontal","availability_target_pct":99.999,"r001_mmh":95`),
	// Inline radio and antenna, a dish pattern table, an antenna pointed away.
	`{"a":{"lat":-22.9517,"lon":-43.2371,"height_m":30,"radio":` + isoRadioBody + `,"antenna":{"name":"p","gain_dbi":23,"parametric":{"model":"itu-f699-dish"}},"azimuth_deg":10,"tilt_deg":-3},` +
		`"b":{"lat":-22.9877,"lon":-43.2826,"height_m":20,"radio":` + isoRadioBody + `,"antenna":` + isoAntennaBody + `},"frequency_mhz":5500,"channel_mhz":20}`,
	// The same point twice, extremes, a frequency below 1 GHz.
	strings.Replace(ptpBody(""), `"lat":-22.9877,"lon":-43.2826`, `"lat":-22.9517,"lon":-43.2371`, 1),
	strings.Replace(ptpBody(`,"r001_mmh":1e308,"availability_target_pct":99.9999999999`), `"height_m":30`, `"height_m":1e308`, 1),
	strings.Replace(ptpBody(""), `"frequency_mhz":18700`, `"frequency_mhz":700`, 1),
	`{"a":{"lat":"x","radio":[],"antenna":{"pattern":{"horizontal":{"angles_deg":[0],"attenuation_db":[]}}}},"b":null,"frequency_mhz":-1e-308}`,
	`null`, `[]`, `{`, ``,
}

func FuzzPTPBody(f *testing.F) {
	fuzzRoute(f, routeFuzz{method: "POST", path: "/links/ptp", key: "pro"}, nil, ptpFuzzSeeds...)
}

func FuzzPTPReportBody(f *testing.F) {
	seeds := append([]string{
		ptpBody(`,"language":"pt-BR","art":"28027230212345678","engineer_name":"Maria 😀 漢字 \u202e","engineer_registration":"CREA-RJ 1"`),
		strings.Replace(ptpBody(`,"language":"en"`), `"name":"Sumaré"`, `"name":"Torre 中 😀 אב e\u0301"`, 1),
		ptpBody(`,"language":"xx","art":"a\u0000b"`),
	}, ptpFuzzSeeds...)
	fuzzRoute(f, routeFuzz{method: "POST", path: "/reports/ptp", key: "pro"}, nil, seeds...)
}

func FuzzPTPExportBody(f *testing.F) {
	for _, format := range []string{"geojson", "kml", "kmz", "shapefile"} {
		f.Add(format + "\x00" + ptpBody(""))
	}
	f.Add("kml\x00" + strings.Replace(ptpBody(""), `"name":"Sumaré"`, `"name":"=1+1 <b>&amp;</b>"`, 1))
	f.Add("gpx\x00{}")
	f.Add("\x00")
	fuzzQueryAndBody(f, "/exports/ptp", "format")
}
