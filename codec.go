package replay

import (
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// ReasoningCodec translates one wire API to and from turns. A codec is a
// stateless value, safe for concurrent use. Its streamed responses are
// read by package stream (stream.New(body, codec, ...)), with the stream
// decoder every registered codec has (package codecs says what a codec
// implements).
//
// The methods' contract, which every codec in this module meets and the
// conformance tests check:
//
//   - Decode reads a whole (non-streamed) response body. An error body
//     returns a *[ProviderError]; a body of another shape returns an *[Error]
//     wrapping [ErrMalformed] that says what was expected. Elements the codec
//     does not understand are kept verbatim ([*Opaque], [*Native]) in their
//     position. Signatures, encrypted data, ids and signed text are copied
//     byte-exact; nothing is trimmed or normalised. The turn does not alias
//     body.
//
//   - DecodeRequest reads the assistant turns of a native request body of
//     the API, in order, with the same message reader Decode uses: it
//     returns them with History.Request = body and History.Pointers = each
//     turn's element, and what the body says about the target (Model,
//     Tools, Store, Thinking; API is the codec's). A turn is complete only
//     when it is structurally complete: a last turn cut short (a tool call
//     with no arguments, a reasoning item without the signature its format
//     requires) reads as incomplete, its cut items unfinished. A body of
//     another shape returns an error wrapping [ErrMalformed].
//
//   - Encode writes the turn into the API's request shape for the next
//     request: the assistant message, or the input items, exactly as the
//     provider accepts them back. Blocks keep their order. Items that are not
//     [ReasoningItem].Replayable are left out; the caller learns of every loss from
//     [Carry] or [AuditReplay], not from Encode. Encode does not modify t.
//
//   - Patch adds the turn's reasoning to a request element the caller built
//     (an assistant message, or an input array), anchored by tool-call id and
//     block position, and changes nothing else in it.
//
//   - Contract describes what the provider requires on replay, with the
//     audit rules that check it.
type ReasoningCodec interface {
	// API returns the codec's API name, e.g. "openrouter".
	API() string
	Decode(body []byte) (*Turn, error)
	DecodeRequest(body []byte) (History, Target, error)
	Encode(t *Turn) ([]byte, error)
	Patch(msg []byte, t *Turn) ([]byte, error)
	Contract() ReplayContract
}

// Entry registers a codec: its API name, the provider names it serves, the
// model name patterns it claims, and a constructor that may tune the codec
// to the provider and model (a chat host's profile, say).
type Entry struct {
	// API is the unique name, e.g. "anthropic". Matched case-insensitively.
	API string
	// Providers are provider names this codec serves ("anthropic",
	// "bedrock", "vertex"). Matched case-insensitively.
	Providers []string
	// Models are model name patterns in path.Match syntax ("claude-*",
	// "*deepseek*"), matched case-insensitively against the model name and,
	// for a gateway slug such as "anthropic/claude-sonnet-4.5", against the
	// part after the last slash.
	Models []string
	// New returns the codec for a provider and model (either may be empty).
	New func(provider, model string) ReasoningCodec
}

// Registry maps API names, providers and model patterns to codecs. The zero
// value is an empty registry ready to use; it is safe for concurrent use.
//
// Resolve picks a codec in this order:
//
//  1. an entry that lists the provider and has no model patterns: the
//     provider's own API, whatever the model;
//  2. an entry that lists the provider and has a model pattern matching the
//     model (a platform that serves several APIs by model, as Vertex AI
//     serves Claude and Gemini);
//  3. an entry that lists the provider (its patterns did not match);
//  4. an entry whose model pattern matches the model, whatever the provider;
//  5. the entry named by Fallback ("openrouter" when empty).
//
// Within one step, entries are tried in registration order.
//
// A provider that serves two APIs for the same models (Ollama's native
// chat API and its OpenAI-compatible one) is resolved to the API whose
// entry lists it without model patterns, for every model; the other API
// is reached by name ([Registry.Lookup]) or, over HTTP, by the request's
// path.
type Registry struct {
	mu      sync.RWMutex
	entries []Entry
	byAPI   map[string]int
	gen     atomic.Uint64 // entries registered so far
	// contracts keeps the contracts of the codecs looked up, by codec
	// value (a comparable one), up to maxContracts of them: a contract is
	// a function of its codec's value, read only.
	contracts  sync.Map
	ncontracts atomic.Int32
	// Fallback names the entry Resolve falls back to; "" means
	// "openrouter".
	Fallback string
}

// Default is the registry the codec packages register themselves in when
// imported. Import github.com/reasonreplay/replay/codecs/all for all of
// them.
func Default() *Registry { return defaultRegistry }

var defaultRegistry = &Registry{}

// Register adds e. It returns an error wrapping [ErrDuplicate] when the API
// name is taken.
func (r *Registry) Register(e Entry) error {
	if e.API == "" || e.New == nil {
		return fmt.Errorf("replay: register: an entry needs an API name and a constructor")
	}
	key := strings.ToLower(e.API)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byAPI == nil {
		r.byAPI = map[string]int{}
	}
	if _, ok := r.byAPI[key]; ok {
		return fmt.Errorf("replay: register %q: %w", e.API, ErrDuplicate)
	}
	for _, m := range e.Models {
		if _, err := path.Match(m, ""); err != nil {
			return fmt.Errorf("replay: register %q: bad model pattern %q: %w", e.API, m, err)
		}
	}
	r.byAPI[key] = len(r.entries)
	r.entries = append(r.entries, e)
	r.gen.Add(1)
	return nil
}

// Generation returns a number that changes whenever an entry is
// registered: a cache of what the registry's codecs declare (their HTTP
// routes, say) is valid while it does not change. Read it before reading
// the registry, so that an entry registered meanwhile makes the cache
// stale rather than wrong.
func (r *Registry) Generation() uint64 { return r.gen.Load() }

// MustRegister is Register that panics on error, for use in init functions.
func (r *Registry) MustRegister(e Entry) {
	if err := r.Register(e); err != nil {
		panic(err)
	}
}

// APIs returns the registered API names, sorted.
func (r *Registry) APIs() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.entries))
	for _, e := range r.entries {
		out = append(out, e.API)
	}
	sort.Strings(out)
	return out
}

// Lookup returns the codec registered under api (case-insensitive), built
// for the given provider and model, or an error wrapping [ErrUnknownAPI].
func (r *Registry) Lookup(api, provider, model string) (ReasoningCodec, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	i, ok := r.byAPI[strings.ToLower(api)]
	if !ok {
		return nil, fmt.Errorf("replay: %q: %w (registered: %s)", api, ErrUnknownAPI, strings.Join(r.apisLocked(), ", "))
	}
	return r.entries[i].New(provider, model), nil
}

func (r *Registry) apisLocked() []string {
	out := make([]string, 0, len(r.entries))
	for _, e := range r.entries {
		out = append(out, e.API)
	}
	sort.Strings(out)
	return out
}

// Resolve picks the codec for a provider and model in the documented order.
func (r *Registry) Resolve(provider, model string) (ReasoningCodec, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	p, m := strings.ToLower(provider), strings.ToLower(model)
	lists := func(e Entry) bool {
		for _, x := range e.Providers {
			if strings.ToLower(x) == p {
				return true
			}
		}
		return false
	}
	matches := func(e Entry) bool {
		if m == "" {
			return false
		}
		base := m[strings.LastIndexByte(m, '/')+1:]
		for _, pat := range e.Models {
			pat = strings.ToLower(pat)
			if ok, _ := path.Match(pat, m); ok {
				return true
			}
			if ok, _ := path.Match(pat, base); ok {
				return true
			}
		}
		return false
	}
	steps := []func(Entry) bool{
		func(e Entry) bool { return p != "" && lists(e) && len(e.Models) == 0 },
		func(e Entry) bool { return p != "" && lists(e) && matches(e) },
		func(e Entry) bool { return p != "" && lists(e) },
		matches,
	}
	for _, step := range steps {
		for _, e := range r.entries {
			if step(e) {
				return e.New(provider, model), nil
			}
		}
	}
	fb := r.Fallback
	if fb == "" {
		fb = "openrouter"
	}
	if i, ok := r.byAPI[strings.ToLower(fb)]; ok {
		return r.entries[i].New(provider, model), nil
	}
	return nil, fmt.Errorf("replay: no codec for provider %q model %q and no fallback %q: %w", provider, model, fb, ErrUnknownAPI)
}

// Lookup is [Registry.Lookup] on [Default].
func Lookup(api, provider, model string) (ReasoningCodec, error) {
	return Default().Lookup(api, provider, model)
}

// Resolve is [Registry.Resolve] on [Default].
func Resolve(provider, model string) (ReasoningCodec, error) {
	return Default().Resolve(provider, model)
}
