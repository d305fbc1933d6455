package ai

import (
	"context"
	"errors"
)

// Message is one message of a chat: Role is "system", "user" or
// "assistant".
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Provider is a language model answering chat messages. Complete is
// deterministic where the provider honours temperature 0 and a seed.
type Provider interface {
	// Kind is the provider's label in LLM_EGRESS_TOTAL, from a closed set
	// (KindOpenAICompatible).
	Kind() string
	// Model names the model the provider answers with.
	Model() string
	// Complete returns the assistant's answer to msgs.
	Complete(ctx context.Context, msgs []Message) (string, error)
}

// KindOpenAICompatible labels a server speaking the OpenAI chat-completions
// protocol (llama.cpp llama-server, Ollama).
const KindOpenAICompatible = "openai_compatible"

// ErrProviderTimeout is a provider that did not answer within its timeout.
var ErrProviderTimeout = errors.New("the language model did not answer in time")
