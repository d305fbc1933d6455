package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"linkplan/appliance/cmd/linkplan/assemble"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/equipment"
	"linkplan/appliance/geoexport"
	"linkplan/appliance/ptp"
	"linkplan/appliance/report"
	"linkplan/engines"
	"linkplan/engines/itur"
	"linkplan/web/api"
)

const ptpUsage = `usage:
  linkplan ptp --from LAT,LON,H --to LAT,LON,H --frequency-mhz F --channel-mhz W
               --radio RADIO [--to-radio RADIO] --antenna ANTENNA [--to-antenna ANTENNA]
               [--polarization vertical|horizontal|dual] [--engine ID] [--availability-pct P]
               [--from-azimuth-deg A] [--from-tilt-deg T] [--to-azimuth-deg A] [--to-tilt-deg T]
               [--from-cable-loss-db L] [--to-cable-loss-db L] [--r001-mmh R]
               [--from-name S] [--to-name S] [--from-station N] [--to-station N]
               [--terrain PACK]... [--json] [--report FILE.pdf [--language en|pt-BR]
               [--art N] [--engineer-name S] [--engineer-registration S]] [--export FILE.geojson|.kml|.kmz]
      plan a point-to-point link offline (the computation of POST /links/ptp, appliance/ptp):
      the path check, and for each mode of the radios the received level both ways, the fade
      margin, the throughput and the ITU-R P.530-17 availability with its annual outage minutes;
      the fastest mode that meets --availability-pct (default 99.99) and the fade margins
      99.9/99.99/99.999 % need. --from is end A, --to end B: WGS84 degrees and the antenna
      height above ground, metres. RADIO is a built-in id (builtin:wifi5-2x2,
      builtin:microwave-11-23ghz, builtin:eband-80ghz) or a JSON file written as the body of
      POST /equipment/radios; ANTENNA a built-in id (builtin:dish-38dbi, ...) or a pattern file
      (Planet/MSI .msi/.pln/.txt, NSMA .adf, Radio Mobile .ant; --antenna-gain-dbi when it states
      no gain). The --to-* equipment defaults to the --from one. Azimuth and tilt default to
      aligned on the other end. Prints a table (or, with --json, the body POST /links/ptp
      answers); --report writes the PDF report, --export the sites and the link as a geo file.
      Exit 0 with an answer (a warning says when no mode meets the target), 2 on a bad flag
      (the message names it), 1 otherwise.
`

// builtinCatalogue is the catalogue of the command line: the built-in
// generic examples (equipment.Builtins); a tenant's records live in a
// served appliance's database, out of reach here.
type builtinCatalogue struct {
	radios   []*appliance.Radio
	antennas []*appliance.Antenna
}

func (c *builtinCatalogue) Radio(_, id string) (*appliance.Radio, error) {
	for _, r := range c.radios {
		if r.ID == id {
			return r, nil
		}
	}
	return nil, fmt.Errorf("radio %q: %w", id, appliance.ErrNotFound)
}

func (c *builtinCatalogue) Antenna(_, id string) (*appliance.Antenna, error) {
	for _, a := range c.antennas {
		if a.ID == id {
			return a, nil
		}
	}
	return nil, fmt.Errorf("antenna %q: %w", id, appliance.ErrNotFound)
}

// ptpFlagOf names the flag of a field of ptp.Validate and the planner's
// refusals.
func ptpFlagOf(field string) string {
	end, rest, ok := strings.Cut(field, ".")
	if !ok {
		switch field {
		case "a":
			return "--from"
		case "b":
			return "--to"
		case "frequency_mhz":
			return "--frequency-mhz"
		case "channel_mhz":
			return "--channel-mhz"
		case "availability_target_pct":
			return "--availability-pct"
		case "r001_mmh":
			return "--r001-mmh"
		}
		return "--" + strings.ReplaceAll(field, "_", "-")
	}
	side := map[string]string{"a": "from", "b": "to"}[end]
	if side == "" {
		return field
	}
	switch {
	case rest == "lat" || rest == "lon" || rest == "height_m":
		return "--" + side
	case strings.HasPrefix(rest, "radio") && end == "a":
		return "--radio"
	case strings.HasPrefix(rest, "antenna") && end == "a":
		return "--antenna"
	case strings.HasPrefix(rest, "radio"):
		return "--to-radio (or --radio)"
	case strings.HasPrefix(rest, "antenna"):
		return "--to-antenna (or --antenna)"
	case rest == "anatel_station":
		return "--" + side + "-station"
	}
	return "--" + side + "-" + strings.ReplaceAll(rest, "_", "-")
}

func ptpUsageErr(flagName, format string, args ...any) error {
	return fmt.Errorf("ptp: %s: %s: %w", flagName, fmt.Sprintf(format, args...), errUsage)
}

// radioArg sets an end's radio from a flag value: a built-in id, else a
// radio JSON file.
func radioArg(flagName, v string, e *appliance.PTPEnd) error {
	if strings.HasPrefix(v, appliance.BuiltinIDPrefix) {
		e.RadioID = v
		return nil
	}
	data, err := os.ReadFile(v)
	if err != nil {
		return ptpUsageErr(flagName, "neither a built-in radio id (builtin:...) nor a readable file: %v", err)
	}
	r, err := api.RadioFromJSON(data)
	if err != nil {
		return ptpUsageErr(flagName, "%s: %v", v, err)
	}
	e.Radio = r
	return nil
}

// antennaArg sets an end's antenna from a flag value: a built-in id,
// else a pattern file (gain, when not nil, in place of the file's).
func antennaArg(flagName, v string, gain *float64, e *appliance.PTPEnd) error {
	if strings.HasPrefix(v, appliance.BuiltinIDPrefix) {
		e.AntennaID = v
		return nil
	}
	data, err := os.ReadFile(v)
	if err != nil {
		return ptpUsageErr(flagName, "neither a built-in antenna id (builtin:...) nor a readable pattern file: %v", err)
	}
	a, err := equipment.ParseAntennaFile(equipment.ImportInput{FileName: filepath.Base(v), Data: data, GainDBi: gain})
	if err != nil {
		var ve *appliance.ValidationError
		if gain == nil && errors.As(err, &ve) && slices.ContainsFunc(ve.Fields, func(f appliance.FieldError) bool { return f.Field == "gain_dbi" }) {
			return ptpUsageErr(flagName, "%s states no gain: give --antenna-gain-dbi", v)
		}
		return ptpUsageErr(flagName, "%s: %v", v, err)
	}
	e.Antenna = a
	return nil
}

func ptpCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("ptp", stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), ptpUsage, "\nflags:\n")
		fs.PrintDefaults()
	}
	from := fs.String("from", "", "end A: LAT,LON,H (WGS84 degrees, antenna height above ground in metres; required)")
	to := fs.String("to", "", "end B: LAT,LON,H (required)")
	radio := fs.String("radio", "", "radio of end A (and of B without --to-radio): a built-in id or a radio JSON file (required)")
	toRadio := fs.String("to-radio", "", "radio of end B (default: --radio)")
	antenna := fs.String("antenna", "", "antenna of end A (and of B without --to-antenna): a built-in id or a pattern file (required)")
	toAntenna := fs.String("to-antenna", "", "antenna of end B (default: --antenna)")
	gain := fs.Float64("antenna-gain-dbi", 0, "peak gain, dBi, of antenna pattern files that state none (and in place of the files' stated gain)")
	freq := fs.Float64("frequency-mhz", 0, "carrier frequency, MHz (required)")
	channel := fs.Float64("channel-mhz", 0, "channel width, MHz: one of the radios' widths (required)")
	pol := fs.String("polarization", string(appliance.PolarizationVertical), "vertical, horizontal or dual (sets the P.838-3 rain coefficients)")
	engine := fs.String("engine", string(appliance.EngineFSPL), "engine of the median path loss: fspl, p1812, itm or auto")
	target := fs.Float64("availability-pct", appliance.DefaultPTPTargetPct, "availability target, % of an average year (the fastest mode meeting it is recommended)")
	r001 := fs.Float64("r001-mmh", 0, "locally measured rain rate exceeded 0.01 % of the year, mm/h (0: the ITU-R P.837-7 estimate)")
	var ends [2]struct {
		az, tilt, cable *float64
		name, station   *string
	}
	for i, side := range []string{"from", "to"} {
		e := &ends[i]
		e.az = fs.Float64(side+"-azimuth-deg", math.NaN(), "antenna azimuth at the "+side+" end, degrees from true north (default: aligned on the other end)")
		e.tilt = fs.Float64(side+"-tilt-deg", math.NaN(), "mechanical downtilt at the "+side+" end, degrees, positive down (default: aligned)")
		e.cable = fs.Float64(side+"-cable-loss-db", 0, "feeder, connector and branching loss at the "+side+" end, dB")
		e.name = fs.String(side+"-name", "", "site name of the "+side+" end")
		e.station = fs.String(side+"-station", "", "Anatel station number of the "+side+" end (shown in the report)")
	}
	var packs multi
	fs.Var(&packs, "terrain", "terrain pack (repeatable); default: the embedded Rio de Janeiro sample")
	asJSON := fs.Bool("json", false, "print the body POST /links/ptp answers instead of the table")
	reportOut := fs.String("report", "", "also write the PDF report to this file")
	lang := fs.String("language", string(report.English), "language of the report: en or pt-BR")
	art := fs.String("art", "", "ART number (Anotação de Responsabilidade Técnica) of the responsible engineer, for the report")
	engName := fs.String("engineer-name", "", "responsible engineer, for the report")
	engReg := fs.String("engineer-registration", "", "the engineer's professional registration (CREA), for the report")
	exportOut := fs.String("export", "", "also write the sites and the link as GeoJSON, KML or KMZ (by the file's extension)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("ptp: %v: %w", err, errUsage)
	}
	if fs.NArg() > 0 {
		return ptpUsageErr("arguments", "unexpected %q (every input is a flag)", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })

	req := appliance.PTPRequest{FreqMHz: *freq, ChannelMHz: *channel, Polarization: appliance.Polarization(*pol),
		Engine: appliance.EngineID(*engine), AvailabilityTargetPct: *target, R001MMH: *r001}
	for i, c := range []struct {
		flag, v string
		end     *appliance.PTPEnd
	}{{"--from", *from, &req.A}, {"--to", *to, &req.B}} {
		if c.v == "" {
			return ptpUsageErr(c.flag, "required: LAT,LON,H (WGS84 degrees, antenna height above ground, metres)")
		}
		p, h, err := parseSite(c.v)
		if err != nil {
			return ptpUsageErr(c.flag, "%v", err)
		}
		e := &ends[i]
		*c.end = appliance.PTPEnd{Name: strings.TrimSpace(*e.name), Pos: p, HeightM: h, AzimuthDeg: *e.az, TiltDeg: *e.tilt,
			CableLossDB: *e.cable, AnatelStation: strings.TrimSpace(*e.station)}
	}
	if !set["frequency-mhz"] {
		return ptpUsageErr("--frequency-mhz", "a carrier frequency is required, MHz")
	}
	if !set["channel-mhz"] {
		return ptpUsageErr("--channel-mhz", "a channel width is required, MHz (one of the radios' widths)")
	}
	if *radio == "" {
		return ptpUsageErr("--radio", "required: a built-in radio id (builtin:wifi5-2x2, builtin:microwave-11-23ghz, builtin:eband-80ghz) or a radio JSON file")
	}
	if *antenna == "" {
		return ptpUsageErr("--antenna", "required: a built-in antenna id (e.g. builtin:dish-38dbi) or a pattern file")
	}
	var gainPtr *float64
	if set["antenna-gain-dbi"] {
		gainPtr = gain
	}
	if *toRadio == "" {
		*toRadio = *radio
	}
	if *toAntenna == "" {
		*toAntenna = *antenna
	}
	if err := radioArg("--radio", *radio, &req.A); err != nil {
		return err
	}
	if err := radioArg("--to-radio", *toRadio, &req.B); err != nil {
		return err
	}
	if err := antennaArg("--antenna", *antenna, gainPtr, &req.A); err != nil {
		return err
	}
	if err := antennaArg("--to-antenna", *toAntenna, gainPtr, &req.B); err != nil {
		return err
	}
	rl := report.Language(*lang)
	if rl != report.English && rl != report.Portuguese {
		return ptpUsageErr("--language", "must be %q or %q, got %q", report.English, report.Portuguese, *lang)
	}
	var exportFormat geoexport.Format
	if *exportOut != "" {
		switch strings.ToLower(filepath.Ext(*exportOut)) {
		case ".geojson", ".json":
			exportFormat = geoexport.FormatGeoJSON
		case ".kml":
			exportFormat = geoexport.FormatKML
		case ".kmz":
			exportFormat = geoexport.FormatKMZ
		default:
			return ptpUsageErr("--export", "the name must end in .geojson, .kml or .kmz, got %q", *exportOut)
		}
	}
	for _, f := range []struct{ flag, v string }{{"--art", *art}, {"--engineer-name", *engName}, {"--engineer-registration", *engReg}} {
		if len([]rune(f.v)) > report.MaxPTPFieldRunes {
			return ptpUsageErr(f.flag, "at most %d characters", report.MaxPTPFieldRunes)
		}
	}

	reg, err := engines.New(engines.Config{})
	if err != nil {
		return fmt.Errorf("ptp: engines: %w", err)
	}
	maps, err := itur.LoadMaps()
	if err != nil {
		return fmt.Errorf("ptp: load the ITU-R maps: %w", err)
	}
	ts, desc, err := assemble.OpenTerrain(packs)
	if err != nil {
		return fmt.Errorf("ptp: %w", err)
	}
	defer func() {
		for _, p := range ts.Packs {
			_ = p.Close()
		}
	}()
	radios, antennas := equipment.Builtins()
	svc := ptp.New(ts, reg.WithFallback, &builtinCatalogue{radios: radios, antennas: antennas}, maps)
	svc.TerrainDescription = desc
	link, err := svc.Plan(ctx, req)
	if err != nil {
		var ve *appliance.ValidationError
		if errors.As(err, &ve) && len(ve.Fields) > 0 {
			msgs := make([]string, len(ve.Fields))
			for i, f := range ve.Fields {
				msgs[i] = ptpFlagOf(f.Field) + ": " + f.Reason
			}
			return fmt.Errorf("ptp: %s: %w", strings.Join(msgs, "; "), errUsage)
		}
		return fmt.Errorf("ptp: %w", err)
	}

	if *reportOut != "" {
		var buf bytes.Buffer
		in := report.PTPInput{Link: link, ART: strings.TrimSpace(*art), EngineerName: strings.TrimSpace(*engName),
			EngineerRegistration: strings.TrimSpace(*engReg), Terrain: desc}
		if err := report.WritePTP(&buf, in, report.Options{Language: rl, Created: time.Now().UTC()}); err != nil {
			return fmt.Errorf("ptp: report: %w", err)
		}
		if err := os.WriteFile(*reportOut, buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("ptp: report: %w", err)
		}
	}
	if *exportOut != "" {
		var buf bytes.Buffer
		if err := geoexport.WritePTPLink(&buf, exportFormat, link, time.Now()); err != nil {
			return fmt.Errorf("ptp: export: %w", err)
		}
		if err := os.WriteFile(*exportOut, buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("ptp: export: %w", err)
		}
	}
	if *asJSON {
		return printJSON(stdout, api.PTPResponseOf(link, string(req.Engine)))
	}
	return printPTP(stdout, link)
}

// printPTP writes the answer as text: the ends, the path, a table of the
// modes, the recommendation, the required margins, the warnings and the
// sources.
func printPTP(w io.Writer, l *appliance.PTPLink) error {
	req := &l.Request
	name := func(e *appliance.PTPEnd, def string) string {
		if e.Name != "" {
			return e.Name
		}
		return def
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s → %s: %.3f km, %.1f MHz, channel %g MHz, %s polarisation, engine %s (%s)\n",
		name(&req.A, "A"), name(&req.B, "B"), l.DistanceKm, req.FreqMHz, req.ChannelMHz, req.Polarization, l.Prediction.Engine, l.Prediction.EngineVersion)
	for _, e := range []struct {
		label string
		in    *appliance.PTPEnd
		out   *appliance.PTPEndResult
	}{{"A", &req.A, &l.A}, {"B", &req.B, &l.B}} {
		aligned := func(ok bool) string {
			if ok {
				return " (aligned)"
			}
			return ""
		}
		fmt.Fprintf(&b, "%s: %.6f, %.6f; ground %.1f m, antenna %.1f m above ground; azimuth %.2f°%s, tilt %.2f°%s; radio %s; antenna %s, %.1f dBi, %.2f dB off boresight; cable %.1f dB",
			e.label, e.in.Pos.Lat, e.in.Pos.Lon, e.out.GroundM, e.in.HeightM, e.out.AzimuthDeg, aligned(e.out.AzimuthAligned), e.out.TiltDeg, aligned(e.out.TiltAligned),
			e.in.Radio.Name, e.out.AntennaLabel, e.out.AntennaGainDBi, e.out.AntennaLossDB, e.in.CableLossDB)
		if e.in.AnatelStation != "" {
			fmt.Fprintf(&b, "; Anatel station %s", e.in.AnatelStation)
		}
		b.WriteString("\n")
	}
	yes := map[bool]string{true: "yes", false: "no"}
	fmt.Fprintf(&b, "path loss %.2f dB (diffraction %.2f dB), gaseous absorption %.3f dB; line of sight %s, 60 %% F1 clear %s\n",
		l.Prediction.PathLossDB, l.Prediction.DiffractionDB, l.GasAttenuationDB, yes[l.Prediction.LOSClear], yes[l.Prediction.FresnelOK])
	for _, c := range l.Clearance {
		fmt.Fprintf(&b, "clearance %s: k = %.3g, %g %% of F1: least %.2f F1, met %s\n", c.Basis, c.KFactor, c.F1Fraction*100, c.ClearanceF1, yes[c.Met])
	}
	b.WriteString("\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "mode\tMbit/s\tRx A→B dBm\tRx B→A dBm\tsens. dBm\tmargin dB\tavailability %\toutage min/yr\tmeets\t")
	for i, m := range l.Modes {
		avail, minutes, meets := "-", "-", "-"
		if a := m.Availability; a != nil {
			mark := map[string]string{"at_least": "≥ ", "at_most": "≤ "}[a.Bound]
			avail = fmt.Sprintf("%s%.5f", mark, a.AvailabilityPct)
			minutes = fmt.Sprintf("%.1f", a.OutageMinutesPerYear)
			meets = yes[a.MeetsTarget]
		}
		label := m.Name
		if i == l.Recommended {
			label = "* " + label
		}
		fmt.Fprintf(tw, "%s\t%.1f\t%.2f\t%.2f\t%.1f\t%.2f\t%s\t%s\t%s\t\n", label, m.ThroughputMbps, m.AB.RxLevelDBm, m.BA.RxLevelDBm,
			math.Max(m.AB.SensitivityDBm, m.BA.SensitivityDBm), m.FadeMarginDB, avail, minutes, meets)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if l.Recommended >= 0 {
		m := l.Modes[l.Recommended]
		fmt.Fprintf(&b, "\nrecommended (*): %s, %.1f Mbit/s, meets %.3f %%\n", m.Name, m.ThroughputMbps, l.AvailabilityTargetPct)
	} else {
		fmt.Fprintf(&b, "\nno mode meets %.3f %%\n", l.AvailabilityTargetPct)
	}
	for _, r := range l.Required {
		fmt.Fprintf(&b, "fade margin for %.3f %%: %.2f dB (%s)\n", r.AvailabilityPct, r.FadeMarginDB, strings.ReplaceAll(r.Bound, "_", " "))
	}
	if c := l.Climate; c != nil {
		fmt.Fprintf(&b, "climate: R0.01 %.2f mm/h (%s), A0.01 %.2f dB, dN1 %.1f, K %.3g, |εp| %.2f mrad\n", c.R001MMH, c.R001Source, c.A001DB, c.DN1, c.GeoclimaticK, c.InclinationMrad)
	}
	if len(l.Warnings) > 0 {
		b.WriteString("\nwarnings:\n")
		for _, x := range l.Warnings {
			fmt.Fprintf(&b, "  %s: %s\n", x.Code, x.Message)
		}
	}
	b.WriteString("\nsources:\n")
	for _, s := range l.Sources {
		fmt.Fprintf(&b, "  %s\n", s)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
