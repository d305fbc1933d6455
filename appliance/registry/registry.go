package registry

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math"
	"strings"
	"time"

	"linkplan/appliance"
)

// ProvenanceRegistered is the provenance of a tower stored by Register.
const ProvenanceRegistered = "registered through POST /towers"

// Store persists user towers with their audit entries in one transaction
// (store.DB).
type Store interface {
	PutUserTower(t *appliance.Tower, maxPerOwner int, audit ...appliance.AuditEntry) error
}

// Input is a registration as the client gave it; nil means absent.
type Input struct {
	Operator      *string
	Lat, Lon      *float64 // degrees
	Height        *float64 // metres above ground
	Power         *float64 // ERP, dBm
	Azimuth       *float64 // degrees from north
	Tilt          *float64 // degrees, positive down (the mechanical downtilt of the antenna)
	AntennaID     *string  // a catalogue antenna (appliance/equipment) the tower radiates with
	GainDBi       *float64 // the antenna's peak gain, dBi (with Power: the transmitter's power is Power + 2.15 − GainDBi)
	BeamwidthDeg  *float64 // the generic antenna's horizontal 3 dB beamwidth, degrees
	FrontBackDB   *float64 // the generic antenna's front-to-back ratio, dB
	StationNumber *string
	Technologies  []string
	BandsMHz      []float64
}

// Client is where a registration comes from, for the audit entry.
type Client struct {
	IP        string
	UserAgent string
	RequestID string
}

// Service registers user towers. It is safe for concurrent use.
type Service struct {
	store    Store
	live     func(*appliance.Tower)
	now      func() time.Time
	antennas appliance.AntennaCatalogue
}

// WithAntennas makes Register check a tower's antenna_id against cat
// (CheckAntenna); without it a tower naming an antenna is refused.
func (s *Service) WithAntennas(cat appliance.AntennaCatalogue) *Service {
	s.antennas = cat
	return s
}

// New returns a Service writing to store; live (may be nil) receives each
// tower after its commit; now nil means time.Now.
func New(store Store, live func(*appliance.Tower), now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	if live == nil {
		live = func(*appliance.Tower) {}
	}
	return &Service{store: store, live: live, now: now}
}

// Register validates in, stores the tower owned by key with its audit entry
// and adds it to the live indexes. Errors: appliance.ErrInvalid (a
// ValidationError naming every bad field), appliance.ErrQuota (the key's
// cap), appliance.ErrConflict (id collision), or the store's error.
func (s *Service) Register(ctx context.Context, key *appliance.APIKey, in Input, c Client) (*appliance.Tower, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("register tower: %w", err)
	}
	t, err := Validate(in)
	v := &appliance.ValidationError{}
	if ve, ok := err.(*appliance.ValidationError); ok {
		v = ve
	} else if err != nil {
		return nil, err
	}
	CheckAntenna(s.antennas, key.TenantID, t, "", v)
	if err := v.Err(); err != nil {
		return nil, err // the ValidationError itself: its fields are the answer
	}
	var raw [8]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return nil, fmt.Errorf("register tower: random id: %w", err)
	}
	t.ID = appliance.TowerID(appliance.SourceUser, hex.EncodeToString(raw[:]))
	t.OwnerKeyID, t.OwnerTenantID = key.ID, key.TenantID
	t.Provenance = ProvenanceRegistered
	t.UpdatedUnix = s.now().Unix()
	limit := key.Tier.TowersPerKey()
	if key.Role == appliance.RoleAdmin {
		limit = -1
	}
	audit := appliance.AuditEntry{Action: "tower.register", ActorKey: key.ID, ActorEmail: key.Email,
		TenantID: key.TenantID, Route: "/towers", Params: map[string]string{"tower_id": t.ID},
		IP: c.IP, UserAgent: c.UserAgent, RequestID: c.RequestID}
	if err := s.store.PutUserTower(t, limit, audit); err != nil {
		return nil, fmt.Errorf("register tower: %w", err)
	}
	s.live(t) // only after the commit succeeded
	return t, nil
}

// Validate applies the field rules of the package doc and returns the tower
// without id, owner or provenance (also used for ad hoc towers given in a
// request, which the caller labels). The
// error is a *appliance.ValidationError naming every bad field; the tower is
// returned with it.
func Validate(q Input) (*appliance.Tower, error) {
	v := &appliance.ValidationError{}
	t := &appliance.Tower{Source: appliance.SourceUser, HeightM: appliance.DefaultTowerHeightM, ERPDBm: math.NaN(),
		AzimuthDeg: math.NaN(), TiltDeg: math.NaN(), BeamwidthDeg: math.NaN(), FrontBackDB: math.NaN(),
		Placement: appliance.PlacementSurveyed, UncertaintyM: 10}
	if q.Operator == nil || strings.TrimSpace(*q.Operator) == "" || len(*q.Operator) > 64 {
		v.Add("operator", "is required, 1 to 64 characters")
	} else {
		t.Operator = strings.TrimSpace(*q.Operator)
	}
	num := func(p *float64, name string, min, max float64, required bool, dst *float64) {
		switch {
		case p == nil && required:
			v.Add(name, "is required")
		case p == nil:
		case math.IsNaN(*p) || *p < min || *p > max:
			v.Add(name, "must be between %g and %g, got %g", min, max, *p)
		default:
			*dst = *p
		}
	}
	num(q.Lat, "lat", -90, 90, true, &t.Lat)
	num(q.Lon, "lon", -180, 180, true, &t.Lon)
	num(q.Height, "height_m", 0.5, 500, false, &t.HeightM)
	num(q.Power, "power", -30, 100, false, &t.ERPDBm)
	num(q.Azimuth, "azimuth", 0, 360, false, &t.AzimuthDeg)
	num(q.Tilt, "tilt", -90, 90, false, &t.TiltDeg)
	if q.GainDBi != nil {
		gain := math.NaN()
		num(q.GainDBi, "gain_dbi", -30, 70, false, &gain)
		switch {
		case q.Power == nil:
			v.Add("gain_dbi", "needs power (the ERP): a tower record keeps the transmitter power and the antenna gain together")
		case !math.IsNaN(gain) && !math.IsNaN(t.ERPDBm):
			t.TxGainDBi, t.TxPowerDBm, t.HasTx = gain, t.ERPDBm+2.15-gain, true
		}
	}
	num(q.BeamwidthDeg, "beamwidth_deg", 0.1, 360, false, &t.BeamwidthDeg)
	num(q.FrontBackDB, "front_back_db", 0.1, 100, false, &t.FrontBackDB)
	if t.AzimuthDeg == 360 {
		t.AzimuthDeg = 0
	}
	if q.StationNumber != nil {
		if len(*q.StationNumber) > 32 {
			v.Add("station_number", "must be at most 32 characters")
		}
		t.StationNumber = *q.StationNumber
	}
	if len(q.Technologies) > 16 {
		v.Add("technologies", "at most 16 entries")
	}
	for i, s := range q.Technologies {
		if s == "" || len(s) > 16 {
			v.Add(fmt.Sprintf("technologies[%d]", i), "must be 1 to 16 characters")
		}
	}
	t.Technologies = q.Technologies
	if len(q.BandsMHz) > 32 {
		v.Add("bands_mhz", "at most 32 entries")
	}
	for i, b := range q.BandsMHz {
		if math.IsNaN(b) || b < 1 || b > 100000 {
			v.Add(fmt.Sprintf("bands_mhz[%d]", i), "must be between 1 and 100000 MHz, got %g", b)
		}
	}
	t.BandsMHz = q.BandsMHz
	if q.AntennaID != nil {
		if id := strings.TrimSpace(*q.AntennaID); id == "" || len(id) > 64 {
			v.Add("antenna_id", "must be a catalogue antenna id of 1 to 64 characters")
		} else {
			t.AntennaID = id
		}
	}
	return t, v.Err()
}

// CheckAntenna checks the catalogue antenna a tower names (t.AntennaID,
// nothing to check when empty) as tenantID sees it: it must exist (a
// built-in or one of the tenant's own; another tenant's reads as unknown),
// and a directional one needs the tower's azimuth. Bad fields go to v,
// named under prefix ("" or "tower."); cat nil refuses every antenna.
func CheckAntenna(cat appliance.AntennaCatalogue, tenantID string, t *appliance.Tower, prefix string, v *appliance.ValidationError) {
	if t == nil || t.AntennaID == "" {
		return
	}
	if cat == nil {
		v.Add(prefix+"antenna_id", "the equipment catalogue is not configured on this appliance")
		return
	}
	a, err := cat.Antenna(tenantID, t.AntennaID)
	if err != nil {
		v.Add(prefix+"antenna_id", "no antenna %q in the catalogue of this tenant (GET /equipment/antennas lists them)", t.AntennaID)
		return
	}
	if a.Directional() && math.IsNaN(t.AzimuthDeg) {
		v.Add(prefix+"azimuth", "is required with the directional antenna %s (%.3g° horizontal beamwidth)", t.AntennaID, a.HBeamwidthDeg)
	}
}
