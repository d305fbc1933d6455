package batch

import (
	"encoding/json"
	"math"
	"testing"
)

// TestUnrecordableRow: a row result JSON cannot hold (an infinity that
// escaped the rounding) becomes an error row that encodes, keeping the
// row's identity and its finite inputs, so that the job goes on (issue 20:
// one such row failed a whole job with "json: unsupported value: +Inf").
func TestUnrecordableRow(t *testing.T) {
	inf, lat, freq := math.Inf(1), -22.9, 700.0
	r := RowResult{Index: 7, Row: 8, ReceiverID: "site 8", Lat: &lat, Lon: &inf, FreqMHz: &freq, MarginDB: &inf, Status: StatusOK}
	if _, err := json.Marshal(&r); err == nil {
		t.Fatal("the fixture encodes: it tests nothing")
	}
	out := unrecordable(r)
	b, err := json.Marshal(&out)
	if err != nil {
		t.Fatalf("the replacement does not encode: %v", err)
	}
	if out.Status != StatusError || out.Index != 7 || out.ReceiverID != "site 8" || out.Lat == nil || out.Lon != nil || out.MarginDB != nil || out.Reason == "" {
		t.Errorf("replacement %s", b)
	}
}
