// Package ssotest runs a real OpenID Connect issuer for tests: discovery
// document, JWKS, and a token endpoint that exchanges authorization codes
// with PKCE (S256), all behind an httptest server, signing with an RSA key
// generated at start. Tokens carry real signatures; nothing is mocked.
package ssotest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// Issuer is a running test identity provider.
type Issuer struct {
	URL          string // issuer URL (the server's base URL)
	ClientID     string
	ClientSecret string
	Key          *rsa.PrivateKey
	KeyID        string
	Now          func() time.Time

	srv         *httptest.Server
	mu          sync.Mutex
	grants      map[string]grant // authorization code -> grant
	jwksFetches int              // JWKS requests served
}

// JWKSFetches returns how many times the JWKS was fetched.
func (i *Issuer) JWKSFetches() int {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.jwksFetches
}

type grant struct {
	challenge, nonce, subject, redirect string
}

// New starts an issuer with a fresh 2048-bit RSA key; now nil is
// time.Now. The server stops at the end of the test.
func New(tb testing.TB, clientID string, now func() time.Time) *Issuer {
	tb.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		tb.Fatal(err)
	}
	if now == nil {
		now = time.Now
	}
	var kid [6]byte
	_, _ = rand.Read(kid[:])
	iss := &Issuer{ClientID: clientID, ClientSecret: "test-secret", Key: key, KeyID: hex.EncodeToString(kid[:]), Now: now, grants: map[string]grant{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", iss.discovery)
	mux.HandleFunc("GET /jwks", iss.jwks)
	mux.HandleFunc("POST /token", iss.token)
	iss.srv = httptest.NewServer(mux)
	tb.Cleanup(iss.srv.Close)
	iss.URL = iss.srv.URL
	return iss
}

// Client returns the HTTP client of the issuer's server.
func (i *Issuer) Client() *http.Client { return i.srv.Client() }

func (i *Issuer) discovery(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, map[string]any{
		"issuer": i.URL, "authorization_endpoint": i.URL + "/authorize", "token_endpoint": i.URL + "/token",
		"jwks_uri": i.URL + "/jwks", "id_token_signing_alg_values_supported": []string{"RS256", "RS384", "RS512"},
		"response_types_supported": []string{"code"}, "subject_types_supported": []string{"public"},
		"code_challenge_methods_supported": []string{"S256"},
	})
}

// JWKS returns the issuer's JSON Web Key Set (the public key).
func (i *Issuer) JWKS() []byte {
	set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &i.Key.PublicKey, KeyID: i.KeyID, Algorithm: "RS256", Use: "sig"}}}
	raw, err := json.Marshal(set)
	if err != nil {
		panic(err)
	}
	return raw
}

func (i *Issuer) jwks(w http.ResponseWriter, _ *http.Request) {
	i.mu.Lock()
	i.jwksFetches++
	i.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(i.JWKS())
}

// Claims returns the claims of a good ID token for subject: iss, aud, sub,
// iat, exp (in an hour) and token_use=id.
func (i *Issuer) Claims(subject string) map[string]any {
	now := i.Now()
	return map[string]any{"iss": i.URL, "aud": i.ClientID, "sub": subject, "iat": now.Unix(),
		"exp": now.Add(time.Hour).Unix(), "token_use": "id"}
}

// Sign signs claims with the issuer's key (RS256, its kid).
func (i *Issuer) Sign(tb testing.TB, claims map[string]any) string {
	tb.Helper()
	return SignWith(tb, jose.RS256, i.Key, i.KeyID, claims)
}

// SignWith signs claims with any algorithm and key (for refusals: another
// key, HS256 keyed with the public key, ...).
func SignWith(tb testing.TB, alg jose.SignatureAlgorithm, key any, kid string, claims map[string]any) string {
	tb.Helper()
	opts := (&jose.SignerOptions{}).WithType("JWT")
	if kid != "" {
		opts = opts.WithHeader("kid", kid)
	}
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, opts)
	if err != nil {
		tb.Fatal(err)
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		tb.Fatal(err)
	}
	obj, err := sig.Sign(payload)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := obj.CompactSerialize()
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// Unsigned returns a token with header alg "none" and no signature.
func Unsigned(tb testing.TB, claims map[string]any) string {
	tb.Helper()
	h := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`))
	p, err := json.Marshal(claims)
	if err != nil {
		tb.Fatal(err)
	}
	return h + "." + base64.RawURLEncoding.EncodeToString(p) + "."
}

// Authorize plays the user's sign-in at the authorization endpoint: it
// reads the authorization URL the relying party built (client_id,
// redirect_uri, state, nonce, code_challenge with method S256), records a
// grant for subject and returns the code and state the issuer redirects
// back with.
func (i *Issuer) Authorize(tb testing.TB, authURL, subject string) (code, state string) {
	tb.Helper()
	u, err := url.Parse(authURL)
	if err != nil {
		tb.Fatal(err)
	}
	q := u.Query()
	if q.Get("client_id") != i.ClientID || q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" {
		tb.Fatalf("authorization URL lacks client_id, response_type=code or an S256 code challenge: %s", authURL)
	}
	var c [16]byte
	_, _ = rand.Read(c[:])
	code = hex.EncodeToString(c[:])
	i.mu.Lock()
	i.grants[code] = grant{challenge: q.Get("code_challenge"), nonce: q.Get("nonce"), subject: subject, redirect: q.Get("redirect_uri")}
	i.mu.Unlock()
	return code, q.Get("state")
}

func (i *Issuer) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		tokenError(w, "invalid_request")
		return
	}
	id, secret, ok := r.BasicAuth()
	if !ok {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if id != i.ClientID || secret != i.ClientSecret {
		tokenError(w, "invalid_client")
		return
	}
	code := r.PostForm.Get("code")
	i.mu.Lock()
	g, ok := i.grants[code]
	delete(i.grants, code) // a code is used once
	i.mu.Unlock()
	sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
	if !ok || r.PostForm.Get("grant_type") != "authorization_code" || r.PostForm.Get("redirect_uri") != g.redirect ||
		base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge {
		tokenError(w, "invalid_grant")
		return
	}
	claims := i.Claims(g.subject)
	claims["nonce"] = g.nonce
	idTok := SignWith(testingTB{}, jose.RS256, i.Key, i.KeyID, claims)
	writeJSON(w, map[string]any{"access_token": "at-" + code, "token_type": "Bearer", "expires_in": 3600, "id_token": idTok})
}

func tokenError(w http.ResponseWriter, code string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": code})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// testingTB lets the token handler sign outside a test goroutine: a
// signing failure (a bug of this package) panics, and the server's
// recovery answers 500, which fails the exchange.
type testingTB struct{ testing.TB }

func (testingTB) Helper()               {}
func (testingTB) Fatal(args ...any)     { panic(args) }
func (testingTB) Fatalf(string, ...any) { panic("ssotest: signing failed") }
