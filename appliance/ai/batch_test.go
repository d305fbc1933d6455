package ai_test

import (
	"reflect"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/ai"
	"linkplan/appliance/batch"
)

func TestSummarizeAndExplainBatch(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	rows := []batch.RowResult{
		{Row: 1, ReceiverID: "001", TowerID: "anatel:77", MarginDB: f(25.5), DistanceKm: f(1.25), Status: batch.StatusOK},
		{Row: 2, ReceiverID: "002", TowerID: "anatel:77", MarginDB: f(-3.25), DistanceKm: f(9.5), Status: batch.StatusLowMargin, Warnings: []appliance.Warning{{Code: "fspl_obstructed"}, {Code: "eirp_assumed"}}},
		{Row: 3, ReceiverID: "003", Status: batch.StatusNoTower, Reason: "no tower within 15 km"},
		{Row: 4, ReceiverID: "004", TowerID: "ocid:5", MarginDB: f(10), DistanceKm: f(3), Status: batch.StatusOK, Warnings: []appliance.Warning{{Code: "eirp_assumed"}}},
		{Row: 5, ReceiverID: "005", Status: batch.StatusNoTower, Reason: "no tower within 15 km"},
		{Row: 6, ReceiverID: "006", TowerID: "ocid:5", MarginDB: f(0), DistanceKm: f(4), Status: batch.StatusOK},
	}
	s := ai.Summarize("job_1", rows)
	if s.Counts != (batch.Counts{Total: 6, OK: 3, LowMargin: 1, NoTower: 2}) || s.Classes != [4]int{1, 1, 1, 1} {
		t.Fatalf("counts %+v classes %v", s.Counts, s.Classes)
	}
	var worst []string
	for _, r := range s.Worst {
		worst = append(worst, r.ReceiverID)
	}
	if !reflect.DeepEqual(worst, []string{"002", "006", "004", "001"}) {
		t.Fatalf("worst %v", worst)
	}
	if !reflect.DeepEqual(s.Warnings, []ai.CodeCount{{"eirp_assumed", 2}, {"fspl_obstructed", 1}}) || !reflect.DeepEqual(s.Reasons, []ai.CodeCount{{"no tower within 15 km", 2}}) {
		t.Fatalf("causes %+v %+v", s.Warnings, s.Reasons)
	}
	facts := ai.BatchFacts(&s)
	for _, lang := range []string{ai.LangPT, ai.LangEN} {
		text := ai.ExplainBatch(lang, &s)
		if bad := facts.Unsupported(text); len(bad) != 0 || !strings.Contains(text, "template") {
			t.Fatalf("unsupported %v in\n%s", bad, text)
		}
		t.Logf("%s", text)
	}
}
