package api

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	"linkplan/appliance"
	"linkplan/appliance/equipment"
	"linkplan/engines/antfile"
)

// Equipment keeps the tenants' equipment catalogues (appliance/equipment).
type Equipment interface {
	Radios(tenantID string) ([]*appliance.Radio, error)
	Radio(tenantID, id string) (*appliance.Radio, error)
	CreateRadio(ctx context.Context, k *appliance.APIKey, in equipment.RadioInput) (*appliance.Radio, error)
	UpdateRadio(ctx context.Context, k *appliance.APIKey, id string, in equipment.RadioInput) (*appliance.Radio, error)
	DeleteRadio(ctx context.Context, k *appliance.APIKey, id string) error
	Antennas(tenantID string) ([]*appliance.Antenna, error)
	Antenna(tenantID, id string) (*appliance.Antenna, error)
	CreateAntenna(ctx context.Context, k *appliance.APIKey, in equipment.AntennaInput) (*appliance.Antenna, error)
	ImportAntenna(ctx context.Context, k *appliance.APIKey, in equipment.ImportInput) (*appliance.Antenna, error)
	UpdateAntenna(ctx context.Context, k *appliance.APIKey, id string, in equipment.AntennaInput) (*appliance.Antenna, error)
	DeleteAntenna(ctx context.Context, k *appliance.APIKey, id string) error
}

// routeAntennaImport takes a pattern file (MaxAntennaImportBodyBytes).
const routeAntennaImport = "/equipment/antennas/import"

// MaxAntennaImportBodyBytes is the body limit of POST
// /equipment/antennas/import: a pattern file of antfile.MaxFileBytes
// (2 MiB), base64 in JSON, with room to spare.
const MaxAntennaImportBodyBytes = 4 << 20

var errNoEquipment = &httpError{status: http.StatusServiceUnavailable, code: "unavailable", msg: "the equipment catalogue is not configured"}

func (a *API) registerEquipment(r *mux.Router) {
	r.HandleFunc("/equipment/radios", a.wrap(a.authed(a.listRadios))).Methods(http.MethodGet)
	r.HandleFunc("/equipment/radios", a.wrap(a.authed(a.createRadio))).Methods(http.MethodPost)
	r.HandleFunc("/equipment/radios/{id}", a.wrap(a.authed(a.getRadio))).Methods(http.MethodGet)
	r.HandleFunc("/equipment/radios/{id}", a.wrap(a.authed(a.updateRadio))).Methods(http.MethodPut)
	r.HandleFunc("/equipment/radios/{id}", a.wrap(a.authed(a.deleteRadio))).Methods(http.MethodDelete)
	r.HandleFunc("/equipment/antennas", a.wrap(a.authed(a.listAntennas))).Methods(http.MethodGet)
	r.HandleFunc("/equipment/antennas", a.wrap(a.authed(a.createAntenna))).Methods(http.MethodPost)
	r.HandleFunc(routeAntennaImport, a.wrap(a.authed(a.importAntenna))).Methods(http.MethodPost)
	r.HandleFunc("/equipment/antennas/{id}", a.wrap(a.authed(a.getAntenna))).Methods(http.MethodGet)
	r.HandleFunc("/equipment/antennas/{id}", a.wrap(a.authed(a.updateAntenna))).Methods(http.MethodPut)
	r.HandleFunc("/equipment/antennas/{id}", a.wrap(a.authed(a.deleteAntenna))).Methods(http.MethodDelete)
}

// FreqRangeJSON is a band of a radio on the wire.
type FreqRangeJSON struct {
	MinMHz float64 `json:"min_mhz"`
	MaxMHz float64 `json:"max_mhz"`
}

// RadioModeJSON is one modulation/coding row on the wire.
type RadioModeJSON struct {
	Name           string  `json:"name"`
	TxPowerDBm     float64 `json:"tx_power_dbm"`
	SensitivityDBm float64 `json:"sensitivity_dbm"`
	ThroughputMbps float64 `json:"throughput_mbps"`
}

// RadioChannelJSON is the mode table of one channel width on the wire.
type RadioChannelJSON struct {
	WidthMHz float64         `json:"width_mhz"`
	Modes    []RadioModeJSON `json:"modes"`
}

// RadioJSON is a radio on the wire.
type RadioJSON struct {
	ID          string             `json:"id"`
	Name        string             `json:"name"`
	Make        string             `json:"make"`
	Model       string             `json:"model"`
	Notes       string             `json:"notes"`
	Bands       []FreqRangeJSON    `json:"bands"`
	Channels    []RadioChannelJSON `json:"channels"`
	ACSDB       *float64           `json:"acs_db"` // null: not stated
	Builtin     bool               `json:"builtin"`
	CreatedUnix int64              `json:"created_unix"`
	UpdatedUnix int64              `json:"updated_unix"`
}

// RadioList is the body of GET /equipment/radios.
type RadioList struct {
	Radios []RadioJSON `json:"radios"`
	Total  int         `json:"total"`
}

type radioRequest struct {
	Name     string             `json:"name"`
	Make     string             `json:"make"`
	Model    string             `json:"model"`
	Notes    string             `json:"notes"`
	Bands    []FreqRangeJSON    `json:"bands"`
	Channels []RadioChannelJSON `json:"channels"`
	ACSDB    *float64           `json:"acs_db"`
}

func (q *radioRequest) input() equipment.RadioInput {
	in := equipment.RadioInput{Name: q.Name, Make: q.Make, Model: q.Model, Notes: q.Notes}
	if q.ACSDB != nil {
		in.ACSDB = *q.ACSDB
	}
	for _, b := range q.Bands {
		in.Bands = append(in.Bands, appliance.FreqRange(b))
	}
	for _, c := range q.Channels {
		ch := appliance.RadioChannel{WidthMHz: c.WidthMHz}
		for _, m := range c.Modes {
			ch.Modes = append(ch.Modes, appliance.RadioMode(m))
		}
		in.Channels = append(in.Channels, ch)
	}
	return in
}

func radioJSON(r *appliance.Radio) RadioJSON {
	out := RadioJSON{ID: r.ID, Name: r.Name, Make: r.Make, Model: r.Model, Notes: r.Notes, Builtin: r.Builtin,
		CreatedUnix: r.CreatedUnix, UpdatedUnix: r.UpdatedUnix, Bands: []FreqRangeJSON{}, Channels: []RadioChannelJSON{}}
	if r.ACSDB > 0 {
		acs := r.ACSDB
		out.ACSDB = &acs
	}
	for _, b := range r.Bands {
		out.Bands = append(out.Bands, FreqRangeJSON(b))
	}
	for _, c := range r.Channels {
		ch := RadioChannelJSON{WidthMHz: c.WidthMHz, Modes: []RadioModeJSON{}}
		for _, m := range c.Modes {
			ch.Modes = append(ch.Modes, RadioModeJSON(m))
		}
		out.Channels = append(out.Channels, ch)
	}
	return out
}

// PatternCutJSON is one pattern cut on the wire: attenuation below the
// peak gain, dB, at ascending angles in [0, 360) degrees.
type PatternCutJSON struct {
	AnglesDeg     []float64 `json:"angles_deg"`
	AttenuationDB []float64 `json:"attenuation_db"`
}

// PatternJSON is an antenna pattern on the wire (horizontal: offset
// clockwise from the boresight; vertical: angle below the horizon).
type PatternJSON struct {
	Horizontal PatternCutJSON `json:"horizontal"`
	Vertical   PatternCutJSON `json:"vertical"`
}

// PatternSourceJSON says where an antenna's pattern came from.
type PatternSourceJSON struct {
	Format   string `json:"format"`
	FileName string `json:"file_name"`
	SHA256   string `json:"sha256"`
	Model    string `json:"model"`
}

// ParametricJSON asks for a synthesised pattern.
type ParametricJSON struct {
	Model             string  `json:"model"`
	HBeamwidthDeg     float64 `json:"h_beamwidth_deg"`
	VBeamwidthDeg     float64 `json:"v_beamwidth_deg"`
	FrontToBackDB     float64 `json:"front_to_back_db"`
	SideLobeDB        float64 `json:"side_lobe_db"`
	ElectricalTiltDeg float64 `json:"electrical_tilt_deg"`
}

// AntennaJSON is an antenna on the wire. Pattern is null in lists unless
// include=pattern is asked; PatternPoints counts its samples.
type AntennaJSON struct {
	ID                string              `json:"id"`
	Name              string              `json:"name"`
	Make              string              `json:"make"`
	Model             string              `json:"model"`
	Notes             string              `json:"notes"`
	GainDBi           float64             `json:"gain_dbi"`
	FreqMHz           float64             `json:"frequency_mhz"`
	MinMHz            float64             `json:"min_mhz"`
	MaxMHz            float64             `json:"max_mhz"`
	Polarization      string              `json:"polarization"`
	ElectricalTiltDeg float64             `json:"electrical_tilt_deg"`
	HBeamwidthDeg     float64             `json:"h_beamwidth_deg"`
	VBeamwidthDeg     float64             `json:"v_beamwidth_deg"`
	FrontToBackDB     float64             `json:"front_to_back_db"`
	PatternPoints     int                 `json:"pattern_points"`
	Pattern           *PatternJSON        `json:"pattern"`
	Source            PatternSourceJSON   `json:"source"`
	Warnings          []appliance.Warning `json:"warnings"`
	Builtin           bool                `json:"builtin"`
	CreatedUnix       int64               `json:"created_unix"`
	UpdatedUnix       int64               `json:"updated_unix"`
}

// AntennaList is the body of GET /equipment/antennas.
type AntennaList struct {
	Antennas []AntennaJSON `json:"antennas"`
	Total    int           `json:"total"`
}

type antennaRequest struct {
	Name         string          `json:"name"`
	Make         string          `json:"make"`
	Model        string          `json:"model"`
	Notes        string          `json:"notes"`
	Polarization string          `json:"polarization"`
	GainDBi      *float64        `json:"gain_dbi"`
	FreqMHz      float64         `json:"frequency_mhz"`
	MinMHz       float64         `json:"min_mhz"`
	MaxMHz       float64         `json:"max_mhz"`
	Pattern      *PatternJSON    `json:"pattern"`
	Parametric   *ParametricJSON `json:"parametric"`
}

func (q *antennaRequest) input() equipment.AntennaInput {
	in := equipment.AntennaInput{Name: q.Name, Make: q.Make, Model: q.Model, Notes: q.Notes, Polarization: q.Polarization,
		GainDBi: q.GainDBi, FreqMHz: q.FreqMHz, MinMHz: q.MinMHz, MaxMHz: q.MaxMHz}
	if q.Pattern != nil {
		in.Pattern = &appliance.AntennaPattern{
			H: appliance.PatternCut{AnglesDeg: q.Pattern.Horizontal.AnglesDeg, AttDB: q.Pattern.Horizontal.AttenuationDB},
			V: appliance.PatternCut{AnglesDeg: q.Pattern.Vertical.AnglesDeg, AttDB: q.Pattern.Vertical.AttenuationDB}}
	}
	if q.Parametric != nil {
		p := equipment.Parametric(*q.Parametric)
		in.Parametric = &p
	}
	return in
}

func antennaJSON(a *appliance.Antenna, withPattern bool) AntennaJSON {
	out := AntennaJSON{ID: a.ID, Name: a.Name, Make: a.Make, Model: a.Model, Notes: a.Notes, GainDBi: a.GainDBi,
		FreqMHz: a.FreqMHz, MinMHz: a.MinMHz, MaxMHz: a.MaxMHz, Polarization: a.Polarization,
		ElectricalTiltDeg: a.ElectricalTiltDeg, HBeamwidthDeg: a.HBeamwidthDeg, VBeamwidthDeg: a.VBeamwidthDeg,
		FrontToBackDB: a.FrontToBackDB, PatternPoints: len(a.Pattern.H.AnglesDeg) + len(a.Pattern.V.AnglesDeg),
		Source: PatternSourceJSON(a.Source), Warnings: a.Warnings, Builtin: a.Builtin,
		CreatedUnix: a.CreatedUnix, UpdatedUnix: a.UpdatedUnix}
	if out.Warnings == nil {
		out.Warnings = []appliance.Warning{}
	}
	if withPattern {
		out.Pattern = &PatternJSON{
			Horizontal: PatternCutJSON{AnglesDeg: a.Pattern.H.AnglesDeg, AttenuationDB: a.Pattern.H.AttDB},
			Vertical:   PatternCutJSON{AnglesDeg: a.Pattern.V.AnglesDeg, AttenuationDB: a.Pattern.V.AttDB}}
	}
	return out
}

func (a *API) listRadios(w http.ResponseWriter, r *http.Request) (any, error) {
	if a.Equipment == nil {
		return nil, errNoEquipment
	}
	rs, err := a.Equipment.Radios(keyFrom(r.Context()).TenantID)
	if err != nil {
		return nil, err
	}
	out := RadioList{Radios: make([]RadioJSON, 0, len(rs)), Total: len(rs)}
	for _, x := range rs {
		out.Radios = append(out.Radios, radioJSON(x))
	}
	return out, nil
}

func (a *API) getRadio(w http.ResponseWriter, r *http.Request) (any, error) {
	if a.Equipment == nil {
		return nil, errNoEquipment
	}
	x, err := a.Equipment.Radio(keyFrom(r.Context()).TenantID, mux.Vars(r)["id"])
	if err != nil {
		return nil, err
	}
	return radioJSON(x), nil
}

func (a *API) createRadio(w http.ResponseWriter, r *http.Request) (any, error) {
	if a.Equipment == nil {
		return nil, errNoEquipment
	}
	var q radioRequest
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	x, err := a.Equipment.CreateRadio(r.Context(), keyFrom(r.Context()), q.input())
	if err != nil {
		return nil, err
	}
	return created{radioJSON(x)}, nil
}

func (a *API) updateRadio(w http.ResponseWriter, r *http.Request) (any, error) {
	if a.Equipment == nil {
		return nil, errNoEquipment
	}
	var q radioRequest
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	x, err := a.Equipment.UpdateRadio(r.Context(), keyFrom(r.Context()), mux.Vars(r)["id"], q.input())
	if err != nil {
		return nil, err
	}
	return radioJSON(x), nil
}

// EquipmentDeleted is the body of a DELETE of a radio or an antenna.
type EquipmentDeleted struct {
	ID      string `json:"id"`
	Deleted bool   `json:"deleted"`
}

func (a *API) deleteRadio(w http.ResponseWriter, r *http.Request) (any, error) {
	if a.Equipment == nil {
		return nil, errNoEquipment
	}
	id := mux.Vars(r)["id"]
	if err := a.Equipment.DeleteRadio(r.Context(), keyFrom(r.Context()), id); err != nil {
		return nil, err
	}
	return EquipmentDeleted{ID: id, Deleted: true}, nil
}

func (a *API) listAntennas(w http.ResponseWriter, r *http.Request) (any, error) {
	if a.Equipment == nil {
		return nil, errNoEquipment
	}
	with := false
	switch inc := r.URL.Query().Get("include"); inc {
	case "":
	case "pattern":
		with = true
	default:
		return nil, appliance.Invalid("include", "must be pattern or absent, got %q", truncate(inc, 40))
	}
	as, err := a.Equipment.Antennas(keyFrom(r.Context()).TenantID)
	if err != nil {
		return nil, err
	}
	out := AntennaList{Antennas: make([]AntennaJSON, 0, len(as)), Total: len(as)}
	for _, x := range as {
		out.Antennas = append(out.Antennas, antennaJSON(x, with))
	}
	return out, nil
}

func (a *API) getAntenna(w http.ResponseWriter, r *http.Request) (any, error) {
	if a.Equipment == nil {
		return nil, errNoEquipment
	}
	x, err := a.Equipment.Antenna(keyFrom(r.Context()).TenantID, mux.Vars(r)["id"])
	if err != nil {
		return nil, err
	}
	return antennaJSON(x, true), nil
}

func (a *API) createAntenna(w http.ResponseWriter, r *http.Request) (any, error) {
	if a.Equipment == nil {
		return nil, errNoEquipment
	}
	var q antennaRequest
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	x, err := a.Equipment.CreateAntenna(r.Context(), keyFrom(r.Context()), q.input())
	if err != nil {
		return nil, err
	}
	return created{antennaJSON(x, true)}, nil
}

func (a *API) updateAntenna(w http.ResponseWriter, r *http.Request) (any, error) {
	if a.Equipment == nil {
		return nil, errNoEquipment
	}
	var q antennaRequest
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	x, err := a.Equipment.UpdateAntenna(r.Context(), keyFrom(r.Context()), mux.Vars(r)["id"], q.input())
	if err != nil {
		return nil, err
	}
	return antennaJSON(x, true), nil
}

func (a *API) deleteAntenna(w http.ResponseWriter, r *http.Request) (any, error) {
	if a.Equipment == nil {
		return nil, errNoEquipment
	}
	id := mux.Vars(r)["id"]
	if err := a.Equipment.DeleteAntenna(r.Context(), keyFrom(r.Context()), id); err != nil {
		return nil, err
	}
	return EquipmentDeleted{ID: id, Deleted: true}, nil
}

// antennaImportRequest is the JSON form of an import: the file's bytes in
// base64 (a pattern file holds tabs and line breaks, which no JSON text
// field of this API accepts, and may not be UTF-8).
type antennaImportRequest struct {
	FileName      string   `json:"file_name"`
	ContentBase64 *string  `json:"content_base64"`
	Format        string   `json:"format"`
	Name          string   `json:"name"`
	GainDBi       *float64 `json:"gain_dbi"`
	FreqMHz       float64  `json:"frequency_mhz"`
}

// importParts are the multipart form fields of an import besides file.
var importParts = []string{"format", "name", "gain_dbi", "frequency_mhz"}

func (a *API) importAntenna(w http.ResponseWriter, r *http.Request) (any, error) {
	if a.Equipment == nil {
		return nil, errNoEquipment
	}
	in, err := readImport(r)
	if err != nil {
		return nil, err
	}
	x, err := a.Equipment.ImportAntenna(r.Context(), keyFrom(r.Context()), in)
	if err != nil {
		return nil, err
	}
	return created{antennaJSON(x, true)}, nil
}

// readImport reads an import from a JSON body or a multipart form (a
// part "file" with the file name, and the fields importParts).
func readImport(r *http.Request) (equipment.ImportInput, error) {
	var in equipment.ImportInput
	v := &appliance.ValidationError{}
	format := func(s string) {
		switch f := antfile.Format(strings.TrimSpace(s)); f {
		case "", antfile.FormatMSI, antfile.FormatNSMA, antfile.FormatRadioMobile:
			in.Format = f
		default:
			v.Add("format", "must be msi, nsma, radiomobile or absent (detected), got %q", truncate(s, 40))
		}
	}
	mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "multipart/form-data" {
		var q antennaImportRequest
		if err := decode(r, &q); err != nil {
			return in, err
		}
		in.FileName, in.Name, in.GainDBi, in.FreqMHz = q.FileName, q.Name, q.GainDBi, q.FreqMHz
		format(q.Format)
		if q.ContentBase64 == nil {
			v.Add("content_base64", "the pattern file is required (its bytes in base64; or send multipart/form-data with a part named file)")
		} else {
			b, err := base64.StdEncoding.DecodeString(*q.ContentBase64)
			if err != nil {
				v.Add("content_base64", "must be standard base64 (RFC 4648 §4, with padding)")
			}
			in.Data = b
		}
		if strings.TrimSpace(in.FileName) == "" {
			v.Add("file_name", "is required: its extension names the format (.msi, .pln, .txt, .adf, .ant)")
		}
		return in, v.Err()
	}
	if params["boundary"] == "" {
		return in, appliance.Invalid("Content-Type", "multipart/form-data needs a boundary")
	}
	mr := multipart.NewReader(r.Body, params["boundary"])
	seen := map[string]bool{}
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return in, multipartErr(err)
		}
		name := p.FormName()
		if seen[name] {
			v.Add(truncate(name, 40), "must be given once")
			_ = p.Close()
			continue
		}
		seen[name] = true
		if name == "file" {
			in.FileName = p.FileName()
			b, err := io.ReadAll(io.LimitReader(p, antfile.MaxFileBytes+1))
			if err != nil {
				return in, multipartErr(err)
			}
			in.Data = b
			continue
		}
		known := false
		for _, k := range importParts {
			known = known || k == name
		}
		if !known {
			v.Add(truncate(name, 40), "is not a known part (file, %s)", strings.Join(importParts, ", "))
			_ = p.Close()
			continue
		}
		b, err := io.ReadAll(io.LimitReader(p, 201))
		if err != nil {
			return in, multipartErr(err)
		}
		if len(b) > 200 {
			v.Add(name, "must be at most 200 bytes")
			continue
		}
		s := strings.TrimSpace(string(b))
		switch name {
		case "format":
			format(s)
		case "name":
			in.Name = s
		case "gain_dbi", "frequency_mhz":
			x, err := strconv.ParseFloat(s, 64)
			if err != nil {
				v.Add(name, "must be a number, got %q", truncate(s, 40))
				continue
			}
			if name == "gain_dbi" {
				in.GainDBi = &x
			} else {
				in.FreqMHz = x
			}
		}
	}
	if !seen["file"] {
		v.Add("file", "the pattern file is required (a part named file)")
	} else if strings.TrimSpace(in.FileName) == "" {
		in.FileName = "pattern"
	}
	return in, v.Err()
}

// RadioFromJSON reads a radio written as the body of POST
// /equipment/radios (unknown fields refused) and builds it as an inline
// radio (equipment.RadioInput.Build): `linkplan ptp` takes radios as such
// files. A malformed or invalid radio is an appliance.ErrInvalid naming
// the field.
func RadioFromJSON(data []byte) (*appliance.Radio, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	var q radioRequest
	if err := d.Decode(&q); err != nil {
		return nil, appliance.Invalid("radio", "not a radio as POST /equipment/radios takes it: %v", err)
	}
	if d.More() {
		return nil, appliance.Invalid("radio", "one JSON object is expected")
	}
	return q.input().Build()
}
