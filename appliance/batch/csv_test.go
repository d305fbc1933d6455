package batch_test

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/batch"
)

func fieldOf(t *testing.T, err error) []appliance.FieldError {
	t.Helper()
	var ve *appliance.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error %v (%T) is not a ValidationError", err, err)
	}
	return ve.Fields
}

func TestParseCSVHeaderAliases(t *testing.T) {
	cases := []struct {
		name   string
		header string
		want   string // canonical column the second header maps to
	}{
		{"latitude", "latitude,lon,freq", batch.ColLat},
		{"latitud", "latitud,lon,freq", batch.ColLat},
		{"y", "y,x,freq", batch.ColLat},
		{"LAT upper case", "LAT,LON,FREQ", batch.ColLat},
		{"lng", "lat,lng,freq", batch.ColLon},
		{"long", "lat,long,freq", batch.ColLon},
		{"longitude spaced", "lat, Longitude ,freq", batch.ColLon},
		{"altura_m", "lat,lon,freq,altura_m", batch.ColHeight},
		{"Altura (m)", "lat,lon,freq,Altura (m)", batch.ColHeight},
		{"antenna height", "lat,lon,freq,Antenna Height", batch.ColHeight},
		{"rx_height", "lat,lon,freq,rx_height", batch.ColHeight},
		{"frequency_mhz", "lat,lon,frequency_mhz", batch.ColFreq},
		{"Frequência (MHz)", "lat,lon,Frequência (MHz)", batch.ColFreq},
		{"frequencia", "lat,lon,frequencia", batch.ColFreq},
		{"radius_km", "lat,lon,freq,radius_km", batch.ColMaxDistance},
		{"raio_km", "lat,lon,freq,raio_km", batch.ColMaxDistance},
		{"distance_km", "lat,lon,freq,distance_km", batch.ColMaxDistance},
		{"nome", "lat,lon,freq,nome", batch.ColReceiverID},
		{"cliente", "lat,lon,freq,Cliente", batch.ColReceiverID},
		{"site", "lat,lon,freq,site", batch.ColReceiverID},
		{"ganho_dbi", "lat,lon,freq,ganho_dbi", batch.ColRxGain},
		{"perda_cabo", "lat,lon,freq,perda_cabo", batch.ColCableLoss},
		{"sensibilidade", "lat,lon,freq,sensibilidade", batch.ColRxThreshold},
		{"eirp", "lat,lon,freq,EIRP", batch.ColAssumedEIRP},
		{"operadora", "lat,lon,freq,operadora", batch.ColOperator},
		{"motor", "lat,lon,freq,motor", batch.ColEngine},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := batch.ReadCSV(strings.NewReader(c.header+"\n-22.9,-43.2,1800,7\n"), 10)
			if err != nil {
				t.Fatal(err)
			}
			hs := strings.Split(c.header, ",")
			found := false
			for _, h := range hs {
				if f.Columns[c.want] == h {
					found = true
				}
			}
			if !found {
				t.Fatalf("columns %v: %s not mapped", f.Columns, c.want)
			}
			if len(f.Unknown) != 0 {
				t.Fatalf("unknown %v", f.Unknown)
			}
		})
	}
}

func TestParseCSVFormats(t *testing.T) {
	cases := []struct {
		name     string
		in       string
		sep      rune
		encoding string
		lat, lon float64
		id       string
	}{
		{"comma", "id,lat,lon,frequency_mhz\nA,-22.9519,-43.2105,1800\n", ',', "UTF-8", -22.9519, -43.2105, "A"},
		{"pt-BR semicolon decimal comma", "nome;latitude;longitude;frequência;altura\r\nCasa 1;-22,9519;-43,2105;1800;12,5\r\n", ';', "UTF-8", -22.9519, -43.2105, "Casa 1"},
		{"tab decimal comma", "nome\tlat\tlon\tfreq\nB\t-22,9519\t-43,2105\t1800\n", '\t', "UTF-8", -22.9519, -43.2105, "B"},
		{"quoted decimal comma in comma file", "id,lat,lon,freq\n\"C, ltda\",\"-22,9519\",\"-43,2105\",1800\n", ',', "UTF-8", -22.9519, -43.2105, "C, ltda"},
		{"BOM", "\xef\xbb\xbfid;lat;lon;freq\nD;-22.9519;-43.2105;1800\n", ';', "UTF-8", -22.9519, -43.2105, "D"},
		{"Windows-1252", "nome;latitude;longitude;Frequ\xeancia (MHz)\nS\xe3o Jo\xe3o;-22,9519;-43,2105;1800\n", ';', "Windows-1252", -22.9519, -43.2105, "São João"},
		{"thousands", "id;lat;lon;freq;raio\nE;-22,9519;-43,2105;1.800,0;10\n", ';', "UTF-8", -22.9519, -43.2105, "E"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := batch.ReadCSV(strings.NewReader(c.in), 10)
			if err != nil {
				t.Fatal(err)
			}
			if f.Separator != c.sep || f.Encoding != c.encoding || len(f.Rows) != 1 {
				t.Fatalf("sep %q encoding %s rows %d", f.Separator, f.Encoding, len(f.Rows))
			}
			r := f.Rows[0]
			if len(r.Errors) != 0 || r.Lat == nil || *r.Lat != c.lat || r.Lon == nil || *r.Lon != c.lon || r.FreqMHz == nil || *r.FreqMHz != 1800 || r.ReceiverID != c.id {
				t.Fatalf("row %+v errors %v", r, r.Errors)
			}
		})
	}
}

func TestParseCSVRowErrors(t *testing.T) {
	in := "id;lat;lon;freq;altura;comentario\n" +
		"ok;-22,9;-43,2;1800;10;x\n" +
		"badlat;abc;-43,2;1800;;\n" +
		"nofreq;-22,9;-43,2;;10;\n" +
		";;;;;\n" + // blank row: skipped
		"badheight;-22,9;-43,2;1800;1,2,3;\n"
	f, err := batch.ReadCSV(strings.NewReader(in), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Rows) != 4 || len(f.Unknown) != 1 || f.Unknown[0] != "comentario" {
		t.Fatalf("rows %d unknown %v", len(f.Rows), f.Unknown)
	}
	cases := []struct {
		name  string
		row   int
		field string
	}{
		{"valid", 0, ""},
		{"not a number", 1, "lat"},
		{"missing value is not a parse error", 2, ""},
		{"two commas", 3, "height_m"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			errs := f.Rows[c.row].Errors
			if c.field == "" {
				if len(errs) != 0 {
					t.Fatalf("errors %v", errs)
				}
				return
			}
			if len(errs) != 1 || errs[0].Field != c.field || !strings.Contains(errs[0].Reason, "not a number") {
				t.Fatalf("errors %v", errs)
			}
		})
	}
	if f.Rows[2].FreqMHz != nil {
		t.Fatal("empty frequency parsed")
	}
}

func TestParseCSVFileErrors(t *testing.T) {
	cases := []struct {
		name  string
		in    string
		field string
	}{
		{"empty", "", "file"},
		{"white space", " \n\n", "file"},
		{"header only", "lat,lon,freq\n", "file"},
		{"missing frequency column", "lat,lon,altura\n1,2,3\n", "frequency_mhz"},
		{"missing lat column", "latt,lon,freq\n1,2,3\n", "lat"},
		{"duplicate column", "lat,latitude,lon,freq\n1,1,2,3\n", "header"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := batch.ParseCSV(strings.NewReader(c.in), 10)
			if !errors.Is(err, appliance.ErrInvalid) {
				t.Fatalf("got %v", err)
			}
			fs := fieldOf(t, err)
			if fs[0].Field != c.field {
				t.Fatalf("fields %v", fs)
			}
		})
	}
}

func TestParseCSVOverLimitCountsAll(t *testing.T) {
	var b strings.Builder
	b.WriteString("lat,lon,freq\n")
	for range 2500 {
		b.WriteString("-22.9,-43.2,1800\n")
	}
	_, err := batch.ParseCSV(strings.NewReader(b.String()), 2000)
	var le *batch.LimitError
	if !errors.As(err, &le) || le.Count != 2500 || le.Limit != 2000 || le.AtLeast || !errors.Is(err, appliance.ErrInvalid) {
		t.Fatalf("got %v", err)
	}
	if !regexp.MustCompile(`^batch has 2500 rows; at most 2000 rows per job$`).MatchString(err.Error()) {
		t.Fatalf("message %q", err)
	}
	rows, err := batch.ParseCSV(strings.NewReader(b.String()), 2500)
	if err != nil || len(rows) != 2500 {
		t.Fatalf("exact limit: %d rows, %v", len(rows), err)
	}
}

func FuzzParseCSV(f *testing.F) {
	f.Add([]byte("id,lat,lon,freq\nA,-22.9,-43.2,1800\n"))
	f.Add([]byte("nome;latitude;longitude;frequência\nB;-22,9;-43,2;1800\n"))
	f.Add([]byte("\xef\xbb\xbfnome;lat;lon;Frequ\xeancia\n\"x;y\";\"1,5\";2;3\n"))
	f.Add([]byte("lat\tlon\tfreq\n1\t2\t3\n\"unterminated\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		f, err := batch.ReadCSV(strings.NewReader(string(data)), 50)
		if err != nil {
			if !errors.Is(err, appliance.ErrInvalid) {
				t.Fatalf("error %v does not match ErrInvalid", err)
			}
			return
		}
		if len(f.Rows) == 0 || len(f.Rows) > 50 {
			t.Fatalf("%d rows", len(f.Rows))
		}
		for _, r := range f.Rows {
			for _, p := range []*float64{r.Lat, r.Lon, r.FreqMHz, r.HeightM, r.MaxDistanceKm} {
				if p != nil && (*p != *p) {
					t.Fatal("NaN parsed")
				}
			}
		}
	})
}
