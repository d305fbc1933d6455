package ai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"linkplan/appliance"
)

// Client defaults.
const (
	// DefaultTimeout is the default time a provider call may take.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxTokens caps the tokens of an answer.
	DefaultMaxTokens = 512
	// Seed is the fixed sampling seed sent with every request.
	Seed = 42
	// maxResponseBytes caps a provider's response body.
	maxResponseBytes = 1 << 20
)

// Client is a Provider speaking the OpenAI chat-completions protocol
// (POST {base}/v1/chat/completions) as served by llama.cpp's llama-server
// and by Ollama. It sends temperature 0, seed 42 and stream false, and
// reads a streamed answer (text/event-stream) as well, to its [DONE].
type Client struct {
	endpoint  string
	model     string
	Timeout   time.Duration // per call; DefaultTimeout when 0
	MaxTokens int           // max_tokens of a request; DefaultMaxTokens when 0
	HTTP      *http.Client  // http.DefaultClient's transport when nil
}

var _ Provider = (*Client)(nil)

// NewClient returns a client of the server at baseURL (its root, e.g.
// http://127.0.0.1:8080 for llama-server or http://127.0.0.1:11434 for
// Ollama; a trailing /v1 is accepted) answering with model. The URL must
// be absolute http or https; model must not be empty.
func NewClient(baseURL, model string, timeout time.Duration) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("ai provider url %q: must be an absolute http or https URL: %w", baseURL, appliance.ErrInvalid)
	}
	if strings.TrimSpace(model) == "" {
		return nil, fmt.Errorf("ai model: must name the provider's model: %w", appliance.ErrInvalid)
	}
	u.Path = strings.TrimSuffix(u.Path, "/v1") + "/v1/chat/completions"
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &Client{endpoint: u.String(), model: model, Timeout: timeout, HTTP: &http.Client{}}, nil
}

// Kind implements Provider.
func (c *Client) Kind() string { return KindOpenAICompatible }

// Model implements Provider.
func (c *Client) Model() string { return c.model }

type chatRequest struct {
	Model       string    `json:"model"`
	Messages    []Message `json:"messages"`
	Temperature float64   `json:"temperature"`
	Seed        int       `json:"seed"`
	MaxTokens   int       `json:"max_tokens"`
	Stream      bool      `json:"stream"`
}

type chatResponse struct {
	Choices []struct {
		Message Message `json:"message"`
	} `json:"choices"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// Complete implements Provider. A call past Timeout is ErrProviderTimeout;
// a refused connection, a non-2xx status or a malformed body is an error
// matching appliance.ErrUnavailable.
func (c *Client) Complete(ctx context.Context, msgs []Message) (string, error) {
	maxTokens := c.MaxTokens
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	body, err := json.Marshal(chatRequest{Model: c.model, Messages: msgs, Temperature: 0, Seed: Seed, MaxTokens: maxTokens})
	if err != nil {
		return "", fmt.Errorf("encode chat request: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("chat request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{}
	}
	resp, err := hc.Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return "", fmt.Errorf("chat completion after %s: %w", c.Timeout, ErrProviderTimeout)
		}
		return "", fmt.Errorf("chat completion: the language model server cannot be reached: %w", appliance.ErrUnavailable)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return "", fmt.Errorf("chat completion after %s: %w", c.Timeout, ErrProviderTimeout)
		}
		return "", fmt.Errorf("chat completion: reading the answer: %w", appliance.ErrUnavailable)
	}
	if len(raw) > maxResponseBytes {
		return "", fmt.Errorf("chat completion: the answer is larger than %d bytes: %w", maxResponseBytes, appliance.ErrUnavailable)
	}
	if resp.StatusCode/100 == 2 && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return streamed(raw)
	}
	var out chatResponse
	jerr := json.Unmarshal(raw, &out)
	if resp.StatusCode/100 != 2 {
		msg := resp.Status
		if jerr == nil && out.Error != nil && out.Error.Message != "" {
			msg += ": " + truncate(out.Error.Message, 200)
		}
		return "", fmt.Errorf("chat completion: the language model server answered %s: %w", msg, appliance.ErrUnavailable)
	}
	if jerr != nil {
		return "", fmt.Errorf("chat completion: the answer is not chat-completions JSON: %w", appliance.ErrUnavailable)
	}
	if len(out.Choices) == 0 || strings.TrimSpace(out.Choices[0].Message.Content) == "" {
		return "", fmt.Errorf("chat completion: the answer has no content: %w", appliance.ErrUnavailable)
	}
	return strings.TrimSpace(out.Choices[0].Message.Content), nil
}

// streamed joins the content deltas of a streamed answer (server-sent
// events "data: {chunk}" up to "data: [DONE]"), as llama-server and Ollama
// send when streaming.
func streamed(raw []byte) (string, error) {
	var b strings.Builder
	done := false
	for _, line := range strings.Split(string(raw), "\n") {
		line = strings.TrimRight(line, "\r")
		data, ok := strings.CutPrefix(line, "data:")
		if !ok {
			continue
		}
		data = strings.TrimSpace(data)
		if data == "[DONE]" {
			done = true
			break
		}
		var chunk struct {
			Choices []struct {
				Delta Message `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(data), &chunk); err != nil {
			return "", fmt.Errorf("chat completion: a streamed chunk is not JSON: %w", appliance.ErrUnavailable)
		}
		if len(chunk.Choices) > 0 {
			b.WriteString(chunk.Choices[0].Delta.Content)
		}
	}
	text := strings.TrimSpace(b.String())
	if !done || text == "" {
		return "", fmt.Errorf("chat completion: the streamed answer is incomplete or empty: %w", appliance.ErrUnavailable)
	}
	return text, nil
}

// truncate shortens s to at most n runes.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// Close releases idle connections.
func (c *Client) Close() {
	if c.HTTP != nil {
		c.HTTP.CloseIdleConnections()
	}
}
