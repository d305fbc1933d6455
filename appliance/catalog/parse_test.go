package catalog_test

import (
	"math"
	"os"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/catalog"
)

// tolerance for floats read from text or derived by a formula.
const eps = 1e-9

func readSample(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		tb.Fatalf("read sample: %v", err)
	}
	return b
}

func importSample(tb testing.TB, f catalog.Format, name string) (*catalog.Result, catalog.PlaceStats) {
	tb.Helper()
	res, stats, err := catalog.Import(f, strings.NewReader(string(readSample(tb, name))), catalog.NewPlacer(gazetteer(tb)))
	if err != nil {
		tb.Fatalf("Import(%v, %s): %v", f, name, err)
	}
	return res, stats
}

func station(tb testing.TB, res *catalog.Result, id string) catalog.Station {
	tb.Helper()
	for _, s := range res.Stations {
		if s.Tower.ID == id {
			return s
		}
	}
	tb.Fatalf("station %s not found", id)
	return catalog.Station{}
}

func near(a, b float64) bool { return math.Abs(a-b) <= eps || (math.IsNaN(a) && math.IsNaN(b)) }

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !near(a[i], b[i]) {
			return false
		}
	}
	return true
}

func countOperators(res *catalog.Result) map[string]int {
	out := map[string]int{}
	for _, s := range res.Stations {
		out[s.Tower.Operator]++
	}
	return out
}

// checkRegulatorInvariants holds for every placed regulator tower.
func checkRegulatorInvariants(t *testing.T, res *catalog.Result) {
	t.Helper()
	ids := map[string]bool{}
	for _, s := range res.Stations {
		tw := s.Tower
		if ids[tw.ID] {
			t.Errorf("duplicate id %s", tw.ID)
		}
		ids[tw.ID] = true
		if tw.Source != appliance.SourceAnatel || appliance.SourceOf(tw.ID) != appliance.SourceAnatel || tw.Synthetic {
			t.Errorf("%s: source %q synthetic %v", tw.ID, tw.Source, tw.Synthetic)
		}
		if tw.ID != "anatel:"+tw.StationNumber {
			t.Errorf("%s: station number %q", tw.ID, tw.StationNumber)
		}
		if !catalog.InBrazil(tw.Lat, tw.Lon) {
			t.Errorf("%s at %v,%v outside Brazil", tw.ID, tw.Lat, tw.Lon)
		}
		if tw.Provenance == "" || tw.Operator == "" || len(tw.IBGECode) != 7 || tw.UF == "" || tw.Municipality == "" {
			t.Errorf("%s: missing fields %+v", tw.ID, tw)
		}
		if s.Line < 1 {
			t.Errorf("%s: line %d", tw.ID, s.Line)
		}
	}
}

func TestParseAnatelERBsSample(t *testing.T) {
	res, stats := importSample(t, catalog.FormatAnatelERBs, "anatel_erbs_sample.csv")
	if res.Rows != 104 || len(res.Stations) != 104 || len(res.Rejects) != 0 || len(res.Warnings) != 0 {
		t.Fatalf("rows %d stations %d rejects %v warnings %v; want 104/104/0/0", res.Rows, len(res.Stations), res.Rejects, res.Warnings)
	}
	if stats.Surveyed != 104 || stats.Centroid != 0 {
		t.Errorf("stats %+v, want 104 surveyed (all sample stations lie within 60 km of their seat)", stats)
	}
	ops := countOperators(res)
	if ops["Vivo"] != 48 || ops["TIM"] != 34 || ops["Claro"] != 22 {
		t.Errorf("operators %v, want Vivo 48, TIM 34, Claro 22", ops)
	}
	checkRegulatorInvariants(t, res)
	cases := []struct {
		id, op, mun, uf, ibge string
		lat, lon              float64
		techs                 []string
		bands                 []float64
		line                  int
	}{
		{"anatel:1000017564", "TIM", "Rio de Janeiro", "RJ", "3304557", -23.012139, -43.321639,
			[]string{"LTE", "NR", "UMTS"}, []float64{700, 1800, 2100, 3500}, 0},
		{"anatel:1000001021", "TIM", "Bossoroca", "RS", "4302501", -28.72917, -54.9075,
			[]string{"GSM", "LTE"}, []float64{700, 900, 1800}, 2},
		{"anatel:1000002338", "TIM", "Juiz de Fora", "MG", "3136702", -21.723361, -43.3565,
			[]string{"GSM", "LTE", "NR", "UMTS"}, []float64{700, 850, 1800, 2100, 2500, 3500}, 0},
	}
	for _, c := range cases {
		t.Run(c.id, func(t *testing.T) {
			s := station(t, res, c.id)
			tw := s.Tower
			if tw.Operator != c.op || tw.Municipality != c.mun || tw.UF != c.uf || tw.IBGECode != c.ibge {
				t.Errorf("got %s %s %s %s", tw.Operator, tw.Municipality, tw.UF, tw.IBGECode)
			}
			if !near(tw.Lat, c.lat) || !near(tw.Lon, c.lon) {
				t.Errorf("position %v,%v, want %v,%v", tw.Lat, tw.Lon, c.lat, c.lon)
			}
			if tw.Placement != appliance.PlacementSurveyed || tw.UncertaintyM != catalog.SurveyedUncertaintyM {
				t.Errorf("placement %s ± %v m", tw.Placement, tw.UncertaintyM)
			}
			if strings.Join(tw.Technologies, ",") != strings.Join(c.techs, ",") || !equalFloats(tw.BandsMHz, c.bands) {
				t.Errorf("techs %v bands %v, want %v %v", tw.Technologies, tw.BandsMHz, c.techs, c.bands)
			}
			if tw.HeightM != appliance.DefaultTowerHeightM || tw.HasERP() || !tw.Omni() || !math.IsNaN(tw.TiltDeg) {
				t.Errorf("height %v ERP %v az %v tilt %v; want defaults", tw.HeightM, tw.ERPDBm, tw.AzimuthDeg, tw.TiltDeg)
			}
			if c.line != 0 && s.Line != c.line {
				t.Errorf("line %d, want %d", s.Line, c.line)
			}
		})
	}
}

const erbsHeader = "Número Estação;Operadora;SiglaUf;MUN;Bairro;Logradouro;Latitude;Longitude;IBGE;ClassInfraFisica;Tecs;Faixa\n"

func TestParseAnatelERBsRejects(t *testing.T) {
	input := erbsHeader +
		"1000001021;TIM;RS;Bossoroca;CENTRO;RUA DR ALVES VALENÇA, S/N, ;-28.72917;-54.9075;4302501;Greenfield ;2G 4G ;700 900 1800 \n" + // 2 ok
		"1000001022;TIM;RS;Bossoroca;CENTRO;RUA X;-2.872.917;-54.9075;4302501;Greenfield ;2G ;700 \n" + // 3 Excel damage
		"1000001023;TIM;AL;Maceio;CENTRO;RUA X;-96.725;-35.7;2704302;;2G ;700 \n" + // 4 Excel damage, in range of nothing
		"1000001024;TIM;RS;Bossoroca;CENTRO;RUA X;-28.7;-54.9\n" + // 5 short row
		"10000A1025;TIM;RS;Bossoroca;CENTRO;RUA X;-28.7;-54.9;4302501;;2G ;700 \n" + // 6 bad station
		"1000001021;VIVO;RS;Bossoroca;CENTRO;RUA X;-28.7;-54.9;4302501;;2G ;700 \n" + // 7 duplicate
		"\n" + // 8 blank: ignored
		"1000001026; ;RS;Bossoroca;CENTRO;RUA X;-28.7;-54.9;4302501;;2G ;700 \n" + // 9 operator missing
		"1000001027;CLARO;RJ;Rio de Janeiro;CENTRO;RUA X;;;3304557;;4G ;700 x \n" + // 10 no coordinates: centroid, band warning
		"1000001028;CLARO;XX;Atlantis;CENTRO;RUA X;;;;;4G ;700 \n" + // 11 unplaceable
		"1000001029;VIVO;RJ;Rio de Janeiro;CENTRO;RUA X;-15.78;-47.93;3304557;;4G ;700 \n" + // 12 far from seat: flagged
		"1000001030;VIVO;RJ;Rio de Janeiro;CENTRO;RUA X;-22.9;;3304557;;4G ;700 \n" // 13 half coordinates
	g := gazetteer(t)
	res, stats, err := catalog.Import(catalog.FormatAnatelERBs, strings.NewReader(input), catalog.NewPlacer(g))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		line   int
		reason string
	}{
		{3, "latitude \"-2.872.917\" is not a number"},
		{4, "latitude -96.725 outside Brazil"},
		{5, "has 8 fields, want 12"},
		{6, "not numeric"},
		{7, "already read at line 2"},
		{9, "operator missing"},
		{11, "unknown"},
		{13, "longitude missing"},
	}
	if len(res.Rejects) != len(want) {
		t.Fatalf("rejects %v, want %d", res.Rejects, len(want))
	}
	for i, w := range want {
		if r := res.Rejects[i]; r.Line != w.line || !strings.Contains(r.Reason, w.reason) {
			t.Errorf("reject %d = %+v, want line %d %q", i, r, w.line, w.reason)
		}
	}
	if res.Rows != 11 || len(res.Stations)+len(res.Rejects) != res.Rows {
		t.Errorf("rows %d stations %d rejects %d: every row must be accounted for", res.Rows, len(res.Stations), len(res.Rejects))
	}
	if len(res.Warnings) != 1 || res.Warnings[0].Line != 10 {
		t.Errorf("warnings %v, want one at line 10", res.Warnings)
	}
	if stats.Surveyed != 1 || stats.Centroid != 2 || stats.Flagged != 1 || stats.Rejected != 1 {
		t.Errorf("stats %+v", stats)
	}
	rio, _ := g.ByCode("3304557")
	for _, id := range []string{"anatel:1000001027", "anatel:1000001029"} {
		s := station(t, res, id)
		d := rio.Pos().DistanceM(s.Tower.Pos())
		if s.Tower.Placement != appliance.PlacementCentroid || d < catalog.OffsetMinM-1e-6 || d > catalog.OffsetMaxM+1e-6 {
			t.Errorf("%s: placement %s %.1f m from the seat, want centroid within %v…%v m", id, s.Tower.Placement, d, catalog.OffsetMinM, catalog.OffsetMaxM)
		}
		if want := catalog.CentroidUncertaintyM(rio); s.Tower.UncertaintyM != want || want <= catalog.OffsetMaxM {
			t.Errorf("%s: uncertainty %v m, want %v m", id, s.Tower.UncertaintyM, want)
		}
	}
	if f := station(t, res, "anatel:1000001029").Flags; len(f) != 1 || !strings.Contains(f[0], "Brasília-DF") {
		t.Errorf("flags %v, want one naming the nearest seat Brasília-DF", f)
	}
}

func TestParseAnatelLicenciadasSample(t *testing.T) {
	res, stats := importSample(t, catalog.FormatAnatelLicenciadas, "anatel_estacoes_licenciadas_smp_sample.csv")
	if res.Rows != 91 || len(res.Stations) != 5 || len(res.Rejects) != 0 || stats.Surveyed != 5 {
		t.Fatalf("rows %d stations %d rejects %v stats %+v", res.Rows, len(res.Stations), res.Rejects, stats)
	}
	checkRegulatorInvariants(t, res)
	cases := []struct {
		id, op, mun string
		sectors     int
		bands       []float64
		azimuth     float64
	}{
		{"anatel:3565", "Vivo", "Rio Grande", 6, []float64{850}, math.NaN()},
		{"anatel:7773", "Amazônia Celular", "São Luís", 27, []float64{850, 1800}, math.NaN()},
		{"anatel:7803", "Amazônia Celular", "Paço do Lumiar", 29, []float64{850, 900, 1800}, math.NaN()},
		{"anatel:7811", "Amazônia Celular", "São Luís", 27, []float64{850, 900, 1800}, math.NaN()},
		{"anatel:8249", "Vivo", "Pouso Alegre", 2, []float64{850}, math.NaN()},
	}
	for i, c := range cases {
		t.Run(c.id, func(t *testing.T) {
			s := res.Stations[i]
			if s.Tower.ID != c.id || s.Tower.Operator != c.op || s.Tower.Municipality != c.mun || len(s.Sectors) != c.sectors {
				t.Errorf("got %s %s %s %d sectors", s.Tower.ID, s.Tower.Operator, s.Tower.Municipality, len(s.Sectors))
			}
			if !equalFloats(s.Tower.BandsMHz, c.bands) || !near(s.Tower.AzimuthDeg, c.azimuth) {
				t.Errorf("bands %v azimuth %v", s.Tower.BandsMHz, s.Tower.AzimuthDeg)
			}
		})
	}
	// Row 2: TELEFÔNICA BRASIL S.A.,...,3565,...,"Rua Duque de Caxias,298,Centro",-32.0339722222221666,
	// -52.0971222222221666,890.00000000,891.50000000,160.0,1M25F9W
	s := res.Stations[0]
	sec := s.Sectors[0]
	if sec.Line != 2 || !near(sec.FreqMHz, 890.75) || sec.BandMHz != 850 || sec.AzimuthDeg != 160 || sec.Emission != "1M25F9W" {
		t.Errorf("3565 sector 0 = %+v", sec)
	}
	if !near(s.Tower.Lat, -32.0339722222221666) || !near(s.Tower.Lon, -52.0971222222221666) {
		t.Errorf("3565 at %v,%v", s.Tower.Lat, s.Tower.Lon)
	}
	if s.Sectors[5].AzimuthDeg != 0 { // ".0"
		t.Errorf("3565 sector 5 azimuth %v, want 0", s.Sectors[5].AzimuthDeg)
	}
	if az := res.Stations[4].Sectors; az[0].AzimuthDeg != 80 || !math.IsNaN(az[1].AzimuthDeg) || az[0].BandMHz != 850 {
		t.Errorf("8249 azimuths %v %v, want 80 and NaN (empty)", az[0].AzimuthDeg, az[1].AzimuthDeg)
	}
}

func TestParseAnatelLicenciadasRejects(t *testing.T) {
	header := "Prestadora,CNPJ,Número da Estação,Tipo da Estação,UF,Código da UF,Município,Código do Município,Logradouro,Latitude,Longitude,Frequência Inicial (MHz),Frequência Final (MHz),Azimute,Emissão\n"
	input := header +
		"TELEFÔNICA BRASIL S.A.,02558157000162,3565,FB,RS,43,Rio Grande,4315602,\"Rua Duque de Caxias,298,Centro\",-32.03,-52.09,890.00000000,891.50000000,160.0,1M25F9W\n" + // 2 ok
		"CLARO S.A.,1,3565,FB,RS,43,Rio Grande,4315602,,-32.03,-52.09,890.0,891.5,160.0,1M25F9W\n" + // 3 other operator
		"TELEFÔNICA BRASIL S.A.,1,3566,FB,RS,43,Rio Grande,4315602,\"bad \"quote\",-32.03,-52.09,890.0,891.5,160.0,1M25F9W\n" + // 4 bad quoting
		"TELEFÔNICA BRASIL S.A.,1,3567,FB,RS,43,Rio Grande,4315602,,-32.03,-52.09,890.0,891.5,400.0,1M25F9W\n" + // 5 azimuth
		"TELEFÔNICA BRASIL S.A.,1,3568,FB,RS,43,Rio Grande,4315602,,-32.03,-52.09,8,90.0,891.5,160.0,1M25F9W\n" + // 6 16 fields
		"TELEFÔNICA BRASIL S.A.,1,3569,FB,RS,43,Rio Grande,4315602,,*,*,890.0,891.5,160.0,1M25F9W\n" + // 7 masked coordinates
		"TELEFÔNICA BRASIL S.A.,1,3570,FB,RS,43,Rio Grande,4315602,,,,890.0,891.5,,1M25F9W\n" // 8 ok, centroid
	res, stats, err := catalog.Import(catalog.FormatAnatelLicenciadas, strings.NewReader(input), catalog.NewPlacer(gazetteer(t)))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		line   int
		reason string
	}{{3, "belongs to Vivo"}, {4, "malformed CSV"}, {5, "azimuth 400"}, {6, "has 16 fields"}, {7, "latitude \"*\""}}
	if len(res.Rejects) != len(want) {
		t.Fatalf("rejects %v", res.Rejects)
	}
	for i, w := range want {
		if r := res.Rejects[i]; r.Line != w.line || !strings.Contains(r.Reason, w.reason) {
			t.Errorf("reject %d = %+v, want line %d %q", i, r, w.line, w.reason)
		}
	}
	if len(res.Stations) != 2 || stats.Surveyed != 1 || stats.Centroid != 1 || res.Rows != 7 {
		t.Errorf("stations %d rows %d stats %+v", len(res.Stations), res.Rows, stats)
	}
}

func TestParseMosaicoLicenciamentoSample(t *testing.T) {
	res, stats := importSample(t, catalog.FormatMosaicoLicenciamento, "anatel_mosaico_licenciamento_sample.tsv")
	if res.Rows != 50 || len(res.Stations) != 3 || len(res.Rejects) != 0 || len(res.Warnings) != 0 || stats.Surveyed != 3 {
		t.Fatalf("rows %d stations %d rejects %v warnings %v stats %+v", res.Rows, len(res.Stations), res.Rejects, res.Warnings, stats)
	}
	checkRegulatorInvariants(t, res)
	// Line 1: LIC-LIC-01 TELEFONICA BRASIL SA ... 738255 ... Salvador 200KG7W GSM 874,5 829,5 180 Facebook
	// Campo Verde não 760 000650501705 14 27 65 0 X 31 000910502519 32,5 -12,98028 -38,46806 G 21/08/2023 ...
	s := station(t, res, "anatel:738255")
	sec := s.Sectors[0]
	wantERP := 10*math.Log10(32.5*1000) + 14 - 2.15
	if sec.Line != 1 || sec.HeightM != 31 || sec.TxPowerW != 32.5 || sec.GainDBi != 14 || sec.AzimuthDeg != 180 ||
		sec.TiltDeg != 0 || sec.FreqMHz != 874.5 || sec.BandMHz != 850 || sec.Technology != "GSM" ||
		sec.Polarization != "X" || sec.Emission != "200KG7W" || !near(sec.ERPDBm, wantERP) {
		t.Errorf("738255 sector 0 = %+v (want ERP %.6f dBm)", sec, wantERP)
	}
	cases := []struct {
		id, mun, ibge string
		sectors       int
		heightM       float64
		erpDBm        float64 // max over sectors, computed in Python from the TSV
		updated       int64
		lat, lon      float64
	}{
		{"anatel:738255", "Salvador", "2927408", 18, 34, 60.73875115775417, 1692576000, -12.98028, -38.46806},
		{"anatel:874612", "Vitória da Conquista", "2933307", 15, 40, 61.87059991327963, 1735171200, -14.832722, -40.847753},
		{"anatel:874841", "Teixeira de Freitas", "2931350", 17, 40, 57.87059991327963, 1733961600, -17.53278, -39.73972},
	}
	for _, c := range cases {
		t.Run(c.id, func(t *testing.T) {
			s := station(t, res, c.id)
			tw := s.Tower
			if tw.Operator != "Vivo" || tw.Municipality != c.mun || tw.IBGECode != c.ibge || len(s.Sectors) != c.sectors {
				t.Errorf("got %s %s %s %d sectors", tw.Operator, tw.Municipality, tw.IBGECode, len(s.Sectors))
			}
			if tw.HeightM != c.heightM || !near(tw.ERPDBm, c.erpDBm) || !tw.Omni() || tw.UpdatedUnix != c.updated {
				t.Errorf("height %v ERP %v az %v updated %d", tw.HeightM, tw.ERPDBm, tw.AzimuthDeg, tw.UpdatedUnix)
			}
			if !near(tw.Lat, c.lat) || !near(tw.Lon, c.lon) {
				t.Errorf("position %v,%v", tw.Lat, tw.Lon)
			}
			// The power and gain of the strongest sector are kept (issue
			// 20: a drive test with tower_id takes them): they add up to
			// its EIRP, ERP + 2.15 dB.
			if !tw.HasTx || !near(tw.TxPowerDBm+tw.TxGainDBi, tw.ERPDBm+2.15) || tw.TxPowerDBm < 30 || tw.TxPowerDBm > 60 {
				t.Errorf("tx power %v dBm gain %v dBi (has %v), ERP %v dBm", tw.TxPowerDBm, tw.TxGainDBi, tw.HasTx, tw.ERPDBm)
			}
		})
	}
}

func TestParseMosaicoLicenciamentoRejects(t *testing.T) {
	real := strings.SplitN(string(readSample(t, "anatel_mosaico_licenciamento_sample.tsv")), "\n", 2)[0]
	f := strings.Split(real, "\t")
	with := func(i int, v string) string {
		g := append([]string(nil), f...)
		g[i] = v
		return strings.Join(g, "\t")
	}
	lines := []string{
		real,                             // 1 ok
		with(0, "LIC-EXC-01"),            // 2 excluded
		strings.Join(f[:39], "\t"),       // 3 39 fields
		with(29, "32,5,1"),               // 4 bad power
		with(27, "900"),                  // 5 height out of range
		with(30, "-1.298.028"),           // 6 Excel damage
		with(33, "31/02/2023"),           // 7 bad date: warning only
		with(5, "738256") + "\r",         // 8 CRLF, new station
		with(9, "Cidade Que Nao Existe"), // 9 same station, unknown municipality name: fine (station known by first row)
	}
	res, err := catalog.ParseMosaicoLicenciamento(strings.NewReader(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		line   int
		reason string
	}{{2, "licence excluded (status LIC-EXC-01)"}, {3, "has 39 fields, want 40"}, {4, "transmitter power"}, {5, "antenna height 900"}, {6, "latitude"}}
	if len(res.Rejects) != len(want) {
		t.Fatalf("rejects %v", res.Rejects)
	}
	for i, w := range want {
		if r := res.Rejects[i]; r.Line != w.line || !strings.Contains(r.Reason, w.reason) {
			t.Errorf("reject %d = %+v, want line %d %q", i, r, w.line, w.reason)
		}
	}
	if len(res.Warnings) != 1 || res.Warnings[0].Line != 7 {
		t.Errorf("warnings %v", res.Warnings)
	}
	if len(res.Stations) != 2 || len(res.Stations[0].Sectors) != 3 || res.Stations[1].Tower.ID != "anatel:738256" {
		t.Errorf("stations %+v", res.Stations)
	}
}

func TestParseMosaicoSMPSample(t *testing.T) {
	res, stats := importSample(t, catalog.FormatMosaicoSMP, "anatel_mosaico_smp_sample.csv")
	if res.Rows != 1000 || len(res.Stations) != 50 || len(res.Rejects) != 0 {
		t.Fatalf("rows %d stations %d rejects %v", res.Rows, len(res.Stations), res.Rejects)
	}
	checkRegulatorInvariants(t, res)
	if ops := countOperators(res); ops["Vivo"] != 46 || ops["TIM"] != 4 {
		t.Errorf("operators %v, want Vivo 46, TIM 4", ops)
	}
	techs := map[string]int{}
	sectors := 0
	for _, s := range res.Stations {
		for _, sec := range s.Sectors {
			techs[sec.Technology]++
			sectors++
		}
	}
	// 473 GSM, 252 WCDMA + 20 "WDCMA", 252 LTE, 3 NR in the file.
	if sectors != 1000 || techs["GSM"] != 473 || techs["WCDMA"] != 272 || techs["LTE"] != 252 || techs["NR"] != 3 || techs["WDCMA"] != 0 {
		t.Errorf("sectors %d technologies %v", sectors, techs)
	}
	// Station 498378: CodMunicipio 3550308 (São Paulo) but coordinates near Iguape, 164 km away.
	s := station(t, res, "anatel:498378")
	if stats.Flagged != 1 || s.Tower.Placement != appliance.PlacementCentroid || len(s.Flags) != 1 ||
		!strings.Contains(s.Flags[0], "São Paulo-SP") || !strings.Contains(s.Flags[0], "Ilha Comprida-SP") {
		t.Errorf("498378: stats %+v placement %s flags %v", stats, s.Tower.Placement, s.Flags)
	}
	tim := station(t, res, "anatel:211222")
	if tim.Tower.Operator != "TIM" || len(tim.Sectors) != 17 {
		t.Errorf("211222: %s with %d sectors, want TIM with 17", tim.Tower.Operator, len(tim.Sectors))
	}
	v := station(t, res, "anatel:3549")
	if v.Tower.Municipality != "Vacaria" || v.Tower.IBGECode != "4322509" || v.Sectors[0].FreqMHz != 2160 || v.Sectors[0].BandMHz != 2100 {
		t.Errorf("3549: %+v / %+v", v.Tower, v.Sectors[0])
	}
}

func TestParseMosaicoJSONSample(t *testing.T) {
	res, stats := importSample(t, catalog.FormatMosaicoJSON, "anatel_mosaico_smp_full_records.json")
	if res.Rows != 2 || len(res.Stations) != 1 || stats.Surveyed != 1 {
		t.Fatalf("rows %d stations %d stats %+v", res.Rows, len(res.Stations), stats)
	}
	if len(res.Rejects) != 1 || res.Rejects[0].Line != 2 || !strings.Contains(res.Rejects[0].Reason, "LIC-EXC-01") {
		t.Errorf("rejects %v, want the excluded TIM document at line 2", res.Rejects)
	}
	s := res.Stations[0]
	if s.Tower.ID != "anatel:3549" || s.Tower.Operator != "Vivo" || s.Tower.IBGECode != "4322509" || s.Line != 72 ||
		s.Sectors[0].FreqMHz != 2160 || s.Sectors[0].Technology != "WCDMA" {
		t.Errorf("station %+v line %d sector %+v", s.Tower, s.Line, s.Sectors[0])
	}
}

func TestParseMosaicoJSONVariants(t *testing.T) {
	sample := string(readSample(t, "anatel_mosaico_smp_full_records.json"))
	t.Run("licensed TIM document", func(t *testing.T) {
		in := strings.Replace(sample, `"LIC-EXC-01"`, `"LIC-LIC-01"`, 1)
		res, err := catalog.ParseMosaicoJSON(strings.NewReader(in))
		if err != nil || len(res.Stations) != 2 || len(res.Rejects) != 0 {
			t.Fatalf("err %v stations %d rejects %v", err, len(res.Stations), res.Rejects)
		}
		// "AlturaAntena": "57.0", "GanhoAntena": "13.5", "Azimute": "200.0", "AnguloElevacao": "15.00",
		// "PotenciaTransmissorWatts": "80.000", "FreqCentralMHz": "874.5", "DataLicenciamento": "2020-08-24"
		tw := res.Stations[0].Tower
		want := 10*math.Log10(80*1000) + 13.5 - 2.15
		if tw.ID != "anatel:1058" || tw.Operator != "TIM" || tw.HeightM != 57 || tw.AzimuthDeg != 200 || tw.TiltDeg != 15 ||
			!near(tw.ERPDBm, want) || !equalFloats(tw.BandsMHz, []float64{850}) || tw.UpdatedUnix != 1598227200 ||
			tw.IBGECode != "2702801" || !near(tw.Lat, -9.24111) || !near(tw.Lon, -35.77944) {
			t.Errorf("tower %+v (want ERP %.6f)", tw, want)
		}
	})
	t.Run("object stream", func(t *testing.T) {
		in := `{"NomeEntidade":"CLARO S.A.","NumEstacao":"11","Latitude":-22.9,"Longitude":-43.2,"CodMunicipio":"3304557","SiglaUf":"RJ"}
{"NomeEntidade":"CLARO S.A.","NumEstacao":"12","Latitude":-22.9,"Longitude":"abc"}
`
		res, err := catalog.ParseMosaicoJSON(strings.NewReader(in))
		if err != nil || res.Rows != 2 || len(res.Stations) != 1 || len(res.Rejects) != 1 || res.Rejects[0].Line != 2 {
			t.Fatalf("err %v rows %d stations %d rejects %v", err, res.Rows, len(res.Stations), res.Rejects)
		}
	})
	t.Run("truncated", func(t *testing.T) {
		res, err := catalog.ParseMosaicoJSON(strings.NewReader(sample[:len(sample)/2]))
		if err != nil || len(res.Rejects) != 1 || !strings.Contains(res.Rejects[0].Reason, "malformed JSON") || res.Rejects[0].Line != 2 {
			t.Fatalf("err %v rejects %v", err, res.Rejects)
		}
	})
	t.Run("not objects", func(t *testing.T) {
		res, err := catalog.ParseMosaicoJSON(strings.NewReader("[1,\n\"x\"]"))
		if err != nil || len(res.Rejects) != 2 || res.Rejects[1].Line != 2 {
			t.Fatalf("err %v rejects %v", err, res.Rejects)
		}
	})
}

func TestParseOpenCelliDSample(t *testing.T) {
	res, err := catalog.ParseOpenCelliD(strings.NewReader(string(readSample(t, "opencellid_724_sample.csv"))))
	if err != nil {
		t.Fatal(err)
	}
	if res.Rows != 204 || len(res.Stations) != 204 || len(res.Rejects) != 0 {
		t.Fatalf("rows %d stations %d rejects %v", res.Rows, len(res.Stations), res.Rejects)
	}
	// MNC counts 10:38 11:48 23:25 6:14 (Vivo), 4:42 3:16 2:15 (TIM), 5:6 (Claro).
	if ops := countOperators(res); ops["Vivo"] != 125 || ops["TIM"] != 73 || ops["Claro"] != 6 || len(ops) != 3 {
		t.Errorf("operators %v", ops)
	}
	radios := map[string]int{}
	clamped := 0
	for _, s := range res.Stations {
		tw := s.Tower
		radios[tw.Technologies[0]]++
		if tw.Source != appliance.SourceOpenCelliD || tw.Placement != appliance.PlacementCrowd || tw.HasERP() || tw.Synthetic ||
			!catalog.InBrazil(tw.Lat, tw.Lon) || tw.UncertaintyM < catalog.MinCrowdUncertaintyM || tw.UncertaintyM > catalog.MaxCrowdUncertaintyM {
			t.Errorf("bad crowd tower %+v", tw)
		}
		if tw.UncertaintyM == catalog.MaxCrowdUncertaintyM {
			clamped++
		}
	}
	if radios["GSM"] != 100 || radios["UMTS"] != 98 || radios["LTE"] != 6 || clamped != 84 {
		t.Errorf("radios %v, %d clamped at 5 km (want 84)", radios, clamped)
	}
	// Line 1: UMTS,724,10,40211,13861262,116,-46.6679,-23.5241,6327,29,1,1361023777,1780825203,0
	first := res.Stations[0].Tower
	if first.ID != "ocid:724-10-40211-13861262" || first.Operator != "Vivo" || first.Lat != -23.5241 || first.Lon != -46.6679 ||
		first.UncertaintyM != 5000 || first.UpdatedUnix != 1780825203 {
		t.Errorf("first = %+v", first)
	}
	// Line 204: GSM,724,4,6046,16352,0,-53.763,-25.7118,5984,...
	last := res.Stations[203]
	if last.Tower.ID != "ocid:724-4-6046-16352" || last.Tower.Operator != "TIM" || last.Line != 204 || last.Tower.Lat != -25.7118 {
		t.Errorf("last = %+v line %d", last.Tower, last.Line)
	}
}

func TestParseOpenCelliDRejects(t *testing.T) {
	input := "radio,mcc,net,area,cell,unit,lon,lat,range,samples,changeable,created,updated,averageSignal\n" + // header: skipped
		"UMTS,724,10,40211,13861262,116,-46.6679,-23.5241,6327,29,1,1361023777,1780825203,0\n" + // 2 ok
		"UMTS,722,10,40211,13861263,116,-58.4,-34.6,6327,29,1,1361023777,1780825203,0\n" + // 3 Argentina
		"UMTS,724,10,40211,13861264,116,-23.5241,-46.6679,6327,29,1,1361023777,1780825203,0\n" + // 4 lat/lon swapped
		"UMTS,724,10,40211,13861262,116,-46.6679,-23.5241,6327,29,1,1361023777,1780825203,0\n" + // 5 duplicate
		"UMTS,724,10,40211,13861265,116,-46.6679,-23.5241,6327,29,1,1361023777,1780825203\n" + // 6 13 fields
		"UMTS,724,x,40211,13861266,116,-46.6679,-23.5241,6327,29,1,1361023777,1780825203,0\n" + // 7 bad net
		"LTE,724,77,1,2,0,-46.6,-23.5,10,1,1,1,1,0\n" + // 8 unknown MNC: kept
		"LTE,724,10,1,3,0,-46.6,-23.5,-5,1,1,1,1,0\n" // 9 negative range
	res, err := catalog.ParseOpenCelliD(strings.NewReader(input))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		line   int
		reason string
	}{{3, "MCC 722"}, {4, "latitude -46.6679 outside Brazil"}, {5, "already read at line 2"}, {6, "has 13 fields"}, {7, "net"}, {9, "range"}}
	if len(res.Rejects) != len(want) {
		t.Fatalf("rejects %v", res.Rejects)
	}
	for i, w := range want {
		if r := res.Rejects[i]; r.Line != w.line || !strings.Contains(r.Reason, w.reason) {
			t.Errorf("reject %d = %+v, want line %d %q", i, r, w.line, w.reason)
		}
	}
	if len(res.Stations) != 2 || res.Stations[1].Tower.Operator != "MNC 724-77" || res.Stations[1].Tower.UncertaintyM != catalog.MinCrowdUncertaintyM {
		t.Errorf("stations %+v", res.Stations)
	}
}

func TestParseLatin1AndBOM(t *testing.T) {
	// The same ERBs row encoded in Latin-1 with a CRLF, after a UTF-8 header with a BOM.
	latin1 := []byte("1000001021;TIM;RS;Bossoroca;CENTRO;RUA DR ALVES VALEN\xc7A, S/N, ;-28.72917;-54.9075;4302501;Greenfield ;2G 4G ;700 900 1800 \r\n")
	in := append([]byte("\xEF\xBB\xBF"+strings.TrimSuffix(erbsHeader, "\n")+"\r\n"), latin1...)
	res, err := catalog.ParseAnatelERBs(strings.NewReader(string(in)))
	if err != nil || len(res.Stations) != 1 || len(res.Rejects) != 0 {
		t.Fatalf("err %v stations %d rejects %v", err, len(res.Stations), res.Rejects)
	}
	if f, err := catalog.DetectFormat(in); err != nil || f != catalog.FormatAnatelERBs {
		t.Errorf("DetectFormat = %v, %v", f, err)
	}
}

func TestParseHeaderErrors(t *testing.T) {
	cases := []struct {
		name string
		f    catalog.Format
		in   string
	}{
		{"erbs empty", catalog.FormatAnatelERBs, ""},
		{"erbs missing latitude", catalog.FormatAnatelERBs, "Número Estação;Operadora;Longitude\n"},
		{"licenciadas empty", catalog.FormatAnatelLicenciadas, ""},
		{"licenciadas missing station", catalog.FormatAnatelLicenciadas, "Prestadora,Latitude,Longitude\n"},
		{"smp missing station", catalog.FormatMosaicoSMP, "_id,NomeEntidade,Latitude,Longitude\n"},
		{"json empty", catalog.FormatMosaicoJSON, "  \n"},
		{"unknown format", catalog.FormatUnknown, "x"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := catalog.Parse(c.f, strings.NewReader(c.in))
			if err == nil || !errorsIsInvalid(err) {
				t.Errorf("err = %v, want ErrInvalid", err)
			}
		})
	}
}
