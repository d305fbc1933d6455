package catalog_test

import (
	"errors"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/catalog"
)

func errorsIsInvalid(err error) bool { return errors.Is(err, appliance.ErrInvalid) }

var samples = []struct {
	file string
	f    catalog.Format
}{
	{"anatel_erbs_sample.csv", catalog.FormatAnatelERBs},
	{"anatel_estacoes_licenciadas_smp_sample.csv", catalog.FormatAnatelLicenciadas},
	{"anatel_mosaico_licenciamento_sample.tsv", catalog.FormatMosaicoLicenciamento},
	{"anatel_mosaico_smp_sample.csv", catalog.FormatMosaicoSMP},
	{"anatel_mosaico_smp_full_records.json", catalog.FormatMosaicoJSON},
	{"opencellid_724_sample.csv", catalog.FormatOpenCelliD},
}

func TestDetectFormatSamples(t *testing.T) {
	for _, s := range samples {
		t.Run(s.file, func(t *testing.T) {
			b := readSample(t, s.file)
			got, err := catalog.DetectFormat(b[:min(len(b), catalog.DetectFormatBytes)])
			if err != nil || got != s.f {
				t.Fatalf("DetectFormat = %v, %v; want %v", got, err, s.f)
			}
			res, err := catalog.ParseAuto(strings.NewReader(string(b)))
			if err != nil || res.Format != s.f || res.Rows == 0 {
				t.Fatalf("ParseAuto: %v, format %v rows %d", err, res.Format, res.Rows)
			}
		})
	}
}

func TestDetectFormatOthers(t *testing.T) {
	cases := []struct {
		name string
		head string
		want catalog.Format
	}{
		{"opencellid with header", "radio,mcc,net,area,cell,unit,lon,lat,range,samples,changeable,created,updated,averageSignal\n", catalog.FormatOpenCelliD},
		{"json object stream", "\n  {\"NumEstacao\": \"1\"}", catalog.FormatMosaicoJSON},
		{"ERBs upper case header without accents", "NUMERO ESTACAO;OPERADORA;SIGLAUF;MUN;BAIRRO;LOGRADOURO;LATITUDE;LONGITUDE;IBGE;X\n", catalog.FormatAnatelERBs},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got, err := catalog.DetectFormat([]byte(c.head)); err != nil || got != c.want {
				t.Errorf("DetectFormat = %v, %v; want %v", got, err, c.want)
			}
		})
	}
	for _, bad := range []string{"", "hello world", "a;b;c\n1;2;3", "GSM,724,1"} {
		if f, err := catalog.DetectFormat([]byte(bad)); err == nil || !errorsIsInvalid(err) {
			t.Errorf("DetectFormat(%q) = %v, %v; want ErrInvalid", bad, f, err)
		}
	}
}

func TestFormatNames(t *testing.T) {
	want := []string{"anatel-erbs", "anatel-licenciadas", "mosaico-licenciamento", "mosaico-smp", "mosaico-json", "opencellid"}
	for i, f := range catalog.Formats() {
		if f.String() != want[i] {
			t.Errorf("Formats()[%d] = %q, want %q", i, f, want[i])
		}
		back, err := catalog.ParseFormat(want[i])
		if err != nil || back != f {
			t.Errorf("ParseFormat(%q) = %v, %v", want[i], back, err)
		}
	}
	if _, err := catalog.ParseFormat("csv"); !errorsIsInvalid(err) {
		t.Errorf("ParseFormat(csv) err = %v, want ErrInvalid", err)
	}
}

func stringsReader(b []byte) *strings.Reader { return strings.NewReader(string(b)) }
