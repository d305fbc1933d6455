package ai

import (
	"context"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"

	"linkplan/appliance"
	"linkplan/appliance/batch"
)

// JobOpener opens a finished job's result bundle (appliance/jobs).
type JobOpener interface {
	Open(ctx context.Context, tenantID, id string) (*appliance.Job, *os.File, error)
}

// Batch summary settings.
const (
	// WorstSites is how many of the lowest-margin rows a summary names.
	WorstSites = 5
	// TopCauses is how many reasons a summary names (it names every
	// warning code).
	TopCauses = 5
	// MaxJobIDBytes caps a job id.
	MaxJobIDBytes = 128
)

// MarginClassesDB are the bounds of the margin classes, dB: below 0, 0 to
// 10, 10 to 20, 20 or more.
var MarginClassesDB = [3]float64{0, 10, 20}

// BatchAsk asks for the summary of a finished batch report job.
type BatchAsk struct {
	JobID    string
	Language string
}

// CodeCount is how many rows carry a warning code or a reason.
type CodeCount struct {
	Code  string
	Count int
}

// BatchSummary is what the engine's rows of a job say, counted.
type BatchSummary struct {
	JobID  string
	Counts batch.Counts
	// Classes counts the rows with a best tower by margin: below 0 dB,
	// 0–10 dB, 10–20 dB, 20 dB or more.
	Classes [4]int
	// Worst are the rows with the lowest margins, lowest first (ties: row
	// order), at most WorstSites.
	Worst []batch.RowResult
	// Warnings are every warning code of the rows and Reasons the most
	// frequent no-tower or error reasons (at most TopCauses), most
	// frequent first (ties: by name).
	Warnings, Reasons []CodeCount
	// WarningMessages holds, per code of Warnings and in its order, the
	// message of the first row that raised it (empty for bundles written
	// before results.csv kept the messages).
	WarningMessages []appliance.Warning
}

// BatchAnswer is the answer of BatchAnalyze.
type BatchAnswer struct {
	Summary BatchSummary
	Answer
}

// BatchAnalyze summarises a finished batch report job of the caller's
// tenant (counts by status and margin class, worst sites, common causes)
// and explains the summary. Another tenant's job is not found; a job of
// another kind, or one without a result yet, is a conflict.
func (s *Service) BatchAnalyze(ctx context.Context, k *appliance.APIKey, req BatchAsk) (*BatchAnswer, error) {
	v := &appliance.ValidationError{}
	lang := checkLanguage(req.Language, v)
	if req.JobID == "" || len(req.JobID) > MaxJobIDBytes {
		v.Add("job_id", "is required: the id of a batch report job (at most %d bytes)", MaxJobIDBytes)
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	if s.jobs == nil {
		return nil, fmt.Errorf("batch analyze: no job service: %w", appliance.ErrUnavailable)
	}
	if err := s.charge(k); err != nil {
		return nil, err
	}
	tenant := k.TenantID
	if k.Role == appliance.RoleAdmin {
		tenant = ""
	}
	job, f, err := s.jobs.Open(ctx, tenant, req.JobID)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if job.Kind != appliance.JobKindBatchReport {
		return nil, fmt.Errorf("job %s is a %s job, not a batch report: %w", job.ID, job.Kind, appliance.ErrConflict)
	}
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("batch analyze: %w", err)
	}
	rows, err := batch.ReadResults(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("batch analyze: the result of job %s cannot be read: %w", job.ID, err)
	}
	sum := Summarize(job.ID, rows)
	ans := s.explain(ctx, lang, BatchFacts(&sum), "", ExplainBatch(lang, &sum))
	return &BatchAnswer{Summary: sum, Answer: ans}, nil
}

// Summarize counts the rows of a job.
func Summarize(jobID string, rows []batch.RowResult) BatchSummary {
	sum := BatchSummary{JobID: jobID}
	warn, reason := map[string]int{}, map[string]int{}
	first := map[string]string{}
	var margined []batch.RowResult
	for _, r := range rows {
		sum.Counts.Add(r.Status)
		for _, w := range r.Warnings {
			if warn[w.Code] == 0 {
				first[w.Code] = w.Message
			}
			warn[w.Code]++
		}
		if r.Reason != "" && (r.Status == batch.StatusNoTower || r.Status == batch.StatusError) {
			reason[r.Reason]++
		}
		if r.MarginDB == nil || math.IsNaN(*r.MarginDB) {
			continue
		}
		m := *r.MarginDB
		c := 0
		for c < len(MarginClassesDB) && m >= MarginClassesDB[c] {
			c++
		}
		sum.Classes[c]++
		margined = append(margined, r)
	}
	sort.SliceStable(margined, func(i, j int) bool { return *margined[i].MarginDB < *margined[j].MarginDB })
	sum.Worst = margined[:min(WorstSites, len(margined))]
	sum.Warnings, sum.Reasons = top(warn, len(warn)), top(reason, TopCauses)
	for _, w := range sum.Warnings {
		sum.WarningMessages = append(sum.WarningMessages, appliance.Warning{Code: w.Code, Message: first[w.Code]})
	}
	return sum
}

// top returns the n most frequent keys of m, most frequent first (ties:
// by name).
func top(m map[string]int, n int) []CodeCount {
	out := make([]CodeCount, 0, len(m))
	for k, n := range m {
		out = append(out, CodeCount{k, n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Code < out[j].Code
	})
	return out[:min(n, len(out))]
}

// BatchFacts is the fact sheet of a batch summary.
func BatchFacts(s *BatchSummary) *FactSheet {
	f := &FactSheet{}
	f.constants()
	f.label("job_id", s.JobID)
	c := s.Counts
	f.num("rows_total", float64(c.Total), "")
	f.num("rows_ok", float64(c.OK), "")
	f.num("rows_low_margin", float64(c.LowMargin), "")
	f.num("rows_no_tower", float64(c.NoTower), "")
	f.num("rows_error", float64(c.Error), "")
	for i, b := range MarginClassesDB {
		f.num(fmt.Sprintf("margin_class_bound_%d_db", i+1), b, "dB")
	}
	for i, n := range s.Classes {
		f.num(fmt.Sprintf("margin_class_%d_rows", i+1), float64(n), "")
	}
	for i, r := range s.Worst {
		p := fmt.Sprintf("worst_%d", i+1)
		f.label(p+".receiver_id", r.ReceiverID)
		f.label(p+".tower_id", r.TowerID)
		f.num(p+".row", float64(r.Row), "")
		f.num(p+".rank", float64(i+1), "")
		if r.MarginDB != nil {
			f.num(p+".margin_db", *r.MarginDB, "dB")
		}
		if r.DistanceKm != nil {
			f.num(p+".distance_km", *r.DistanceKm, "km")
		}
	}
	for _, w := range s.Warnings {
		f.num("warning."+w.Code+".rows", float64(w.Count), "")
	}
	f.warn(s.WarningMessages...)
	for i, r := range s.Reasons {
		p := fmt.Sprintf("reason_%d", i+1)
		f.label(p, r.Code)
		f.num(p+".rows", float64(r.Count), "")
	}
	return f
}

// ExplainBatch is the template explanation of a batch summary; every
// number in it comes from BatchFacts.
func ExplainBatch(lang string, s *BatchSummary) string {
	en := lang == LangEN
	c := s.Counts
	var b strings.Builder
	if en {
		b.WriteString("Explanation written by linkplan's fixed template (a template, not a language model) from the numbers of the batch job.\n")
		fmt.Fprintf(&b, "Job %s has %d receivers: %d with a margin of 0 dB or more, %d below 0 dB, %d without a tower and %d that could not be analysed.",
			s.JobID, c.Total, c.OK, c.LowMargin, c.NoTower, c.Error)
		fmt.Fprintf(&b, " By margin: below 0 dB %d, from 0 to 10 dB %d, from 10 to 20 dB %d, 20 dB or more %d.", s.Classes[0], s.Classes[1], s.Classes[2], s.Classes[3])
	} else {
		b.WriteString("Explicação escrita pelo texto fixo do linkplan (um template, não um modelo de linguagem) a partir dos números do lote.\n")
		fmt.Fprintf(&b, "O lote %s tem %d receptores: %d com margem de 0 dB ou mais, %d abaixo de 0 dB, %d sem torre e %d que não puderam ser analisados.",
			s.JobID, c.Total, c.OK, c.LowMargin, c.NoTower, c.Error)
		fmt.Fprintf(&b, " Por margem: abaixo de 0 dB %d, de 0 a 10 dB %d, de 10 a 20 dB %d, 20 dB ou mais %d.", s.Classes[0], s.Classes[1], s.Classes[2], s.Classes[3])
	}
	if len(s.Worst) > 0 {
		b.WriteString("\n")
		if en {
			b.WriteString("Weakest sites:")
		} else {
			b.WriteString("Sites mais fracos:")
		}
		for i, r := range s.Worst {
			sep := ";"
			if i == 0 {
				sep = ""
			}
			dist := ""
			if r.DistanceKm != nil {
				dist = ", " + num(lang, *r.DistanceKm, 2) + " km"
			}
			if en {
				fmt.Fprintf(&b, "%s %s (row %d, margin %s dB, tower %s%s)", sep, r.ReceiverID, r.Row, num(lang, *r.MarginDB, 1), r.TowerID, dist)
			} else {
				fmt.Fprintf(&b, "%s %s (linha %d, margem %s dB, torre %s%s)", sep, r.ReceiverID, r.Row, num(lang, *r.MarginDB, 1), r.TowerID, dist)
			}
		}
		b.WriteString(".")
	}
	if len(s.Warnings)+len(s.Reasons) > 0 {
		b.WriteString("\n")
		if en {
			b.WriteString("Most common causes:")
		} else {
			b.WriteString("Causas mais comuns:")
		}
		sep := ""
		for _, w := range append(append([]CodeCount{}, s.Warnings...), s.Reasons...) {
			if en {
				fmt.Fprintf(&b, "%s %s (%d rows)", sep, w.Code, w.Count)
			} else {
				fmt.Fprintf(&b, "%s %s (%d linhas)", sep, w.Code, w.Count)
			}
			sep = ";"
		}
		b.WriteString(".")
	}
	return b.String()
}
