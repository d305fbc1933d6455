package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/ai"
	"linkplan/appliance/quota"
)

const (
	aiChatRio   = `{"analysis":{"receiver":{"lat":-22.95,"lon":-43.20,"height":10},"frequency_mhz":1800,"max_distance_km":20}}`
	aiHeightRio = `{"link":{"tower":{"lat":-22.90,"lon":-43.10,"height":15,"power":50},"receiver":{"lat":-22.93,"lon":-43.18,"height":2},"frequency_mhz":5800},"target_margin_db":0,"step_m":0.5,"max_height_m":60,"language":"en"}`
	// Behind the Tijuca massif from a tower at its foot: no height up to
	// 40 m gives line of sight.
	aiHeightBlocked = `{"link":{"tower":{"lat":-22.925,"lon":-43.31,"height":30},"receiver":{"lat":-22.96,"lon":-43.21,"height":3},"frequency_mhz":5800},"max_height_m":40}`
)

// aiAnswer is the explanation part of the AI answers.
type aiAnswer struct {
	Answer     string `json:"answer"`
	Language   string `json:"language"`
	Disclaimer string `json:"disclaimer"`
	Explainer  struct {
		Kind, Provider, Model string
	} `json:"explainer"`
	Grounding struct {
		Checked            bool     `json:"checked"`
		UnsupportedNumbers []string `json:"unsupported_numbers"`
		Outcome            string   `json:"outcome"`
	} `json:"grounding"`
	ProviderError *string `json:"provider_error"`
	Search        struct {
		Found       bool     `json:"found"`
		HeightM     *float64 `json:"height_m"`
		FailingRule *string  `json:"failing_rule"`
	} `json:"search"`
}

func checkTemplateAnswer(lang string) func(t *testing.T, h *harness, res *response) {
	return func(t *testing.T, h *harness, res *response) {
		a := decodeJSON[aiAnswer](t, res)
		if a.Language != lang || a.Grounding.Outcome != ai.OutcomeTemplate || !a.Grounding.Checked || len(a.Grounding.UnsupportedNumbers) != 0 ||
			a.Explainer.Kind != "template" || !strings.HasSuffix(a.Answer, ai.Disclaimer(lang)) || a.Disclaimer != ai.Disclaimer(lang) {
			t.Errorf("%+v", a)
		}
	}
}

// aiScenarios are the scenarios of the AI routes (template explainer: the
// harness, like serve without --ai-provider-url, configures no model).
func aiScenarios(t *testing.T, h *harness) []scenario {
	return []scenario{
		{name: "ai models", method: "GET", url: "/ai/models", key: "pro", status: 200, contains: []string{`"id":"linkplan-template"`, `"offline":true`}},
		{name: "ai models without key", method: "GET", url: "/ai/models", status: 401, code: "unauthenticated"},
		{name: "ai chat explains an analysis", method: "POST", url: "/ai/chat", key: "pro", body: aiChatRio, status: 200, check: func(t *testing.T, h *harness, res *response) {
			checkTemplateAnswer(ai.LangPT)(t, h, res)
			var a struct {
				Analysis struct {
					BestTower *struct {
						TowerID string         `json:"tower_id"`
						Path    map[string]any `json:"path"`
					} `json:"best_tower"`
				} `json:"analysis"`
			}
			if err := json.Unmarshal(res.body, &a); err != nil || a.Analysis.BestTower == nil || a.Analysis.BestTower.Path == nil ||
				!strings.Contains(string(res.body), a.Analysis.BestTower.TowerID) {
				t.Errorf("analysis: %v %.400s", err, res.body)
			}
		}},
		{name: "ai chat in English", method: "POST", url: "/ai/chat", key: "pro", status: 200, check: checkTemplateAnswer(ai.LangEN),
			body: `{"analysis":{"receiver":{"lat":-22.95,"lon":-43.20,"height":10},"frequency_mhz":1800,"max_distance_km":20},"question":"Why?","language":"en"}`},
		{name: "ai chat refuses Free", method: "POST", url: "/ai/chat", key: "free", body: aiChatRio, status: 403, code: "forbidden"},
		{name: "ai chat needs the analysis", method: "POST", url: "/ai/chat", key: "pro", body: `{"question":"?"}`, status: 422, code: "invalid_input", fields: []string{"analysis"}, doc: docRejects},
		{name: "ai chat names the nested field", method: "POST", url: "/ai/chat", key: "pro", body: `{"analysis":{"receiver":{"lon":-43.2},"frequency_mhz":1800}}`,
			status: 422, code: "invalid_input", fields: []string{"analysis.receiver.lat"}, doc: docRejects},
		{name: "ai chat bad language and long question", method: "POST", url: "/ai/chat", key: "pro", status: 422, code: "invalid_input", fields: []string{"language", "question"}, doc: docRejects,
			body: `{"analysis":{"receiver":{"lat":-22.95,"lon":-43.20},"frequency_mhz":1800},"language":"fr","question":"` + strings.Repeat("x", ai.MaxQuestionRunes+1) + `"}`},
		{name: "ai chat unknown field", method: "POST", url: "/ai/chat", key: "pro", body: `{"analysis":{"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":1800},"temperature":1}`,
			status: 422, code: "invalid_input", fields: []string{"temperature"}, doc: docRejects},
		{name: "ai chat body over 64 KiB", method: "POST", url: "/ai/chat", key: "pro", body: `{"question":"` + strings.Repeat("a", 70000) + `"}`, status: 413, code: "body_too_large"},
		{name: "ai chat malformed", method: "POST", url: "/ai/chat", key: "pro", body: `{"analysis":`, status: 400, code: "malformed_json", doc: docRejects},
		{name: "ai suggest height", method: "POST", url: "/ai/suggest-height", key: "pro", body: aiHeightRio, status: 200, check: func(t *testing.T, h *harness, res *response) {
			checkTemplateAnswer(ai.LangEN)(t, h, res)
			if a := decodeJSON[aiAnswer](t, res); !a.Search.Found || a.Search.HeightM == nil || a.Search.FailingRule != nil {
				t.Errorf("%.600s", res.body)
			}
		}},
		{name: "ai suggest height not achievable", method: "POST", url: "/ai/suggest-height", key: "pro", body: aiHeightBlocked, status: 200, check: func(t *testing.T, h *harness, res *response) {
			checkTemplateAnswer(ai.LangPT)(t, h, res)
			if a := decodeJSON[aiAnswer](t, res); a.Search.Found || a.Search.HeightM != nil || a.Search.FailingRule == nil || *a.Search.FailingRule != "line_of_sight" {
				t.Errorf("%.600s", res.body)
			}
		}},
		{name: "ai suggest height bad search", method: "POST", url: "/ai/suggest-height", key: "pro", status: 422, code: "invalid_input", fields: []string{"step_m", "move", "max_height_m"}, doc: docRejects,
			body: `{"link":{"tower":{"lat":-22.9519,"lon":-43.2105},"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":5800},"step_m":0,"move":"mast","max_height_m":900}`},
		{name: "ai suggest height names the link field", method: "POST", url: "/ai/suggest-height", key: "pro", status: 422, code: "invalid_input", fields: []string{"link.frequency_mhz"}, doc: docRejects,
			body: `{"link":{"tower":{"lat":-22.9519,"lon":-43.2105},"receiver":{"lat":-22.95,"lon":-43.2}}}`},
		{name: "ai compare explains the engines", method: "POST", url: "/ai/compare?language=en", key: "pro", status: 200,
			body:     `{"tx":{"lat":-22.925,"lon":-43.31,"height_m":30},"rx":{"lat":-22.96,"lon":-43.21,"height_m":10},"frequency_mhz":900}`,
			contains: []string{`"rows":[`, `loss_spread_db`}, check: checkTemplateAnswer(ai.LangEN)},
		{name: "ai compare refuses Free", method: "POST", url: "/ai/compare", key: "free", status: 403, code: "forbidden",
			body: `{"tx":{"lat":-22.925,"lon":-43.31,"height_m":30},"rx":{"lat":-22.96,"lon":-43.21,"height_m":10},"frequency_mhz":900}`},
		{name: "ai compare for a Business internal key", method: "POST", url: "/ai/compare", key: "internal", status: 200,
			body: `{"tx":{"lat":-22.925,"lon":-43.31,"height_m":30},"rx":{"lat":-22.96,"lon":-43.21,"height_m":10},"frequency_mhz":900}`},
		{name: "ai compare bad language", method: "POST", url: "/ai/compare?language=de", key: "pro", status: 422, code: "invalid_input", fields: []string{"language"}, doc: docRejects,
			body: `{"tx":{"lat":-22.925,"lon":-43.31,"height_m":30},"rx":{"lat":-22.96,"lon":-43.21,"height_m":10},"frequency_mhz":900}`},
		{name: "ai compare bad case", method: "POST", url: "/ai/compare", key: "pro", status: 422, code: "invalid_input", fields: []string{"frequency_mhz"}, doc: docRejects,
			body: `{"tx":{"lat":-22.925,"lon":-43.31,"height_m":30},"rx":{"lat":-22.96,"lon":-43.21,"height_m":10}}`},
		{name: "ai suggest height refuses Free", method: "POST", url: "/ai/suggest-height", key: "free", body: aiHeightRio, status: 403, code: "forbidden"},
	}
}

// TestAIQuota spends a Starter tenant's monthly AI quota and checks the
// 429 with its RateLimit headers; the calls quota is untouched by the
// AI counter and another tenant is not affected.
func TestAIQuota(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	run := newRun(t)
	h.issue(t, "starter", appliance.TierStarter, appliance.RoleTenant)
	h.issue(t, "starter2", appliance.TierStarter, appliance.RoleTenant)
	k, err := h.auth.Authenticate(h.keys["starter"])
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < quota.MonthlyLimit(appliance.TierStarter, quota.CounterAI); i++ {
		if err := h.quota.ChargeAI(k); err != nil {
			t.Fatal(err)
		}
	}
	run.run(t, h, []scenario{
		{name: "ai quota spent", method: "POST", url: "/ai/chat", key: "starter", body: aiChatRio, status: 429, code: "quota_exceeded", check: func(t *testing.T, h *harness, res *response) {
			if res.header.Get("Retry-After") == "" || res.header.Get("RateLimit-Limit") == "" {
				t.Errorf("headers %v", res.header)
			}
			if !strings.Contains(string(res.body), `"counter":"ai"`) {
				t.Errorf("%s", res.body)
			}
		}},
		{name: "another tenant keeps its AI quota", method: "POST", url: "/ai/suggest-height", key: "starter2", body: aiHeightRio, status: 200},
	})
}

// TestTenantIsolationAI is the tenant-isolation table of the AI routes:
// they store nothing, but the analyses they explain see user towers, and
// they charge a quota. A tenant's answer never holds another tenant's
// tower, its tower id is a 404 for the other, a Free key gets 403 and
// sees nothing, and one tenant's AI calls are not counted to another.
func TestTenantIsolationAI(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	h.issue(t, "pro2", appliance.TierPro, appliance.RoleTenant)
	const lat, lon = -22.9519, -43.2105
	own := registerOwn(t, h, "pro", "Isolada IA", "ISO-IA-1", lat, lon)
	chat := `{"analysis":{"receiver":{"lat":-22.9509,"lon":-43.2105,"height":10},"frequency_mhz":1800,"max_distance_km":0.5}}`
	height := fmt.Sprintf(`{"link":{"tower_id":%q,"receiver":{"lat":-22.9509,"lon":-43.2105,"height":3},"frequency_mhz":5800}}`, own)
	tests := []struct {
		name, key, url, body string
		status               int
		holdsOwn             bool
	}{
		{"owner's chat sees its tower", "pro", "/ai/chat", chat, 200, true},
		{"other tenant's chat does not", "pro2", "/ai/chat", chat, 200, false},
		{"free key is refused", "free", "/ai/chat", chat, 403, false},
		{"owner's height search on its tower", "pro", "/ai/suggest-height", height, 200, true},
		{"other tenant's height search: 404", "pro2", "/ai/suggest-height", height, 404, false},
		{"free key height search is refused", "free", "/ai/suggest-height", height, 403, false},
		{"models hold no tenant data", "pro2", "/ai/models", "", 200, false},
	}
	usedAI := func(key string) int {
		res := h.do(t, "GET", "/v1/me/quota", h.keys[key], nil, "")
		return decodeJSON[quotaAnswer](t, res).used("ai")
	}
	before := usedAI("pro2")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			method := "POST"
			if tc.body == "" {
				method = "GET"
			}
			res := h.do(t, method, tc.url, h.keys[tc.key], nil, tc.body)
			if res.status != tc.status {
				t.Fatalf("status %d, want %d: %.400s", res.status, tc.status, res.body)
			}
			body := string(res.body)
			if strings.Contains(body, "ISO-IA-1") || strings.Contains(body, "Isolada IA") && !tc.holdsOwn {
				t.Errorf("answer holds the tower's station or operator: %.400s", body)
			}
			if holds := strings.Contains(body, own); holds != tc.holdsOwn && !(tc.status == 404 && holds) {
				t.Errorf("holds %s = %v, want %v: %.400s", own, holds, tc.holdsOwn, body)
			}
		})
	}
	// pro2 made 2 AI calls (the 404 one is charged: it was admitted); the
	// owner's 2 calls are not counted to it.
	if got := usedAI("pro2"); got != before+2 {
		t.Errorf("pro2 AI used %d, want %d", got, before+2)
	}
}

// TestAIWithModelServer composes the API with a provider that is a real
// HTTP server speaking the OpenAI chat-completions protocol (no language
// model can be installed on the test machines: the answers are canned).
// An invented margin is caught and replaced; the egress counter counts
// the calls; GET /platform/maturity reports the provider active.
func TestAIWithModelServer(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		_ = json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": "A margem do enlace é 77,7 dB."}}}})
	}))
	t.Cleanup(srv.Close)
	cl, err := ai.NewClient(srv.URL, "qwen2.5-7b-instruct", 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, harnessOptions{aiProvider: cl})
	run := newRun(t)
	run.run(t, h, []scenario{
		{name: "invented number replaced", method: "POST", url: "/ai/chat", key: "pro", body: aiChatRio, status: 200, check: func(t *testing.T, h *harness, res *response) {
			a := decodeJSON[aiAnswer](t, res)
			if a.Grounding.Outcome != ai.OutcomeReplacedByTemplate || strings.Join(a.Grounding.UnsupportedNumbers, " ") != "77,7 77,7" ||
				strings.Contains(a.Answer, "77,7") || !strings.HasSuffix(a.Answer, ai.Disclaimer(ai.LangPT)) {
				t.Errorf("%+v", a)
			}
		}},
		{name: "models list the provider", method: "GET", url: "/ai/models", key: "pro", status: 200, contains: []string{`"qwen2.5-7b-instruct"`, `"offline":false`}},
		{name: "maturity reports the provider active", method: "GET", url: "/platform/maturity", key: "pro", status: 200,
			contains: []string{`"llm_inference":{"active":true,"aws_backed":false,"provider":"openai_compatible","reason":null}`}},
	})
	if calls.Load() != 2 {
		t.Errorf("provider called %d times, want 2", calls.Load())
	}
	res := h.do(t, "GET", "/metrics", "", nil, "")
	if !strings.Contains(string(res.body), "# TYPE LLM_EGRESS_TOTAL untyped\n") || !strings.Contains(string(res.body), `LLM_EGRESS_TOTAL{provider="openai_compatible",outcome="ok"} 2`) ||
		!strings.Contains(string(res.body), `LLM_EGRESS_TOTAL{provider="openai_compatible",outcome="timeout"} 0`) {
		t.Errorf("metrics: %s", grepLines(string(res.body), "LLM_EGRESS"))
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestAIBatchAnalyze summarises a finished batch job over HTTP, and is
// the isolation table of POST /ai/batch-analyze: another tenant's job id
// is a 404 that holds none of its rows, a Free key gets 403.
func TestAIBatchAnalyze(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	h.issue(t, "pro2", appliance.TierPro, appliance.RoleTenant)
	run := newRun(t)
	j := submitJob(t, h, h.keys["pro"], `{"rows":[`+batchRows(101)+`],"options":{"pdfs":false}}`)
	if done := waitFor(t, h, h.keys["pro"], j.ID); done.State != "succeeded" {
		t.Fatalf("%+v", done)
	}
	body := fmt.Sprintf(`{"job_id":%q,"language":"en"}`, j.ID)
	run.run(t, h, []scenario{
		{name: "owner's summary", method: "POST", url: "/ai/batch-analyze", key: "pro", body: body, status: 200, check: func(t *testing.T, h *harness, res *response) {
			checkTemplateAnswer(ai.LangEN)(t, h, res)
			var a struct {
				Summary struct {
					Counts        map[string]int `json:"counts"`
					MarginClasses map[string]int `json:"margin_classes"`
					WorstSites    []struct {
						ReceiverID string  `json:"receiver_id"`
						MarginDB   float64 `json:"margin_db"`
					} `json:"worst_sites"`
				} `json:"summary"`
			}
			if err := json.Unmarshal(res.body, &a); err != nil {
				t.Fatal(err)
			}
			s := a.Summary
			classes := s.MarginClasses["below_0_db"] + s.MarginClasses["0_to_10_db"] + s.MarginClasses["10_to_20_db"] + s.MarginClasses["20_db_or_more"]
			if s.Counts["total"] != 101 || classes != s.Counts["ok"]+s.Counts["low_margin"] || len(s.WorstSites) == 0 || len(s.WorstSites) > 5 {
				t.Errorf("%+v", s)
			}
			for i := 1; i < len(s.WorstSites); i++ {
				if s.WorstSites[i].MarginDB < s.WorstSites[i-1].MarginDB {
					t.Errorf("worst sites not in order: %+v", s.WorstSites)
				}
			}
		}},
		{name: "another tenant's job is not found", method: "POST", url: "/ai/batch-analyze", key: "pro2", body: body, status: 404, code: "not_found",
			check: func(t *testing.T, h *harness, res *response) {
				if strings.Contains(string(res.body), `"s1"`) || strings.Contains(string(res.body), "worst") {
					t.Errorf("%s", res.body)
				}
			}},
		{name: "free key is refused", method: "POST", url: "/ai/batch-analyze", key: "free", body: body, status: 403, code: "forbidden"},
		{name: "job id required", method: "POST", url: "/ai/batch-analyze", key: "pro", body: `{"language":"en"}`, status: 422, code: "invalid_input", fields: []string{"job_id"}, doc: docRejects},
		{name: "unknown job", method: "POST", url: "/ai/batch-analyze", key: "pro", body: `{"job_id":"job_nope"}`, status: 404, code: "not_found"},
	})
}

// TestAIProviderDownOrSlowIsNotAnError: a provider that times out, or
// whose server is gone, gives the template answer with a reason (200),
// never a 500 or a 503.
func TestAIProviderDownOrSlowIsNotAnError(t *testing.T) {
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(slow.Close)
	t.Cleanup(func() { close(release) })
	gone := httptest.NewServer(http.NotFoundHandler())
	goneURL := gone.URL
	gone.Close()
	for _, c := range []struct {
		name, url, reason string
	}{{"slow", slow.URL, "in time"}, {"down", goneURL, "did not give a usable answer"}} {
		t.Run(c.name, func(t *testing.T) {
			cl, err := ai.NewClient(c.url, "m", 200*time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			h := newHarness(t, harnessOptions{aiProvider: cl})
			newRun(t).run(t, h, []scenario{{name: "template with a reason", method: "POST", url: "/ai/chat", key: "pro", body: aiChatRio, status: 200,
				check: func(t *testing.T, h *harness, res *response) {
					a := decodeJSON[aiAnswer](t, res)
					if a.Grounding.Outcome != ai.OutcomeProviderUnavailable || a.ProviderError == nil || !strings.Contains(*a.ProviderError, c.reason) ||
						a.Explainer.Kind != "template" || !strings.HasSuffix(a.Answer, ai.Disclaimer(ai.LangPT)) {
						t.Errorf("%+v", a)
					}
				}}})
		})
	}
}
