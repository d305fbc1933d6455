package ai_test

import (
	"errors"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/ai"
	"linkplan/engines"
	"linkplan/terrain-packs/sample"
	"linkplan/terrain-packs/terrain"
)

// TestCompareExplainsEveryEngine runs the real engine registry on a Rio
// path across the Tijuca massif and explains the spread with the template.
func TestCompareExplainsEveryEngine(t *testing.T) {
	ter, err := terrain.OpenBytes(sample.Pack())
	if err != nil {
		t.Fatal(err)
	}
	reg, err := engines.New(engines.Config{})
	if err != nil {
		t.Fatal(err)
	}
	s := ai.New(ai.Deps{Compare: reg, Terrain: ter})
	c := engines.Case{Tx: engines.Terminal{Lat: -22.925, Lon: -43.31, HeightM: 30}, Rx: engines.Terminal{Lat: -22.96, Lon: -43.21, HeightM: 10}, FrequencyMHz: 900}
	for _, lang := range []string{ai.LangPT, ai.LangEN} {
		a, err := s.Compare(t.Context(), key(appliance.TierPro, "t"), ai.CompareAsk{Case: c, Language: lang})
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Rows) != len(engines.CompareEngines()) || a.Grounding.Outcome != ai.OutcomeTemplate || len(a.Grounding.UnsupportedNumbers) != 0 ||
			!strings.HasSuffix(a.Text, ai.Disclaimer(lang)) {
			t.Fatalf("%d rows %+v\n%s", len(a.Rows), a.Grounding, a.Text)
		}
		if _, ok := a.Facts.Get("loss_spread_db"); !ok {
			t.Fatal("no loss spread fact")
		}
		t.Logf("%s", a.Text)
	}
	if _, err := s.Compare(t.Context(), key(appliance.TierStarter, "s"), ai.CompareAsk{Case: c}); !errors.Is(err, appliance.ErrForbidden) {
		t.Fatalf("starter: %v", err)
	}
}
