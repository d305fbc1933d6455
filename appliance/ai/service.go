package ai

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/VictoriaMetrics/metrics"

	"linkplan/appliance"
	"linkplan/appliance/telemetry"
)

// LinkAnalyzer runs link analyses (appliance/planner).
type LinkAnalyzer interface {
	AnalyzeLink(ctx context.Context, req appliance.LinkRequest) (*appliance.LinkAnalysis, error)
}

// HeightSuggester searches antenna heights (appliance/planner).
type HeightSuggester interface {
	SuggestHeight(ctx context.Context, req appliance.HeightRequest) (*appliance.HeightSuggestion, error)
}

// Quota charges AI calls against the tenant's monthly AI quota
// (appliance/quota).
type Quota interface {
	ChargeAI(k *appliance.APIKey) error
}

// Limits of a request.
const (
	// MaxQuestionRunes caps the question of POST /ai/chat, characters.
	MaxQuestionRunes = 2000
)

// Outcomes of an answer (package doc, "States and outcomes").
const (
	OutcomeTemplate            = "template"             // no language model configured: the template answered
	OutcomeGrounded            = "grounded"             // the model's first answer passed the check
	OutcomeRegenerated         = "regenerated"          // the first answer failed, the second passed
	OutcomeReplacedByTemplate  = "replaced_by_template" // both answers failed: the template answered
	OutcomeProviderUnavailable = "provider_unavailable" // the model failed or timed out: the template answered
)

// Egress outcomes of LLM_EGRESS_TOTAL.
const (
	egressOK      = "ok"
	egressError   = "error"
	egressTimeout = "timeout"
)

// Grounding says how an answer was checked against its fact sheet.
type Grounding struct {
	Checked bool
	// UnsupportedNumbers are the numbers, as written, of the model's
	// answers that no fact supported (both attempts), never nil.
	UnsupportedNumbers []string
	// MissingWarnings are the warning codes of the fact sheet that the
	// model's answers did not name (both attempts), never nil.
	MissingWarnings []string
	Outcome         string
}

// Answer is an explanation.
type Answer struct {
	Text       string // the explanation, the disclaimer as its last line
	Language   string
	Disclaimer string
	// Explainer is "template" or "language_model"; Provider and Model name
	// what wrote Text.
	Explainer, Provider, Model string
	Grounding                  Grounding
	// QuestionAnswered is false when the request asked a question and the
	// template answered (no language model configured, or none usable):
	// Text then says so in its first line.
	QuestionAnswered bool
	// ProviderError says why the language model did not answer (outcome
	// provider_unavailable), "" otherwise.
	ProviderError string
	Facts         *FactSheet
}

// LinkAnswer is the answer of Chat: the engine's analysis and its
// explanation.
type LinkAnswer struct {
	Analysis *appliance.LinkAnalysis
	Answer
}

// HeightAnswer is the answer of SuggestHeight.
type HeightAnswer struct {
	Suggestion *appliance.HeightSuggestion
	Answer
}

// ChatRequest asks a question about one link analysis.
type ChatRequest struct {
	Link     appliance.LinkRequest
	Question string // "" explains the result
	Language string // LangPT (default) or LangEN
	// Notes are warnings of the answer that the caller adds to the
	// analysis's (engine_resolved): the explanation names them too.
	Notes []appliance.Warning
}

// HeightAsk asks for a height suggestion and its explanation.
type HeightAsk struct {
	Height   appliance.HeightRequest
	Language string
}

// Model is one entry of GET /ai/models.
type Model struct {
	ID       string // model name
	Kind     string // "template" or "language_model"
	Provider string // "builtin" or the provider's kind
	Default  bool   // answers the AI routes
}

// EngineComparer runs every engine on one case (engines.Registry); the
// case is the one the caller parsed (engines.Case), passed through.
type EngineComparer interface {
	CompareEngineCase(ctx context.Context, c appliance.EngineCase, terrain appliance.Terrain) ([]appliance.EngineCompareRow, error)
}

// Deps are what the service calls.
type Deps struct {
	Provider Provider // nil: the template explainer only, no outbound call ever
	Links    LinkAnalyzer
	Heights  HeightSuggester
	Compare  EngineComparer    // nil: Compare is unavailable
	Terrain  appliance.Terrain // the terrain of compared cases
	Jobs     JobOpener         // batch job results; nil: BatchAnalyze is unavailable
	Quota    Quota             // nil: not metered (Free is refused all the same)
	Metrics  *metrics.Set      // LLM_EGRESS_TOTAL; nil: a private set
}

// Service explains engine results. Build it with New.
type Service struct {
	provider Provider
	links    LinkAnalyzer
	heights  HeightSuggester
	compare  EngineComparer
	terrain  appliance.Terrain
	jobs     JobOpener
	quota    Quota
	set      *metrics.Set
	// egressCalls count the provider calls by egressOutcomes index.
	egressCalls [len(egressOutcomes)]atomic.Uint64
}

// New returns a service. The egress counters of a configured provider are
// written at once, at 0 (a metrics writer on d.Metrics, as the job queue
// writes its series).
func New(d Deps) *Service {
	set := d.Metrics
	if set == nil {
		set = metrics.NewSet()
	}
	s := &Service{provider: d.Provider, links: d.Links, heights: d.Heights, compare: d.Compare, terrain: d.Terrain, jobs: d.Jobs, quota: d.Quota, set: set}
	if s.provider != nil {
		set.RegisterMetricsWriter(s.writeMetrics)
	}
	return s
}

// MetricEgress is the SPEC §4.9 name of the provider call counter (its
// HELP and TYPE are declared in appliance/telemetry).
const MetricEgress = telemetry.LLMEgress

// egressOutcomes is the closed set of the outcome label, in output order.
var egressOutcomes = [...]string{egressOK, egressError, egressTimeout}

func egressIndex(outcome string) int {
	for i, o := range egressOutcomes {
		if o == outcome {
			return i
		}
	}
	return len(egressOutcomes) - 1
}

// writeMetrics writes the samples of LLM_EGRESS_TOTAL{provider,outcome}.
// The name is the SPEC's; promtool's lint would prefer a lower-case _total
// suffix.
func (s *Service) writeMetrics(w io.Writer) {
	var b strings.Builder
	for i, o := range egressOutcomes {
		fmt.Fprintf(&b, "%s{provider=%q,outcome=%q} %d\n", MetricEgress, s.provider.Kind(), o, s.egressCalls[i].Load())
	}
	_, _ = io.WriteString(w, b.String())
}

// Active reports whether a language model provider is configured (GET
// /platform/maturity llm_inference.active).
func (s *Service) Active() bool { return s.provider != nil }

// ProviderKind names the configured provider's kind, "" when none.
func (s *Service) ProviderKind() string {
	if s.provider == nil {
		return ""
	}
	return s.provider.Kind()
}

// Models lists the explainers: the template, always, and the configured
// model.
func (s *Service) Models() []Model {
	out := []Model{{ID: TemplateModel, Kind: "template", Provider: "builtin", Default: s.provider == nil}}
	if s.provider != nil {
		out = append(out, Model{ID: s.provider.Model(), Kind: "language_model", Provider: s.provider.Kind(), Default: true})
	}
	return out
}

// checkLanguage validates a language; "" is pt-BR.
func checkLanguage(lang string, v *appliance.ValidationError) string {
	switch lang {
	case "", LangPT:
		return LangPT
	case LangEN:
		return LangEN
	}
	v.Add("language", "must be %q or %q, got %q", LangPT, LangEN, truncate(lang, 20))
	return LangPT
}

// Chat runs the engine on the request's link analysis (with the path
// check of every result) and explains it, answering the question when a
// language model is configured. Free keys get ErrForbidden, a spent AI
// quota a 429 error, both before the engine runs.
func (s *Service) Chat(ctx context.Context, k *appliance.APIKey, req ChatRequest) (*LinkAnswer, error) {
	v := &appliance.ValidationError{}
	lang := checkLanguage(req.Language, v)
	if n := utf8.RuneCountInString(req.Question); n > MaxQuestionRunes {
		v.Add("question", "must be at most %d characters, got %d", MaxQuestionRunes, n)
	} else if !utf8.ValidString(req.Question) {
		v.Add("question", "must be valid UTF-8 text")
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	if err := s.charge(k); err != nil {
		return nil, err
	}
	req.Link.IncludeProfile = true
	a, err := s.links.AnalyzeLink(ctx, req.Link)
	if err != nil {
		return nil, err
	}
	facts := LinkFacts(a)
	facts.warn(req.Notes...)
	ans := s.explain(ctx, lang, facts, req.Question, ExplainLink(lang, a))
	return &LinkAnswer{Analysis: a, Answer: ans}, nil
}

// SuggestHeight runs the engine's height search and explains its result.
func (s *Service) SuggestHeight(ctx context.Context, k *appliance.APIKey, req HeightAsk) (*HeightAnswer, error) {
	v := &appliance.ValidationError{}
	lang := checkLanguage(req.Language, v)
	if err := v.Err(); err != nil {
		return nil, err
	}
	if err := s.charge(k); err != nil {
		return nil, err
	}
	sug, err := s.heights.SuggestHeight(ctx, req.Height)
	if err != nil {
		return nil, err
	}
	facts := HeightFacts(sug)
	ans := s.explain(ctx, lang, facts, "", ExplainHeight(lang, sug))
	return &HeightAnswer{Suggestion: sug, Answer: ans}, nil
}

// CompareAsk asks to explain the differences of every engine on one case
// (POST /coverage/engines/compare).
type CompareAsk struct {
	Case     appliance.EngineCase // engines.Case
	Language string
}

// CompareAnswer is the answer of Compare: one row per engine and the
// explanation of their differences.
type CompareAnswer struct {
	Rows []appliance.EngineCompareRow
	Answer
}

// Compare runs every engine on the case (tier Pro or higher, as POST
// /coverage/engines/compare, since it runs P.1812 and ITM) and explains
// their differences.
func (s *Service) Compare(ctx context.Context, k *appliance.APIKey, req CompareAsk) (*CompareAnswer, error) {
	v := &appliance.ValidationError{}
	lang := checkLanguage(req.Language, v)
	if err := v.Err(); err != nil {
		return nil, err
	}
	if s.compare == nil {
		return nil, fmt.Errorf("compare engines: no engine registry: %w", appliance.ErrUnavailable)
	}
	if k.Role != appliance.RoleAdmin && !k.Tier.AtLeast(appliance.TierPro) {
		return nil, fmt.Errorf("comparing engines runs P.1812 and ITM: tier Pro or higher is required, this key is %s: %w", k.Tier, appliance.ErrForbidden)
	}
	if err := s.charge(k); err != nil {
		return nil, err
	}
	rows, err := s.compare.CompareEngineCase(ctx, req.Case, s.terrain)
	if err != nil {
		return nil, err
	}
	facts := CompareFacts(req.Case, rows)
	ans := s.explain(ctx, lang, facts, "", ExplainCompare(lang, rows))
	return &CompareAnswer{Rows: rows, Answer: ans}, nil
}

// charge refuses Free keys (SPEC §8.1: no AI, whether or not a quota
// service meters) and charges the call to the AI quota.
func (s *Service) charge(k *appliance.APIKey) error {
	if k.Role != appliance.RoleAdmin && k.Tier == appliance.TierFree {
		return fmt.Errorf("the %s tier has no AI: %w", k.Tier, appliance.ErrForbidden)
	}
	if s.quota == nil {
		return nil
	}
	if err := s.quota.ChargeAI(k); err != nil {
		return fmt.Errorf("ai quota: %w", err)
	}
	return nil
}

// explain produces the checked answer (package doc: the outcomes table).
func (s *Service) explain(ctx context.Context, lang string, facts *FactSheet, question, template string) Answer {
	out := Answer{Language: lang, Disclaimer: Disclaimer(lang), Facts: facts,
		Grounding: Grounding{Checked: true, UnsupportedNumbers: []string{}, MissingWarnings: []string{}}}
	template += warningsParagraph(lang, facts, template)
	useTemplate := func(outcome string) Answer {
		out.Explainer, out.Provider, out.Model = "template", "builtin", TemplateModel
		out.Grounding.Outcome = outcome
		// The template quotes only fact-sheet numbers and names every
		// warning; checking it anyway keeps that promise tested on every
		// answer.
		out.Grounding.UnsupportedNumbers = append(out.Grounding.UnsupportedNumbers, facts.Unsupported(template)...)
		out.Grounding.MissingWarnings = append(out.Grounding.MissingWarnings, facts.Missing(template)...)
		out.Text = template + "\n\n" + out.Disclaimer
		out.QuestionAnswered = question == ""
		if question != "" {
			out.Text = unansweredNote(lang, outcome) + "\n" + out.Text
		}
		return out
	}
	if s.provider == nil {
		return useTemplate(OutcomeTemplate)
	}
	msgs := prompt(lang, facts, question)
	for attempt := 0; attempt < 2; attempt++ {
		text, err := s.complete(ctx, msgs)
		if err != nil {
			out.ProviderError = providerReason(err)
			return useTemplate(OutcomeProviderUnavailable)
		}
		bad, missing := facts.Unsupported(text), facts.Missing(text)
		if len(bad) == 0 && len(missing) == 0 {
			out.Explainer, out.Provider, out.Model = "language_model", s.provider.Kind(), s.provider.Model()
			out.Grounding.Outcome = OutcomeGrounded
			if attempt == 1 {
				out.Grounding.Outcome = OutcomeRegenerated
			}
			out.Text = text + "\n\n" + out.Disclaimer
			out.QuestionAnswered = true
			return out
		}
		out.Grounding.UnsupportedNumbers = append(out.Grounding.UnsupportedNumbers, bad...)
		for _, c := range missing {
			if !slices.Contains(out.Grounding.MissingWarnings, c) {
				out.Grounding.MissingWarnings = append(out.Grounding.MissingWarnings, c)
			}
		}
		msgs = append(msgs, Message{Role: "assistant", Content: text}, Message{Role: "user", Content: retryPrompt(lang, bad, missing)})
	}
	// The template is checked too; keep only the model's findings.
	unsupported, missing := out.Grounding.UnsupportedNumbers, out.Grounding.MissingWarnings
	a := useTemplate(OutcomeReplacedByTemplate)
	a.Grounding.UnsupportedNumbers, a.Grounding.MissingWarnings = unsupported, missing
	return a
}

// unansweredNote is the first line of a template answer to a question:
// the question was not answered, and why.
func unansweredNote(lang, outcome string) string {
	if outcome == OutcomeTemplate {
		if lang == LangEN {
			return "No language model is configured on this appliance, so your question was not answered: below is linkplan's fixed explanation of the result."
		}
		return "Nenhum modelo de linguagem está configurado neste appliance, então a sua pergunta não foi respondida: abaixo está a explicação fixa do linkplan para o resultado."
	}
	if lang == LangEN {
		return "The language model gave no usable answer, so your question was not answered: below is linkplan's fixed explanation of the result."
	}
	return "O modelo de linguagem não deu uma resposta utilizável, então a sua pergunta não foi respondida: abaixo está a explicação fixa do linkplan para o resultado."
}

// warningsParagraph lists the sheet's warnings that text does not name
// yet, one line each with its code and message (the engine's messages are
// in English); "" when there are none.
func warningsParagraph(lang string, facts *FactSheet, text string) string {
	missing := facts.Missing(text)
	if len(missing) == 0 {
		return ""
	}
	var b strings.Builder
	if lang == LangEN {
		b.WriteString("\nWarnings of this result:")
	} else {
		b.WriteString("\nAlertas deste resultado (mensagens do motor, em inglês):")
	}
	for _, w := range facts.Warnings {
		if slices.Contains(missing, w.Code) {
			fmt.Fprintf(&b, "\n- %s: %s", w.Code, w.Message)
		}
	}
	return b.String()
}

// complete calls the provider once and counts it.
func (s *Service) complete(ctx context.Context, msgs []Message) (string, error) {
	text, err := s.provider.Complete(ctx, msgs)
	switch {
	case err == nil:
		s.egressCalls[egressIndex(egressOK)].Add(1)
	case errors.Is(err, ErrProviderTimeout):
		s.egressCalls[egressIndex(egressTimeout)].Add(1)
	default:
		s.egressCalls[egressIndex(egressError)].Add(1)
	}
	return text, err
}

// providerReason is the user-facing reason of a provider failure.
func providerReason(err error) string {
	if errors.Is(err, ErrProviderTimeout) {
		return "the language model did not answer in time; the template explanation is given instead"
	}
	return "the language model server did not give a usable answer; the template explanation is given instead"
}

// prompt builds the messages of a question about facts.
func prompt(lang string, facts *FactSheet, question string) []Message {
	var sys, user strings.Builder
	if lang == LangEN {
		sys.WriteString("You explain radio link results computed by a deterministic engine to people who are not RF engineers. Answer in English, in plain prose without numbered lists. Use only numbers that appear in the fact sheet, rounded as written there or to fewer decimals; never compute, estimate or invent another number. You are not a source of link margin. Name every warning of the fact sheet by its code (e.g. fspl_obstructed) and say what it means for the result.")
		fmt.Fprintf(&user, "Fact sheet:\n%s\n", facts.Text())
		if question == "" {
			question = "Explain this result: does the link work, why, and what would fix it?"
		}
		fmt.Fprintf(&user, "Question: %s", question)
	} else {
		sys.WriteString("Você explica resultados de enlaces de rádio calculados por um motor determinístico para pessoas que não são engenheiros de RF. Responda em português do Brasil, em texto corrido sem listas numeradas. Use somente números que aparecem na ficha de fatos, arredondados como lá ou com menos casas decimais; nunca calcule, estime ou invente outro número. Você não é fonte de margem de enlace. Cite cada alerta da ficha de fatos pelo código (por exemplo fspl_obstructed) e diga o que significa para o resultado.")
		fmt.Fprintf(&user, "Ficha de fatos:\n%s\n", facts.Text())
		if question == "" {
			question = "Explique este resultado: o enlace funciona, por quê, e o que resolveria?"
		}
		fmt.Fprintf(&user, "Pergunta: %s", question)
	}
	return []Message{{Role: "system", Content: sys.String()}, {Role: "user", Content: user.String()}}
}

// retryPrompt asks for an answer without the unsupported numbers and
// naming the missing warnings.
func retryPrompt(lang string, bad, missing []string) string {
	var parts []string
	if lang == LangEN {
		if len(bad) > 0 {
			parts = append(parts, "Your answer contains numbers that are not in the fact sheet: "+strings.Join(bad, "; ")+". Rewrite it using only fact-sheet numbers.")
		}
		if len(missing) > 0 {
			parts = append(parts, "Your answer does not name these warnings of the fact sheet: "+strings.Join(missing, ", ")+". Name each one by its code and say what it means for the result.")
		}
		return strings.Join(parts, " ")
	}
	if len(bad) > 0 {
		parts = append(parts, "Sua resposta contém números que não estão na ficha de fatos: "+strings.Join(bad, "; ")+". Reescreva usando somente números da ficha.")
	}
	if len(missing) > 0 {
		parts = append(parts, "Sua resposta não cita estes alertas da ficha: "+strings.Join(missing, ", ")+". Cite cada um pelo código e diga o que significa para o resultado.")
	}
	return strings.Join(parts, " ")
}
