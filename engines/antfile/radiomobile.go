package antfile

import (
	"strings"
)

// ParseRadioMobile reads a Radio Mobile V3 pattern file (.ant): no header,
// exactly 720 lines of one number each (blank lines skipped), the relative
// gain in dB (0 at the peak, negative elsewhere): 360 horizontal values
// for the azimuth offsets 0..359° clockwise, then 360 vertical values for
// the elevations −90..269° below the horizon in 1° steps (the first is
// the zenith, the 91st the front horizon, the 181st the nadir; the
// reading of crc-covlib's LoadRadioMobileV3File). The attenuation is
// −value. The file states no name, frequency or gain: the name is the
// file name, the gain 0 dBi with a gain_not_stated warning until the
// engineer gives it.
func ParseRadioMobile(data []byte) (*File, error) {
	ls, err := lines(data)
	if err != nil {
		return nil, err
	}
	f := newFile(FormatRadioMobile)
	var h, v []point
	for i, l := range ls {
		s := strings.TrimSpace(l)
		if s == "" {
			continue
		}
		ln := i + 1
		n := len(h) + len(v)
		if n == 720 {
			return nil, lineErr(ln, "a Radio Mobile pattern has exactly 720 values; this is a further one")
		}
		x, ok := number(s)
		if !ok {
			return nil, lineErr(ln, "want one relative gain in dB per line, got %.40q", s)
		}
		if n < 360 {
			h = append(h, point{angle: float64(n), att: 0 - x, line: ln})
		} else {
			v = append(v, point{angle: float64(n-360) - 90, att: 0 - x, line: ln})
		}
	}
	if n := len(h) + len(v); n != 720 {
		return nil, lineErr(len(ls), "a Radio Mobile pattern has exactly 720 values (360 horizontal, 360 vertical); the file ends after %d", n)
	}
	if f.Pattern.H, err = cut("horizontal", h); err != nil {
		return nil, err
	}
	if f.Pattern.V, err = cut("vertical", v); err != nil {
		return nil, err
	}
	f.warn(WarnNoGain, "a Radio Mobile file states no gain: give the antenna's peak gain in dBi")
	f.finish()
	return f, nil
}
