package batch

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"linkplan/appliance"
)

// rowsUnit is the body of a batch.rows unit (encoding/gob, which keeps a
// tower's NaN fields): the rows of one chunk with their engine notes, and
// the tenant's own towers (a worker holds the public towers only; the
// tenant's are visible to its rows alone).
type rowsUnit struct {
	Version int
	From    int // index of the first row
	Rows    []Row
	Notes   map[int]string
	Towers  []*appliance.Tower
	// Antennas are the catalogue antennas Towers name, as their tenant
	// sees them (those that could not be read are left out: the worker
	// then warns as the appliance would).
	Antennas []*appliance.Antenna
}

const rowsUnitVersion = 2

// unitAntennas is the catalogue a worker's planner reads a unit's
// antennas from.
type unitAntennas []*appliance.Antenna

func (u unitAntennas) Antenna(tenantID, id string) (*appliance.Antenna, error) {
	for _, a := range u {
		if a.ID == id && (a.Builtin || a.TenantID == tenantID) {
			return a, nil
		}
	}
	return nil, fmt.Errorf("antenna %s: %w", id, appliance.ErrNotFound)
}

// UnitRows is how many rows one batch.rows unit holds (ChunkRows, the
// rows between two checkpoints).
const UnitRows = ChunkRows

// RowsRunner computes batch.rows units (appliance.UnitRunner): each row
// as the local job analyses it (analyzeRow under recover, on
// appliance.WorkersFrom goroutines), with the analyzer Analyzer gives for
// the unit's tenant towers.
type RowsRunner struct {
	// Analyzer returns the link analyzer over the public towers and the
	// unit's tenant towers, reading the antennas they name from antennas.
	Analyzer func(tenantTowers []*appliance.Tower, antennas appliance.AntennaCatalogue) LinkAnalyzer
	Workers  int // rows analysed at once; <= 0 is GOMAXPROCS
	Recover  *appliance.Recoverer
}

// RunUnit analyses the unit's rows and returns their results: for each
// row, its item's bytes (uvarint length, then the JSON of its RowResult,
// exactly the item a local job checkpoints).
func (r RowsRunner) RunUnit(ctx context.Context, u *appliance.WorkUnit) ([]byte, error) {
	if u.Kind != appliance.UnitBatchRows {
		return nil, fmt.Errorf("batch unit: kind %q: %w", u.Kind, appliance.ErrInvalid)
	}
	var ru rowsUnit
	if err := gob.NewDecoder(bytes.NewReader(u.Body)).Decode(&ru); err != nil {
		return nil, fmt.Errorf("batch unit %s: %v: %w", u.Key(), err, appliance.ErrInvalid)
	}
	if ru.Version != rowsUnitVersion || ru.From < 0 || len(ru.Rows) == 0 || len(ru.Rows) > 4*UnitRows || ru.From > 1<<20 {
		return nil, fmt.Errorf("batch unit %s: version %d, rows %d from %d: %w", u.Key(), ru.Version, len(ru.Rows), ru.From, appliance.ErrInvalid)
	}
	s := New(Deps{Analyzer: r.Analyzer(ru.Towers, unitAntennas(ru.Antennas)), Workers: r.Workers, Recover: r.Recover})
	// analyzeRow reads rows by their index in the job.
	p := &Payload{Version: PayloadVersion, Tier: u.Tier, TenantID: u.TenantID, Rows: make([]Row, ru.From+len(ru.Rows)), Notes: ru.Notes}
	copy(p.Rows[ru.From:], ru.Rows)
	out := make([]RowResult, len(ru.Rows))
	end, err := s.analyzeUntil(ctx, p, ru.From, len(p.Rows), out, time.Time{})
	if err != nil {
		return nil, err
	}
	if end != len(p.Rows) {
		return nil, fmt.Errorf("batch unit %s: %d of %d rows analysed", u.Key(), end-ru.From, len(ru.Rows))
	}
	var b []byte
	for i := range out {
		data, err := json.Marshal(&out[i])
		if err != nil {
			return nil, fmt.Errorf("batch unit %s: row %d: %w", u.Key(), ru.From+i, err)
		}
		b = binary.AppendUvarint(b, uint64(len(data)))
		b = append(b, data...)
	}
	return b, nil
}

// decodeRows splits a batch.rows result into the items of rows from,
// from+1, ...; n rows are expected.
func decodeRows(res []byte, from, n int) ([]appliance.JobItem, error) {
	items := make([]appliance.JobItem, 0, n)
	for len(res) > 0 {
		l, k := binary.Uvarint(res)
		if k <= 0 || l > uint64(len(res)-k) {
			return nil, fmt.Errorf("malformed rows result: %w", appliance.ErrInvalid)
		}
		items = append(items, appliance.JobItem{Index: int64(from + len(items)), Data: res[k : k+int(l)]})
		res = res[k+int(l):]
	}
	if len(items) != n {
		return nil, fmt.Errorf("%d rows in the result, %d expected: %w", len(items), n, appliance.ErrInvalid)
	}
	return items, nil
}

// runUnits analyses rows [next, len(p.Rows)) of the job as batch.rows
// units of the executor (Deps.Units): each unit's rows are checkpointed
// as its result arrives, whatever the order; the cursor is the first row
// of the first chunk not yet merged, so that a resumed job redoes only
// the chunks after it (their rewritten items replace themselves). The
// antennas the tenant's towers name go with the units; without a
// catalogue to read them from (Deps.Antennas nil) it sends nothing and
// answers false, and the rows are analysed here (doc.go, "Units").
func (h handler) runUnits(ctx context.Context, run appliance.JobRun, p *Payload, next int) (bool, error) {
	s, j := h.s, run.Job()
	var towers []*appliance.Tower
	if s.d.TenantTowers != nil {
		var err error
		if towers, err = s.d.TenantTowers(ctx, p.TenantID); err != nil {
			return false, fmt.Errorf("batch job %s: tenant towers: %w", j.ID, err)
		}
	}
	var antennas []*appliance.Antenna
	for _, t := range towers {
		if t.AntennaID == "" || slices.ContainsFunc(antennas, func(a *appliance.Antenna) bool { return a.ID == t.AntennaID }) {
			continue
		}
		if s.d.Antennas == nil {
			return false, nil
		}
		if a, err := s.d.Antennas.Antenna(t.OwnerTenantID, t.AntennaID); err == nil {
			antennas = append(antennas, a)
		}
	}
	var in appliance.Inputs
	if s.d.Inputs != nil {
		in = s.d.Inputs()
	}
	type chunk struct{ from, to int }
	var chunks []chunk
	for from := next; from < len(p.Rows); from += UnitRows {
		chunks = append(chunks, chunk{from, min(from+UnitRows, len(p.Rows))})
	}
	units := make([]appliance.WorkUnit, len(chunks))
	for i, c := range chunks {
		ru := rowsUnit{Version: rowsUnitVersion, From: c.from, Rows: p.Rows[c.from:c.to], Towers: towers, Antennas: antennas}
		for k := c.from; k < c.to; k++ {
			if note, ok := p.Notes[k]; ok {
				if ru.Notes == nil {
					ru.Notes = map[int]string{}
				}
				ru.Notes[k] = note
			}
		}
		var body bytes.Buffer
		if err := gob.NewEncoder(&body).Encode(&ru); err != nil {
			return false, fmt.Errorf("batch job %s: unit %d: %w", j.ID, i, err)
		}
		units[i] = appliance.WorkUnit{JobID: j.ID, Run: strconv.FormatUint(j.LeaseToken, 10), Index: i, Kind: appliance.UnitBatchRows,
			TenantID: j.TenantID, Tier: p.Tier, Inputs: in, Body: body.Bytes()}
	}
	merged := make([]bool, len(chunks))
	first, done := 0, next
	return true, s.d.Units.Execute(ctx, units, func(i int, res []byte) error {
		c := chunks[i]
		items, err := decodeRows(res, c.from, c.to-c.from)
		if err != nil {
			return err
		}
		merged[i] = true
		done += c.to - c.from
		for first < len(chunks) && merged[first] {
			first++
		}
		cursorAt := len(p.Rows)
		if first < len(chunks) {
			cursorAt = chunks[first].from
		}
		cur, _ := json.Marshal(cursor{Next: cursorAt})
		if err := run.Checkpoint(ctx, appliance.JobProgress{Done: int64(min(done, len(p.Rows))), Cursor: cur}, items); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("checkpoint of rows %d-%d: %w", c.from, c.to-1, err)
		}
		return nil
	})
}
