package api

import (
	"context"
	"net/http"
	"time"

	"github.com/gorilla/mux"
)

// AIProvider describes the configured AI provider (SPEC §4.7). The zero
// value is none: the AI endpoints are not served.
type AIProvider struct {
	Name      string // e.g. "self-hosted"; "" none
	AWSBacked bool   // the provider runs on AWS (e.g. Bedrock)
}

func (a *API) registerPlatform(r *mux.Router) {
	r.HandleFunc("/platform/maturity", a.wrap(a.authed(a.maturity))).Methods(http.MethodGet)
}

// MaturityJSON is the body of GET /platform/maturity: platform facts
// (SPEC §4.7, §4.9).
type MaturityJSON struct {
	Version            string                 `json:"version"`
	State              string                 `json:"state"`   // starting, ready, stopping
	Offline            bool                   `json:"offline"` // the appliance makes no outbound calls
	Dependencies       []DependencyJSON       `json:"dependencies"`
	HostingPortability HostingPortabilityJSON `json:"hosting_portability"`
}

// DependencyJSON is one dependency and its status now.
type DependencyJSON struct {
	Name   string  `json:"name"`
	Kind   string  `json:"kind"`   // "embedded" (in the process or its data directory) or "external"
	Status string  `json:"status"` // "ok" or "failing"
	Detail *string `json:"detail"` // why it fails; null when ok
	// Details are the facts behind the check (workers: each worker's
	// state); omitted when the check has none.
	Details any `json:"details,omitempty"`
}

// HostingPortabilityJSON says what the appliance needs from its host.
type HostingPortabilityJSON struct {
	SingleBinary          bool                    `json:"single_binary"`
	CloudServicesRequired bool                    `json:"cloud_services_required"`
	Dependencies          PortabilityDependencies `json:"dependencies"`
}

// PortabilityDependencies are the optional external dependencies.
type PortabilityDependencies struct {
	LLMInference LLMInferenceJSON `json:"llm_inference"`
}

// LLMInferenceJSON is the AI provider's state (SPEC §4.7).
type LLMInferenceJSON struct {
	Active    bool    `json:"active"`
	AWSBacked bool    `json:"aws_backed"`
	Provider  *string `json:"provider"`
	Reason    *string `json:"reason"` // why inactive; null when active
}

// maturity reports the platform facts; each readiness check is run now
// and reported as a dependency with its status.
func (a *API) maturity(_ http.ResponseWriter, r *http.Request) (any, error) {
	ctx, cancel := context.WithTimeout(r.Context(), 1500*time.Millisecond)
	defer cancel()
	out := MaturityJSON{Version: a.Version, State: a.state.Load().(string), Offline: a.Offline, Dependencies: []DependencyJSON{}}
	for _, c := range a.Checks {
		d := DependencyJSON{Name: c.Name, Kind: "embedded", Status: "ok"}
		if c.Kind != "" {
			d.Kind = c.Kind
		}
		if err := c.Fn(ctx); err != nil {
			d.Status, d.Detail = "failing", strp(err.Error())
		}
		if c.Details != nil {
			d.Details = c.Details()
		}
		out.Dependencies = append(out.Dependencies, d)
	}
	// Active only when a language model provider is configured and the AI
	// routes can call it; the built-in template explainer is not inference.
	active := a.Explainer != nil && a.Explainer.Active()
	llm := LLMInferenceJSON{Active: active, AWSBacked: active && a.AI.AWSBacked}
	switch {
	case active:
		name := a.AI.Name
		if name == "" {
			name = a.Explainer.ProviderKind()
		}
		llm.Provider = strp(name)
	case a.Explainer != nil:
		llm.Reason = strp("no language model provider is configured: the AI endpoints answer with the built-in template explainer and make no outbound call")
	default:
		llm.Reason = strp("no AI provider is configured: the AI endpoints are not served")
	}
	out.HostingPortability = HostingPortabilityJSON{SingleBinary: true, CloudServicesRequired: false,
		Dependencies: PortabilityDependencies{LLMInference: llm}}
	return out, nil
}
