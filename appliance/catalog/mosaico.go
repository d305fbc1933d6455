package catalog

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"linkplan/appliance"
)

// Provenances of the MOSAICO formats.
const (
	ProvenanceMosaicoLicenciamento = "Anatel MOSAICO Licenciamento export (mosaico-licenciamento)"
	ProvenanceMosaicoSMP           = "Anatel MOSAICO SMP records (mosaico-smp)"
	ProvenanceMosaicoJSON          = "Anatel MOSAICO SMP documents (mosaico-json)"
)

// MosaicoLicenciamentoColumns is the column order of the header-less
// MOSAICO "Licenciamento" export (inferred; see FORMATS.md).
var MosaicoLicenciamentoColumns = [...]string{
	"Status.state", "NomeEntidade", "NumFistel", "NumServico", "NumAto", "NumEstacao", "EnderecoEstacao",
	"EndComplemento", "SiglaUf", "CodMunicipio", "DesignacaoEmissao", "Tecnologia", "tipoTecnologia", "meioAcesso",
	"FreqTxMHz", "FreqRxMHz", "Azimute", "CodTipoClasseEstacao", "ClassInfraFisica", "CompartilhamentoInfraFisica",
	"CodTipoAntena", "CodEquipamentoAntena", "GanhoAntena", "FrenteCostaAntena", "AnguloMeiaPotenciaAntena",
	"AnguloElevacao", "Polarizacao", "AlturaAntena", "CodEquipamentoTransmissor", "PotenciaTransmissorWatts",
	"Latitude", "Longitude", "CodDebitoTFI", "DataLicenciamento", "DataPrimeiroLicenciamento", "NumRede", "_id",
	"DataValidade", "NumFistelAssociado", "NomeEntidadeAssociado",
}

// mosaicoFields are the raw values of one MOSAICO emission, whatever the
// container (TSV, CSV, JSON).
type mosaicoFields struct {
	status, entity, station, uf, municipality, emission, tech string
	address                                                   string
	freq, azimuth, gain, tilt, pol, height, power, lat, lon   string
	hpbw, frontBack                                           string // AnguloMeiaPotenciaAntena, FrenteCostaAntena
	date                                                      string
}

// mosaicoRow validates one MOSAICO emission. It returns the row, or a reject
// reason, and possibly a warning for an ignored field.
func mosaicoRow(f mosaicoFields, line int, decimalComma bool) (row emissionRow, reason, warning string) {
	if s := strings.TrimSpace(f.status); strings.HasPrefix(strings.ToUpper(s), "LIC-EXC") {
		return row, fmt.Sprintf("licence excluded (status %s)", s), ""
	}
	st, err := stationKey(f.station)
	if err != nil {
		return row, err.Error(), ""
	}
	op := NormalizeOperator(f.entity)
	if op == "" {
		return row, "operator missing", ""
	}
	lat, lon, hasPos, err := parseCoords(f.lat, f.lon, decimalComma)
	if err != nil {
		return row, err.Error(), ""
	}
	sec := newSector(line)
	sec.Emission = strings.TrimSpace(f.emission)
	sec.Technology = normTechnology(f.tech)
	sec.Polarization = strings.TrimSpace(f.pol)
	type num struct {
		name     string
		raw      string
		dst      *float64
		min, max float64
	}
	for _, n := range []num{
		{"frequency", f.freq, &sec.FreqMHz, 1, 100000},
		{"antenna gain", f.gain, &sec.GainDBi, -30, 60},
		{"tilt", f.tilt, &sec.TiltDeg, -90, 90},
		{"antenna height", f.height, &sec.HeightM, 0, 500},
		{"transmitter power", f.power, &sec.TxPowerW, 0, 100000},
	} {
		v, ok, err := parseNumber(n.raw, decimalComma)
		if err != nil {
			return row, n.name + " " + err.Error(), ""
		}
		if ok && (v < n.min || v > n.max) {
			return row, fmt.Sprintf("%s %v outside %v…%v", n.name, v, n.min, n.max), ""
		}
		*n.dst = v
	}
	// The antenna's half-power angle and front-to-back ratio only shape
	// the generic pattern: a bad or absent value leaves them unknown
	// rather than refusing the emission.
	for _, n := range []struct {
		raw      string
		dst      *float64
		min, max float64
	}{{f.hpbw, &sec.BeamwidthDeg, 0, 360}, {f.frontBack, &sec.FrontBackDB, 0, 100}} {
		if v, ok, err := parseNumber(n.raw, decimalComma); ok && err == nil && v > n.min && v <= n.max {
			*n.dst = v
		}
	}
	if sec.HeightM == 0 {
		sec.HeightM = math.NaN() // 0 m means "not given" in MOSAICO
	}
	az, err := parseAzimuth(f.azimuth, decimalComma)
	if err != nil {
		return row, err.Error(), ""
	}
	sec.AzimuthDeg = az
	sec.BandMHz = NominalBandMHz(sec.FreqMHz)
	sec.ERPDBm = ERPDBm(sec.TxPowerW, sec.GainDBi)
	var updated int64
	if d := strings.TrimSpace(f.date); d != "" {
		if u, err := parseDate(d); err != nil {
			warning = "licence date ignored: " + err.Error()
		} else {
			updated = u
		}
	}
	row = emissionRow{
		line: line, station: st, operator: op, lat: lat, lon: lon, hasPos: hasPos,
		uf: strings.ToUpper(strings.TrimSpace(f.uf)), updatedUnix: updated, sector: sec, address: f.address,
	}
	// CodMunicipio holds the 7-digit IBGE code in MOSAICO proper, but the
	// municipality name in the Licenciamento export.
	if m := strings.TrimSpace(f.municipality); isIBGECode(m) {
		row.ibge = m
	} else {
		row.municipality = m
	}
	return row, "", warning
}

func isIBGECode(s string) bool {
	if len(s) != 7 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// ParseMosaicoLicenciamento reads the MOSAICO "Licenciamento" export:
// tab-separated, no header, 40 columns (MosaicoLicenciamentoColumns),
// decimal commas, dates as dd/mm/yyyy or yyyy-mm-dd, one row per emission.
// Rows are grouped by station number; each becomes a Sector with antenna
// height (AlturaAntena, m), gain (GanhoAntena, dBi), azimuth, tilt
// (AnguloElevacao, degrees down), Tx power (PotenciaTransmissorWatts, W) and
// the ERP derived by ERPDBm. Rows whose status is an exclusion (LIC-EXC-*)
// are rejected. Translation artefacts of circulating copies ("Facebook" for
// FB, "Campo Verde" for Greenfield) sit in columns this parser does not use.
func ParseMosaicoLicenciamento(r io.Reader) (*Result, error) {
	res := &Result{Format: FormatMosaicoLicenciamento}
	g := newGrouper(res, ProvenanceMosaicoLicenciamento)
	lr := newLineReader(r)
	want := len(MosaicoLicenciamentoColumns)
	err := lr.each(res, "mosaico-licenciamento", func(line string, n int) {
		res.Rows++
		c := strings.Split(line, "\t")
		if len(c) != want {
			res.Rejects = append(res.Rejects, Reject{n, fmt.Sprintf("has %d fields, want %d", len(c), want)})
			return
		}
		if n == 1 && c[5] == "NumEstacao" {
			res.Rows-- // a header line some copies carry
			return
		}
		row, reason, warning := mosaicoRow(mosaicoFields{
			status: c[0], entity: c[1], station: c[5], uf: c[8], municipality: c[9], address: joinAddress(c[6], c[7]), emission: c[10], tech: c[11],
			freq: c[14], azimuth: c[16], gain: c[22], frontBack: c[23], hpbw: c[24], tilt: c[25], pol: c[26], height: c[27], power: c[29],
			lat: c[30], lon: c[31], date: c[33],
		}, n, true)
		if reason != "" {
			res.Rejects = append(res.Rejects, Reject{n, reason})
			return
		}
		if warning != "" {
			res.Warnings = append(res.Warnings, Reject{n, warning})
		}
		g.add(row)
	})
	if err != nil {
		return res, err
	}
	g.finish()
	return res, nil
}

// ParseMosaicoSMP reads MOSAICO SMP records as CSV with a header (_id,
// NumAto, DataValidade, NumFistel, NomeEntidade, NumEstacao, Latitude,
// Longitude, CodTipoClasseEstacao, CodMunicipio, SiglaUf, DesignacaoEmissao,
// NumServico, formId, Tecnologia, FreqTxMHz, NomeMunicipio), decimal point,
// one row per emission, grouped by station number. The source's typo
// "WDCMA" is read as WCDMA. No height or power: defaults apply.
func ParseMosaicoSMP(r io.Reader) (*Result, error) {
	const what = "mosaico-smp"
	res := &Result{Format: FormatMosaicoSMP}
	rows, err := newCSVRows(r, res, what)
	if err != nil {
		return nil, err
	}
	if err := rows.require(what, "numestacao", "nomeentidade", "latitude", "longitude"); err != nil {
		return nil, err
	}
	g := newGrouper(res, ProvenanceMosaicoSMP)
	for {
		rec, line, err := rows.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return res, fmt.Errorf("read %s: %w", what, err)
		}
		get := func(k string) string { return rows.get(rec, k) }
		row, reason, warning := mosaicoRow(mosaicoFields{
			status: get("status state"), entity: get("nomeentidade"), station: get("numestacao"), uf: get("siglauf"),
			municipality: get("codmunicipio"), emission: get("designacaoemissao"), tech: get("tecnologia"),
			freq: firstNonEmpty(get("freqtxmhz"), get("freqcentralmhz")), azimuth: get("azimute"),
			gain: get("ganhoantena"), tilt: get("anguloelevacao"), pol: get("polarizacao"),
			hpbw: get("angulomeiapotenciaantena"), frontBack: get("frentecostaantena"),
			height: get("alturaantena"), power: get("potenciatransmissorwatts"),
			lat: get("latitude"), lon: get("longitude"), date: get("datalicenciamento"),
		}, line, false)
		if reason != "" {
			res.Rejects = append(res.Rejects, Reject{line, reason})
			continue
		}
		if warning != "" {
			res.Warnings = append(res.Warnings, Reject{line, warning})
		}
		if row.ibge == "" && row.municipality == "" {
			row.municipality = get("nomemunicipio")
		}
		g.add(row)
	}
	g.finish()
	return res, nil
}

func firstNonEmpty(v ...string) string {
	for _, s := range v {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

// ParseMosaicoJSON reads MOSAICO documents: a JSON array of objects, or a
// stream of objects (one per line or concatenated). Numeric fields may be
// strings ("57.0") or numbers; Status is a nested object whose state
// LIC-EXC-* (licence excluded) rejects the document. The frequency is
// FreqTxMHz, else FreqCentralMHz. Documents are grouped by station number
// like the CSV formats; each Reject's Line is the line where the document
// starts. Malformed JSON ends the parse with one Reject at the point of
// failure (the rest of the input cannot be resynchronised).
func ParseMosaicoJSON(r io.Reader) (*Result, error) {
	res := &Result{Format: FormatMosaicoJSON}
	g := newGrouper(res, ProvenanceMosaicoJSON)
	li := &lineIndex{r: r}
	br := bufio.NewReader(li)
	var skipped int64
	if b, err := br.Peek(3); err == nil && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
		_, _ = br.Discard(3)
		skipped = 3
	}
	for {
		b, err := br.Peek(1)
		if err != nil {
			break
		}
		if b[0] != ' ' && b[0] != '\t' && b[0] != '\r' && b[0] != '\n' {
			break
		}
		_, _ = br.Discard(1)
		skipped++
	}
	first, err := br.Peek(1)
	if err != nil {
		return nil, fmt.Errorf("read mosaico-json: empty input: %w", appliance.ErrInvalid)
	}
	dec := json.NewDecoder(br)
	dec.UseNumber()
	array := first[0] == '['
	if array {
		if _, err := dec.Token(); err != nil {
			return nil, fmt.Errorf("read mosaico-json: %w", err)
		}
	}
	broken := false
	fail := func(err error) {
		broken = true
		res.Rejects = append(res.Rejects, Reject{li.lineAt(skipped + dec.InputOffset()),
			"malformed JSON, rest of input not read: " + err.Error()})
	}
	for {
		if array && !dec.More() {
			break
		}
		start := skipped + dec.InputOffset()
		var doc any
		err := dec.Decode(&doc)
		if !array && errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			res.Rows++
			fail(err)
			break
		}
		res.Rows++
		line := li.lineAt(start + leadingSpace(li, start))
		li.forget(start)
		obj, ok := doc.(map[string]any)
		if !ok {
			res.Rejects = append(res.Rejects, Reject{line, fmt.Sprintf("document is a %T, not an object", doc)})
			continue
		}
		get := func(k string) string { return jsonString(obj[k]) }
		status := ""
		if s, ok := obj["Status"].(map[string]any); ok {
			status = jsonString(s["state"])
		}
		row, reason, warning := mosaicoRow(mosaicoFields{
			status: status, entity: get("NomeEntidade"), station: get("NumEstacao"), uf: get("SiglaUf"),
			municipality: firstNonEmpty(get("CodMunicipio"), get("NomeMunicipio")), emission: get("DesignacaoEmissao"),
			tech: get("Tecnologia"), freq: firstNonEmpty(get("FreqTxMHz"), get("FreqCentralMHz")),
			azimuth: get("Azimute"), gain: get("GanhoAntena"), tilt: get("AnguloElevacao"), pol: get("Polarizacao"),
			hpbw: get("AnguloMeiaPotenciaAntena"), frontBack: get("FrenteCostaAntena"),
			height: get("AlturaAntena"), power: get("PotenciaTransmissorWatts"),
			lat: get("Latitude"), lon: get("Longitude"), date: get("DataLicenciamento"),
		}, line, false)
		if reason != "" {
			res.Rejects = append(res.Rejects, Reject{line, reason})
			continue
		}
		if warning != "" {
			res.Warnings = append(res.Warnings, Reject{line, warning})
		}
		g.add(row)
	}
	if array && !broken {
		if _, err := dec.Token(); err != nil {
			res.Warnings = append(res.Warnings, Reject{li.lineAt(skipped + dec.InputOffset()),
				"malformed JSON after the last document: " + err.Error()})
		}
	}
	g.finish()
	return res, nil
}

// jsonString renders a scalar JSON value as the text a CSV field would hold.
func jsonString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		if x {
			return "true"
		}
		return "false"
	}
	return fmt.Sprintf("<%T>", v)
}

// lineIndex passes bytes through and remembers where lines start, so that a
// decoder's byte offset can be turned into a line number. Offsets before the
// last forget call are dropped to bound memory.
type lineIndex struct {
	r    io.Reader
	pos  int64
	nl   []int64 // offsets of '\n' not yet forgotten
	base int     // newlines forgotten
	tail []byte  // the bytes after the last forgotten offset (for leadingSpace)
	from int64   // offset of tail[0]
}

func (l *lineIndex) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for i := 0; i < n; i++ {
		if p[i] == '\n' {
			l.nl = append(l.nl, l.pos+int64(i))
		}
	}
	l.tail = append(l.tail, p[:n]...)
	l.pos += int64(n)
	return n, err
}

// lineAt returns the 1-based line holding byte offset off.
func (l *lineIndex) lineAt(off int64) int {
	return l.base + sort.Search(len(l.nl), func(i int) bool { return l.nl[i] >= off }) + 1
}

// forget drops what lies before off.
func (l *lineIndex) forget(off int64) {
	k := sort.Search(len(l.nl), func(i int) bool { return l.nl[i] >= off })
	l.base += k
	l.nl = append(l.nl[:0], l.nl[k:]...)
	if d := off - l.from; d > 0 && d <= int64(len(l.tail)) {
		l.tail = append(l.tail[:0], l.tail[d:]...)
		l.from = off
	}
}

// leadingSpace counts the separators (white space, commas) at off, so that
// a document's line is where its '{' is.
func leadingSpace(l *lineIndex, off int64) int64 {
	var n int64
	for i := off - l.from; i >= 0 && i < int64(len(l.tail)); i++ {
		switch l.tail[i] {
		case ' ', '\t', '\r', '\n', ',':
			n++
			continue
		}
		break
	}
	return n
}
