package api_test

import (
	"encoding/base64"
	"encoding/json"
	"testing"
)

// equipmentScenarios exercises the catalogue routes against the document
// (issue 25): every success status, and the refusals it documents.
func equipmentScenarios(t *testing.T, h *harness) []scenario {
	t.Helper()
	radioID, antennaID := storeEquipment(t, h, h.keys["pro"])
	spare := h.do(t, "POST", "/equipment/antennas", h.keys["pro"], nil, isoAntennaBody).json(t)["id"].(string)
	pln, _ := json.Marshal(map[string]string{"file_name": "B800A065-18-4E.pln",
		"content_base64": base64.StdEncoding.EncodeToString(readTestdata(t, "B800A065-18-4E.pln"))})
	return []scenario{
		{name: "radios", method: "GET", url: "/equipment/radios", key: "free", status: 200, contains: []string{`"builtin:wifi5-2x2"`, `"total":3`}},
		{name: "create a radio", method: "POST", url: "/equipment/radios", key: "pro", body: isoRadioBody, status: 201, contains: []string{`"id":"radio_`}},
		{name: "a radio with bad fields", method: "POST", url: "/equipment/radios", key: "pro", status: 422, code: "invalid_input",
			body: `{"name":"","bands":[],"channels":[{"width_mhz":20,"modes":[]}]}`, fields: []string{"name", "bands", "channels[0].modes"}, doc: docRejects},
		{name: "a radio with an unknown field", method: "POST", url: "/equipment/radios", key: "pro", status: 422, code: "invalid_input",
			body: `{"name":"x","bands":[],"channels":[],"colour":"red"}`, fields: []string{"colour"}, doc: docRejects},
		{name: "a radio", method: "GET", url: "/equipment/radios/" + radioID, key: "pro", status: 200, contains: []string{`"channels"`}},
		{name: "a built-in radio", method: "GET", url: "/equipment/radios/builtin:microwave-11-23ghz", key: "pro", status: 200, contains: []string{`"1024-QAM"`}},
		{name: "another tenant's radio", method: "GET", url: "/equipment/radios/" + radioID, key: "internal", status: 404, code: "not_found"},
		{name: "replace a radio", method: "PUT", url: "/equipment/radios/" + radioID, key: "pro", body: isoRadioBody, status: 200},
		{name: "replace a built-in radio", method: "PUT", url: "/equipment/radios/builtin:eband-80ghz", key: "pro", body: isoRadioBody, status: 403, code: "forbidden"},
		{name: "delete a radio", method: "DELETE", url: "/equipment/radios/" + radioID, key: "pro", status: 200, contains: []string{`"deleted":true`}},
		{name: "delete it again", method: "DELETE", url: "/equipment/radios/" + radioID, key: "pro", status: 404, code: "not_found"},
		{name: "antennas", method: "GET", url: "/equipment/antennas", key: "pro", status: 200, contains: []string{`"builtin:dish-38dbi"`, `"pattern":null`}},
		{name: "antennas with their cuts", method: "GET", url: "/equipment/antennas?include=pattern", key: "free", status: 200, contains: []string{`"angles_deg"`}},
		{name: "create an antenna", method: "POST", url: "/equipment/antennas", key: "pro", body: isoAntennaBody, status: 201, contains: []string{`"front_to_back_db":25`, `"h_beamwidth_deg":64.99`}},
		{name: "an antenna with neither pattern nor figures", method: "POST", url: "/equipment/antennas", key: "pro", body: `{"name":"x","gain_dbi":3}`,
			status: 422, code: "invalid_input", fields: []string{"pattern"}},
		{name: "import a pattern file", method: "POST", url: "/equipment/antennas/import", key: "pro", body: string(pln), status: 201,
			contains: []string{`"format":"msi"`, `"electrical_tilt_deg":4`}},
		{name: "import without the file", method: "POST", url: "/equipment/antennas/import", key: "pro", body: `{"file_name":"x.msi"}`,
			status: 422, code: "invalid_input", fields: []string{"content_base64"}, doc: docRejects},
		{name: "an antenna", method: "GET", url: "/equipment/antennas/" + antennaID, key: "pro", status: 200, contains: []string{`"B800A065-18-4E"`}},
		{name: "another tenant's antenna", method: "GET", url: "/equipment/antennas/" + antennaID, key: "free", status: 404, code: "not_found"},
		{name: "replace an antenna", method: "PUT", url: "/equipment/antennas/" + antennaID, key: "pro", body: isoAntennaBody, status: 200},
		{name: "delete a built-in antenna", method: "DELETE", url: "/equipment/antennas/builtin:omni-10dbi", key: "pro", status: 403, code: "forbidden"},
		{name: "delete an antenna", method: "DELETE", url: "/equipment/antennas/" + spare, key: "pro", status: 200},
		{name: "antennas without key", method: "GET", url: "/equipment/antennas", status: 401, code: "unauthenticated"},
	}
}
