//go:build systemtools

package main_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// hugeRows are batch rows with ±1e308 in each numeric input in turn (the
// first row is good); the field each bad row must name in its errors.
func hugeRows(n int) (string, map[int]string) {
	fields := []struct{ json, name string }{
		{`"receiver":{"lat":%s,"lon":-43.2,"height_m":10}`, "receiver.lat"},
		{`"receiver":{"lat":-22.9,"lon":%s,"height_m":10}`, "receiver.lon"},
		{`"receiver":{"lat":-22.9,"lon":-43.2,"height_m":%s}`, "height_m"},
		{`"receiver":{"lat":-22.9,"lon":-43.2,"height_m":10},"frequency_mhz":%s`, "frequency_mhz"},
		{`"receiver":{"lat":-22.9,"lon":-43.2,"height_m":10},"max_distance_km":%s`, "max_distance_km"},
		{`"receiver":{"lat":-22.9,"lon":-43.2,"height_m":10},"rx_gain_dbi":%s`, "rx_gain_dbi"},
		{`"receiver":{"lat":-22.9,"lon":-43.2,"height_m":10},"cable_loss_db":%s`, "cable_loss_db"},
		{`"receiver":{"lat":-22.9,"lon":-43.2,"height_m":10},"rx_threshold_dbm":%s`, "rx_threshold_dbm"},
		{`"receiver":{"lat":-22.9,"lon":-43.2,"height_m":10},"assumed_eirp_dbm":%s`, "assumed_eirp_dbm"},
	}
	want := map[int]string{}
	var rows []string
	for i := range n {
		f := fields[i%len(fields)]
		v := []string{"1e308", "-1e308"}[(i/len(fields))%2]
		body := fmt.Sprintf(f.json, v)
		if i == 0 || i%7 == 3 { // good rows among the bad
			body = `"receiver":{"lat":-22.9,"lon":-43.2,"height_m":10}`
		} else {
			want[i] = f.name
		}
		if !strings.Contains(body, "frequency_mhz") {
			body += `,"frequency_mhz":700`
		}
		if !strings.Contains(body, "max_distance_km") {
			body += `,"max_distance_km":5`
		}
		rows = append(rows, fmt.Sprintf(`{"id":"site-%03d",%s}`, i, body))
	}
	return `{"options":{"pdfs":false},"rows":[` + strings.Join(rows, ",") + `]}`, want
}

// TestIssue20_BatchRowHugeNumbers: ±1e308 in any input of a batch row is
// that row's error naming the field, never a 500 (sync: it was one, with
// no ERROR log line) and never a failed job (async: the job failed with
// "json: unsupported value: +Inf").
func TestIssue20_BatchRowHugeNumbers(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	dir := t.TempDir()
	s := startServe(t, bin, dir)
	key := issueKey(t, s, dir, "ultra")
	hdr := map[string]string{"X-API-Key": key, "Content-Type": "application/json"}

	t.Run("sync", func(t *testing.T) {
		body, want := hugeRows(40)
		r := s.call(t, "POST", "/batch_reports", hdr, body)
		if r.status != http.StatusOK {
			t.Fatalf("status %d: %s", r.status, r.body)
		}
		var res struct {
			Rows []struct {
				Index  int
				Status string
				Lat    *float64
				Errors []struct{ Field, Reason string }
			}
		}
		if err := json.Unmarshal(r.body, &res); err != nil || len(res.Rows) != 40 {
			t.Fatalf("answer: %v (%d rows)", err, len(res.Rows))
		}
		for _, row := range res.Rows {
			field, bad := want[row.Index]
			if !bad {
				if row.Status == "error" {
					t.Errorf("good row %d: error %+v", row.Index, row.Errors)
				}
				continue
			}
			named := slices.ContainsFunc(row.Errors, func(e struct{ Field, Reason string }) bool { return e.Field == field })
			if row.Status != "error" || !named {
				t.Errorf("row %d (±1e308 in %s): status %s, errors %+v", row.Index, field, row.Status, row.Errors)
			}
		}
	})
	t.Run("async", func(t *testing.T) {
		body, want := hugeRows(120)
		id := submitBatch(t, s, key, body)
		j := waitJob(t, s, key, id, nil)
		if j.State != "succeeded" {
			t.Fatalf("job %s: %s (%v)", id, j.State, j.Error)
		}
		recs, err := csv.NewReader(bytes.NewReader(download(t, s, key, id)["results.csv"])).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		rowCol, statusCol := slices.Index(recs[0], "row"), slices.Index(recs[0], "status")
		failed := 0
		for _, rec := range recs[1:] {
			var row int
			fmt.Sscan(rec[rowCol], &row)
			_, bad := want[row-1]
			if bad != (rec[statusCol] == "error") {
				t.Errorf("row %d: status %s, want error: %v", row, rec[statusCol], bad)
			}
			if bad {
				failed++
			}
		}
		if failed != len(want) {
			t.Errorf("%d failed rows, want %d", failed, len(want))
		}
	})
	if strings.Contains(s.stderr.String(), "level=ERROR") {
		t.Errorf("the server logged an error:\n%s", s.stderr.String())
	}
}
