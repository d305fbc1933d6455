//go:build systemtools

package main_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Issue 20, scope 3: bounded decoding. A drive-test upload may be gzip; a
// 2 MB gzip of 2 GiB of zeros was refused at 64 MiB one at a time, but 8 at
// once pushed the server to 1.21 GB resident. Each bomb must now be refused
// with a 413 or 422 that names the limit, and the server's peak resident
// set (VmHWM) must stay under 400 MB.

// gzipBomb returns a gzip file of n×64 MiB of bytes b: one member of
// 64 MiB repeated n times (gzip readers, Go's and gunzip's, read
// concatenated members as one stream), so that building 2 GiB costs one
// 64 MiB compression.
func gzipBomb(t testing.TB, b byte, n int) []byte {
	t.Helper()
	var member bytes.Buffer
	zw, err := gzip.NewWriterLevel(&member, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat([]byte{b}, 1<<20)
	for range 64 {
		if _, err := zw.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return bytes.Repeat(member.Bytes(), n)
}

// vmHWM reads the peak resident set size (VmHWM) of process pid, in bytes.
func vmHWM(t testing.TB, pid int) int64 {
	t.Helper()
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/PID/status")
	return 0
}

// multipartBody is a multipart/form-data body with the file part name
// holding file and the text parts fields.
func multipartBody(t testing.TB, name, filename string, file []byte, fields map[string]string) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range fields {
		if err := mw.WriteField(k, v); err != nil {
			t.Fatal(err)
		}
	}
	fw, err := mw.CreateFormFile(name, filename)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fw.Write(file); err != nil {
		t.Fatal(err)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return mw.FormDataContentType(), buf.Bytes()
}

// limitNamed matches an answer that names a size limit.
var limitNamed = regexp.MustCompile(`[0-9]+ (MiB|KiB|bytes)`)

type bombAnswer struct {
	status     int
	retryAfter string
	body       []byte
	err        error
}

// postConcurrently sends n copies of the body to path at once.
func postConcurrently(s *server, key, path, ct string, body []byte, n int) []bombAnswer {
	out := make([]bombAnswer, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			req, err := http.NewRequest(http.MethodPost, s.base+path, bytes.NewReader(body))
			if err != nil {
				out[i].err = err
				return
			}
			req.Header.Set("Content-Type", ct)
			req.Header.Set("X-API-Key", key)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				out[i].err = err
				return
			}
			defer res.Body.Close()
			out[i].status, out[i].retryAfter = res.StatusCode, res.Header.Get("Retry-After")
			out[i].body, out[i].err = io.ReadAll(res.Body)
		})
	}
	close(start)
	wg.Wait()
	return out
}

func TestIssue20_ConcurrentGzipBombs(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	dir := t.TempDir()
	s := startServe(t, bin, dir)
	key := issueKey(t, s, dir, "ultra")
	pid := s.cmd.Process.Pid
	before := vmHWM(t, pid)

	const n = 8
	zeros := gzipBomb(t, 0, 32)    // 2 GiB of NUL bytes: no line end
	lines := gzipBomb(t, '\n', 32) // 2 GiB of empty lines
	t.Logf("bomb: %d bytes of gzip inflating to %d MiB", len(zeros), 32*64)

	fields := map[string]string{"tx_lat": "-22.9", "tx_lon": "-43.2", "tx_height_m": "30", "tx_power_dbm": "43",
		"tx_gain_dbi": "15", "rx_gain_dbi": "0", "cable_loss_db": "0", "rx_height_m": "1.5", "freq_hz": "1.8e9"}
	// The batch route takes no gzip; its largest multipart body (32 MiB)
	// of one endless line is its bomb: buffered whole, within the route's
	// limit, so that eight at once meet the appliance-wide budget (503
	// with Retry-After) or the record limit (422).
	endless := bytes.Repeat([]byte("0"), 31<<20)
	cases := []struct {
		name, path, part string
		file             []byte
		fields           map[string]string
		budget           bool // a 503 of the decode budget is a right answer too
	}{
		{"drive test, zeros", "/coverage/observations/drivetest", "csv_file", zeros, fields, false},
		{"drive test, empty lines", "/coverage/observations/drivetest", "csv_file", lines, fields, false},
		{"batch, gzip file", "/batch_reports", "file", zeros, nil, false},
		{"batch, one 31 MiB line", "/batch_reports", "file", endless, nil, true},
	}
	for _, c := range cases {
		ct, body := multipartBody(t, c.part, "bomb.csv.gz", c.file, c.fields)
		start := time.Now()
		answers := postConcurrently(s, key, c.path, ct, body, n)
		statuses := map[int]int{}
		for _, a := range answers {
			statuses[a.status]++
		}
		t.Logf("%s: %d at once in %v: statuses %v, peak resident %d MB so far", c.name, n, time.Since(start).Round(time.Millisecond), statuses, vmHWM(t, pid)>>20)
		for i, a := range answers {
			if a.err != nil {
				t.Fatalf("%s #%d: %v", c.name, i, a.err)
			}
			var e struct {
				Error struct {
					Code    string `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			_ = json.Unmarshal(a.body, &e)
			switch {
			case a.status == http.StatusRequestEntityTooLarge, a.status == http.StatusUnprocessableEntity:
			case a.status == http.StatusServiceUnavailable && c.budget && a.retryAfter != "":
			default:
				t.Errorf("%s #%d: status %d, want 413 or 422: %s", c.name, i, a.status, a.body)
			}
			if !limitNamed.Match(a.body) && c.path != "/batch_reports" {
				t.Errorf("%s #%d: the answer names no limit: %s", c.name, i, a.body)
			}
			if i == 0 {
				t.Logf("%s: %d %s", c.name, a.status, a.body)
			}
		}
	}
	peak := vmHWM(t, pid)
	fmt.Printf("gzip_bombs=%d rss_hwm_before_mb=%d rss_hwm_after_mb=%d\n", n, before>>20, peak>>20)
	if peak >= 400<<20 {
		t.Errorf("peak resident set %d MB with %d concurrent bombs, want < 400 MB", peak>>20, n)
	}
	if r := s.call(t, "GET", "/health", nil, ""); r.status != http.StatusOK {
		t.Errorf("/health after the bombs: %d", r.status)
	}
}
