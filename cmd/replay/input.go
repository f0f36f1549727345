package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/sse"
)

// maxBody is the largest input read whole (a response body, a turn
// document, a history); streams are decoded as they arrive, bounded by the
// decoders' limits instead.
// maxBody is the most of a whole body or document read.
const maxBody = 256 << 20 // the default Limits.MaxTurn

// source is an opened input whose first bytes have been looked at.
type source struct {
	name string
	// r reads the whole input from its first byte.
	r      io.Reader
	prefix []byte
	what   sse.Detected
	close  func() error
}

// open opens FILE, or standard input for "-", and reads as many of its
// first bytes as it takes to tell its framing (at most one event's limit).
func open(e *env, name string) (*source, error) {
	var r io.Reader = e.stdin
	closer := func() error { return nil }
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			f.Close()
			return nil, fmt.Errorf("%s is a directory", name)
		}
		r, closer = f, f.Close
	}
	prefix, what, err := sse.DetectReader(r, replay.Limits{}.WithDefaults().MaxEvent)
	if err != nil {
		closer()
		return nil, fmt.Errorf("%s: %w", displayName(name), err)
	}
	return &source{name: displayName(name), r: io.MultiReader(bytes.NewReader(prefix), r), prefix: prefix, what: what, close: closer}, nil
}

func displayName(name string) string {
	if name == "-" {
		return "standard input"
	}
	return name
}

// all reads the whole input, at most maxBody bytes.
func (s *source) all() ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(s.r, maxBody+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.name, err)
	}
	if len(b) > maxBody {
		return nil, fmt.Errorf("%s: larger than %d bytes, the most read whole (a body or document; streams have no such bound)", s.name, maxBody)
	}
	return b, nil
}

// firstLineIsJSON reports whether the first non-blank line of b is a whole
// JSON value.
func firstLineIsJSON(b []byte) bool {
	b = bytes.TrimLeft(bytes.TrimPrefix(b, []byte("\xEF\xBB\xBF")), " \t\r\n")
	if i := bytes.IndexAny(b, "\r\n"); i >= 0 {
		b = b[:i]
	}
	return len(b) > 0 && json.Valid(b)
}

// inputFlags are the flags of the commands that read a response.
type inputFlags struct {
	fs                            *flag.FlagSet
	api, framing, provider, model string
	stream, verbose               bool
}

func (f *inputFlags) register(fs *flag.FlagSet, apiFlag string) {
	f.fs = fs
	fs.StringVar(&f.api, apiFlag, "auto", "the wire `API` of the input: "+strings.Join(apiNames(), ", ")+", or auto to tell it from the first bytes")
	fs.StringVar(&f.provider, "provider", "", "the provider (platform, `P`) that served the response, to pick a codec profile")
	fs.StringVar(&f.model, "model", "", "the model (`M`) that produced the response, to pick a codec profile")
	fs.BoolVar(&f.stream, "stream", false, "require a stream (streams are detected without it)")
	fs.StringVar(&f.framing, "framing", "auto", "the stream framing `F`: sse, jsonl (one event per line), eventstream (binary AWS), or auto; naming one implies --stream")
	fs.BoolVar(&f.verbose, "v", false, "say on stderr what the input was found to be")
}

// checkAPI refuses an unknown --api before any input is read.
func (f *inputFlags) checkAPI(flagName string) error {
	if f.api == "auto" || f.api == "" {
		return nil
	}
	return checkAPIName(flagName, f.api)
}

func checkAPIName(flagName, api string) error {
	for _, n := range apiNames() {
		if n == api {
			return nil
		}
	}
	return usageError("unknown --%s %q (want one of %s)", flagName, api, strings.Join(apiNames(), ", "))
}

func (f *inputFlags) checkFraming() error {
	switch f.framing {
	case "auto", "sse", "jsonl", "eventstream":
		return nil
	}
	return usageError("unknown --framing %q (want sse, jsonl, eventstream or auto)", f.framing)
}

// lookup returns the codec of api, tuned to provider and model.
func lookup(api, provider, model string) (replay.ReasoningCodec, error) {
	c, err := replay.Lookup(api, provider, model)
	if err != nil {
		return nil, fmt.Errorf("--api %s: no codec for this API in this build: %w", api, err)
	}
	return c, nil
}

// framingName describes a framing in a sentence.
func framingName(what string) string {
	switch what {
	case "sse":
		return "an SSE stream"
	case "jsonl":
		return "a JSON Lines stream"
	case "eventstream":
		return "a binary AWS event stream"
	case "json":
		return "a JSON body"
	}
	return "an unrecognised input"
}

// note says on stderr, with -v, what the input was found to be.
func (f *inputFlags) note(e *env, cmd, name, what string, g guess, detected bool) {
	if !f.verbose {
		return
	}
	how := "named"
	if detected {
		how = "detected"
	}
	fw := "detected"
	if given(f.fs, "framing") && f.framing != "auto" {
		fw = "named"
	}
	s := fmt.Sprintf("replay %s: %s: %s (%s), api %s (%s)", cmd, name, framingName(what), fw, g.api, how)
	if g.provider != "" {
		s += ", provider " + g.provider
	}
	if g.model != "" {
		s += ", model " + g.model
	}
	fmt.Fprintln(e.stderr, s)
}

// merge fills what the flags left empty from what was detected; the flags
// win.
func (f *inputFlags) merge(g guess) guess {
	if f.api != "auto" && f.api != "" {
		g.api = f.api
	}
	if f.provider != "" {
		g.provider = f.provider
	}
	if f.model != "" {
		g.model = f.model
	}
	return g
}

// readTurn reads src per the flags: a turn document (when docs is true), a
// response body, or a stream, decoded as it arrives. A stream that fails
// returns its partial turn with the error.
func (f *inputFlags) readTurn(e *env, cmd string, src *source, docs bool) (*replay.Turn, error) {
	explicit := f.framing != "auto"
	switch src.what {
	case sse.DetectJSON:
		oneLine := firstLineIsJSON(src.prefix)
		if (f.stream || explicit) && !oneLine {
			flagName := "--stream"
			if explicit {
				flagName = "--framing " + f.framing
			}
			return nil, usageError("%s: %s is one JSON value over several lines (a response body), not a stream; leave out %s", flagName, src.name, flagName)
		}
		data, err := src.all()
		if err != nil {
			return nil, err
		}
		if isTurnDocument(data) {
			if !docs {
				return nil, usageError("%s is a turn document, already decoded (encode, convert, audit and validate read it)", src.name)
			}
			if f.verbose {
				fmt.Fprintf(e.stderr, "replay %s: %s: a turn document\n", cmd, src.name)
			}
			return replay.UnmarshalTurn(data)
		}
		g := sniff(nil, data)
		detected := f.api == "auto" || f.api == ""
		if detected && g.api == "" {
			return nil, usageError("--api auto: %s is a JSON body of no API this build knows (%s); name it with --api", src.name, shape(data))
		}
		g = f.merge(g)
		if f.stream || explicit || g.event {
			// One line holding one stream event: a stream of one event.
			f.note(e, cmd, src.name, "jsonl", g, detected)
			return f.decodeStream(bytes.NewReader(data), g, replay.FramingJSONL, detected)
		}
		c, err := lookup(g.api, g.provider, g.model)
		if err != nil {
			return nil, err
		}
		f.note(e, cmd, src.name, "json", g, detected)
		return c.Decode(data)
	case sse.DetectSSE, sse.DetectJSONL, sse.DetectEventStream:
		what := src.what.String()
		if explicit && f.framing != what {
			return nil, usageError("--framing %s: %s is %s (it starts with %q); use --framing %s, or leave --framing out to detect it",
				f.framing, src.name, framingName(what), firstLine(src.prefix), what)
		}
		r, fr := src.r, replay.FramingSSE
		switch src.what {
		case sse.DetectJSONL:
			fr = replay.FramingJSONL
		case sse.DetectEventStream:
			fr = replay.FramingEventStream
		}
		detected := f.api == "auto" || f.api == ""
		g := f.merge(guess{})
		if !detected {
			f.note(e, cmd, src.name, what, g, false)
		} else {
			g.announce = func(g guess) { f.note(e, cmd, src.name, what, f.merge(g), true) }
		}
		return f.decodeStream(r, g, fr, detected)
	}
	if len(bytes.TrimSpace(src.prefix)) == 0 {
		return nil, fmt.Errorf("%s is empty: expected a response body, a stream or a turn document", src.name)
	}
	if explicit {
		// The caller named a framing for bytes Detect does not know.
		fr, err := replay.ParseFraming(f.framing)
		if err != nil {
			return nil, usageError("--framing: %v", err)
		}
		return f.decodeStream(src.r, f.merge(guess{}), fr, f.api == "auto" || f.api == "")
	}
	return nil, usageError("%s starts with %q: neither a JSON body, an SSE stream (\"data:\" lines), JSON lines nor an AWS event stream", src.name, firstLine(src.prefix))
}

// firstLine is the input's first non-blank line, clipped, for a message.
func firstLine(b []byte) string {
	b = bytes.TrimLeft(b, " \t\r\n")
	if i := bytes.IndexAny(b, "\r\n"); i >= 0 {
		b = b[:i]
	}
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}

// decodeStream decodes a stream from r as its bytes arrive. With sniff the
// API is told from the first event.
func (f *inputFlags) decodeStream(r io.Reader, g guess, fr replay.Framing, sniffAPI bool) (*replay.Turn, error) {
	cd := &countingDecoder{}
	if sniffAPI {
		cd.next = &sniffer{g: g}
	} else {
		c, err := lookup(g.api, g.provider, g.model)
		if err != nil {
			return nil, err
		}
		cd.next = c.NewStream()
	}
	t, err := replay.DecodeStream(r, cd, replay.StreamOptions{Framing: fr})
	if err != nil && cd.frames == 0 {
		err = fmt.Errorf("%w (no event was seen in the input)", err)
	}
	return t, err
}

// countingDecoder counts the frames it passes on.
type countingDecoder struct {
	next   replay.FrameDecoder
	frames int
}

func (c *countingDecoder) Decode(fr replay.Frame, dst []replay.Event) ([]replay.Event, error) {
	c.frames++
	return c.next.Decode(fr, dst)
}

func (c *countingDecoder) Finish() (*replay.Turn, error) { return c.next.Finish() }

func (c *countingDecoder) SetLimits(l replay.Limits) { c.next.SetLimits(l) }

// sniffer tells the API of a stream from its first event, then hands every
// event to that API's stream decoder.
type sniffer struct {
	g      guess
	fd     replay.FrameDecoder
	limits replay.Limits // set before the API is known, handed on
}

// SetLimits keeps the limits for the decoder the first event chooses.
func (s *sniffer) SetLimits(l replay.Limits) {
	s.limits = l
	if s.fd != nil {
		s.fd.SetLimits(l)
	}
}

func (s *sniffer) Decode(fr replay.Frame, dst []replay.Event) ([]replay.Event, error) {
	if s.fd == nil {
		g := sniff(fr.Type, fr.Data)
		if g.api == "" {
			return dst, usageError("--api auto: cannot tell the API from the first event (%s); name it with --api", shape(fr.Data))
		}
		if s.g.provider != "" {
			g.provider = s.g.provider
		}
		if s.g.model != "" {
			g.model = s.g.model
		}
		c, err := lookup(g.api, g.provider, g.model)
		if err != nil {
			return dst, err
		}
		if s.g.announce != nil {
			s.g.announce(g)
		}
		s.fd = c.NewStream()
		if s.limits != (replay.Limits{}) {
			s.fd.SetLimits(s.limits)
		}
	}
	return s.fd.Decode(fr, dst)
}

func (s *sniffer) Finish() (*replay.Turn, error) {
	if s.fd == nil {
		return nil, fmt.Errorf("the stream has no event: %w", io.ErrUnexpectedEOF)
	}
	return s.fd.Finish()
}
