package batch

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/zip"

	"linkplan/appliance"
	"linkplan/appliance/geoexport"
	"linkplan/appliance/report"
)

// Bundle entry names, in the order they are written (doc.go, "Bundle").
const (
	FileResultsCSV = "results.csv"
	FileGeoJSON    = "results.geojson"
	FileKML        = "results.kml"
	FileShapefile  = "results" // + .shp .shx .dbf .prj .cpg
	FileSummaryPDF = "summary.pdf"
	FileManifest   = "manifest.json"
	DirReports     = "reports/" // row-00001.pdf … (1-based row number)
)

// ResultColumns returns the columns of results.csv, in order.
func ResultColumns() []string {
	return append(legacyResultColumns(), "synthetic", "position_uncertainty_m", "warning_messages")
}

// legacyResultColumns are the columns of results.csv before the tower's
// caveats (synthetic, position_uncertainty_m) and the warning messages
// were added at the end; ReadResults still reads bundles written then.
func legacyResultColumns() []string {
	return []string{
		"row", "receiver_id", "lat", "lon", "height_m", "frequency_mhz", "max_distance_km",
		"rx_gain_dbi", "cable_loss_db", "rx_threshold_dbm", "assumed_eirp_dbm", "operator_filter",
		"best_tower_id", "operator", "distance_km", "azimuth_deg", "rx_power_dbm", "margin_db",
		"eirp_assumed", "engine", "engine_version", "status", "warnings", "reason",
	}
}

// WarningMessageSep separates the messages of the warning_messages column
// of results.csv (one per code of the warnings column, same order); a '|'
// inside a message is written as '/'.
const WarningMessageSep = " | "

// warningCells returns the warnings and warning_messages cells of ws.
func warningCells(ws []appliance.Warning) (codes, messages string) {
	ms := make([]string, len(ws))
	for i, w := range ws {
		ms[i] = strings.ReplaceAll(w.Message, "|", "/")
	}
	return strings.Join(appliance.WarningCodes(ws), ";"), strings.Join(ms, WarningMessageSep)
}

// ReportName returns the bundle name of the PDF report of row index i
// (0-based): reports/row-00001.pdf for the first row.
func ReportName(i int) string { return fmt.Sprintf("%srow-%05d.pdf", DirReports, i+1) }

// bundle holds what one bundle is written from.
type bundle struct {
	s       *Service
	job     *appliance.Job
	p       *Payload
	results []RowResult

	pdfRows       []int // row indices granted a PDF, ascending
	pdfCandidates int   // rows with a best tower
	pdfReason     string
	quota         *QuotaInfo
	included      int // PDFs written
	counts        Counts
}

// QuotaInfo is the PDF quota state of a job (manifest).
type QuotaInfo struct {
	MonthlyLimit int `json:"monthly_limit"`
	UsedBefore   int `json:"used_before_this_job"`
	Wanted       int `json:"wanted"`
	Granted      int `json:"granted"`
}

// reservePDFs decides which rows get a PDF: the rows with a best tower, in
// row order, as many as the quota grants for the job's month (the month of
// its creation).
func (b *bundle) reservePDFs(ctx context.Context) error {
	b.counts = Counts{}
	var cands []int
	for i, r := range b.results {
		b.counts.Add(r.Status)
		if (r.Status == StatusOK || r.Status == StatusLowMargin) && r.TowerID != "" {
			cands = append(cands, i)
		}
	}
	b.pdfCandidates = len(cands)
	switch {
	case !b.p.Options.PDFs:
		b.pdfReason = "PDF reports were not asked for"
		return nil
	case len(cands) == 0:
		return nil
	case b.s.d.Quota == nil:
		b.pdfReason = "PDF reports are not available on this appliance (no PDF quota store)"
		return nil
	}
	limit := PDFLimit(b.p.Tier)
	granted, used, err := b.s.d.Quota.ReservePDFs(ctx, b.p.TenantID, b.job.ID, len(cands), limit, b.created())
	if err != nil {
		return fmt.Errorf("reserve PDF reports: %w", err)
	}
	granted = max(0, min(granted, len(cands)))
	b.quota = &QuotaInfo{MonthlyLimit: limit, UsedBefore: used, Wanted: len(cands), Granted: granted}
	b.pdfRows = cands[:granted]
	if granted < len(cands) {
		b.pdfReason = fmt.Sprintf("monthly PDF quota of the %s tier (%d) reached: %d used before this job", b.p.Tier, limit, used)
	}
	return nil
}

// created is the bundle's fixed time: the job's creation (FixedDate when
// zero).
func (b *bundle) created() time.Time {
	if b.job.Created.IsZero() {
		return geoexport.FixedDate()
	}
	return b.job.Created.UTC()
}

func (b *bundle) summaryJSON() Summary {
	return Summary{Counts: b.counts, PDFsIncluded: b.included, PDFsLeftOut: b.pdfCandidates - b.included, PDFsReason: b.pdfReason}
}

// ManifestFile is one file of the bundle.
type ManifestFile struct {
	Name   string `json:"name"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// ManifestEngine is one engine that produced results.
type ManifestEngine struct {
	ID      string `json:"id"`
	Version string `json:"version"`
	Rows    int    `json:"rows"`
}

// Manifest is manifest.json, the last entry of a bundle.
type Manifest struct {
	JobID          string           `json:"job_id"`
	TenantID       string           `json:"tenant_id"`
	Tier           appliance.Tier   `json:"tier"`
	Created        time.Time        `json:"created"`
	Submitted      time.Time        `json:"submitted"`
	Rows           int              `json:"rows"`
	Counts         Counts           `json:"counts"`
	Engines        []ManifestEngine `json:"engines"`
	DataProvenance struct {
		Terrain string `json:"terrain"`
	} `json:"data_provenance"`
	Language          report.Language `json:"language"`
	PDFsRequested     bool            `json:"pdfs_requested"`
	PDFsIncluded      int             `json:"pdfs_included"`
	PDFsLeftOut       int             `json:"pdfs_left_out"`
	PDFsLeftOutReason string          `json:"pdfs_left_out_reason,omitempty"`
	PDFQuota          *QuotaInfo      `json:"pdf_quota,omitempty"`
	CSVColumns        []string        `json:"csv_columns"`
	// ShapefileFields maps the long attribute names (GeoJSON, KML) to the
	// dBase names of results.dbf (at most 10 characters).
	ShapefileFields []ShapefileField `json:"shapefile_fields"`
	// Files are every other file of the bundle, in bundle order.
	Files []ManifestFile `json:"files"`
}

// ShapefileField is one attribute's long and dBase names.
type ShapefileField struct {
	Name    string `json:"name"`
	DBFName string `json:"dbf_name"`
}

// zipWriter writes entries and records their size and digest.
type zipWriter struct {
	zw    *zip.Writer
	mod   time.Time
	files []ManifestFile
}

type countingHash struct {
	h hash.Hash
	n int64
}

func (c *countingHash) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return c.h.Write(p)
}

func (z *zipWriter) add(name string, write func(w io.Writer) error) error {
	w, err := z.zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: z.mod})
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	ch := &countingHash{h: sha256.New()}
	if err := write(io.MultiWriter(w, ch)); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	z.files = append(z.files, ManifestFile{Name: name, Bytes: ch.n, SHA256: hex.EncodeToString(ch.h.Sum(nil))})
	return nil
}

// write writes the zip bundle to w.
func (b *bundle) write(ctx context.Context, w io.Writer) error {
	z := &zipWriter{zw: zip.NewWriter(w), mod: b.created()}
	if err := z.add(FileResultsCSV, b.writeCSV); err != nil {
		return err
	}
	schema := geoexport.LinkSchema()
	src := b.features()
	if err := z.add(FileGeoJSON, func(w io.Writer) error { return geoexport.WriteGeoJSON(w, schema, src) }); err != nil {
		return err
	}
	if err := z.add(FileKML, func(w io.Writer) error { return geoexport.WriteKML(w, schema, src, geoexport.LinkKMLOptions()) }); err != nil {
		return err
	}
	var shp, shx, dbf, prj, cpg bytes.Buffer
	set := geoexport.ShapefileSet{SHP: &shp, SHX: &shx, DBF: &dbf, PRJ: &prj, CPG: &cpg}
	if err := geoexport.WriteShapefile(set, schema, src, geoexport.ShapefileOptions{Updated: b.created()}); err != nil {
		return err
	}
	for _, f := range []struct {
		ext string
		b   *bytes.Buffer
	}{{".shp", &shp}, {".shx", &shx}, {".dbf", &dbf}, {".prj", &prj}, {".cpg", &cpg}} {
		if err := z.add(FileShapefile+f.ext, func(w io.Writer) error { _, err := w.Write(f.b.Bytes()); return err }); err != nil {
			return err
		}
	}
	if err := b.writeReports(ctx, z); err != nil {
		return err
	}
	if err := z.add(FileSummaryPDF, b.writeSummary); err != nil {
		return err
	}
	m := b.manifest(z.files)
	if err := z.add(FileManifest, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(m)
	}); err != nil {
		return err
	}
	if err := z.zw.Close(); err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	return nil
}

func (b *bundle) manifest(files []ManifestFile) *Manifest {
	m := &Manifest{JobID: b.job.ID, TenantID: b.p.TenantID, Tier: b.p.Tier, Created: b.created(), Submitted: b.p.Submitted,
		Rows: len(b.results), Counts: b.counts, Language: b.p.Options.Language, PDFsRequested: b.p.Options.PDFs,
		PDFsIncluded: b.included, PDFsLeftOut: b.pdfCandidates - b.included, PDFsLeftOutReason: b.pdfReason,
		PDFQuota: b.quota, CSVColumns: ResultColumns(), Files: files}
	m.DataProvenance.Terrain = b.s.d.Terrain
	m.Engines = b.engines()
	schema := geoexport.LinkSchema()
	for i, n := range geoexport.ShortNames(schema) {
		m.ShapefileFields = append(m.ShapefileFields, ShapefileField{Name: schema.Fields[i].Name, DBFName: n})
	}
	return m
}

// engines returns the engines and versions of the rows that ran, sorted.
func (b *bundle) engines() []ManifestEngine {
	n := map[[2]string]int{}
	for _, r := range b.results {
		if r.Status != StatusError && r.Engine != "" {
			n[[2]string{r.Engine, r.EngineVersion}]++
		}
	}
	out := make([]ManifestEngine, 0, len(n))
	for k, c := range n {
		out = append(out, ManifestEngine{ID: k[0], Version: k[1], Rows: c})
	}
	slices.SortFunc(out, func(a, b ManifestEngine) int {
		if c := strings.Compare(a.ID, b.ID); c != 0 {
			return c
		}
		return strings.Compare(a.Version, b.Version)
	})
	return out
}

// fnum is a number cell of results.csv; empty when absent.
func fnum(p *float64) csvCell {
	if p == nil {
		return number("")
	}
	return number(strconv.FormatFloat(*p, 'f', -1, 64))
}

// writeCSV writes results.csv: RFC 4180 (CRLF), ',' separator, '.'
// decimals, one line per input row. Numbers are bare; every text cell,
// the header's included, is enclosed in double quotes and neutralised
// with geoexport.SpreadsheetSafe (geoexport's doc, "Spreadsheet safety"),
// so that no id, site name or operator name is read as a formula.
func (b *bundle) writeCSV(w io.Writer) error {
	bw := bufio.NewWriter(w)
	line := func(cells []csvCell) {
		for i, c := range cells {
			if i > 0 {
				bw.WriteByte(',')
			}
			if c.num {
				bw.WriteString(c.s)
				continue
			}
			bw.WriteByte('"')
			bw.WriteString(strings.ReplaceAll(geoexport.SpreadsheetSafe(c.s), `"`, `""`))
			bw.WriteByte('"')
		}
		bw.WriteString("\r\n")
	}
	head := ResultColumns()
	rec := make([]csvCell, len(head))
	for i, h := range head {
		rec[i] = text(h)
	}
	line(rec)
	for i, r := range b.results {
		codes, messages := warningCells(r.Warnings)
		rec = append(rec[:0], number(strconv.Itoa(i+1)), text(r.ReceiverID), fnum(r.Lat), fnum(r.Lon), fnum(r.HeightM), fnum(r.FreqMHz),
			fnum(r.MaxDistanceKm), fnum(r.RxGainDBi), fnum(r.CableLossDB), fnum(r.RxThresholdDBm), fnum(r.AssumedEIRPDBm),
			text(r.OperatorFilter), text(r.TowerID), text(r.Operator), fnum(r.DistanceKm), fnum(r.AzimuthDeg), fnum(r.RxPowerDBm), fnum(r.MarginDB),
			number(strconv.FormatBool(r.EIRPAssumed)), text(r.Engine), text(r.EngineVersion), text(r.Status), text(codes), text(r.Reason),
			number(strconv.FormatBool(r.Synthetic)), fnum(r.PositionUncertaintyM), text(messages))
		line(rec)
	}
	return bw.Flush()
}

// csvCell is one cell of results.csv: a number (or boolean), written
// bare, or a text, quoted and neutralised.
type csvCell struct {
	s   string
	num bool
}

func text(s string) csvCell   { return csvCell{s: s} }
func number(s string) csvCell { return csvCell{s: s, num: true} }

func orNaN(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// features yields the rows with a valid position as link features (a row
// whose position is missing or out of range has no geometry: it is only in
// results.csv).
func (b *bundle) features() geoexport.Source {
	return func(yield func(geoexport.Feature) bool) {
		for i, r := range b.results {
			if r.Lat == nil || r.Lon == nil {
				continue
			}
			pos := appliance.LatLon{Lat: *r.Lat, Lon: *r.Lon}
			if !pos.Valid() {
				continue
			}
			lr := geoexport.LinkRow{ReceiverID: r.ReceiverID, Row: int64(i + 1), Receiver: pos, TowerID: r.TowerID, Operator: r.Operator,
				DistanceKm: orNaN(r.DistanceKm), AzimuthDeg: orNaN(r.AzimuthDeg), MarginDB: orNaN(r.MarginDB), RxPowerDBm: orNaN(r.RxPowerDBm),
				Engine: r.Engine, Status: r.Status, Warnings: appliance.WarningCodes(r.Warnings), EIRPAssumed: r.EIRPAssumed,
				Synthetic: r.Synthetic, PositionUncertaintyM: orNaN(r.PositionUncertaintyM)}
			if !yield(lr.Feature()) {
				return
			}
		}
	}
}

func (b *bundle) reportOptions() report.Options {
	return report.Options{Language: b.p.Options.Language, Branding: b.p.Options.Branding, Created: b.created()}
}

// writeReports writes the granted rows' PDF link reports, each from the
// row's analysis re-run with its profile. Reports are rendered in parallel
// windows and written in row order. A report whose rendering panics is
// left out, and the reason of the left-out reports names its row and the
// reference of the logged panic; the other reports go on.
func (b *bundle) writeReports(ctx context.Context, z *zipWriter) error {
	workers := appliance.WorkersFrom(ctx, b.s.d.Workers)
	b.included = 0
	var failed []int // rows (1-based) whose report panicked
	var failure error
	for start := 0; start < len(b.pdfRows); start += workers {
		window := b.pdfRows[start:min(start+workers, len(b.pdfRows))]
		pdfs := make([][]byte, len(window))
		errs := make([]error, len(window))
		var wg sync.WaitGroup
		for k, i := range window {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer b.s.d.Recover.Recover(ctx, "batch.pdf", &errs[k])
				pdfs[k], errs[k] = b.renderReport(ctx, i)
			}()
		}
		wg.Wait()
		if err := ctx.Err(); err != nil {
			return err
		}
		for k, i := range window {
			var pe *appliance.PanicError
			if errors.As(errs[k], &pe) {
				failed, failure = append(failed, i+1), pe
				continue
			}
			if errs[k] != nil {
				return fmt.Errorf("row %d report: %w", i+1, errs[k])
			}
			if pdfs[k] == nil {
				continue
			}
			if err := z.add(ReportName(i), func(w io.Writer) error { _, err := w.Write(pdfs[k]); return err }); err != nil {
				return err
			}
			b.included++
		}
	}
	if b.included+len(failed) < len(b.pdfRows) && b.pdfReason == "" {
		b.pdfReason = "the re-run of some rows with their profile found no tower"
	}
	if len(failed) > 0 {
		rows := make([]string, 0, 5)
		for _, r := range failed[:min(len(failed), 5)] {
			rows = append(rows, strconv.Itoa(r))
		}
		if len(failed) > 5 {
			rows = append(rows, fmt.Sprintf("and %d more", len(failed)-5))
		}
		what := "the reports of rows"
		if len(failed) == 1 {
			what = "the report of row"
		}
		why := fmt.Sprintf("%s %s could not be drawn: %v", what, strings.Join(rows, ", "), failure)
		if b.pdfReason != "" {
			why = b.pdfReason + "; " + why
		}
		b.pdfReason = why
	}
	return nil
}

// renderReport re-runs row i with its profile and renders its report; nil
// when the re-run has no best tower.
func (b *bundle) renderReport(ctx context.Context, i int) ([]byte, error) {
	_, a := b.s.analyzeRow(ctx, b.p, i, true)
	if a == nil || a.Best == nil {
		return nil, ctx.Err()
	}
	var buf bytes.Buffer
	if err := report.Write(&buf, report.Input{Candidate: a.Best, Request: a.Request, ReceiverGroundM: a.ReceiverGroundM, Caveats: a.BestTowerCaveats}, b.reportOptions()); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func (b *bundle) writeSummary(w io.Writer) error {
	in := report.SummaryInput{JobID: b.job.ID, TenantID: b.p.TenantID, PDFsIncluded: b.included,
		PDFsLeftOut: b.pdfCandidates - b.included, PDFsLeftOutReason: b.pdfReason}
	for _, e := range b.engines() {
		in.Engines = append(in.Engines, strings.TrimSpace(e.ID+" "+e.Version))
	}
	if b.s.d.Terrain != "" {
		in.Provenance = append(in.Provenance, "Terrain: "+b.s.d.Terrain)
	}
	in.Rows = make([]report.SummaryRow, len(b.results))
	for i, r := range b.results {
		lat, lon := orNaN(r.Lat), orNaN(r.Lon)
		in.Rows[i] = report.SummaryRow{Row: int64(i + 1), ReceiverID: r.ReceiverID, Lat: lat, Lon: lon, TowerID: r.TowerID,
			DistanceKm: orNaN(r.DistanceKm), MarginDB: orNaN(r.MarginDB), Status: r.Status, Reason: r.Reason}
	}
	return report.WriteSummary(w, in, b.reportOptions())
}
