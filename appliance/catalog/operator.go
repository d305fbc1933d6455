package catalog

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"linkplan/appliance"
)

//go:embed data/operators_mcc724.csv
var operatorsCSV []byte

// Normalised operator names.
const (
	OperatorVivo      = "Vivo"
	OperatorTIM       = "TIM"
	OperatorClaro     = "Claro"
	OperatorOi        = "Oi"
	OperatorAlgar     = "Algar"
	OperatorSercomtel = "Sercomtel"
	OperatorUnifique  = "Unifique"
	OperatorNextel    = "Nextel"
	// OperatorAmazonia is Amazônia Celular, a historical operator of the
	// North (MA, PA, AM, AP, RR) bought by Oi in 2008. Its licences still
	// appear in Anatel records; the name is kept rather than guessed onward
	// (Oi's mobile network itself passed to TIM, Claro and Vivo in 2022).
	OperatorAmazonia = "Amazônia Celular"
)

// operatorRule maps folded operator spellings to a normalised name. A rule
// matches when the folded name equals one of exact, or contains one of the
// words in words as a whole word sequence.
type operatorRule struct {
	name  string
	exact []string
	words []string
}

// operatorRules is the documented normalisation table (see FORMATS.md).
// Order matters: the first matching rule wins.
var operatorRules = []operatorRule{
	{OperatorAmazonia, nil, []string{"amazonia celular"}},
	{OperatorVivo, []string{"vivo"}, []string{"telefonica", "vivo", "telesp celular", "telemig celular", "telerj celular", "global telecom"}},
	{OperatorTIM, []string{"tim"}, []string{"tim", "telecom italia"}},
	{OperatorClaro, []string{"claro"}, []string{"claro", "americel", "embratel"}},
	{OperatorNextel, nil, []string{"nextel", "nii holdings"}},
	{OperatorOi, []string{"oi"}, []string{"oi", "tnl pcs", "telemar", "brasil telecom"}},
	{OperatorAlgar, nil, []string{"algar", "ctbc"}},
	{OperatorSercomtel, nil, []string{"sercomtel"}},
	{OperatorUnifique, nil, []string{"unifique"}},
}

// NormalizeOperator maps an operator name as it appears in Anatel,
// OpenCelliD and MCC/MNC tables to the name used in the catalogue:
// "TELEFONICA BRASIL S.A.", "TELEFÔNICA BRASIL S.A.", "Telefónica Brasil Sa"
// and "VIVO" give "Vivo"; "TIM S/A" gives "TIM"; and so on for Claro, Oi,
// Algar, Sercomtel, Unifique, Nextel and Amazônia Celular. An unknown name
// is returned tidied: spaces collapsed and, when written all in capitals,
// title-cased with legal suffixes (S.A., S/A, LTDA, ME, EIRELI) kept upper.
func NormalizeOperator(raw string) string {
	k := foldKey(raw)
	if k == "" {
		return ""
	}
	padded := " " + k + " "
	for _, r := range operatorRules {
		for _, e := range r.exact {
			if k == e {
				return r.name
			}
		}
		for _, w := range r.words {
			if strings.Contains(padded, " "+w+" ") {
				return r.name
			}
		}
	}
	return tidyName(raw)
}

var legalSuffixes = map[string]bool{"S.A.": true, "S/A": true, "SA": true, "S.A": true, "LTDA": true, "LTDA.": true, "ME": true, "EIRELI": true, "EPP": true}

func tidyName(raw string) string {
	s := tidySpaces(raw)
	hasLower := false
	for _, r := range s {
		if unicode.IsLower(r) {
			hasLower = true
			break
		}
	}
	if hasLower {
		return s
	}
	words := strings.Fields(s)
	for i, w := range words {
		if legalSuffixes[w] {
			continue
		}
		rs := []rune(strings.ToLower(w))
		rs[0] = unicode.ToUpper(rs[0])
		words[i] = string(rs)
	}
	return strings.Join(words, " ")
}

// MNCOperator is one mobile network code of MCC 724 (Brazil).
type MNCOperator struct {
	MNC         int    // mobile network code
	Operator    string // normalised operator name ("" when the table gives none)
	Brand       string // brand as in the table
	Operational bool   // status "Operational" in the table
	Notes       string // the table's notes
}

// mncTable is parsed once from the embedded table and never modified.
var mncTable = sync.OnceValues(func() (map[int]MNCOperator, error) {
	return parseMNCTable(bytes.NewReader(operatorsCSV))
})

func parseMNCTable(r io.Reader) (map[int]MNCOperator, error) {
	cr := csv.NewReader(r)
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("read operators header: %w", err)
	}
	col, err := columnIndex(header, "mcc", "mnc", "brand", "operator", "status", "notes")
	if err != nil {
		return nil, fmt.Errorf("read operators header: %w", err)
	}
	out := map[int]MNCOperator{}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read operators: %w", err)
		}
		if rec[col["mcc"]] != "724" {
			continue
		}
		mnc, err := strconv.Atoi(rec[col["mnc"]])
		if err != nil {
			return nil, fmt.Errorf("read operators: mnc %q: %w", rec[col["mnc"]], appliance.ErrInvalid)
		}
		brand := rec[col["brand"]]
		name := brand
		if name == "" || strings.EqualFold(name, "No name") || strings.EqualFold(name, "Local") {
			name = rec[col["operator"]]
		}
		out[mnc] = MNCOperator{
			MNC:         mnc,
			Operator:    NormalizeOperator(name),
			Brand:       brand,
			Operational: rec[col["status"]] == "Operational",
			Notes:       rec[col["notes"]],
		}
	}
	return out, nil
}

// OperatorForMNC returns the operator of Brazilian MNC mnc (MCC 724) from
// the embedded pbakondy/mcc-mnc-list table: 06/10/11/23 Vivo, 02/03/04
// TIM, 05/12/38 Claro, 15 Sercomtel, 16/30/31 Oi, 24 Amazônia Celular,
// 29 Unifique, 32/33/34 Algar, 00/39 Nextel, and the MVNOs.
func OperatorForMNC(mnc int) (MNCOperator, bool) {
	t, err := mncTable()
	if err != nil {
		return MNCOperator{}, false
	}
	op, ok := t[mnc]
	return op, ok && op.Operator != ""
}
