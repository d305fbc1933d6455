package main

import (
	"fmt"
	"time"

	"linkplan/appliance/ai"
)

// aiConfig configures the AI routes' language model provider.
type aiConfig struct {
	ProviderURL string        // OpenAI-compatible server root (llama-server, Ollama); "" none
	Model       string        // the model it answers with; required with ProviderURL
	Timeout     time.Duration // per provider call; 0: ai.DefaultTimeout
}

// provider builds the configured provider, nil when none.
func (c aiConfig) provider() (ai.Provider, error) {
	if c.ProviderURL == "" {
		return nil, nil
	}
	if c.Model == "" {
		return nil, fmt.Errorf("--ai-model is required with --ai-provider-url: %w", errUsage)
	}
	p, err := ai.NewClient(c.ProviderURL, c.Model, c.Timeout)
	if err != nil {
		return nil, fmt.Errorf("--ai-provider-url: %w", err)
	}
	return p, nil
}
