package main

import (
	"errors"
	"testing"

	"linkplan/appliance"
)

func TestAIConfigProvider(t *testing.T) {
	cases := []struct {
		name     string
		cfg      aiConfig
		provider bool
		err      error
	}{
		{"default: template only, offline", aiConfig{}, false, nil},
		{"llama-server", aiConfig{ProviderURL: "http://127.0.0.1:8081", Model: "qwen2.5-7b-instruct"}, true, nil},
		{"ollama with /v1", aiConfig{ProviderURL: "http://127.0.0.1:11434/v1", Model: "llama3.1:8b"}, true, nil},
		{"model missing", aiConfig{ProviderURL: "http://127.0.0.1:8081"}, false, errUsage},
		{"not a URL", aiConfig{ProviderURL: "127.0.0.1:8081", Model: "m"}, false, appliance.ErrInvalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := c.cfg.provider()
			if (p != nil) != c.provider || (c.err == nil) != (err == nil) || c.err != nil && !errors.Is(err, c.err) {
				t.Fatalf("provider %v, err %v", p, err)
			}
		})
	}
}
