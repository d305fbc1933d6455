package prediction

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"linkplan/appliance"
)

func fmtf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

func join(s []string) string { return strings.Join(s, ", ") }

// num prints a number for a message: absent (0, NaN) as "absent".
func num(v float64) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return "absent"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// r3 rounds to 3 decimals for the wire.
func r3(v float64) float64 { return appliance.Round(v, 3) }
