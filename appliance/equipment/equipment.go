package equipment

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"linkplan/appliance"
	"linkplan/engines/antfile"
)

// Store persists the catalogue (store.DB).
type Store interface {
	CreateRadio(r *appliance.Radio, maxPerTenant int, audit ...appliance.AuditEntry) error
	ReplaceRadio(r *appliance.Radio, audit ...appliance.AuditEntry) error
	Radio(tenantID, id string) (*appliance.Radio, error)
	Radios(tenantID string) ([]*appliance.Radio, error)
	DeleteRadio(tenantID, id string, audit ...appliance.AuditEntry) error
	CreateAntenna(a *appliance.Antenna, maxPerTenant int, audit ...appliance.AuditEntry) error
	ReplaceAntenna(a *appliance.Antenna, audit ...appliance.AuditEntry) error
	Antenna(tenantID, id string) (*appliance.Antenna, error)
	Antennas(tenantID string) ([]*appliance.Antenna, error)
	DeleteAntenna(tenantID, id string, audit ...appliance.AuditEntry) error
}

// Service keeps the tenants' equipment catalogues. It is safe for
// concurrent use.
type Service struct {
	store    Store
	now      func() time.Time
	radios   []*appliance.Radio   // built-ins, by id
	antennas []*appliance.Antenna // built-ins, by id

	mu    sync.Mutex
	cache map[string]*appliance.Antenna // tenant id + 0x00 + id -> a tenant's antenna as stored
}

// cacheMax bounds the antenna cache; when full it starts over.
const cacheMax = 2048

// New returns the service over st; now nil means time.Now.
func New(st Store, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	r, a := Builtins()
	return &Service{store: st, now: now, radios: r, antennas: a, cache: map[string]*appliance.Antenna{}}
}

// RadioInput is a radio as the client gives it.
type RadioInput struct {
	Name, Make, Model, Notes string
	Bands                    []appliance.FreqRange
	Channels                 []appliance.RadioChannel
	ACSDB                    float64 // adjacent-channel selectivity, dB; 0: not stated
}

// Parametric asks for a pattern synthesised from data-sheet figures
// (Antenna.Source.Model): "3gpp-sector" (HBeamwidthDeg, VBeamwidthDeg,
// FrontToBackDB, SideLobeDB, ElectricalTiltDeg), "omni" (VBeamwidthDeg,
// SideLobeDB, ElectricalTiltDeg) or "itu-f699-dish" (the gain alone).
// Zero figures take the defaults of the package doc.
type Parametric struct {
	Model             string
	HBeamwidthDeg     float64 // degrees
	VBeamwidthDeg     float64 // degrees
	FrontToBackDB     float64 // dB
	SideLobeDB        float64 // vertical side-lobe level below the peak, dB
	ElectricalTiltDeg float64 // degrees, positive down
}

// AntennaInput is an antenna as the client gives it: the figures and
// either a pattern or the parameters of a synthesised one.
type AntennaInput struct {
	Name, Make, Model, Notes, Polarization string
	GainDBi                                *float64 // dBi, required
	FreqMHz, MinMHz, MaxMHz                float64  // MHz, 0: not stated
	Pattern                                *appliance.AntennaPattern
	Parametric                             *Parametric
}

// ImportInput is a pattern file to import as an antenna. Name, GainDBi
// and FreqMHz, when given, replace the file's (GainDBi is required for a
// Radio Mobile file, which states none).
type ImportInput struct {
	FileName string
	Data     []byte
	Format   antfile.Format // "": from the extension, else the content
	Name     string
	GainDBi  *float64
	FreqMHz  float64
}

// Models of parametric patterns.
const (
	ModelSector = "3gpp-sector"
	ModelOmni   = "omni"
	ModelDish   = "itu-f699-dish"
)

func newID(prefix string) (string, error) {
	var raw [8]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", fmt.Errorf("random id: %w", err)
	}
	return prefix + hex.EncodeToString(raw[:]), nil
}

func capFor(k *appliance.APIKey) int {
	if k.Role == appliance.RoleAdmin {
		return -1
	}
	return k.Tier.EquipmentPerTenant()
}

func builtinID(id string) bool { return strings.HasPrefix(id, appliance.BuiltinIDPrefix) }

var errBuiltin = fmt.Errorf("built-in equipment is a read-only generic example: create your own (copy its figures): %w", appliance.ErrForbidden)

// --- radios ---

// Radios returns the built-in radios, then the tenant's ordered by id.
func (s *Service) Radios(tenantID string) ([]*appliance.Radio, error) {
	own, err := s.store.Radios(tenantID)
	if err != nil {
		return nil, fmt.Errorf("list radios: %w", err)
	}
	out := make([]*appliance.Radio, 0, len(s.radios)+len(own))
	for _, r := range s.radios {
		out = append(out, cloneRadio(r))
	}
	return append(out, own...), nil
}

// Radio returns radio id as tenantID sees it (a built-in or its own), or
// an appliance.ErrNotFound error.
func (s *Service) Radio(tenantID, id string) (*appliance.Radio, error) {
	if builtinID(id) {
		for _, r := range s.radios {
			if r.ID == id {
				return cloneRadio(r), nil
			}
		}
		return nil, fmt.Errorf("radio %q: %w", id, appliance.ErrNotFound)
	}
	return s.store.Radio(tenantID, id)
}

func (in RadioInput) radio() *appliance.Radio {
	r := &appliance.Radio{Name: strings.TrimSpace(in.Name), Make: strings.TrimSpace(in.Make), Model: strings.TrimSpace(in.Model),
		Notes: strings.TrimSpace(in.Notes), Bands: in.Bands, Channels: slices.Clone(in.Channels), ACSDB: in.ACSDB}
	for i := range r.Channels {
		r.Channels[i].Modes = slices.Clone(r.Channels[i].Modes)
		for j := range r.Channels[i].Modes {
			r.Channels[i].Modes[j].Name = strings.TrimSpace(r.Channels[i].Modes[j].Name)
		}
	}
	slices.SortStableFunc(r.Channels, func(a, b appliance.RadioChannel) int {
		switch {
		case a.WidthMHz < b.WidthMHz:
			return -1
		case a.WidthMHz > b.WidthMHz:
			return 1
		}
		return 0
	})
	return r
}

// Build returns the radio in describes, normalised (names trimmed,
// widths ascending) and validated, without storing it: an inline radio
// of a point-to-point request (appliance/ptp). A bad field is an
// appliance.ValidationError naming it.
func (in RadioInput) Build() (*appliance.Radio, error) {
	r := in.radio()
	if err := r.Validate(); err != nil {
		return nil, err
	}
	return r, nil
}

// CreateRadio validates in and stores it as a new radio of the key's
// tenant within the tier's cap. Audited equipment.create.
func (s *Service) CreateRadio(ctx context.Context, k *appliance.APIKey, in RadioInput) (*appliance.Radio, error) {
	r := in.radio()
	if err := r.Validate(); err != nil {
		return nil, err
	}
	id, err := newID(appliance.RadioIDPrefix)
	if err != nil {
		return nil, fmt.Errorf("create radio: %w", err)
	}
	now := s.now().Unix()
	r.ID, r.TenantID, r.CreatedUnix, r.UpdatedUnix = id, k.TenantID, now, now
	audit := appliance.ActorFrom(ctx).Entry(appliance.ActionEquipmentCreate, k.TenantID, map[string]string{"kind": "radio", "id": id})
	if err := s.store.CreateRadio(r, capFor(k), audit); err != nil {
		return nil, fmt.Errorf("create radio: %w", err)
	}
	return r, nil
}

// UpdateRadio replaces the tenant's radio id by in (built-ins are
// read-only: appliance.ErrForbidden). Audited equipment.update.
func (s *Service) UpdateRadio(ctx context.Context, k *appliance.APIKey, id string, in RadioInput) (*appliance.Radio, error) {
	if builtinID(id) {
		return nil, errBuiltin
	}
	r := in.radio()
	if err := r.Validate(); err != nil {
		return nil, err
	}
	r.ID, r.TenantID, r.UpdatedUnix = id, k.TenantID, s.now().Unix()
	audit := appliance.ActorFrom(ctx).Entry(appliance.ActionEquipmentUpdate, k.TenantID, map[string]string{"kind": "radio", "id": id})
	if err := s.store.ReplaceRadio(r, audit); err != nil {
		return nil, fmt.Errorf("update radio: %w", err)
	}
	return r, nil
}

// DeleteRadio deletes the tenant's radio id. Audited equipment.delete.
func (s *Service) DeleteRadio(ctx context.Context, k *appliance.APIKey, id string) error {
	if builtinID(id) {
		return errBuiltin
	}
	audit := appliance.ActorFrom(ctx).Entry(appliance.ActionEquipmentDelete, k.TenantID, map[string]string{"kind": "radio", "id": id})
	return s.store.DeleteRadio(k.TenantID, id, audit)
}

// --- antennas ---

// Antennas returns the built-in antennas, then the tenant's ordered by id.
func (s *Service) Antennas(tenantID string) ([]*appliance.Antenna, error) {
	own, err := s.store.Antennas(tenantID)
	if err != nil {
		return nil, fmt.Errorf("list antennas: %w", err)
	}
	out := make([]*appliance.Antenna, 0, len(s.antennas)+len(own))
	for _, a := range s.antennas {
		out = append(out, cloneAntenna(a))
	}
	return append(out, own...), nil
}

// Antenna returns antenna id as tenantID sees it (a built-in or its own),
// or an appliance.ErrNotFound error. It implements
// appliance.AntennaCatalogue; the planner and the coverage maps read
// through it (the result is shared: callers must not change it).
func (s *Service) Antenna(tenantID, id string) (*appliance.Antenna, error) {
	if builtinID(id) {
		for _, a := range s.antennas {
			if a.ID == id {
				return a, nil
			}
		}
		return nil, fmt.Errorf("antenna %q: %w", id, appliance.ErrNotFound)
	}
	key := tenantID + "\x00" + id
	s.mu.Lock()
	a, ok := s.cache[key]
	s.mu.Unlock()
	if ok {
		return a, nil
	}
	a, err := s.store.Antenna(tenantID, id)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if len(s.cache) >= cacheMax {
		clear(s.cache)
	}
	s.cache[key] = a
	s.mu.Unlock()
	return a, nil
}

func (s *Service) forget(tenantID, id string) {
	s.mu.Lock()
	delete(s.cache, tenantID+"\x00"+id)
	s.mu.Unlock()
}

// Build turns an input into an antenna (pattern given or synthesised),
// validated, with the figures read off its pattern, without id or owner:
// what CreateAntenna stores, and an inline antenna of a request (the
// point-to-point planner's) as it is used without storing it.
func (in AntennaInput) Build() (*appliance.Antenna, error) {
	v := &appliance.ValidationError{}
	a := &appliance.Antenna{Name: strings.TrimSpace(in.Name), Make: strings.TrimSpace(in.Make), Model: strings.TrimSpace(in.Model),
		Notes: strings.TrimSpace(in.Notes), Polarization: strings.TrimSpace(in.Polarization), FreqMHz: in.FreqMHz, MinMHz: in.MinMHz, MaxMHz: in.MaxMHz}
	if in.GainDBi == nil {
		v.Add("gain_dbi", "is required (the peak gain in dBi)")
		a.GainDBi = math.NaN()
	} else {
		a.GainDBi = *in.GainDBi
	}
	switch {
	case in.Pattern != nil && in.Parametric != nil:
		v.Add("pattern", "give either pattern or parametric, not both")
	case in.Pattern != nil:
		a.Pattern = *in.Pattern
		a.Source = appliance.PatternSource{Format: "table"}
	case in.Parametric != nil:
		if in.GainDBi != nil {
			p, ok := synthesise(*in.Parametric, *in.GainDBi, v)
			if ok {
				a.Pattern = p
			}
		}
		a.Source = appliance.PatternSource{Format: "parametric", Model: in.Parametric.Model}
	default:
		v.Add("pattern", "give a pattern (horizontal and vertical cuts) or parametric figures, or import a pattern file")
	}
	if v.Len() > 0 {
		return nil, v
	}
	if err := a.Validate(); err != nil {
		return nil, err
	}
	a.SetStats()
	return a, nil
}

// synthesise makes the pattern of a parametric antenna; bad figures go to
// v by their JSON names.
func synthesise(p Parametric, gainDBi float64, v *appliance.ValidationError) (appliance.AntennaPattern, bool) {
	n := v.Len()
	rng := func(name string, x, lo, hi float64) {
		if math.IsNaN(x) || math.IsInf(x, 0) || x != 0 && (x < lo || x > hi) {
			v.Add("parametric."+name, "must be 0 (default) or %g..%g, got %g", lo, hi, x)
		}
	}
	rng("h_beamwidth_deg", p.HBeamwidthDeg, 1, 360)
	rng("v_beamwidth_deg", p.VBeamwidthDeg, 1, 90)
	rng("front_to_back_db", p.FrontToBackDB, 3, 80)
	rng("side_lobe_db", p.SideLobeDB, 3, 80)
	if math.IsNaN(p.ElectricalTiltDeg) || p.ElectricalTiltDeg < -30 || p.ElectricalTiltDeg > 30 {
		v.Add("parametric.electrical_tilt_deg", "must be -30..30 degrees, got %g", p.ElectricalTiltDeg)
	}
	def := func(x, d float64) float64 {
		if x == 0 {
			return d
		}
		return x
	}
	hbw := def(p.HBeamwidthDeg, appliance.GenericHBeamwidthDeg)
	sla := def(p.SideLobeDB, appliance.GenericVSideLobeDB)
	fb := def(p.FrontToBackDB, appliance.GenericFrontBackDB)
	switch p.Model {
	case ModelSector:
		vbw := def(p.VBeamwidthDeg, appliance.VBeamwidthFromGainDeg(gainDBi, hbw))
		if v.Len() > n {
			return appliance.AntennaPattern{}, false
		}
		return appliance.SectorPattern(hbw, vbw, fb, sla, p.ElectricalTiltDeg), true
	case ModelOmni:
		vbw := def(p.VBeamwidthDeg, appliance.VBeamwidthFromGainDeg(gainDBi, 360))
		if v.Len() > n {
			return appliance.AntennaPattern{}, false
		}
		return appliance.OmniPattern(vbw, sla, p.ElectricalTiltDeg), true
	case ModelDish:
		if gainDBi < 10 {
			v.Add("gain_dbi", "an %s antenna needs a gain of at least 10 dBi, got %g", ModelDish, gainDBi)
		}
		if v.Len() > n {
			return appliance.AntennaPattern{}, false
		}
		return appliance.DishPattern(gainDBi), true
	}
	v.Add("parametric.model", "must be %s, %s or %s, got %q", ModelSector, ModelOmni, ModelDish, p.Model)
	return appliance.AntennaPattern{}, false
}

// CreateAntenna validates in and stores it as a new antenna of the key's
// tenant within the tier's cap. Audited equipment.create.
func (s *Service) CreateAntenna(ctx context.Context, k *appliance.APIKey, in AntennaInput) (*appliance.Antenna, error) {
	a, err := in.Build()
	if err != nil {
		return nil, err
	}
	return s.create(ctx, k, a)
}

func (s *Service) create(ctx context.Context, k *appliance.APIKey, a *appliance.Antenna) (*appliance.Antenna, error) {
	id, err := newID(appliance.AntennaIDPrefix)
	if err != nil {
		return nil, fmt.Errorf("create antenna: %w", err)
	}
	now := s.now().Unix()
	a.ID, a.TenantID, a.CreatedUnix, a.UpdatedUnix = id, k.TenantID, now, now
	if a.Warnings == nil {
		a.Warnings = []appliance.Warning{}
	}
	audit := appliance.ActorFrom(ctx).Entry(appliance.ActionEquipmentCreate, k.TenantID, map[string]string{"kind": "antenna", "id": id, "source": a.Source.Format})
	if err := s.store.CreateAntenna(a, capFor(k), audit); err != nil {
		return nil, fmt.Errorf("create antenna: %w", err)
	}
	return a, nil
}

// ImportAntenna parses a pattern file (ParseAntennaFile) and stores it as
// a new antenna of the key's tenant within the tier's cap. Audited
// equipment.create.
func (s *Service) ImportAntenna(ctx context.Context, k *appliance.APIKey, in ImportInput) (*appliance.Antenna, error) {
	a, err := ParseAntennaFile(in)
	if err != nil {
		return nil, err
	}
	return s.create(ctx, k, a)
}

// ParseAntennaFile parses a pattern file (engines/antfile) into an
// antenna without storing it (the import route, and the CLI's antennas
// given as files). A malformed file is an appliance.ErrInvalid naming the
// line (field "file"); a file that states no gain, without in.GainDBi, is
// one naming gain_dbi. The file's warnings travel with the antenna.
func ParseAntennaFile(in ImportInput) (*appliance.Antenna, error) {
	f, err := antfile.Parse(in.FileName, in.Data, in.Format)
	if err != nil {
		var le *antfile.LineError
		if errors.As(err, &le) {
			return nil, appliance.Invalid("file", "%s: %s", in.FileName, le.Error())
		}
		if errors.Is(err, appliance.ErrInvalid) {
			return nil, appliance.Invalid("file", "%v", err)
		}
		return nil, fmt.Errorf("import antenna: %w", err)
	}
	sum := sha256.Sum256(in.Data)
	a := f.Antenna(in.FileName, hex.EncodeToString(sum[:]))
	if n := strings.TrimSpace(in.Name); n != "" {
		a.Name = n
	}
	if in.FreqMHz != 0 {
		a.FreqMHz = in.FreqMHz
	}
	if in.GainDBi != nil {
		a.GainDBi = *in.GainDBi
		a.Warnings = slices.DeleteFunc(a.Warnings, func(w appliance.Warning) bool { return w.Code == antfile.WarnNoGain })
	} else if math.IsNaN(f.GainDBi) {
		return nil, appliance.Invalid("gain_dbi", "a %s file states no gain: give gain_dbi", f.Format)
	}
	if err := a.Validate(); err != nil {
		return nil, err
	}
	return &a, nil
}

// UpdateAntenna replaces the tenant's antenna id by in (built-ins are
// read-only). Towers that mount it radiate the new pattern from then on.
// Audited equipment.update.
func (s *Service) UpdateAntenna(ctx context.Context, k *appliance.APIKey, id string, in AntennaInput) (*appliance.Antenna, error) {
	if builtinID(id) {
		return nil, errBuiltin
	}
	a, err := in.Build()
	if err != nil {
		return nil, err
	}
	a.ID, a.TenantID, a.UpdatedUnix, a.Warnings = id, k.TenantID, s.now().Unix(), []appliance.Warning{}
	audit := appliance.ActorFrom(ctx).Entry(appliance.ActionEquipmentUpdate, k.TenantID, map[string]string{"kind": "antenna", "id": id})
	err = s.store.ReplaceAntenna(a, audit)
	s.forget(k.TenantID, id)
	if err != nil {
		return nil, fmt.Errorf("update antenna: %w", err)
	}
	return a, nil
}

// DeleteAntenna deletes the tenant's antenna id; one that a tower of the
// tenant mounts is kept (appliance.ErrConflict naming the towers).
// Audited equipment.delete.
func (s *Service) DeleteAntenna(ctx context.Context, k *appliance.APIKey, id string) error {
	if builtinID(id) {
		return errBuiltin
	}
	audit := appliance.ActorFrom(ctx).Entry(appliance.ActionEquipmentDelete, k.TenantID, map[string]string{"kind": "antenna", "id": id})
	err := s.store.DeleteAntenna(k.TenantID, id, audit)
	s.forget(k.TenantID, id)
	return err
}

func cloneRadio(r *appliance.Radio) *appliance.Radio {
	c := *r
	c.Bands = slices.Clone(r.Bands)
	c.Channels = slices.Clone(r.Channels)
	for i := range c.Channels {
		c.Channels[i].Modes = slices.Clone(c.Channels[i].Modes)
	}
	return &c
}

func cloneAntenna(a *appliance.Antenna) *appliance.Antenna {
	c := *a
	c.Warnings = slices.Clone(a.Warnings)
	return &c // the pattern's slices are never written after construction
}
