package appliance

import (
	"bytes"
	"encoding/gob"
	"fmt"
)

// radiatorWire is every field of a Radiator, exported for encoding/gob:
// a work unit carries the transmitter's antenna to a worker, which must
// compute with the same bits (floats travel as their bits, NaN included).
type radiatorWire struct {
	Azimuth, Tilt                       float64
	Vertical                            bool
	SinT, CosT                          float64
	Pattern                             *AntennaPattern
	HBW, FB, VBW, SLA                   float64
	HPeak, HPeakAz, HBack, VPeak, CapDB float64
	Directional                         bool
	Name                                string
}

// MaxRadiatorBytes bounds an encoded Radiator: two cuts of
// MaxPatternPoints samples and their framing.
const MaxRadiatorBytes = 4*MaxPatternPoints*8 + 4096

// MarshalBinary encodes the radiator, every field as it is (UnmarshalBinary
// restores the same radiator bit for bit).
func (r *Radiator) MarshalBinary() ([]byte, error) {
	w := radiatorWire{Azimuth: r.azimuth, Tilt: r.tilt, Vertical: r.vertical, SinT: r.sinT, CosT: r.cosT, Pattern: r.pattern,
		HBW: r.hbw, FB: r.fb, VBW: r.vbw, SLA: r.sla, HPeak: r.hPeak, HPeakAz: r.hPeakAz, HBack: r.hBack, VPeak: r.vPeak,
		CapDB: r.capDB, Directional: r.directional, Name: r.name}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(&w); err != nil {
		return nil, fmt.Errorf("encode radiator: %w", err)
	}
	return b.Bytes(), nil
}

// UnmarshalBinary decodes what MarshalBinary encoded. Bytes over
// MaxRadiatorBytes, malformed ones and a pattern whose cuts are not valid
// (AntennaPattern.Validate) are refused with ErrInvalid.
func (r *Radiator) UnmarshalBinary(b []byte) error {
	if len(b) > MaxRadiatorBytes {
		return fmt.Errorf("radiator: %d bytes, at most %d: %w", len(b), MaxRadiatorBytes, ErrInvalid)
	}
	var w radiatorWire
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&w); err != nil {
		return fmt.Errorf("radiator: %v: %w", err, ErrInvalid)
	}
	if w.Pattern != nil {
		var v ValidationError
		w.Pattern.Validate("radiator.pattern.", &v)
		if err := v.Err(); err != nil {
			return err
		}
	}
	*r = Radiator{azimuth: w.Azimuth, tilt: w.Tilt, vertical: w.Vertical, sinT: w.SinT, cosT: w.CosT, pattern: w.Pattern,
		hbw: w.HBW, fb: w.FB, vbw: w.VBW, sla: w.SLA, hPeak: w.HPeak, hPeakAz: w.HPeakAz, hBack: w.HBack, vPeak: w.VPeak,
		capDB: w.CapDB, directional: w.Directional, name: w.Name}
	return nil
}
