package replayproxy

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/reasonreplay/replay"
)

// refusal is what the proxy adds to a provider-shaped error body when the
// audit refused the request: the rule, where, and the fix.
type refusal struct {
	Rule    string `json:"rule"`
	Pointer string `json:"pointer,omitempty"`
	Message string `json:"message"`
	Fix     string `json:"fix,omitempty"`
}

// firstReject returns the first violation of r the provider would reject.
func firstReject(r replay.Report) (replay.Violation, bool) {
	for _, v := range r.Violations {
		if v.Severity == replay.SeverityReject {
			return v, true
		}
	}
	return replay.Violation{}, false
}

// jsonString renders s as a JSON string, leaving <, > and & as they are.
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// errorType is the provider's error type for an HTTP status.
func errorType(shape string, status int) string {
	switch shape {
	case "anthropic":
		switch status {
		case http.StatusNotFound:
			return "not_found_error"
		case http.StatusRequestEntityTooLarge:
			return "request_too_large"
		case http.StatusServiceUnavailable:
			return "overloaded_error"
		case http.StatusBadGateway, http.StatusGatewayTimeout:
			return "api_error"
		}
		return "invalid_request_error"
	case "gemini":
		switch status {
		case http.StatusNotFound:
			return "NOT_FOUND"
		case http.StatusServiceUnavailable, http.StatusBadGateway:
			return "UNAVAILABLE"
		case http.StatusGatewayTimeout:
			return "DEADLINE_EXCEEDED"
		}
		return "INVALID_ARGUMENT"
	}
	if status >= 500 {
		return "server_error"
	}
	return "invalid_request_error"
}

// errorBody renders the error body a provider of shape answers with: the
// shape its SDKs parse, the message, and (for a refusal) the proxy's
// "replay" member with the rule id and the fix.
func errorBody(shape string, status int, msg string, ref *refusal) []byte {
	var b bytes.Buffer
	m, typ := jsonString(msg), jsonString(errorType(shape, status))
	switch shape {
	case "anthropic":
		b.WriteString(`{"type":"error","error":{"type":` + typ + `,"message":` + m + `}`)
	case "gemini":
		b.WriteString(`{"error":{"code":` + strconv.Itoa(status) + `,"message":` + m + `,"status":` + typ + `}`)
	case "openrouter":
		b.WriteString(`{"error":{"code":` + strconv.Itoa(status) + `,"message":` + m + `}`)
	case "bedrock", "cohere":
		b.WriteString(`{"message":` + m)
	default: // OpenAI and every OpenAI-compatible host
		b.WriteString(`{"error":{"message":` + m + `,"type":` + typ + `,"param":null,"code":null}`)
	}
	if ref != nil {
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		b.WriteString(`,"replay":`)
		_ = enc.Encode(ref)
		b.Truncate(b.Len() - 1)
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// writeError answers the client with a provider-shaped error.
func writeError(w http.ResponseWriter, shape string, status int, msg string, ref *refusal) {
	body := errorBody(shape, status, msg, ref)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	if shape == "bedrock" {
		h.Set("X-Amzn-Errortype", "ValidationException")
	}
	if ref != nil {
		h.Set(HeaderRefused, ref.Rule)
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// The response headers the proxy adds.
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
