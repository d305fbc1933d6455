package appliance

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCleanUserAgent(t *testing.T) {
	long := strings.Repeat("a", 1<<20)
	tests := []struct {
		name, in, want string
	}{
		{name: "plain", in: "curl/8.5.0", want: "curl/8.5.0"},
		{name: "empty", in: "", want: ""},
		{name: "control characters replaced", in: "a\x00b\nc\x1b[31m", want: "a\uFFFDb\uFFFDc\uFFFD[31m"},
		{name: "bidi override replaced", in: "evil\u202Egpj.exe", want: "evil\uFFFDgpj.exe"},
		{name: "invalid UTF-8 replaced", in: "a\xffb", want: "a\uFFFDb"},
		{name: "exactly the cap kept", in: long[:MaxUserAgentBytes], want: long[:MaxUserAgentBytes]},
		{name: "1 MiB cut", in: long, want: long[:MaxUserAgentBytes-len("…")] + "…"},
		{name: "cut on a character boundary", in: strings.Repeat("é", 200), want: strings.Repeat("é", (MaxUserAgentBytes-len("…"))/2) + "…"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := CleanUserAgent(tc.in)
			if got != tc.want {
				t.Errorf("CleanUserAgent = %q (%d bytes), want %q", got, len(got), tc.want)
			}
			if len(got) > MaxUserAgentBytes || !utf8.ValidString(got) {
				t.Errorf("%d bytes, valid UTF-8 %v", len(got), utf8.ValidString(got))
			}
		})
	}
}
