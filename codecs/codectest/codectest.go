// Package codectest checks that a codec meets the [replay.ReasoningCodec]
// contract, the way testing/slogtest checks a slog.Handler: a codec
// written outside this module runs the checks every codec of the module
// runs, on fixtures of its own API.
//
//	func TestConformance(t *testing.T) {
//		codectest.Run(t, acmechat.Codec{}, codectest.Fixtures{
//			Bodies:   [][]byte{readFile(t, "testdata/message.json")},
//			Streams:  [][]byte{readFile(t, "testdata/thinking.sse")},
//			Requests: [][]byte{readFile(t, "testdata/tool-loop.request")},
//		})
//	}
//
// Each fixture is a complete, successful exchange of the API (not an error
// body, not a cut stream), written from the provider's documented shapes.
// Run checks, each as a subtest:
//
//   - the contract: rule ids unique and named "<api>/<name>" (or another
//     API's, for a family of hosts), a severity, a check, symptoms that
//     compile as regular expressions;
//   - each body: it decodes into a complete turn that does not alias the
//     body (the body is overwritten, and the turn must read the same), the
//     turn goes through its document and back byte for byte and encodes the
//     same, and the encoded request element is JSON;
//   - each stream (in the first of SSE, JSON Lines and the AWS event stream
//     framings that reads it): the same turn document, error and events whether the
//     bytes arrive whole, line by line, byte by byte or in random splits,
//     pushed or pulled; the turn's document trip; and, for a stream of two
//     blocks or more, a typed *replay.LimitError for each tight limit,
//     however the bytes are split;
//   - bad input: a body cut in half and bytes that are not JSON are refused
//     with an error wrapping [replay.ErrMalformed], and a stream of garbage
//     ends with an error, never a panic; Encode and Patch of a nil turn
//     return a *replay.Error;
//   - each request: DecodeRequest reads it, keeps it as History.Request,
//     and names the codec's API in the target.
package codectest

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/stream"
)

// Fixtures are the recorded shapes of a codec's API that Run checks the
// codec on. Each is one complete, successful exchange.
type Fixtures struct {
	// Bodies are whole (non-streamed) response bodies.
	Bodies [][]byte
	// Streams are streamed responses as they come over the wire: Server-Sent
	// Events, JSON Lines or the AWS binary event stream.
	Streams [][]byte
	// Requests are request bodies of the API that carry earlier assistant
	// turns (a tool loop).
	Requests [][]byte
}

// Run checks c against the codec contract ([replay.ReasoningCodec] and
// [codecs.FrameDecoder]) on f, each check a subtest of t. A codec with no
// fixtures of a kind skips that kind's checks; the contract and bad-input
// checks always run.
func Run(t *testing.T, c codecs.Codec, f Fixtures) {
	t.Run("Contract", func(t *testing.T) { checkContract(t, c) })
	for i, body := range f.Bodies {
		t.Run(fmt.Sprintf("Body%d", i), func(t *testing.T) { checkBody(t, c, body) })
	}
	for i, data := range f.Streams {
		t.Run(fmt.Sprintf("Stream%d", i), func(t *testing.T) { checkStream(t, c, data) })
	}
	t.Run("BadInput", func(t *testing.T) { checkBadInput(t, c, f.Bodies) })
	for i, body := range f.Requests {
		t.Run(fmt.Sprintf("Request%d", i), func(t *testing.T) { checkRequest(t, c, body) })
	}
}

func checkContract(t *testing.T, c replay.ReasoningCodec) {
	api := c.API()
	if api == "" {
		t.Fatal("API() is empty")
	}
	rc := c.Contract()
	if rc.API != api {
		t.Errorf("Contract().API is %q, API() is %q", rc.API, api)
	}
	seen := map[string]bool{}
	for _, r := range rc.Rules {
		name, rest, ok := strings.Cut(r.ID, "/")
		if !ok || name == "" || rest == "" || strings.ContainsAny(rest, " \t") {
			t.Errorf("rule id %q is not <api>/<name>", r.ID)
		}
		if seen[r.ID] {
			t.Errorf("rule id %q is declared twice", r.ID)
		}
		seen[r.ID] = true
		switch r.Severity {
		case replay.SeverityReject, replay.SeverityDegrade, replay.SeverityRisk:
		default:
			t.Errorf("rule %s: severity %q", r.ID, r.Severity)
		}
		if r.Check == nil {
			t.Errorf("rule %s has no Check", r.ID)
		}
		for _, s := range r.Symptoms {
			if s.Match == "" {
				t.Errorf("rule %s: a symptom without a pattern", r.ID)
			}
			for _, re := range []string{s.Match, s.Within} {
				if _, err := regexp.Compile("(?i)" + re); err != nil {
					t.Errorf("rule %s: symptom pattern %q: %v", r.ID, re, err)
				}
			}
		}
	}
}

func checkBody(t *testing.T, c replay.ReasoningCodec, body []byte) {
	own := bytes.Clone(body)
	tu, err := c.Decode(own)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if !tu.Complete {
		t.Fatal("the body decodes into an incomplete turn: a fixture is a complete exchange")
	}
	doc := tu.AppendJSON(nil)
	for i := range own {
		own[i] = 'x'
	}
	if got := tu.AppendJSON(nil); !bytes.Equal(got, doc) {
		t.Fatalf("the turn changed when the body was overwritten: it aliases the body\nbefore %s\nafter  %s", doc, got)
	}
	codectest.DocumentTrip(t, c, tu)
	enc, err := c.Encode(tu)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	if !jsonw.ValidBytes(enc) {
		t.Fatalf("Encode wrote what is not JSON: %s", enc)
	}
}

func checkStream(t *testing.T, c codecs.Codec, data []byte) {
	framing := framingOf(c, data)
	opts := stream.Options{Framing: framing}
	res := codectest.SweepStream(t, c.NewFrameDecoder, opts, data)
	if res.Err != nil {
		t.Fatalf("the stream: %v", res.Err)
	}
	if !res.Turn.Complete {
		t.Fatal("the stream decodes into an incomplete turn: a fixture is a complete exchange")
	}
	codectest.DocumentTrip(t, c, res.Turn)
	if len(res.Turn.Blocks) >= 2 {
		codectest.SweepLimits(t, c.NewFrameDecoder, framing, data)
	}
}

// framingOf returns the framing data is in: the first of SSE, JSON Lines
// and the AWS event stream that decodes it without an error, else
// FramingAuto (whose error the sweep then reports).
func framingOf(c replay.ReasoningCodec, data []byte) stream.Framing {
	for _, f := range []stream.Framing{stream.FramingSSE, stream.FramingJSONL, stream.FramingEventStream} {
		if _, err := stream.Decode(bytes.NewReader(data), c, stream.Options{Framing: f}); err == nil {
			return f
		}
	}
	return stream.FramingAuto
}

func checkBadInput(t *testing.T, c replay.ReasoningCodec, bodies [][]byte) {
	bad := [][]byte{[]byte("not json"), []byte(`{"unterminated": "`)}
	for _, b := range bodies {
		if len(b) > 1 {
			bad = append(bad, bytes.Clone(b[:len(b)/2]))
		}
	}
	for _, b := range bad {
		if _, err := c.Decode(b); !errors.Is(err, replay.ErrMalformed) {
			t.Errorf("Decode(%.40q): %v, want an error wrapping ErrMalformed", b, err)
		}
	}
	for _, framing := range []stream.Framing{stream.FramingSSE, stream.FramingJSONL} {
		_, err := stream.Decode(bytes.NewReader([]byte("data: {\"x\n\nevent: \x00\x01\n\n{]\n")), c, stream.Options{Framing: framing})
		if err == nil {
			t.Errorf("a stream of garbage (%v framing) decoded without an error", framing)
		}
	}
	var re *replay.Error
	if _, err := c.Encode(nil); !errors.As(err, &re) {
		t.Errorf("Encode(nil): %v, want a *replay.Error", err)
	}
	if _, err := c.Patch([]byte(`{}`), nil); !errors.As(err, &re) {
		t.Errorf("Patch of a nil turn: %v, want a *replay.Error", err)
	}
}

func checkRequest(t *testing.T, c replay.ReasoningCodec, body []byte) {
	h, target, err := c.DecodeRequest(body)
	if err != nil {
		t.Fatalf("DecodeRequest: %v", err)
	}
	if !bytes.Equal(h.Request, body) {
		t.Error("History.Request is not the request body")
	}
	if target.API != c.API() {
		t.Errorf("the target's API is %q, want %q", target.API, c.API())
	}
	if len(h.Turns) == 0 {
		t.Error("no assistant turn read: a request fixture carries earlier turns")
	}
}
