package api_test

import "testing"

func FuzzResidualsBody(f *testing.F) {
	fuzzRoute(f, routeFuzz{method: "POST", path: "/coverage/observations/residuals", key: "pro"}, nil,
		`{}`, `{"engines":["fspl","itm"]}`, `{"engines":["fspl","fspl"]}`, `{"engines":["raytrace2"]}`,
		`{"engines":"fspl"}`, `{"engines":[1,null]}`, `{"x":1}`, `null`, `[]`, `{`, ``,
	)
}

func FuzzCalibrationBody(f *testing.F) {
	fuzzRoute(f, routeFuzz{method: "PUT", path: "/coverage/calibration", key: "pro"}, nil,
		`{"enabled":true}`, `{"enabled":false}`, `{}`, `{"enabled":"yes"}`, `{"enabled":null}`, `{"enabled":true,"x":1}`,
		`null`, `[]`, `{`, ``,
	)
}

func FuzzCalibrationFitBody(f *testing.F) {
	fuzzRoute(f, routeFuzz{method: "POST", path: "/coverage/calibration/fit", key: "pro"}, nil,
		``, `{}`, `{"x":1}`, `null`, `[]`, `{`,
	)
}
