package h3

import (
	"errors"
	"fmt"
	"strconv"
)

// Cell is an H3 cell index: a 64-bit word holding the index mode (1 for a
// cell), the resolution, the base cell and one aperture-7 digit per
// resolution (SPEC-free; the layout is H3's published bit layout).
type Cell uint64

// MaxResolution is the finest H3 resolution.
const MaxResolution = 15

// NumBaseCells is the number of resolution-0 cells.
const NumBaseCells = 122

// Errors. Every error the package returns matches one of them.
var (
	// ErrInvalidCell marks a string or index that is not a valid H3 cell.
	ErrInvalidCell = errors.New("invalid H3 cell")
	// ErrResolution marks a resolution outside 0..15.
	ErrResolution = errors.New("H3 resolution outside 0..15")
	// ErrLatLng marks a latitude or longitude that is not a finite WGS84
	// value in degrees (latitude in [-90, 90], longitude in [-180, 180]).
	ErrLatLng = errors.New("latitude/longitude outside the WGS84 range")
	// ErrUnmapped marks a projection that reached a face position the
	// generated tables do not cover; it would be a bug in the tables.
	ErrUnmapped = errors.New("H3 face position without a base cell")
)

// Bit layout of an index.
const (
	modeShift     = 59
	modeCell      = 1
	resShift      = 52
	baseShift     = 45
	digitBits     = 3
	digitMask     = 7
	reservedShift = 56
	// emptyDigits has every digit set to 7 (unused).
	emptyDigits = (uint64(1) << (MaxResolution * digitBits)) - 1
)

// Digit values (a unit vector of the IJK system; digitInvalid marks an
// unused resolution).
const (
	digitCenter  = 0
	digitK       = 1
	digitJ       = 2
	digitJK      = 3
	digitI       = 4
	digitIK      = 5
	digitIJ      = 6
	digitInvalid = 7
)

// Resolution returns the cell's resolution (0..15).
func (c Cell) Resolution() int { return int(uint64(c)>>resShift) & 0xf }

// BaseCell returns the cell's resolution-0 ancestor number (0..121).
func (c Cell) BaseCell() int { return int(uint64(c)>>baseShift) & 0x7f }

// String returns the canonical form: 15 lower-case hexadecimal digits.
func (c Cell) String() string { return strconv.FormatUint(uint64(c), 16) }

// IsPentagon reports whether the cell is one of the 12 pentagons of its
// resolution.
func (c Cell) IsPentagon() bool {
	if !isPentagonBase(c.BaseCell()) {
		return false
	}
	for r := 1; r <= c.Resolution(); r++ {
		if c.digit(r) != digitCenter {
			return false
		}
	}
	return true
}

// Parent returns the cell's ancestor at resolution res (0..c.Resolution()).
func (c Cell) Parent(res int) (Cell, error) {
	if res < 0 || res > c.Resolution() {
		return 0, fmt.Errorf("parent of %s at resolution %d: %w", c, res, ErrResolution)
	}
	p := c.withResolution(res)
	for r := res + 1; r <= MaxResolution; r++ {
		p = p.withDigit(r, digitInvalid)
	}
	return p, nil
}

// ParseCell reads the canonical string form (15 hexadecimal digits, either
// case) and checks that it names a valid cell.
func ParseCell(s string) (Cell, error) {
	if len(s) != 15 {
		return 0, fmt.Errorf("parse H3 cell %q: want 15 hexadecimal digits, got %d characters: %w", s, len(s), ErrInvalidCell)
	}
	v, err := strconv.ParseUint(s, 16, 64)
	if err != nil {
		return 0, fmt.Errorf("parse H3 cell %q: not hexadecimal: %w", s, ErrInvalidCell)
	}
	c := Cell(v)
	if err := c.Validate(); err != nil {
		return 0, fmt.Errorf("parse H3 cell %q: %w", s, err)
	}
	return c, nil
}

// Validate reports why c is not a valid cell index, or nil.
func (c Cell) Validate() error {
	v := uint64(c)
	switch {
	case v>>63 != 0:
		return fmt.Errorf("high bit set: %w", ErrInvalidCell)
	case (v>>modeShift)&0xf != modeCell:
		return fmt.Errorf("mode %d is not a cell: %w", (v>>modeShift)&0xf, ErrInvalidCell)
	case (v>>reservedShift)&7 != 0:
		return fmt.Errorf("reserved bits set: %w", ErrInvalidCell)
	case c.BaseCell() >= NumBaseCells:
		return fmt.Errorf("base cell %d outside 0..121: %w", c.BaseCell(), ErrInvalidCell)
	}
	res := c.Resolution()
	leading := digitCenter
	for r := 1; r <= MaxResolution; r++ {
		d := c.digit(r)
		if r > res {
			if d != digitInvalid {
				return fmt.Errorf("digit %d beyond resolution %d is %d, want 7: %w", r, res, d, ErrInvalidCell)
			}
			continue
		}
		if d == digitInvalid {
			return fmt.Errorf("digit %d is 7 within resolution %d: %w", r, res, ErrInvalidCell)
		}
		if leading == digitCenter {
			leading = d
		}
	}
	if leading == digitK && isPentagonBase(c.BaseCell()) {
		return fmt.Errorf("pentagon's deleted k-axis subsequence: %w", ErrInvalidCell)
	}
	return nil
}

func newCell(res, base int) Cell {
	return Cell(uint64(modeCell)<<modeShift | uint64(res)<<resShift | uint64(base)<<baseShift | emptyDigits)
}

func (c Cell) withResolution(res int) Cell {
	return Cell(uint64(c)&^(uint64(0xf)<<resShift) | uint64(res)<<resShift)
}

func (c Cell) withBaseCell(base int) Cell {
	return Cell(uint64(c)&^(uint64(0x7f)<<baseShift) | uint64(base)<<baseShift)
}

func digitShift(r int) uint { return uint((MaxResolution - r) * digitBits) }

func (c Cell) digit(r int) int { return int(uint64(c)>>digitShift(r)) & digitMask }

func (c Cell) withDigit(r, d int) Cell {
	s := digitShift(r)
	return Cell(uint64(c)&^(uint64(digitMask)<<s) | uint64(d)<<s)
}

// leadingDigit returns the first non-centre digit, or digitCenter.
func (c Cell) leadingDigit() int {
	for r := 1; r <= c.Resolution(); r++ {
		if d := c.digit(r); d != digitCenter {
			return d
		}
	}
	return digitCenter
}

// Digit rotations by 60°: index = digit, value = rotated digit.
var (
	digitCCW = [8]int{digitCenter, digitIK, digitJK, digitK, digitIJ, digitI, digitJ, digitInvalid}
	digitCW  = [8]int{digitCenter, digitJK, digitIJ, digitJ, digitIK, digitK, digitI, digitInvalid}
)

// rotateCCW rotates every digit of c by 60° counter-clockwise.
func (c Cell) rotateCCW() Cell {
	for r := 1; r <= c.Resolution(); r++ {
		c = c.withDigit(r, digitCCW[c.digit(r)])
	}
	return c
}

// rotateCW rotates every digit of c by 60° clockwise.
func (c Cell) rotateCW() Cell {
	for r := 1; r <= c.Resolution(); r++ {
		c = c.withDigit(r, digitCW[c.digit(r)])
	}
	return c
}

// rotatePentCCW rotates a pentagon descendant 60° counter-clockwise and
// turns once more when the result would enter the deleted k-axis
// subsequence.
func (c Cell) rotatePentCCW() Cell {
	c = c.rotateCCW()
	if c.leadingDigit() == digitK {
		c = c.rotateCCW()
	}
	return c
}

// MarshalText writes the canonical string form.
func (c Cell) MarshalText() ([]byte, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("marshal H3 cell %x: %w", uint64(c), err)
	}
	return []byte(c.String()), nil
}

// UnmarshalText reads the string form with ParseCell.
func (c *Cell) UnmarshalText(b []byte) error {
	v, err := ParseCell(string(b))
	if err != nil {
		return err
	}
	*c = v
	return nil
}
