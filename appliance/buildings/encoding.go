package buildings

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"

	"linkplan/appliance"
)

// dbfText turns the bytes of a .dbf field into UTF-8 text. cm is the
// file's single-byte code page; nil means UTF-8. Bytes that are not valid
// in the declared UTF-8 (or when nothing is declared) are read as Latin-1
// (ISO-8859-1), the encoding of most dBase files without a code page.
type dbfText struct{ cm *charmap.Charmap }

// dbfEncoding picks the encoding of a .dbf: the .cpg beside it first
// (UTF-8; ISO-8859-1, Latin-1 and 8859-15; Windows 1252; DOS 437 and
// 850), else the dBase language driver id at byte 29 (0x01 DOS 437, 0x02
// DOS 850, 0x03 Windows 1252, 0x57 ISO-8859-1 as GDAL writes and reads
// it), else UTF-8 with the Latin-1 fallback.
func dbfEncoding(cpg []byte, ldid byte) dbfText {
	name := strings.ToUpper(strings.TrimSpace(string(cpg)))
	name = strings.NewReplacer(" ", "", "-", "", "_", "").Replace(name)
	switch name {
	case "UTF8", "65001":
		return dbfText{}
	case "ISO88591", "88591", "LATIN1", "28591", "CP28591":
		return dbfText{charmap.ISO8859_1}
	case "ISO885915", "885915", "LATIN9", "28605":
		return dbfText{charmap.ISO8859_15}
	case "1252", "CP1252", "WINDOWS1252", "ANSI1252", "WIN1252":
		return dbfText{charmap.Windows1252}
	case "437", "CP437", "OEM437", "IBM437":
		return dbfText{charmap.CodePage437}
	case "850", "CP850", "OEM850", "IBM850":
		return dbfText{charmap.CodePage850}
	}
	switch ldid {
	case 0x01:
		return dbfText{charmap.CodePage437}
	case 0x02:
		return dbfText{charmap.CodePage850}
	case 0x03:
		return dbfText{charmap.Windows1252}
	case 0x57:
		return dbfText{charmap.ISO8859_1}
	}
	return dbfText{}
}

func (d dbfText) text(b []byte) string {
	ascii := true
	for _, c := range b {
		if c >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return string(b)
	}
	cm := d.cm
	if cm == nil {
		if utf8.Valid(b) {
			return string(b)
		}
		cm = charmap.ISO8859_1
	}
	var sb strings.Builder
	sb.Grow(2 * len(b))
	for _, c := range b {
		sb.WriteRune(cm.DecodeByte(c))
	}
	return sb.String()
}

// prjCRS checks a Shapefile's .prj: WGS84 longitude/latitude is read as
// is; SIRGAS 2000 longitude/latitude (EPSG:4674, Brazil's official datum,
// within about 1 m of WGS84) is read as WGS84 with a warning; any other
// system, projected ones (UTM) included, refuses the file.
func prjCRS(prj []byte) (*appliance.Warning, error) {
	p := strings.TrimSpace(strings.TrimPrefix(string(prj), "\xef\xbb\xbf"))
	up := strings.ToUpper(p)
	if strings.HasPrefix(up, "GEOGCS") {
		datum := up
		if i := strings.Index(up, "DATUM["); i >= 0 {
			datum = up[i+len("DATUM["):]
			if j := strings.Index(datum, ","); j >= 0 {
				datum = datum[:j]
			}
		}
		datum = strings.NewReplacer(" ", "", "_", "", "-", "", "\"", "").Replace(datum)
		switch {
		case strings.Contains(datum, "WGS"):
			return nil, nil
		case strings.Contains(datum, "SIRGAS2000") || strings.Contains(datum, "SISTEMADEREFERENCIAGEOCENTRICOPARALASAMERICAS2000"):
			return &appliance.Warning{Code: "buildings_sirgas2000_as_wgs84", Message: fmt.Sprintf(
				"The Shapefile's coordinates are SIRGAS 2000 longitude/latitude (EPSG:4674, .prj %.40s…); they were read as WGS84, which SIRGAS 2000 matches within about 1 m.", p)}, nil
		}
	}
	return nil, invalid("file", "Shapefile coordinates are not WGS84 longitude/latitude (.prj: %.60s); reproject to EPSG:4326", p)
}
