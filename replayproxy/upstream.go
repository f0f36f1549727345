package replayproxy

import (
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
)

// Upstream is a provider the proxy forwards to: a request to
// /Name/rest goes to URL + /rest, with the query string kept.
type Upstream struct {
	// Name is the first path segment that selects the upstream: a name a
	// codec declares (see [codecs.HTTP].Names: "anthropic", "openai",
	// "gemini", "groq", ...), or any other, for a host whose provider
	// Provider or the URL's host names.
	Name string `json:"name"`
	// URL is the upstream's base URL, e.g. "https://api.anthropic.com" or
	// "https://openrouter.ai/api".
	URL string `json:"url"`
	// Provider names the provider to the codec registry. Empty means the
	// provider Name implies when a codec declares it, else the one URL's
	// host names.
	Provider string `json:"provider,omitempty"`
}

// defaultUpstreams are the upstreams used when none is configured: the
// public endpoint of every API of reg that declares one (see
// [codecs.HTTP]), each named by the name its codec maps to the provider
// the endpoint's host names (else by the first of its names), in the
// order of the names.
func defaultUpstreams(reg *replay.Registry) []Upstream {
	var out []Upstream
	seen := map[string]bool{}
	for _, c := range codecs.All(reg) {
		h := c.HTTP()
		if h.Endpoint == "" || len(h.Names) == 0 {
			continue
		}
		u, err := url.Parse(h.Endpoint)
		if err != nil {
			continue
		}
		provider := codecs.HostProvider(reg, u.Host)
		name := ""
		for _, n := range slices.Sorted(maps.Keys(h.Names)) {
			if h.Names[n] == provider && n == provider {
				name = n
				break
			}
			if name == "" {
				name = n
			}
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, Upstream{Name: name, URL: h.Endpoint})
	}
	slices.SortFunc(out, func(a, b Upstream) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// nameProvider returns the provider an upstream name implies, by the
// names the codecs of reg declare, or "".
func nameProvider(reg *replay.Registry, name string) string {
	for _, c := range codecs.All(reg) {
		if p, ok := c.HTTP().Names[name]; ok {
			return p
		}
	}
	return ""
}

// upstreamCodec returns the codec whose API an upstream serves, for the
// errors the proxy answers itself when a request's path names no API: the
// codec that declares the upstream's name, else one that maps a name to
// its provider, else the one whose hosts serve the upstream's host; nil
// when none does.
func upstreamCodec(reg *replay.Registry, u Upstream, base *url.URL) codecs.HTTPCodec {
	all := codecs.All(reg)
	for _, c := range all {
		if _, ok := c.HTTP().Names[u.Name]; ok {
			return c
		}
	}
	provider := u.provider(reg)
	if provider == "" {
		provider = codecs.HostProvider(reg, base.Host)
	}
	if provider == "" {
		return nil
	}
	for _, c := range all {
		for _, p := range c.HTTP().Names {
			if p == provider {
				return c
			}
		}
	}
	for _, c := range all {
		for _, h := range c.HTTP().Hosts {
			if h.Provider == provider {
				return c
			}
		}
	}
	return nil
}

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

// reserved are the paths the proxy answers itself.
var reserved = map[string]bool{"healthz": true, "livez": true, "readyz": true, "metrics": true}

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
	if err != nil {
		return nil, &ConfigError{Where: where, Problem: "the URL does not parse"}
	}
	if (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return nil, &ConfigError{Where: where, Problem: fmt.Sprintf("%q is not an http(s) URL", p.Redacted())}
	}
	if p.RawQuery != "" || p.Fragment != "" || p.User != nil {
		return nil, &ConfigError{Where: where, Problem: "the URL must have no query, fragment or user info"}
	}
	return p, nil
}

// provider is the provider name given to the codec registry: the
// configured one, else the one the name implies, else "" (the middleware
// reads the upstream's host).
func (u Upstream) provider(reg *replay.Registry) string {
	if u.Provider != "" {
		return u.Provider
	}
	return nameProvider(reg, u.Name)
}
