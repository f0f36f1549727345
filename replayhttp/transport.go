package replayhttp

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/reasonreplay/replay"
)

// AuditMode says what the middleware does with the audit of an outgoing
// request.
type AuditMode uint8

const (
	// AuditOff sends requests unaudited.
	AuditOff AuditMode = iota
	// AuditReport audits the request, reports the result (OnAudit, the
	// call's [Capture]) and sends it.
	AuditReport
	// AuditRefuse audits the request and, when a violation would make the
	// provider reject it, returns an *[AuditError] instead of sending it:
	// not a byte goes out.
	AuditRefuse
)

// AuditError is the error a request refused by the audit ([AuditRefuse])
// fails with. Report holds every violation.
type AuditError struct {
	// API is the API the request was read as.
	API string
	// Report is the audit of the request, with every violation.
	Report replay.Report
}

// Error names the first rejecting violation. The text is not API.
func (e *AuditError) Error() string {
	for _, v := range e.Report.Violations {
		if v.Severity == replay.SeverityReject {
			return "replayhttp: request refused before sending: " + e.API + ": " + v.Error()
		}
	}
	return "replayhttp: request refused before sending: " + e.API
}

// Unwrap returns the report's violations.
func (e *AuditError) Unwrap() error { return e.Report.Err() }

// Transport is an [http.RoundTripper] that reads the reasoning of every
// LLM call passing through it. For each request it recognises (POST to a
// generation endpoint of a known API: Anthropic Messages, OpenAI
// Responses, Gemini generateContent, chat completions, Bedrock Converse,
// Cohere v2 chat) it
//
//   - optionally repairs the request from Store, then audits it;
//   - tees the response body through the API's decoder as the caller
//     reads it, and delivers the turn of that request to OnTurn and to the
//     call's [Capture] when the body reaches EOF or is closed;
//   - puts every complete turn into Store, keyed for the next request.
//
// Requests it does not recognise pass through untouched. The zero value
// sends with [http.DefaultTransport] and the [replay.Default] registry, and
// only captures. A Transport is safe for concurrent use; do not change its
// fields once it is in use.
type Transport struct {
	// Base sends the requests; nil means http.DefaultTransport.
	Base http.RoundTripper
	// Registry picks the codecs; nil means replay.Default (import
	// github.com/reasonreplay/replay/codecs/all to fill it).
	Registry *replay.Registry
	// Provider, when set, is the provider name used to resolve the codec
	// instead of the one the request's host implies (for a gateway or a
	// test server on another host).
	Provider string
	// Limits bound what the decoders keep; a JSON body is kept up to
	// Limits.MaxEvent, a request body read up to Limits.MaxEvent.
	Limits replay.Limits
	// OnTurn, when set, receives each recognised request (its body already
	// consumed), the turn of its response and the error that came with it.
	// It is called once per response, from the goroutine that read the
	// body's end or closed it.
	OnTurn func(req *http.Request, t *replay.Turn, err error)
	// Audit says whether requests are audited before they are sent.
	Audit AuditMode
	// OnAudit, when set, receives the report of each audited request.
	OnAudit func(req *http.Request, r replay.Report)
	// Store, when set, keeps the turns captured and repairs outgoing
	// requests from them (see [Store]).
	Store Store
	// Policy decides what a repaired message may get back when the
	// request goes to another issuer than the stored turn's (see
	// [replay.Carry]); nil means [replay.DefaultPolicy].
	Policy replay.Policy
	// OnRepair, when set, receives the repairs made to (or refused on)
	// each request.
	OnRepair func(req *http.Request, repairs []Repair)
	// Retry, when set, retries once a request the provider refused with
	// an error [Classify] recognises, with the classification's fix
	// applied, and applies the fixes that worked up front to the
	// conversation's next requests (see [Retry]). Nil means off.
	Retry *Retry
}

func (t *Transport) registry() *replay.Registry {
	if t.Registry != nil {
		return t.Registry
	}
	return replay.Default
}

// RoundTrip implements [http.RoundTripper].
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	return t.Middleware(req, base.RoundTrip)
}

// Middleware is the same logic as RoundTrip in the form the official SDKs
// take (openai-go's and anthropic-sdk-go's option.WithMiddleware): it
// sends the request with next. Base is not used.
func (t *Transport) Middleware(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	if req.Method != http.MethodPost || req.Body == nil || req.Body == http.NoBody {
		return next(req)
	}
	lim := t.Limits.WithDefaults()
	body, err := readBody(req, lim.MaxEvent)
	if err != nil {
		return nil, err
	}
	out := req.Clone(req.Context())
	setBody(out, body)
	rt := recognise(t.registry(), out, body, t.Provider)
	if rt.api == "" {
		return next(out)
	}
	capture := captureFrom(req.Context())
	var repairs []Repair
	if t.Store != nil {
		body, repairs = t.repair(req.Context(), rt, body)
		setBody(out, body)
		if t.OnRepair != nil && len(repairs) > 0 {
			t.OnRepair(out, repairs)
		}
	}
	var retries []Retried
	if t.Retry != nil {
		body, retries = t.upfront(req.Context(), rt, out, body)
		setBody(out, body)
		if t.Retry.OnRetry != nil {
			for _, r := range retries {
				t.Retry.OnRetry(out, r)
			}
		}
	}
	var rep *replay.Report
	if t.Audit != AuditOff {
		r, err := t.audit(rt, body)
		if err == nil {
			rep = &r
			if t.OnAudit != nil {
				t.OnAudit(out, r)
			}
		}
	}
	if capture != nil {
		capture.setRequest(rep, repairs, retries)
	}
	if rep != nil && t.Audit == AuditRefuse && rep.Rejects() {
		err := &AuditError{API: rt.api, Report: *rep}
		if capture != nil {
			capture.setTurn(nil, err)
		}
		return nil, err
	}
	resp, err := next(out)
	if err == nil && t.Retry != nil && resp.StatusCode >= 400 {
		var r *Retried
		resp, body, r, err = t.retry(rt, out, body, resp, next)
		if r != nil && capture != nil {
			capture.addRetry(*r)
		}
	}
	if err != nil {
		if capture != nil {
			capture.setTurn(nil, err)
		}
		return resp, err
	}
	finish := func(tu *replay.Turn, err error) {
		if err == nil && tu != nil && tu.Complete && t.Store != nil {
			t.put(req.Context(), rt, body, tu)
		}
		if t.OnTurn != nil {
			t.OnTurn(out, tu, err)
		}
		if capture != nil {
			capture.setTurn(tu, err)
		}
	}
	resp.Body = newTeeBody(resp.Body, rt.codec, resp.Header.Get("Content-Type"), rt.array, resp.StatusCode, t.Limits, finish)
	return resp, nil
}

// readBody reads a request body whole, up to max bytes, and closes it.
func readBody(req *http.Request, max int) ([]byte, error) {
	defer req.Body.Close()
	body, err := io.ReadAll(io.LimitReader(req.Body, int64(max)+1))
	if err != nil {
		return nil, fmt.Errorf("replayhttp: reading the request body: %w", err)
	}
	if len(body) > max {
		return nil, &replay.LimitError{What: "request size", Limit: max, Event: -1, Block: -1}
	}
	return body, nil
}

func setBody(req *http.Request, body []byte) {
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	req.ContentLength = int64(len(body))
	if req.Header.Get("Content-Length") != "" {
		req.Header.Set("Content-Length", strconv.Itoa(len(body)))
	}
}

// requestDecoder is a codec that reads the assistant turns out of a request
// body of its API.
type requestDecoder interface {
	DecodeRequest(body []byte) (replay.History, replay.Target, error)
}

// audit audits a request body: through the codec's own request reader when
// it has one, with what the request's URL says added to the target (the
// model Gemini and Bedrock name in the path, the provider the host names);
// else as the registry's AuditRequest reads it.
func (t *Transport) audit(rt route, body []byte) (replay.Report, error) {
	d, ok := rt.codec.(requestDecoder)
	if !ok {
		return t.registry().AuditRequest(rt.api, body)
	}
	h, tg, err := d.DecodeRequest(body)
	if err != nil {
		return replay.Report{}, err
	}
	if tg.API == "" {
		tg.API = rt.api
	}
	if tg.Model == "" {
		tg.Model = rt.model
	}
	if tg.Provider == "" {
		tg.Provider = rt.provider
	}
	return t.registry().AuditReplay(h, tg), nil
}
