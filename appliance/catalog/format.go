package catalog

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"linkplan/appliance"
)

// Format names one tower file format.
type Format int

// Supported formats (FORMATS.md describes each).
const (
	FormatUnknown              Format = iota
	FormatAnatelERBs                  // "anatel-erbs": Anatel ERBs station list, ';'
	FormatAnatelLicenciadas           // "anatel-licenciadas": open data "Estações licenciadas SMP", ','
	FormatMosaicoLicenciamento        // "mosaico-licenciamento": MOSAICO export, tab, no header, 40 columns
	FormatMosaicoSMP                  // "mosaico-smp": MOSAICO SMP CSV with header
	FormatMosaicoJSON                 // "mosaico-json": MOSAICO documents as a JSON array
	FormatOpenCelliD                  // "opencellid": OpenCelliD cell export, MCC 724
)

var formatNames = [...]string{
	FormatUnknown:              "unknown",
	FormatAnatelERBs:           "anatel-erbs",
	FormatAnatelLicenciadas:    "anatel-licenciadas",
	FormatMosaicoLicenciamento: "mosaico-licenciamento",
	FormatMosaicoSMP:           "mosaico-smp",
	FormatMosaicoJSON:          "mosaico-json",
	FormatOpenCelliD:           "opencellid",
}

// Formats lists every supported format.
func Formats() []Format {
	return []Format{FormatAnatelERBs, FormatAnatelLicenciadas, FormatMosaicoLicenciamento,
		FormatMosaicoSMP, FormatMosaicoJSON, FormatOpenCelliD}
}

// String returns the format's name, e.g. "anatel-erbs".
func (f Format) String() string {
	if f < 0 || int(f) >= len(formatNames) {
		return fmt.Sprintf("Format(%d)", int(f))
	}
	return formatNames[f]
}

// ParseFormat returns the format with the given name.
func ParseFormat(name string) (Format, error) {
	for _, f := range Formats() {
		if f.String() == name {
			return f, nil
		}
	}
	return FormatUnknown, fmt.Errorf("parse format %q: %w", name, appliance.ErrInvalid)
}

// DetectFormatBytes is how many leading bytes DetectFormat needs at most.
const DetectFormatBytes = 4096

// DetectFormat guesses the format from the first bytes of a file (at least
// the first line; DetectFormatBytes is plenty). Headers are recognised by
// their column names; header-less formats by shape: 40 tab-separated fields
// for MOSAICO Licenciamento, 14 comma-separated fields starting with a radio
// type and MCC for OpenCelliD; a leading '[' or '{' means MOSAICO JSON.
func DetectFormat(head []byte) (Format, error) {
	head = trimBOM(head)
	trimmed := bytes.TrimLeft(head, " \t\r\n")
	if len(trimmed) > 0 && (trimmed[0] == '[' || trimmed[0] == '{') {
		return FormatMosaicoJSON, nil
	}
	line := string(head)
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	line = decodeText([]byte(strings.TrimRight(line, "\r")))
	folded := foldKey(line)
	switch {
	case strings.Count(line, ";") >= 8 && strings.Contains(folded, "numero estacao") && strings.Contains(folded, "operadora"):
		return FormatAnatelERBs, nil
	case strings.HasPrefix(folded, "prestadora") && strings.Contains(folded, "numero da estacao"):
		return FormatAnatelLicenciadas, nil
	case strings.Contains(line, "NumEstacao") && strings.Contains(line, ","):
		return FormatMosaicoSMP, nil
	case strings.HasPrefix(line, "radio,mcc,net,area,cell"):
		return FormatOpenCelliD, nil
	}
	if strings.Count(line, "\t") >= 30 {
		return FormatMosaicoLicenciamento, nil
	}
	if f := strings.Split(line, ","); len(f) == 14 && knownRadio(f[0]) {
		return FormatOpenCelliD, nil
	}
	return FormatUnknown, fmt.Errorf("detect format: header %q matches no known format: %w", clip(line, 80), appliance.ErrInvalid)
}

func knownRadio(s string) bool {
	switch s {
	case "GSM", "UMTS", "LTE", "NR", "CDMA":
		return true
	}
	return false
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Parse reads r in format f with the matching parser.
func Parse(f Format, r io.Reader) (*Result, error) {
	switch f {
	case FormatAnatelERBs:
		return ParseAnatelERBs(r)
	case FormatAnatelLicenciadas:
		return ParseAnatelLicenciadas(r)
	case FormatMosaicoLicenciamento:
		return ParseMosaicoLicenciamento(r)
	case FormatMosaicoSMP:
		return ParseMosaicoSMP(r)
	case FormatMosaicoJSON:
		return ParseMosaicoJSON(r)
	case FormatOpenCelliD:
		return ParseOpenCelliD(r)
	}
	return nil, fmt.Errorf("parse %v: %w", f, appliance.ErrInvalid)
}

// ParseAuto detects the format from the first bytes of r, then parses it.
func ParseAuto(r io.Reader) (*Result, error) {
	head := make([]byte, DetectFormatBytes)
	n, err := io.ReadFull(r, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, fmt.Errorf("read head: %w", err)
	}
	head = head[:n]
	f, err := DetectFormat(head)
	if err != nil {
		return nil, err
	}
	return Parse(f, io.MultiReader(bytes.NewReader(head), r))
}
