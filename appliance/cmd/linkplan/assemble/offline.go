package assemble

import "strings"

// offlineReason says which outbound dependencies are configured, for
// details.offline of GET /health/ready: none means offline.
func offlineReason(ssoOffline, aiProvider, modelEndpoint bool) string {
	var out []string
	if !ssoOffline {
		out = append(out, "SSO identity provider (--oidc-issuer)")
	}
	if aiProvider {
		out = append(out, "language model provider (--ai-provider-url)")
	}
	if modelEndpoint {
		out = append(out, "external model endpoint (--model-endpoint-url)")
	}
	if len(out) == 0 {
		return "no outbound dependency is configured: the appliance makes no outbound calls"
	}
	return "outbound calls to: " + strings.Join(out, ", ")
}
