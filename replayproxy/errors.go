package replayproxy

import (
	"net/http"
	"strconv"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
)

// firstReject returns the first violation of r the provider would reject.
func firstReject(r replay.Report) (replay.Violation, bool) {
	for _, v := range r.Violations {
		if v.Severity == replay.SeverityReject {
			return v, true
		}
	}
	return replay.Violation{}, false
}

// errorShape is how the proxy writes an error of its own for a request:
// the error body of the codec the request speaks to (see
// [codecs.HTTP.ErrorBody]), as the provider the request goes to answers.
// The zero value writes the shape of OpenAI's APIs, which the clients of
// every OpenAI-compatible host parse.
type errorShape struct {
	codec    codecs.HTTPCodec
	provider string
}

// body renders the error body and the headers the shape needs.
func (e errorShape) body(status int, msg string) ([]byte, http.Header) {
	var b []byte
	var h http.Header
	if e.codec != nil && e.codec.HTTP().ErrorBody != nil {
		b, h = e.codec.HTTP().ErrorBody(e.provider, status, msg)
	}
	if len(b) == 0 || b[len(b)-1] != '}' {
		b, h = codecs.OpenAIErrorBody(status, msg)
	}
	return append(b, '\n'), h
}

// writeError answers the client with a provider-shaped error.
func writeError(w http.ResponseWriter, shape errorShape, status int, msg string) {
	body, extra := shape.body(status, msg)
	h := w.Header()
	for k, v := range extra {
		h[k] = v
	}
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// The response headers the proxy adds. Each replaces any header of the
// same name the upstream sent: a client reads the proxy's verdict, never
// one the upstream (or anything in front of it) made up.
const (
	// HeaderAudit carries the audit's verdict of the request in the report
	// and enforce modes: "clean", or the worst severity found ("risk",
	// "degrade", "reject") followed by the rule ids
	// ("reject anthropic/thinking-first").
	HeaderAudit = "X-Replay-Audit"
	// HeaderRepairs counts what repair did to the request, by action,
	// leaving out the actions it did not take ("restored=2 ambiguous=1");
	// absent when repair had nothing to do.
	HeaderRepairs = "X-Replay-Repairs"
	// HeaderRefused names the rule an enforce-mode refusal is for.
	HeaderRefused = "X-Replay-Refused"
	// HeaderRetried names the fix of a request retried once after the
	// upstream refused it ("drop-reasoning anthropic/missing-signature").
	HeaderRetried = "X-Replay-Retried"
	// HeaderUpfront names the fixes applied before sending, because they
	// made an earlier request of the same conversation succeed
	// ("drop-reasoning anthropic/foreign-signature"), comma-separated.
	HeaderUpfront = "X-Replay-Upfront"
)
