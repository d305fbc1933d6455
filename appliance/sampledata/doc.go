// Package sampledata embeds the small real tower samples the appliance serves
// out of the box (see PROVENANCE.md): a page of Anatel's station list and a
// page of OpenCelliD's Brazilian cells. Together with the embedded Rio de
// Janeiro terrain pack they let `linkplan serve` work offline on first start.
package sampledata

import _ "embed"

//go:embed anatel_erbs_sample.csv
var anatelERBs []byte

//go:embed opencellid_724_sample.csv
var openCelliD []byte

// AnatelERBs returns the embedded Anatel ERBs sample (CSV, format anatel-erbs).
func AnatelERBs() []byte { return anatelERBs }

// OpenCelliD returns the embedded OpenCelliD sample (CSV, format opencellid).
func OpenCelliD() []byte { return openCelliD }
