// Package codecs is the codec author's package: what a codec implements
// and declares, beyond the model it shares with its users (package replay).
//
//   - What a codec is: [Codec], the [replay.ReasoningCodec] users call plus
//     the stream decoder ([FrameDecoder]) package stream reads its
//     responses with; the error it reports for input of the wrong shape
//     ([Malformed]); the replay facts of the formats it mints
//     ([FormatTraits], [RegisterFormat]).
//   - How its API is spoken over HTTP ([HTTPCodec], [HTTP]): the paths and
//     hosts it serves, where a request carries its credential, its public
//     endpoint, the shape of its error bodies, and how its request bodies
//     are read and changed (the conversation and what it is bound to, how
//     reasoning is taken out of a model's element, the one-shot fixes).
//     The middleware, the proxy and the command-line tool know no
//     provider: they walk the registry and ask each codec through these
//     declarations.
//
// The codec packages live below this one, one directory per wire API;
// codecs/codectest is the conformance kit a codec's tests run.
package codecs

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/stream"
)

// HTTPCodec is a codec whose API is spoken over HTTP. A codec that does
// not implement it is still decoded, encoded and audited, but the
// middleware and the proxy do not see its traffic.
type HTTPCodec interface {
	replay.ReasoningCodec
	// HTTP returns the API's HTTP facts. It is called often: return a
	// value built once.
	HTTP() *HTTP
	// ReadRequest reads a request body once: what it says of the target,
	// the model's turns (as DecodeRequest reads them), and where each
	// element of its conversation and each member its turns are bound to
	// lie in the body. A body of another shape returns an error wrapping
	// [replay.ErrMalformed].
	ReadRequest(body []byte) (*Request, error)
	// Strip returns the raw text of a turn (see [Request.TurnRaw])
	// without its reasoning, and what it removed. Only reasoning goes:
	// every other byte of the element is kept.
	Strip(raw []byte) ([]byte, []Change)
	// Fix applies the one-shot fix named fix (see the Fix constants) to
	// the turns of r for which only reports true (every turn when only is
	// nil), or to the request's settings, and returns the new body, the
	// headers to add, and what changed; nothing changed (and r.Body) when
	// the codec has no such fix or it does not apply. It builds the body
	// in one pass.
	Fix(fix string, r *Request, only func(turn int) bool, h http.Header) ([]byte, http.Header, []Change)
}

// ResultRenamer is implemented by a codec whose tool results name their
// call by id: what a caller who sends a call with another id than the one
// it was captured with (see [replay.Notice].NewID) needs to keep its tool
// results pointing at it.
type ResultRenamer interface {
	// RenameResults returns a conversation element (one the caller sends:
	// a user message, a tool message, a function_call_output item) with
	// the call id of each tool result it holds, in order, replaced by what
	// rename returns for it when ok; el itself when none changed.
	RenameResults(el []byte, rename func(id string) (string, bool)) []byte
}

// SharedShape returns the name of the request shape an API's requests
// are in: the path of its shared route when several APIs serve it (the
// chat-completions APIs share one shape), else the API's own name.
func SharedShape(c HTTPCodec) string {
	for _, r := range c.HTTP().Routes {
		if r.Shared {
			return r.Path
		}
	}
	return c.API()
}

// The one-shot fixes a codec's Fix may apply, named as the provider
// errors' classifications name them.
const (
	// FixRestore: put back captured reasoning; what the store could not
	// restore, the API's documented fallback (Gemini's sentinel, a
	// Responses item sent without the id that paired it).
	FixRestore = "restore"
	// FixDropReasoning: remove the reasoning of the turns.
	FixDropReasoning = "drop-reasoning"
	// FixDropBlock: ask the provider to drop thinking blocks bound to
	// another conversation (a setting and its beta header).
	FixDropBlock = "drop-block"
	// FixSentinel: write the documented skip value on each model step's
	// first unsigned function call.
	FixSentinel = "sentinel"
	// FixBackfillReasoningContent: send reasoning_content ("" where the
	// turn had none) on every assistant message of the turns.
	FixBackfillReasoningContent = "backfill-reasoning-content"
	// FixRemoveReasoningContent: remove reasoning_content.
	FixRemoveReasoningContent = "remove-reasoning-content"
	// FixDropDuplicates: send each reasoning item once.
	FixDropDuplicates = "drop-duplicates"
	// FixReencode: write the offending item as its codec encodes it,
	// leaving out the members the API refuses on input and adding the
	// ones it requires.
	FixReencode = "reencode"
	// FixConfigure: change the request's settings rather than its
	// history (a beta header, a strategy): the caller's change to make.
	FixConfigure = "configure"
)

// FixNames returns the names of the fixes above, for checks.
func FixNames() []string {
	return []string{FixRestore, FixDropReasoning, FixDropBlock, FixSentinel, FixBackfillReasoningContent,
		FixRemoveReasoningContent, FixDropDuplicates, FixReencode, FixConfigure}
}

// HTTP is what a codec declares of its API's HTTP traffic.
type HTTP struct {
	// Routes are the request paths of the API's generation endpoints.
	Routes []Route
	// Hosts name the providers by the hosts that serve them: a request
	// to a host or a subdomain of it is the provider's.
	Hosts []Host
	// Credential returns the caller's credential that a request carries
	// ("" when none): what names the tenant whose turns are kept. Nil
	// means none is read.
	Credential func(r *http.Request) string
	// Endpoint is the API's public base URL ("https://api.anthropic.com"),
	// the proxy's upstream for the API when none is configured; "" when
	// the API has no public endpoint of its own.
	Endpoint string
	// Names map the names an upstream of this API may be given in a
	// proxy's configuration ("anthropic", "claude") to the provider the
	// registry resolves for it.
	Names map[string]string
	// Member is the request member that holds the conversation
	// ("messages", "input", "contents").
	Member string
	// Streams maps the media types of the API's streamed responses to
	// their framing, for a stream that is not Server-Sent Events
	// (text/event-stream, which any API may answer with): JSON Lines as
	// "application/x-ndjson", say. A body of any other media type is
	// decoded whole.
	Streams map[string]stream.Framing
	// ErrorBody writes an error response body in the shape the API's
	// SDKs parse when the provider (as recognised) answers: a JSON object
	// (the caller may add members before its closing brace), and the
	// headers the response needs besides Content-Type.
	ErrorBody func(provider string, status int, message string) (body []byte, header http.Header)
	// Sniff recognises a response body of the API, or the first event of
	// one of its streams, by its shape: eventType is the event's type
	// (nil when the framing has none), data one valid JSON value. It
	// reports false for bytes of another API. See [Sniff] for how the
	// registry picks among the codecs that recognise the same bytes. Nil
	// means the API's bodies are not told from their bytes.
	Sniff func(eventType, data []byte) (Sniffed, bool)
}

// Route is one generation endpoint of an API.
type Route struct {
	// Path is matched against the end of the request's path. It may hold
	// "{model}" once, which stands for the model name the path carries
	// ("/models/{model}:generateContent"); the name is path-unescaped.
	Path string
	// Provider, when set, is the provider every request of the route
	// goes to, whatever the host ("bedrock" for /model/{model}/converse).
	Provider string
	// Models, when set, limit the route to model names that match one of
	// these patterns (path.Match syntax, case-insensitive): an InvokeModel
	// path carries the body of whichever model it names.
	Models []string
	// Array says a streamed response is one JSON array of chunks when
	// its Content-Type does not name a stream framing, unless the query
	// has alt=sse (Gemini's streamGenerateContent).
	Array bool
	// Shared says several APIs serve the path (chat completions): the
	// registry picks among them by provider and model ([Recognise]).
	Shared bool
	// Fallback, on a Shared route, marks the API the route falls back
	// to: FallbackAny when no provider is known, FallbackNamed when the
	// provider is known but no API of the route claims it.
	Fallback Fallback
}

// Fallback says when a Shared route's API is the one a request falls back
// to.
type Fallback uint8

// The fallbacks of a shared route.
const (
	FallbackNone Fallback = iota
	// FallbackAny: the API of requests whose provider is unknown.
	FallbackAny
	// FallbackNamed: the API of requests to a named provider that no API
	// of the route claims.
	FallbackNamed
)

// Host maps a host name, and its subdomains, to a provider.
type Host struct {
	Suffix   string
	Provider string
}

// AWSErrorBody writes an error body as AWS services answer
// ({"message":...} and the X-Amzn-Errortype header): the shape of every
// API served by Amazon Bedrock.
func AWSErrorBody(status int, msg string) ([]byte, http.Header) {
	typ := "ValidationException"
	switch {
	case status == http.StatusTooManyRequests:
		typ = "ThrottlingException"
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		typ = "AccessDeniedException"
	case status == http.StatusNotFound:
		typ = "ResourceNotFoundException"
	case status == http.StatusServiceUnavailable:
		typ = "ServiceUnavailableException"
	case status >= 500:
		typ = "InternalServerException"
	}
	b := append([]byte(`{"message":`), quote(msg)...)
	return append(b, '}'), http.Header{"X-Amzn-Errortype": {typ}}
}

// OpenAIErrorBody writes an error body as OpenAI answers
// ({"error":{"message","type","param","code"}}): the shape of OpenAI's APIs
// and of the hosts that copy them.
func OpenAIErrorBody(status int, msg string) ([]byte, http.Header) {
	typ := "invalid_request_error"
	switch {
	case status == http.StatusUnauthorized:
		typ = "authentication_error"
	case status == http.StatusTooManyRequests:
		typ = "rate_limit_exceeded"
	case status >= 500:
		typ = "server_error"
	}
	b := append([]byte(`{"error":{"message":`), quote(msg)...)
	b = append(b, `,"type":`...)
	b = append(b, quote(typ)...)
	return append(b, `,"param":null,"code":null}}`...), nil
}

// quote writes s as a JSON string, leaving <, > and & as they are.
func quote(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// Header returns a Credential func that reads the first of the named
// headers present, or, for a name that starts with "?", query parameter.
// Of an Authorization header it takes the credential, not the scheme: the
// token of "Bearer <token>", and the access key id of an AWS Signature
// Version 4 ("AWS4-HMAC-SHA256 Credential=<key id>/<date>/..."), whose
// signature changes with every request.
func Header(names ...string) func(*http.Request) string {
	return func(r *http.Request) string {
		for _, n := range names {
			if q, ok := strings.CutPrefix(n, "?"); ok {
				if r.URL != nil {
					if v := r.URL.Query().Get(q); v != "" {
						return v
					}
				}
				continue
			}
			v := r.Header.Get(n)
			if v == "" {
				continue
			}
			if !strings.EqualFold(n, "authorization") {
				return v
			}
			scheme, rest, ok := strings.Cut(v, " ")
			if !ok {
				return v
			}
			if strings.HasPrefix(scheme, "AWS4-") {
				_, cred, _ := strings.Cut(rest, "Credential=")
				key, _, _ := strings.Cut(cred, "/")
				return key
			}
			return strings.TrimSpace(rest)
		}
		return ""
	}
}

// match reports whether the request path p matches the route, and the
// model it names.
func (rt Route) match(p string) (model string, ok bool) {
	pre, suf, hasModel := strings.Cut(rt.Path, "{model}")
	if !hasModel {
		return "", strings.HasSuffix(p, rt.Path)
	}
	if !strings.HasSuffix(p, suf) {
		return "", false
	}
	head := p[:len(p)-len(suf)]
	i := strings.LastIndex(head, pre)
	if i < 0 || i+len(pre) == len(head) {
		return "", false
	}
	model = head[i+len(pre):]
	if u, err := url.PathUnescape(model); err == nil {
		model = u
	}
	if len(rt.Models) > 0 {
		lm := strings.ToLower(model)
		for _, pat := range rt.Models {
			if ok, _ := path.Match(strings.ToLower(pat), lm); ok {
				return model, true
			}
		}
		return "", false
	}
	return model, true
}

// HostProvider returns the provider a host name is served by, by the
// Hosts of every codec in reg, or "".
func HostProvider(reg *replay.Registry, host string) string {
	return indexOf(reg).hostProvider(host)
}

func (x *index) hostProvider(host string) string {
	h := strings.ToLower(host)
	if i := strings.LastIndexByte(h, ':'); i >= 0 && !strings.Contains(h[i:], "]") {
		h = h[:i]
	}
	best, bestLen := "", 0
	for _, hp := range x.hosts {
		s := hp.Suffix
		if len(s) > bestLen && (h == s || len(h) > len(s) && h[len(h)-len(s)-1] == '.' && strings.HasSuffix(h, s)) {
			best, bestLen = hp.Provider, len(s)
		}
	}
	return best
}

// All returns a codec of every API in reg that declares its HTTP facts,
// in the order of reg.APIs.
func All(reg *replay.Registry) []HTTPCodec {
	return slices.Clone(indexOf(reg).all)
}

// index is what a registry resolves for HTTP at one generation: a codec
// of every API that declares its HTTP facts (in the order of reg.APIs),
// and their hosts, suffixes lower-cased. It is never changed once built.
type index struct {
	reg   *replay.Registry
	gen   uint64
	all   []HTTPCodec
	hosts []Host
}

// indexes holds the index of the registries last asked about (at most
// maxIndexes), replaced whole on every change.
var indexes atomic.Pointer[[]*index]

const maxIndexes = 8

// indexOf returns reg's index at its current generation, built once per
// generation: a request pays a look-up, not a construction of every codec.
func indexOf(reg *replay.Registry) *index {
	gen := reg.Generation() // before the entries are read: see Generation
	if p := indexes.Load(); p != nil {
		for _, x := range *p {
			if x.reg == reg && x.gen == gen {
				return x
			}
		}
	}
	x := &index{reg: reg, gen: gen}
	for _, api := range reg.APIs() {
		c, err := reg.Lookup(api, "", "")
		if err != nil {
			continue
		}
		if hc, ok := c.(HTTPCodec); ok {
			x.all = append(x.all, hc)
			for _, hp := range hc.HTTP().Hosts {
				x.hosts = append(x.hosts, Host{Suffix: strings.ToLower(hp.Suffix), Provider: hp.Provider})
			}
		}
	}
	for {
		old := indexes.Load()
		next := []*index{x}
		if old != nil {
			for _, y := range *old {
				if y.reg != reg && len(next) < maxIndexes {
					next = append(next, y)
				}
			}
		}
		if indexes.CompareAndSwap(old, &next) {
			return x
		}
	}
}

// Recognised is what [Recognise] made of a request.
type Recognised struct {
	// Codec reads the request and its response.
	Codec HTTPCodec
	// Provider is the provider the route, the host or the caller named.
	Provider string
	// Model is the model the path names ("" when the body says).
	Model string
	// Array is set when a streamed response is one JSON array of chunks
	// (see [Route.Array]).
	Array bool
}

// Recognise tells which API of reg a request is a generation request of,
// by its method, its path and its host (provider, when set, overrides
// what the host says); model is the model the body names. The rule:
//
//  1. a route that is not Shared and matches the path decides the API;
//  2. among the APIs whose Shared route matches the path, the one
//     reg.Resolve picks for the provider and model, when it is one of
//     them;
//  3. else the shared route's FallbackNamed API when a provider is
//     known, its FallbackAny API when none is.
//
// ok is false for a request no API reads (any method but POST included).
func Recognise(reg *replay.Registry, method string, u *url.URL, provider, model string) (Recognised, bool) {
	if method != http.MethodPost || u == nil {
		return Recognised{}, false
	}
	x := indexOf(reg)
	if provider == "" {
		provider = x.hostProvider(u.Host)
	}
	p := u.Path
	var shared []HTTPCodec
	var any, named *HTTPCodec
	var sharedRoute Route
	for _, c := range x.all {
		for _, rt := range c.HTTP().Routes {
			m, ok := rt.match(p)
			if !ok {
				continue
			}
			if !rt.Shared {
				r := Recognised{Codec: c, Provider: provider, Model: m, Array: rt.Array && u.Query().Get("alt") != "sse"}
				if rt.Provider != "" {
					r.Provider = rt.Provider
				}
				if r.Model == "" {
					r.Model = model
				}
				return r.resolved(reg), true
			}
			c := c
			shared, sharedRoute = append(shared, c), rt
			switch rt.Fallback {
			case FallbackAny:
				any = &c
			case FallbackNamed:
				named = &c
			}
			break
		}
	}
	if len(shared) == 0 {
		return Recognised{}, false
	}
	r := Recognised{Provider: provider, Model: model, Array: sharedRoute.Array && u.Query().Get("alt") != "sse"}
	if c, err := reg.Resolve(provider, model); err == nil {
		for _, s := range shared {
			if strings.EqualFold(s.API(), c.API()) {
				if hc, ok := c.(HTTPCodec); ok {
					r.Codec = hc
					return r, true
				}
			}
		}
	}
	switch {
	case provider != "" && named != nil:
		r.Codec = *named
	case any != nil:
		r.Codec = *any
	case named != nil:
		r.Codec = *named
	default:
		return Recognised{}, false
	}
	return r.resolved(reg), true
}

// resolved builds the recognised API's codec for the provider and model.
func (r Recognised) resolved(reg *replay.Registry) Recognised {
	if c, err := reg.Lookup(r.Codec.API(), r.Provider, r.Model); err == nil {
		if hc, ok := c.(HTTPCodec); ok {
			r.Codec = hc
		}
	}
	return r
}
