package itm

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"linkplan/appliance"
)

// maxPFLValues bounds what ParsePFL accepts (np up to about 4 million).
const maxPFLValues = 1 << 22

// ParsePFL reads a terrain profile in the PFL text form used by the NTIA
// tools and the validation suites: the numbers np, xi (metres) and the np+1
// elevations (metres), separated by commas and/or white space, on one or
// more lines. It returns the PFL slice for P2PInput.PFL. A malformed
// profile is an error matching appliance.ErrInvalid.
func ParsePFL(r io.Reader) ([]float64, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 64*1024)
	sc.Split(scanPFLFields)
	var pfl []float64
	for sc.Scan() {
		tok := sc.Text()
		v, err := strconv.ParseFloat(tok, 64)
		if err != nil {
			return nil, fmt.Errorf("parse pfl value %d: %w", len(pfl), appliance.Invalid("pfl", "%q is not a number", tok))
		}
		if len(pfl) == maxPFLValues {
			return nil, fmt.Errorf("parse pfl: %w", appliance.Invalid("pfl", "more than %d values", maxPFLValues))
		}
		pfl = append(pfl, v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("parse pfl: %w", err)
	}
	if len(pfl) < 2 {
		return nil, fmt.Errorf("parse pfl: %w", appliance.Invalid("pfl", "%d values; np and xi are missing", len(pfl)))
	}
	np := pfl[0]
	if !(np >= 0) || np != math.Trunc(np) || np+3 != float64(len(pfl)) {
		return nil, fmt.Errorf("parse pfl: %w", appliance.Invalid("pfl",
			"np = %v does not match the %d elevations given", np, len(pfl)-2))
	}
	return pfl, nil
}

// scanPFLFields is a bufio.SplitFunc that yields the tokens between commas,
// semicolons and white space.
func scanPFLFields(data []byte, atEOF bool) (advance int, token []byte, err error) {
	isSep := func(b byte) bool { return b == ',' || b == ';' || strings.IndexByte(" \t\r\n\v\f", b) >= 0 }
	start := 0
	for start < len(data) && isSep(data[start]) {
		start++
	}
	for i := start; i < len(data); i++ {
		if isSep(data[i]) {
			return i + 1, data[start:i], nil
		}
	}
	if atEOF && len(data) > start {
		return len(data), data[start:], nil
	}
	return start, nil, nil
}
