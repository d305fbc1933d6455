package assemble

import "testing"

// TestOfflineReason: details.offline's reason names every outbound
// dependency configured, or says there is none.
func TestOfflineReason(t *testing.T) {
	for _, c := range []struct {
		name                   string
		ssoOffline, ai, models bool
		want                   string
	}{
		{"none", true, false, false, "no outbound dependency is configured: the appliance makes no outbound calls"},
		{"sso", false, false, false, "outbound calls to: SSO identity provider (--oidc-issuer)"},
		{"all", false, true, true, "outbound calls to: SSO identity provider (--oidc-issuer), language model provider (--ai-provider-url), external model endpoint (--model-endpoint-url)"},
		{"models only", true, false, true, "outbound calls to: external model endpoint (--model-endpoint-url)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := offlineReason(c.ssoOffline, c.ai, c.models); got != c.want {
				t.Errorf("offlineReason = %q, want %q", got, c.want)
			}
		})
	}
}
