package replayproxy

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
)

// Upstream is a provider the proxy forwards to: a request to
// /Name/rest goes to URL + /rest, with the query string kept.
type Upstream struct {
	// Name is the first path segment that selects the upstream
	// ("anthropic", "openai", "gemini", "openrouter", or any name of an
	// OpenAI-compatible host such as "groq").
	Name string `json:"name"`
	// URL is the upstream's base URL, e.g. "https://api.anthropic.com" or
	// "https://openrouter.ai/api".
	URL string `json:"url"`
	// Provider names the provider to the codec registry ("anthropic",
	// "openai", "openrouter", "deepseek", ...). Empty means the provider
	// Name implies when it is a known one, else the one URL's host names.
	Provider string `json:"provider,omitempty"`
}

// DefaultUpstreams are the upstreams used when none is configured: the
// public endpoints of the four APIs the proxy names by default.
var DefaultUpstreams = []Upstream{
	{Name: "anthropic", URL: "https://api.anthropic.com"},
	{Name: "openai", URL: "https://api.openai.com"},
	{Name: "gemini", URL: "https://generativelanguage.googleapis.com"},
	{Name: "openrouter", URL: "https://openrouter.ai/api"},
}

// nameProviders maps an upstream name to the provider the registry knows.
var nameProviders = map[string]string{
	"anthropic": "anthropic", "claude": "anthropic",
	"openai": "openai", "openai-responses": "openai",
	"gemini": "gemini", "google": "gemini",
	"openrouter": "openrouter",
	"deepseek":   "deepseek",
	"xai":        "xai", "grok": "xai",
	"mistral": "mistral",
	"cohere":  "cohere",
	"bedrock": "bedrock", "bedrock-converse": "bedrock",
	"moonshot": "moonshot", "kimi": "moonshot",
	"zai": "zai", "glm": "zai",
	"groq": "groq",
}

// errorShapes maps a provider to the shape of its error bodies; every
// other provider answers in OpenAI's.
var errorShapes = map[string]string{
	"anthropic": "anthropic", "gemini": "gemini", "vertex": "gemini",
	"openrouter": "openrouter", "bedrock": "bedrock", "cohere": "cohere",
}

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

// reserved are the paths the proxy answers itself.
var reserved = map[string]bool{"healthz": true, "metrics": true}

// ConfigError reports an upstream or a configuration file the proxy cannot
// use.
type ConfigError struct {
	// Where names the setting ("--upstream anthropic=...", a file name).
	Where string
	// Problem says what is wrong.
	Problem string
}

// Error renders the problem with its place.
func (e *ConfigError) Error() string { return e.Where + ": " + e.Problem }

// ParseUpstream reads NAME=URL (the form of the --upstream flag).
func ParseUpstream(s string) (Upstream, error) {
	name, u, ok := strings.Cut(s, "=")
	if !ok {
		return Upstream{}, &ConfigError{Where: "--upstream " + s, Problem: "want NAME=URL"}
	}
	up := Upstream{Name: strings.TrimSpace(name), URL: strings.TrimSpace(u)}
	if _, err := up.check(); err != nil {
		return Upstream{}, err
	}
	return up, nil
}

// check validates u and returns its parsed URL.
func (u Upstream) check() (*url.URL, error) {
	where := "upstream " + u.Name
	if !nameRE.MatchString(u.Name) {
		return nil, &ConfigError{Where: where, Problem: "the name must be lower-case letters, digits, '.', '_' or '-' (it is the first path segment)"}
	}
	if reserved[u.Name] {
		return nil, &ConfigError{Where: where, Problem: "the name is a path the proxy answers itself"}
	}
	p, err := url.Parse(u.URL)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return nil, &ConfigError{Where: where, Problem: fmt.Sprintf("%q is not an http(s) URL", u.URL)}
	}
	if p.RawQuery != "" || p.Fragment != "" || p.User != nil {
		return nil, &ConfigError{Where: where, Problem: "the URL must have no query, fragment or user info"}
	}
	return p, nil
}

// provider is the provider name given to the codec registry: the
// configured one, else the one the name implies, else "" (the middleware
// reads the upstream's host).
func (u Upstream) provider() string {
	if u.Provider != "" {
		return u.Provider
	}
	return nameProviders[u.Name]
}

// FileConfig is the optional configuration file (JSON):
//
//	{"upstreams": [
//	  {"name": "anthropic", "url": "https://api.anthropic.com"},
//	  {"name": "groq", "url": "https://api.groq.com/openai", "provider": "groq"}
//	]}
type FileConfig struct {
	// Upstreams are added to those of the --upstream flags.
	Upstreams []Upstream `json:"upstreams"`
}

// LoadFile reads a configuration file.
func LoadFile(name string) (FileConfig, error) {
	var fc FileConfig
	b, err := os.ReadFile(name)
	if err != nil {
		return fc, err
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&fc); err != nil {
		return fc, &ConfigError{Where: name, Problem: err.Error()}
	}
	for _, u := range fc.Upstreams {
		if _, err := u.check(); err != nil {
			return fc, &ConfigError{Where: name, Problem: err.Error()}
		}
	}
	return fc, nil
}
