package ai_test

// No language model can be installed on the machines that run these
// tests: every provider here is a real HTTP server (httptest) speaking the
// OpenAI chat-completions protocol of llama.cpp's llama-server and Ollama,
// with canned answers.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/ai"
)

// chatServer answers POST /v1/chat/completions with answer(request); it
// checks the protocol fields the client must send.
func chatServer(t *testing.T, answer func(t *testing.T, req map[string]any) (int, string)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			http.Error(w, "no such route", http.StatusNotFound)
			return
		}
		var req map[string]any
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		status, content := answer(t, req)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		if status/100 != 2 {
			_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": content}})
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "model": req["model"],
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": content}}}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestClientSpeaksChatCompletions(t *testing.T) {
	var got map[string]any
	srv := chatServer(t, func(t *testing.T, req map[string]any) (int, string) {
		got = req
		return 200, "  olá  "
	})
	for _, base := range []string{srv.URL, srv.URL + "/", srv.URL + "/v1"} {
		c, err := ai.NewClient(base, "qwen2.5:7b", time.Second)
		if err != nil {
			t.Fatal(err)
		}
		text, err := c.Complete(t.Context(), []ai.Message{{Role: "user", Content: "oi"}})
		if err != nil || text != "olá" {
			t.Fatalf("%s: %q, %v", base, text, err)
		}
		if got["model"] != "qwen2.5:7b" || got["temperature"] != 0.0 || got["seed"] != 42.0 || got["stream"] != false || got["max_tokens"] != 512.0 {
			t.Fatalf("request %v", got)
		}
	}
}

// sseServer streams chunks as server-sent events, as llama-server and
// Ollama do with stream true.
func sseServer(t *testing.T, chunks []string, done bool) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, c := range chunks {
			b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": c}}}})
			fmt.Fprintf(w, "data: %s\n\n", b)
		}
		if done {
			fmt.Fprint(w, "data: [DONE]\n\n")
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestClientReadsStreamedAnswers(t *testing.T) {
	cases := []struct {
		name   string
		chunks []string
		done   bool
		want   string
	}{
		{"streamed answer", []string{"A margem ", "é 36,0", " dB."}, true, "A margem é 36,0 dB."},
		{"cut before [DONE]", []string{"A margem "}, false, ""},
		{"empty stream", nil, true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cl, err := ai.NewClient(sseServer(t, c.chunks, c.done).URL, "m", time.Second)
			if err != nil {
				t.Fatal(err)
			}
			got, err := cl.Complete(t.Context(), []ai.Message{{Role: "user", Content: "x"}})
			if got != c.want || (c.want == "") != errors.Is(err, appliance.ErrUnavailable) {
				t.Fatalf("%q, %v", got, err)
			}
		})
	}
}

func TestClientFailures(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close()
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(slow.Close)
	t.Cleanup(func() { close(release) }) // runs first: the handler returns
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("<html>")) }))
	t.Cleanup(garbage.Close)
	failing := chatServer(t, func(*testing.T, map[string]any) (int, string) { return 500, "model not loaded" })
	empty := chatServer(t, func(*testing.T, map[string]any) (int, string) { return 200, "  " })
	cases := []struct {
		name    string
		url     string
		timeout bool
		msg     string
	}{
		{"provider down", downURL, false, "cannot be reached"},
		{"provider slow", slow.URL, true, "did not answer in time"},
		{"not chat-completions JSON", garbage.URL, false, "not chat-completions JSON"},
		{"server error", failing.URL, false, "500 Internal Server Error: model not loaded"},
		{"empty answer", empty.URL, false, "no content"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cl, err := ai.NewClient(c.url, "m", 150*time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, err = cl.Complete(context.Background(), []ai.Message{{Role: "user", Content: "x"}})
			if err == nil || errors.Is(err, ai.ErrProviderTimeout) != c.timeout || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("err = %v", err)
			}
			if !c.timeout && !errors.Is(err, appliance.ErrUnavailable) {
				t.Fatalf("err = %v, want ErrUnavailable", err)
			}
			if time.Since(start) > 2*time.Second {
				t.Fatalf("took %s", time.Since(start))
			}
		})
	}
}

func TestNewClientValidates(t *testing.T) {
	for _, c := range []struct{ name, url, model string }{
		{"relative url", "localhost:8080", "m"}, {"ftp", "ftp://x", "m"}, {"no model", "http://127.0.0.1:8080", " "},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := ai.NewClient(c.url, c.model, 0); !errors.Is(err, appliance.ErrInvalid) {
				t.Fatalf("err = %v", err)
			}
		})
	}
}
