package api

import (
	"context"
	"errors"
	"math"
	"net/http"

	"github.com/gorilla/mux"

	"linkplan/appliance"
	"linkplan/appliance/ai"
)

// Explainer answers the AI routes (appliance/ai): the engine computes,
// the explainer explains and checks the explanation's numbers.
type Explainer interface {
	Models() []ai.Model
	Chat(ctx context.Context, k *appliance.APIKey, req ai.ChatRequest) (*ai.LinkAnswer, error)
	SuggestHeight(ctx context.Context, k *appliance.APIKey, req ai.HeightAsk) (*ai.HeightAnswer, error)
	Compare(ctx context.Context, k *appliance.APIKey, req ai.CompareAsk) (*ai.CompareAnswer, error)
	BatchAnalyze(ctx context.Context, k *appliance.APIKey, req ai.BatchAsk) (*ai.BatchAnswer, error)
	// Active reports whether a language model provider is configured.
	Active() bool
	// ProviderKind names the provider's kind, "" when none.
	ProviderKind() string
}

// MaxAIBodyBytes caps the body of an AI request (64 KiB).
const MaxAIBodyBytes = 64 << 10

func (a *API) registerAI(r *mux.Router) {
	if a.Explainer == nil {
		return
	}
	r.HandleFunc("/ai/models", a.wrap(a.authed(a.aiModels))).Methods(http.MethodGet)
	r.HandleFunc("/ai/chat", a.wrap(a.ready(a.authed(a.aiChat)))).Methods(http.MethodPost)
	r.HandleFunc("/ai/suggest-height", a.wrap(a.ready(a.authed(a.aiSuggestHeight)))).Methods(http.MethodPost)
	r.HandleFunc("/ai/compare", a.wrap(a.ready(a.authed(a.aiCompare)))).Methods(http.MethodPost)
	r.HandleFunc("/ai/batch-analyze", a.wrap(a.ready(a.authed(a.aiBatchAnalyze)))).Methods(http.MethodPost)
}

// AIModelJSON is one explainer of GET /ai/models.
type AIModelJSON struct {
	ID       string `json:"id"`
	Kind     string `json:"kind"`     // "template" or "language_model"
	Provider string `json:"provider"` // "builtin" or "openai_compatible"
	Default  bool   `json:"default"`
}

// AIModelsResponse is the body of GET /ai/models.
type AIModelsResponse struct {
	Models  []AIModelJSON `json:"models"`
	Offline bool          `json:"offline"` // true: no language model is called (template only)
}

func (a *API) aiModels(w http.ResponseWriter, r *http.Request) (any, error) {
	out := AIModelsResponse{Models: []AIModelJSON{}, Offline: !a.Explainer.Active()}
	for _, m := range a.Explainer.Models() {
		out.Models = append(out.Models, AIModelJSON{ID: m.ID, Kind: m.Kind, Provider: m.Provider, Default: m.Default})
	}
	return out, nil
}

// AIExplainerJSON names what wrote an answer.
type AIExplainerJSON struct {
	Kind     string `json:"kind"` // "template" or "language_model"
	Provider string `json:"provider"`
	Model    string `json:"model"`
}

// AIGroundingJSON says how an answer was checked (appliance/ai doc).
type AIGroundingJSON struct {
	Checked            bool     `json:"checked"`
	UnsupportedNumbers []string `json:"unsupported_numbers"`
	MissingWarnings    []string `json:"missing_warnings"` // warning codes the model's answers did not name
	Outcome            string   `json:"outcome"`          // template, grounded, regenerated, replaced_by_template, provider_unavailable
}

// AIFactJSON is one number of the fact sheet, rounded to 3 decimals.
type AIFactJSON struct {
	Key   string  `json:"key"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
}

// AIAnswerJSON is the explanation part of every AI answer.
type AIAnswerJSON struct {
	Answer string `json:"answer"` // ends with the disclaimer
	// QuestionAnswered is false when a question was asked and the
	// template answered (the answer's first line says so).
	QuestionAnswered bool              `json:"question_answered"`
	Language         string            `json:"language"`
	Disclaimer       string            `json:"disclaimer"`
	Explainer        AIExplainerJSON   `json:"explainer"`
	Grounding        AIGroundingJSON   `json:"grounding"`
	ProviderError    *string           `json:"provider_error"` // why the model did not answer; null otherwise
	Facts            []AIFactJSON      `json:"facts"`
	Labels           map[string]string `json:"labels"`
}

func aiAnswerJSON(x *ai.Answer) AIAnswerJSON {
	out := AIAnswerJSON{Answer: x.Text, QuestionAnswered: x.QuestionAnswered, Language: x.Language, Disclaimer: x.Disclaimer,
		Explainer: AIExplainerJSON{Kind: x.Explainer, Provider: x.Provider, Model: x.Model},
		Grounding: AIGroundingJSON{Checked: x.Grounding.Checked, UnsupportedNumbers: x.Grounding.UnsupportedNumbers,
			MissingWarnings: x.Grounding.MissingWarnings, Outcome: x.Grounding.Outcome},
		Facts: []AIFactJSON{}, Labels: map[string]string{}}
	if out.Grounding.UnsupportedNumbers == nil {
		out.Grounding.UnsupportedNumbers = []string{}
	}
	if out.Grounding.MissingWarnings == nil {
		out.Grounding.MissingWarnings = []string{}
	}
	if x.ProviderError != "" {
		out.ProviderError = strp(x.ProviderError)
	}
	if x.Facts != nil {
		for _, f := range x.Facts.Numbers {
			out.Facts = append(out.Facts, AIFactJSON{Key: f.Key, Value: r3(f.Value), Unit: f.Unit})
		}
		for _, l := range x.Facts.Labels {
			out.Labels[l.Key] = l.Value
		}
	}
	return out
}

type aiChatRequest struct {
	renamed
	Analysis *analyzeLinkRequest `json:"analysis"`
	Question *string             `json:"question"`
	Language *string             `json:"language"`
}

// AIChatResponse is the body of POST /ai/chat.
type AIChatResponse struct {
	AIAnswerJSON
	Analysis AnalyzeLinkResponse `json:"analysis"`
	// Warnings are those of the request (deprecated_field), not of the
	// analysis the answer explains; absent when none.
	Warnings []appliance.Warning `json:"warnings,omitempty"`
}

func (a *API) aiChat(w http.ResponseWriter, r *http.Request) (any, error) {
	r.Body = http.MaxBytesReader(w, r.Body, MaxAIBodyBytes)
	var q aiChatRequest
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	if q.Analysis == nil {
		return nil, appliance.Invalid("analysis", "is required: the POST /analyze_link request to explain")
	}
	req, err := q.Analysis.toDomain()
	if err != nil {
		return nil, prefixFields(err, "analysis.")
	}
	k := keyFrom(r.Context())
	id, note, err := a.resolveEngine(k, req.Engine)
	if err != nil {
		return nil, prefixFields(err, "analysis.")
	}
	req.Engine, req.TenantID = id, scope(k)
	ask := ai.ChatRequest{Link: req}
	if note != "" {
		ask.Notes = []appliance.Warning{{Code: appliance.WarnEngineResolved, Message: note}}
	}
	if q.Question != nil {
		ask.Question = *q.Question
	}
	if q.Language != nil {
		ask.Language = *q.Language
	}
	res, err := a.Explainer.Chat(r.Context(), k, ask)
	if err != nil {
		return nil, err
	}
	out := AIChatResponse{AIAnswerJSON: aiAnswerJSON(&res.Answer), Analysis: a.analysisJSON(res.Analysis.Request, res.Analysis, note)}
	out.Warnings = q.renames()
	return out, nil
}

type aiHeightRequest struct {
	renamed
	Link           *analyzeRequest `json:"link"`
	Move           *string         `json:"move"`
	TargetMarginDB *float64        `json:"target_margin_db"`
	StepM          *float64        `json:"step_m"`
	MaxHeightM     *float64        `json:"max_height_m"`
	Language       *string         `json:"language"`
}

// HeightSearchJSON is the engine's height search.
type HeightSearchJSON struct {
	Move           string  `json:"move"` // "receiver" or "tower"
	TargetMarginDB float64 `json:"target_margin_db"`
	StepM          float64 `json:"step_m"`
	MaxHeightM     float64 `json:"max_height_m"`
	Found          bool    `json:"found"`
	// HeightM is the smallest grid height meeting every rule, metres above
	// ground; null when none up to max_height_m does.
	HeightM            *float64        `json:"height_m"`
	FailingRule        *string         `json:"failing_rule"` // line_of_sight, fresnel60 or margin when not found
	MinHeightLOS       MinHeightJSON   `json:"min_height_los"`
	MinHeightFresnel60 MinHeightJSON   `json:"min_height_fresnel60"`
	HeightsEvaluated   int             `json:"heights_evaluated"`
	Current            LinkResultJSON  `json:"current"`
	AtSuggestedHeight  *LinkResultJSON `json:"at_suggested_height"`
}

// AISuggestHeightResponse is the body of POST /ai/suggest-height.
type AISuggestHeightResponse struct {
	AIAnswerJSON
	Search HeightSearchJSON `json:"search"`
	// Warnings are those of the request (deprecated_field); absent when
	// none.
	Warnings []appliance.Warning `json:"warnings,omitempty"`
}

func (a *API) aiSuggestHeight(w http.ResponseWriter, r *http.Request) (any, error) {
	r.Body = http.MaxBytesReader(w, r.Body, MaxAIBodyBytes)
	var q aiHeightRequest
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	if q.Link == nil {
		return nil, appliance.Invalid("link", "is required: the POST /analyze request of the path (tower and receiver)")
	}
	pair, _, err := a.pairRequest(r, q.Link)
	if err != nil {
		return nil, prefixFields(err, "link.")
	}
	hr := appliance.HeightRequest{Pair: pair}
	if q.Move != nil {
		hr.Move = *q.Move
	}
	if q.TargetMarginDB != nil {
		hr.TargetMarginDB = *q.TargetMarginDB
	}
	if q.StepM != nil {
		hr.StepM = *q.StepM
		if hr.StepM == 0 {
			hr.StepM = math.NaN() // an explicit 0 is out of range, not the default
		}
	}
	if q.MaxHeightM != nil {
		hr.MaxHeightM = *q.MaxHeightM
		if hr.MaxHeightM == 0 {
			hr.MaxHeightM = math.NaN()
		}
	}
	ask := ai.HeightAsk{Height: hr}
	if q.Language != nil {
		ask.Language = *q.Language
	}
	res, err := a.Explainer.SuggestHeight(r.Context(), keyFrom(r.Context()), ask)
	if err != nil {
		return nil, err
	}
	s := res.Suggestion
	out := HeightSearchJSON{Move: s.Request.Move, TargetMarginDB: r3(s.Request.TargetMarginDB), StepM: r3(s.Request.StepM),
		MaxHeightM: r3(s.Request.MaxHeightM), Found: s.Found, MinHeightLOS: minHeightJSON(s.MinLOS),
		MinHeightFresnel60: minHeightJSON(s.MinFresnel60), HeightsEvaluated: s.Evaluated, Current: linkResult(s.Current)}
	if s.Found {
		h := r3(s.HeightM)
		at := linkResult(s.At)
		out.HeightM, out.AtSuggestedHeight = &h, &at
	} else {
		out.FailingRule = strp(s.FailingRule)
	}
	return AISuggestHeightResponse{AIAnswerJSON: aiAnswerJSON(&res.Answer), Search: out, Warnings: q.renames()}, nil
}

// prefixFields puts prefix before the field names of a validation error
// (a nested request); other errors pass unchanged.
func prefixFields(err error, prefix string) error {
	var ve *appliance.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	out := &appliance.ValidationError{Omitted: ve.Omitted}
	for _, f := range ve.Fields {
		f.Field = prefix + f.Field
		out.Fields = append(out.Fields, f)
	}
	return out
}

// AICompareResponse is the body of POST /ai/compare.
type AICompareResponse struct {
	AIAnswerJSON
	Rows []appliance.EngineCompareRow `json:"rows"` // as POST /coverage/engines/compare answers them
}

// aiCompare explains POST /coverage/engines/compare: the body is that
// route's engine case, the language a query parameter.
func (a *API) aiCompare(w http.ResponseWriter, r *http.Request) (any, error) {
	r.Body = http.MaxBytesReader(w, r.Body, MaxAIBodyBytes)
	c, err := a.parseCase(r)
	if err != nil {
		return nil, err
	}
	res, err := a.Explainer.Compare(r.Context(), keyFrom(r.Context()), ai.CompareAsk{Case: c, Language: r.URL.Query().Get("language")})
	if err != nil {
		return nil, err
	}
	rows := make([]appliance.EngineCompareRow, len(res.Rows))
	for i, row := range res.Rows {
		if row.Err != nil {
			row.Error = rowError(row.Err)
		}
		rows[i] = roundRow(row)
	}
	return AICompareResponse{AIAnswerJSON: aiAnswerJSON(&res.Answer), Rows: rows}, nil
}

type aiBatchRequest struct {
	JobID    *string `json:"job_id"`
	Language *string `json:"language"`
}

// CodeCountJSON is a warning code or a reason and its rows.
type CodeCountJSON struct {
	Code string `json:"code"`
	Rows int    `json:"rows"`
}

// WorstSiteJSON is one of the lowest-margin rows of a job.
type WorstSiteJSON struct {
	Row        int                 `json:"row"`
	ReceiverID string              `json:"receiver_id"`
	TowerID    string              `json:"tower_id"`
	MarginDB   float64             `json:"margin_db"`
	DistanceKm *float64            `json:"distance_km"`
	Warnings   []appliance.Warning `json:"warnings"`
	// Synthetic and PositionUncertaintyM are the caveats of the row's
	// tower (results.csv): synthetic sample data; its position
	// uncertainty, metres, null when unknown.
	Synthetic            bool     `json:"synthetic"`
	PositionUncertaintyM *float64 `json:"position_uncertainty_m"`
}

// BatchSummaryJSON is the engine's rows of a job, counted.
type BatchSummaryJSON struct {
	JobID         string          `json:"job_id"`
	Counts        map[string]int  `json:"counts"`         // total, ok, low_margin, no_tower, error
	MarginClasses map[string]int  `json:"margin_classes"` // below_0_db, 0_to_10_db, 10_to_20_db, 20_db_or_more
	WorstSites    []WorstSiteJSON `json:"worst_sites"`
	Warnings      []CodeCountJSON `json:"warnings"`
	Reasons       []CodeCountJSON `json:"reasons"`
}

// AIBatchResponse is the body of POST /ai/batch-analyze.
type AIBatchResponse struct {
	AIAnswerJSON
	Summary BatchSummaryJSON `json:"summary"`
}

func codeCounts(cs []ai.CodeCount) []CodeCountJSON {
	out := make([]CodeCountJSON, 0, len(cs))
	for _, c := range cs {
		out = append(out, CodeCountJSON{Code: c.Code, Rows: c.Count})
	}
	return out
}

func (a *API) aiBatchAnalyze(w http.ResponseWriter, r *http.Request) (any, error) {
	r.Body = http.MaxBytesReader(w, r.Body, MaxAIBodyBytes)
	var q aiBatchRequest
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	var ask ai.BatchAsk
	if q.JobID != nil {
		ask.JobID = *q.JobID
	}
	if q.Language != nil {
		ask.Language = *q.Language
	}
	res, err := a.Explainer.BatchAnalyze(r.Context(), keyFrom(r.Context()), ask)
	if err != nil {
		return nil, err
	}
	s := res.Summary
	c := s.Counts
	out := BatchSummaryJSON{JobID: s.JobID,
		Counts:        map[string]int{"total": c.Total, "ok": c.OK, "low_margin": c.LowMargin, "no_tower": c.NoTower, "error": c.Error},
		MarginClasses: map[string]int{"below_0_db": s.Classes[0], "0_to_10_db": s.Classes[1], "10_to_20_db": s.Classes[2], "20_db_or_more": s.Classes[3]},
		WorstSites:    []WorstSiteJSON{}, Warnings: codeCounts(s.Warnings), Reasons: codeCounts(s.Reasons)}
	for _, row := range s.Worst {
		ws := WorstSiteJSON{Row: row.Row, ReceiverID: row.ReceiverID, TowerID: row.TowerID, MarginDB: r3(*row.MarginDB), Warnings: row.Warnings,
			Synthetic: row.Synthetic, PositionUncertaintyM: row.PositionUncertaintyM}
		if row.DistanceKm != nil {
			ws.DistanceKm = round3(*row.DistanceKm)
		}
		if ws.Warnings == nil {
			ws.Warnings = []appliance.Warning{}
		}
		out.WorstSites = append(out.WorstSites, ws)
	}
	return AIBatchResponse{AIAnswerJSON: aiAnswerJSON(&res.Answer), Summary: out}, nil
}
