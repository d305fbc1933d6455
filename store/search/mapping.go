package search

import (
	"fmt"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/char/asciifolding"
	"github.com/blevesearch/bleve/v2/analysis/char/regexp"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/single"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
)

// newMemIndex returns an in-memory scorch index. bleve.NewMemOnly would use
// the older upsidedown/gtreap engine, measured 3 to 10 times slower here both
// to build and to query.
func newMemIndex(im mapping.IndexMapping) (bleve.Index, error) {
	return bleve.NewUsing("", im, scorch.Name, scorch.Name, nil)
}

// Analyzer and char filter names registered on the index mappings (not in a
// global registry: they live in the mapping and are persisted with it).
const (
	foldedAnalyzer  = "linkplan_folded"
	stationAnalyzer = "linkplan_station"
	apostropheChar  = "linkplan_apostrophe"
)

// towerMappingVersion names the tower index mapping. It is stored with the
// catalogue fingerprint of a persisted index, so a binary whose mapping
// differs rebuilds the index instead of reusing one whose fields it reads
// differently. Bump it on every change of newTowerMapping or towerDoc.
//
//	1  operator, municipality, address folded; station and UF keywords
//	2  tenant keyword (visibility filter, finding 4 of issue 7); station
//	   lower-cased whole (keyword tokenizer) plus its folded words
const towerMappingVersion = "2"

// Field names of the indexed documents.
const (
	fName       = "name"       // place: folded municipality name
	fState      = "state"      // place: folded state name
	fUF         = "uf"         // place and tower: lower-case two-letter state code
	fKey        = "key"        // place: whole folded name as one keyword
	fCapital    = "capital"    // place: "1" for a state capital, "0" otherwise
	fOrder      = "order"      // place: deterministic tie-break key
	fImportance = "importance" // place: importance prefix of the order key (capital rank)
	fOperator   = "operator"
	fStation    = "station"       // tower: whole station number, folded and lower-cased
	fStationW   = "station_words" // tower: words of the station number, folded
	fTenant     = "tenant"        // tower: tenantPublic or tenantPrefix + owner tenant id
	fMunic      = "municipality"
	fAddress    = "address"
)

// Values of the tenant field: catalogue towers (regulator, crowd-sourced,
// synthetic) are public; a user-registered tower carries its owner's tenant
// id behind a prefix, so no tenant id can collide with the public value.
const (
	tenantPublic = "public"
	tenantPrefix = "tenant:"
)

// addFoldedAnalyzer registers the accent- and case-folding analyzer on im:
// apostrophes are removed ("d'Oeste" -> "dOeste"), ASCII folding
// ("São" -> "Sao"), unicode word segmentation, lower-casing.
func addFoldedAnalyzer(im *mapping.IndexMappingImpl) error {
	if err := im.AddCustomCharFilter(apostropheChar, map[string]any{
		"type":    regexp.Name,
		"regexp":  "['’`´‘]",
		"replace": "",
	}); err != nil {
		return fmt.Errorf("add apostrophe char filter: %w", err)
	}
	if err := im.AddCustomAnalyzer(foldedAnalyzer, map[string]any{
		"type":          custom.Name,
		"char_filters":  []any{apostropheChar, asciifolding.Name},
		"tokenizer":     unicode.Name,
		"token_filters": []any{lowercase.Name},
	}); err != nil {
		return fmt.Errorf("add folded analyzer: %w", err)
	}
	return nil
}

// addStationAnalyzer registers the station-number analyzer on im: the whole
// value as one token, ASCII-folded and lower-cased, so "ERB-12A" is found by
// "erb-12a" (station numbers of user towers may hold letters and separators;
// the folded words are indexed separately in fStationW).
func addStationAnalyzer(im *mapping.IndexMappingImpl) error {
	if err := im.AddCustomAnalyzer(stationAnalyzer, map[string]any{
		"type":          custom.Name,
		"char_filters":  []any{asciifolding.Name},
		"tokenizer":     single.Name,
		"token_filters": []any{lowercase.Name},
	}); err != nil {
		return fmt.Errorf("add station analyzer: %w", err)
	}
	return nil
}

func textField(store bool) *mapping.FieldMapping {
	f := bleve.NewTextFieldMapping()
	f.Analyzer = foldedAnalyzer
	f.Store = store
	f.IncludeInAll = false
	f.IncludeTermVectors = false
	f.DocValues = false
	return f
}

func keywordField(docValues bool) *mapping.FieldMapping {
	f := bleve.NewKeywordFieldMapping()
	f.Analyzer = keyword.Name
	f.Store = false
	f.IncludeInAll = false
	f.IncludeTermVectors = false
	f.DocValues = docValues
	return f
}

// newPlaceMapping returns the mapping of the places index. Documents are
// map[string]any with the f* field names.
func newPlaceMapping() (*mapping.IndexMappingImpl, error) {
	im := bleve.NewIndexMapping()
	if err := addFoldedAnalyzer(im); err != nil {
		return nil, err
	}
	im.DefaultAnalyzer = foldedAnalyzer
	dm := bleve.NewDocumentStaticMapping()
	dm.AddFieldMappingsAt(fName, textField(false))
	dm.AddFieldMappingsAt(fState, textField(false))
	dm.AddFieldMappingsAt(fUF, keywordField(false))
	dm.AddFieldMappingsAt(fKey, keywordField(false))
	dm.AddFieldMappingsAt(fCapital, keywordField(false))
	dm.AddFieldMappingsAt(fOrder, keywordField(true))
	dm.AddFieldMappingsAt(fImportance, keywordField(true))
	im.DefaultMapping = dm
	im.StoreDynamic = false
	im.IndexDynamic = false
	im.DocValuesDynamic = false
	return im, nil
}

// newTowerMapping returns the mapping of the tower index.
func newTowerMapping() (*mapping.IndexMappingImpl, error) {
	im := bleve.NewIndexMapping()
	if err := addFoldedAnalyzer(im); err != nil {
		return nil, err
	}
	if err := addStationAnalyzer(im); err != nil {
		return nil, err
	}
	im.DefaultAnalyzer = foldedAnalyzer
	dm := bleve.NewDocumentStaticMapping()
	dm.AddFieldMappingsAt(fOperator, textField(false))
	dm.AddFieldMappingsAt(fMunic, textField(false))
	dm.AddFieldMappingsAt(fAddress, textField(false))
	station := textField(false)
	station.Analyzer = stationAnalyzer
	dm.AddFieldMappingsAt(fStation, station)
	dm.AddFieldMappingsAt(fStationW, textField(false))
	dm.AddFieldMappingsAt(fUF, keywordField(false))
	dm.AddFieldMappingsAt(fTenant, keywordField(false))
	im.DefaultMapping = dm
	im.StoreDynamic = false
	im.IndexDynamic = false
	im.DocValuesDynamic = false
	return im, nil
}

// tokens runs the folded analyzer of im over s and returns the terms in order.
func tokens(a analysis.Analyzer, s string) []string {
	ts := a.Analyze([]byte(s))
	out := make([]string, 0, len(ts))
	for _, t := range ts {
		out = append(out, string(t.Term))
	}
	return out
}
