package telemetry

import (
	"bufio"
	"bytes"
	"io"
	"strings"

	"github.com/VictoriaMetrics/metrics"
)

// Exposition writes a metrics set under the declared families.
type Exposition struct {
	fams  []Family
	index map[string]int // sample name -> index in fams
}

// New returns the exposition of fams (Families() in the appliance).
func New(fams []Family) *Exposition {
	e := &Exposition{fams: fams, index: map[string]int{}}
	for i, f := range fams {
		e.index[f.Name] = i
		if f.Type == Histogram {
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				e.index[f.Name+suffix] = i
			}
		}
	}
	return e
}

// Write writes set in the Prometheus text format (version 0.0.4): every
// declared family with its HELP and TYPE, its samples in the order the
// set wrote them, then a 0 sample for each closed tuple not written; then
// the samples of undeclared families, without metadata.
func (e *Exposition) Write(w io.Writer, set *metrics.Set) error {
	var raw bytes.Buffer
	set.WritePrometheus(&raw)
	return e.WriteText(w, raw.Bytes())
}

// WriteText is Write of a text exposition already rendered (samples; any
// comment line is dropped).
func (e *Exposition) WriteText(w io.Writer, raw []byte) error {
	samples := make([][]string, len(e.fams))
	seen := make([]map[string]bool, len(e.fams))
	var undeclared []string
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, labels, ok := parseSample(line)
		i, declared := e.index[name]
		if !ok || !declared {
			undeclared = append(undeclared, line)
			continue
		}
		samples[i] = append(samples[i], line)
		if f := e.fams[i]; f.Closed != nil {
			if seen[i] == nil {
				seen[i] = map[string]bool{}
			}
			seen[i][tupleKey(f.Labels, labels)] = true
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	var b bytes.Buffer
	for i, f := range e.fams {
		b.WriteString("# HELP " + f.Name + " " + escapeHelp(f.Help) + "\n# TYPE " + f.Name + " " + string(f.Type) + "\n")
		for _, s := range samples[i] {
			b.WriteString(s + "\n")
		}
		for _, t := range f.Closed {
			vals := map[string]string{}
			for j, l := range f.Labels {
				vals[l] = t[j]
			}
			if seen[i][tupleKey(f.Labels, vals)] {
				continue
			}
			b.WriteString(f.Name + "{")
			for j, l := range f.Labels {
				if j > 0 {
					b.WriteByte(',')
				}
				b.WriteString(l + "=" + quote(t[j]))
			}
			b.WriteString("} 0\n")
		}
	}
	for _, s := range undeclared {
		b.WriteString(s + "\n")
	}
	_, err := w.Write(b.Bytes())
	return err
}

// Undeclared returns the sample names of raw that no family of e declares,
// each once, in the order met.
func (e *Exposition) Undeclared(raw []byte) []string {
	var out []string
	met := map[string]bool{}
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, _, _ := parseSample(line)
		if _, ok := e.index[name]; !ok && !met[name] {
			met[name] = true
			out = append(out, name)
		}
	}
	return out
}

// parseSample splits a sample line into its name and label values; ok is
// false when the label set is malformed.
func parseSample(line string) (name string, labels map[string]string, ok bool) {
	end := strings.IndexAny(line, "{ ")
	if end < 0 {
		return line, nil, false
	}
	name = line[:end]
	if line[end] == ' ' {
		return name, nil, true
	}
	labels = map[string]string{}
	s := line[end+1:]
	for {
		s = strings.TrimLeft(s, " ")
		if strings.HasPrefix(s, "}") {
			return name, labels, true
		}
		eq := strings.IndexByte(s, '=')
		if eq < 0 || len(s) < eq+2 || s[eq+1] != '"' {
			return name, nil, false
		}
		key := strings.TrimSpace(s[:eq])
		var v strings.Builder
		j := eq + 2
		for ; j < len(s) && s[j] != '"'; j++ {
			if s[j] == '\\' && j+1 < len(s) {
				j++
				switch s[j] {
				case 'n':
					v.WriteByte('\n')
				default:
					v.WriteByte(s[j])
				}
				continue
			}
			v.WriteByte(s[j])
		}
		if j >= len(s) {
			return name, nil, false
		}
		labels[key] = v.String()
		s = strings.TrimPrefix(s[j+1:], ",")
	}
}

// tupleKey joins the values of labels (in the family's label order) into
// one map key.
func tupleKey(names []string, labels map[string]string) string {
	var b strings.Builder
	for _, n := range names {
		b.WriteString(labels[n])
		b.WriteByte(0)
	}
	return b.String()
}

// quote quotes a label value as the text format requires (backslash,
// double quote and newline escaped).
func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}

// escapeHelp escapes a help text as the text format requires (backslash
// and newline).
func escapeHelp(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\n", `\n`).Replace(s)
}
