package telemetry_test

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/VictoriaMetrics/metrics"

	"linkplan/appliance/telemetry"
	"linkplan/appliance/tooltest"
)

// TestFamiliesAreWellFormed: names are unique, every family has a help
// text and a type, and every closed tuple has one value per label.
func TestFamiliesAreWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range telemetry.Families() {
		if seen[f.Name] {
			t.Errorf("%s declared twice", f.Name)
		}
		seen[f.Name] = true
		if strings.TrimSpace(f.Help) == "" || !strings.HasSuffix(f.Help, ".") {
			t.Errorf("%s: help %q is not a sentence", f.Name, f.Help)
		}
		switch f.Type {
		case telemetry.Counter, telemetry.Gauge, telemetry.Histogram, telemetry.Untyped:
		default:
			t.Errorf("%s: type %q", f.Name, f.Type)
		}
		if f.Closed != nil && f.Type != telemetry.Counter {
			t.Errorf("%s: closed tuples on a %s", f.Name, f.Type)
		}
		for _, tu := range f.Closed {
			if len(tu) != len(f.Labels) {
				t.Errorf("%s: tuple %q for labels %q", f.Name, tu, f.Labels)
			}
		}
	}
	for _, c := range telemetry.RecoveredPanicComponents() {
		if !strings.HasPrefix(telemetry.RecoveredPanicSeries(c), telemetry.RecoveredPanics+`{component="`+c+`"}`) {
			t.Errorf("series of %s: %s", c, telemetry.RecoveredPanicSeries(c))
		}
	}
}

func TestWriteText(t *testing.T) {
	fams := []telemetry.Family{
		{Name: "a_total", Type: telemetry.Counter, Help: "A.", Labels: []string{"k"}, Closed: [][]string{{"x"}, {"y"}}},
		{Name: "b_seconds", Type: telemetry.Histogram, Help: "B, seconds."},
		{Name: "c", Type: telemetry.Gauge, Help: `C with a \ and` + "\n" + "a newline."},
	}
	for _, tc := range []struct {
		name, raw, want string
	}{
		{name: "nothing counted: every family declared, closed tuples at 0", raw: "",
			want: "# HELP a_total A.\n# TYPE a_total counter\na_total{k=\"x\"} 0\na_total{k=\"y\"} 0\n" +
				"# HELP b_seconds B, seconds.\n# TYPE b_seconds histogram\n" +
				"# HELP c C with a \\\\ and\\na newline.\n# TYPE c gauge\n"},
		{name: "a counted tuple replaces its 0; comments of a source are dropped",
			raw: "# HELP a_total something else\n# TYPE a_total untyped\na_total{k=\"y\"} 3\nc 1.5\n",
			want: "# HELP a_total A.\n# TYPE a_total counter\na_total{k=\"y\"} 3\na_total{k=\"x\"} 0\n" +
				"# HELP b_seconds B, seconds.\n# TYPE b_seconds histogram\n" +
				"# HELP c C with a \\\\ and\\na newline.\n# TYPE c gauge\nc 1.5\n"},
		{name: "histogram samples join their family; an undeclared family is written last, bare",
			raw: "zz 1\nb_seconds_bucket{le=\"+Inf\"} 2\nb_seconds_sum 0.5\nb_seconds_count 2\n",
			want: "# HELP a_total A.\n# TYPE a_total counter\na_total{k=\"x\"} 0\na_total{k=\"y\"} 0\n" +
				"# HELP b_seconds B, seconds.\n# TYPE b_seconds histogram\nb_seconds_bucket{le=\"+Inf\"} 2\nb_seconds_sum 0.5\nb_seconds_count 2\n" +
				"# HELP c C with a \\\\ and\\na newline.\n# TYPE c gauge\nzz 1\n"},
		{name: "escaped label values match their tuple",
			raw: `a_total{k="x"} 1` + "\n" + `a_total{k="q\"\\"} 2` + "\n",
			want: "# HELP a_total A.\n# TYPE a_total counter\na_total{k=\"x\"} 1\na_total{k=\"q\\\"\\\\\"} 2\na_total{k=\"y\"} 0\n" +
				"# HELP b_seconds B, seconds.\n# TYPE b_seconds histogram\n" +
				"# HELP c C with a \\\\ and\\na newline.\n# TYPE c gauge\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := telemetry.New(fams).WriteText(&b, []byte(tc.raw)); err != nil {
				t.Fatal(err)
			}
			if b.String() != tc.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tc.want)
			}
		})
	}
	if got := telemetry.New(fams).Undeclared([]byte("zz 1\na_total 2\nb_seconds_sum 1\nzz{a=\"b\"} 2\n")); len(got) != 1 || got[0] != "zz" {
		t.Errorf("undeclared: %q", got)
	}
}

// TestAppliancePromtoolClean: the appliance's families, written from a set
// where nothing was counted and from one where a recovered panic, an
// observation source and a language model call were counted, pass promtool check metrics (Debian package prometheus).
func TestAppliancePromtoolClean(t *testing.T) {
	promtool := tooltest.Need(t, "promtool", "prometheus")
	e := telemetry.New(telemetry.Families())
	empty := metrics.NewSet()
	counted := metrics.NewSet()
	counted.GetOrCreateCounter(telemetry.RecoveredPanicSeries("batch.row")).Inc()
	counted.GetOrCreateCounter(telemetry.ObservationsSeries(`drivetest_"x"`)).Add(3)
	counted.GetOrCreateCounter(telemetry.LLMEgress + `{provider="openai_compatible",outcome="ok"}`).Add(2)
	for name, set := range map[string]*metrics.Set{"empty": empty, "counted": counted} {
		var b bytes.Buffer
		if err := e.Write(&b, set); err != nil {
			t.Fatal(err)
		}
		cmd := exec.CommandContext(t.Context(), promtool, "check", "metrics")
		cmd.Stdin = bytes.NewReader(b.Bytes())
		out, err := cmd.CombinedOutput()
		if err != nil || len(bytes.TrimSpace(out)) > 0 {
			t.Errorf("%s: promtool check metrics: %v\n%s\n%s", name, err, out, b.String())
		}
		if name == "counted" && !strings.Contains(b.String(), `linkplan_recovered_panics_total{component="batch.row"} 1`+"\n") {
			t.Errorf("counted panic missing:\n%s", b.String())
		}
	}
}
