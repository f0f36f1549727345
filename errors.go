package replay

import (
	"errors"
	"strconv"
	"strings"
)

// Sentinel errors. Callers branch on them with [errors.Is]. Error text is not
// API: match on these values and on the typed errors below, never on
// messages. A stream that ends before it is finished wraps
// [io.ErrUnexpectedEOF].
var (
	// ErrMalformed means the input is not of the shape the decoder expects
	// (not JSON, or JSON that is not a response of the API).
	ErrMalformed = errors.New("malformed input")
	// ErrUnknownAPI means no codec is registered under the name asked for.
	ErrUnknownAPI = errors.New("unknown API")
	// ErrDuplicate means a codec is already registered under the name.
	ErrDuplicate = errors.New("duplicate registration")
	// ErrVersion means a turn document has a version this library does not
	// read.
	ErrVersion = errors.New("unsupported document version")
)

// Error is an error located in the input: which API's decoder or encoder
// found it, where (a JSON Pointer into the document or event, and the
// 0-based event number for streams), and what (Err, which usually wraps one
// of the sentinels).
type Error struct {
	// API is the codec's API name, e.g. "openrouter". Empty for errors of
	// the turn document itself.
	API string
	// Event is the 0-based number of the stream event, or -1 when the error
	// is not in a stream.
	Event int
	// Pointer is a JSON Pointer (RFC 6901) to the offending value, or "".
	Pointer string
	// Err is the underlying error.
	Err error
}

// Error renders the location and the cause. The text is not API.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("replay: ")
	if e.API != "" {
		b.WriteString(e.API)
		b.WriteString(": ")
	}
	if e.Event >= 0 {
		b.WriteString("event ")
		b.WriteString(strconv.Itoa(e.Event))
		b.WriteString(": ")
	}
	if e.Pointer != "" {
		b.WriteString(e.Pointer)
		b.WriteString(": ")
	}
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns e.Err.
func (e *Error) Unwrap() error { return e.Err }

// ProviderError is an error the provider itself reported: an error body
// instead of a response, or an error event in a stream. The turn decoded
// up to that point, if any, is returned alongside it and marked incomplete.
type ProviderError struct {
	// API is the codec's API name.
	API string `json:"api,omitempty"`
	// Status is the HTTP status when known (from the body, or passed by the
	// caller), else 0.
	Status int `json:"status,omitempty"`
	// Type is the provider's error type (`overloaded_error`,
	// `invalid_request_error`, `INVALID_ARGUMENT`), when given.
	Type string `json:"type,omitempty"`
	// Code is the provider's error code as a string, when given.
	Code string `json:"code,omitempty"`
	// Message is the provider's message.
	Message string `json:"message,omitempty"`
	// Provider is the upstream provider that failed, when a gateway names it
	// (OpenRouter's `metadata.provider_name`).
	Provider string `json:"provider,omitempty"`
	// Raw is the upstream provider's own error body when a gateway relays it
	// (OpenRouter's `metadata.raw`).
	Raw string `json:"raw,omitempty"`
}

// Error renders the provider's error. The text is not API.
func (e *ProviderError) Error() string {
	var b strings.Builder
	b.WriteString("replay: ")
	if e.API != "" {
		b.WriteString(e.API)
		b.WriteString(": ")
	}
	b.WriteString("provider error")
	if e.Status != 0 {
		b.WriteString(" ")
		b.WriteString(strconv.Itoa(e.Status))
	}
	if e.Type != "" {
		b.WriteString(" ")
		b.WriteString(e.Type)
	}
	if e.Code != "" && e.Code != strconv.Itoa(e.Status) {
		b.WriteString(" (")
		b.WriteString(e.Code)
		b.WriteString(")")
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if e.Raw != "" {
		b.WriteString(": upstream: ")
		b.WriteString(e.Raw)
	}
	return b.String()
}

// LimitError reports that input exceeded a configured limit. The decoder
// stops at the limit; the turn so far is returned, marked incomplete.
type LimitError struct {
	// What names the limit: "event size", "item size", "block count",
	// "turn size".
	What string
	// Limit is the configured maximum.
	Limit int
	// API is the codec's API name, when a codec found it.
	API string
	// Event is the 0-based number of the stream event being decoded, or -1
	// for a whole body (and for an event too large to be framed, whose
	// number is Event as well when known).
	Event int
	// Block is the position in the turn of the block that exceeded the
	// limit, or -1.
	Block int
}

// Error names the limit that was exceeded and where.
func (e *LimitError) Error() string {
	var b strings.Builder
	b.WriteString("replay: ")
	if e.API != "" {
		b.WriteString(e.API)
		b.WriteString(": ")
	}
	if e.Event >= 0 {
		b.WriteString("event ")
		b.WriteString(strconv.Itoa(e.Event))
		b.WriteString(": ")
	}
	if e.Block >= 0 {
		b.WriteString("block ")
		b.WriteString(strconv.Itoa(e.Block))
		b.WriteString(": ")
	}
	b.WriteString(e.What)
	b.WriteString(" exceeds the limit of ")
	b.WriteString(strconv.Itoa(e.Limit))
	return b.String()
}

// Limits bound what a decoder accepts from untrusted input. A zero field
// takes its default. The defaults are generous: encrypted reasoning and
// signatures run to hundreds of kilobytes.
type Limits struct {
	// MaxEvent is the largest stream event (one SSE event's data, or one
	// JSONL line), in bytes. Default 16 MiB.
	MaxEvent int `json:"max_event,omitempty"`
	// MaxItem is the largest text, signature or blob of one block, in
	// bytes. Default 64 MiB.
	MaxItem int `json:"max_item,omitempty"`
	// MaxBlocks is the largest number of blocks in one turn. Default 100000.
	MaxBlocks int `json:"max_blocks,omitempty"`
	// MaxTurn is the largest total of bytes a decoder keeps for one turn
	// (every text, signature, blob, id and argument string). Default 256 MiB.
	MaxTurn int `json:"max_turn,omitempty"`
}

// The default limits (see [Limits]; Limits{}.WithDefaults() returns them).
const (
	defaultMaxEvent  = 16 << 20
	defaultMaxItem   = 64 << 20
	defaultMaxBlocks = 100000
	defaultMaxTurn   = 256 << 20
)

// WithDefaults returns l with every zero field set to its default.
func (l Limits) WithDefaults() Limits {
	if l.MaxEvent <= 0 {
		l.MaxEvent = defaultMaxEvent
	}
	if l.MaxItem <= 0 {
		l.MaxItem = defaultMaxItem
	}
	if l.MaxBlocks <= 0 {
		l.MaxBlocks = defaultMaxBlocks
	}
	if l.MaxTurn <= 0 {
		l.MaxTurn = defaultMaxTurn
	}
	return l
}
