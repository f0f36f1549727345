package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/internal/sse"
	"github.com/reasonreplay/replay/stream"
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
	// size is the input's size when it is a regular file (0 when not
	// known): a body is read into one buffer of that size.
	size int64
}

// open opens FILE, or standard input for "-", and reads as many of its
// first bytes as it takes to tell its framing (at most one event's limit).
func open(e *env, name string) (*source, error) {
	var r io.Reader = e.stdin
	closer := func() error { return nil }
	var size int64
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			f.Close()
			return nil, fmt.Errorf("%s is a directory", name)
		} else if err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
		r, closer = f, f.Close
	}
	prefix, what, err := sse.DetectReaderSize(r, replay.Limits{}.WithDefaults().MaxEvent, size)
	if err != nil {
		closer()
		return nil, fmt.Errorf("%s: %w", displayName(name), err)
	}
	return &source{name: displayName(name), r: io.MultiReader(bytes.NewReader(prefix), r), prefix: prefix, what: what, close: closer, size: size}, nil
}

func displayName(name string) string {
	if name == "-" {
		return "standard input"
	}
	return name
}

// all reads the whole input, at most maxBody bytes: a regular file into
// one buffer of its size (and one byte more, to see its end), other input
// as io.ReadAll does, growing as it goes.
func (s *source) all() ([]byte, error) {
	var b []byte
	if s.size > 0 && s.size <= maxBody {
		b = make([]byte, 0, s.size+1)
		if s.size >= hugeBodyMin && hugePagesAvailable() {
			hugePages(b[:cap(b)]) // written once, page by page: see prepareHeap
		}
	}
	b, err := readAll(io.LimitReader(s.r, maxBody+1), b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.name, err)
	}
	if len(b) > maxBody {
		return nil, fmt.Errorf("%s: larger than %d bytes, the most read whole (a body or document; streams have no such bound)", s.name, maxBody)
	}
	return b, nil
}

// readAll appends what r holds to b until EOF, as io.ReadAll does (which
// starts from 512 bytes and grows by doubling); b's room is used first.
func readAll(r io.Reader, b []byte) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
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
	// apiFlag is the name of the flag that names the input's API.
	apiFlag string
	// single: the command reads this one input, keeps its turn, writes
	// it and exits (decode, encode, convert): a stream is decoded with the
	// collector relaxed (relaxGC).
	single bool
}

func (f *inputFlags) register(fs *flag.FlagSet, apiFlag string) {
	f.fs, f.apiFlag = fs, apiFlag
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
		return nil, &exitError{code: exitCannot, err: fmt.Errorf("--api %s: no codec for this API in this build: %w", api, err)}
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

// named returns the API the flags name, or "" when it is to be detected.
func (f *inputFlags) named() string {
	if f.api == "auto" {
		return ""
	}
	return f.api
}

// readTurn reads src per the flags: a turn document (when docs is true), a
// response body, or a stream, decoded as it arrives. A stream that fails
// returns its partial turn with the error. An input the named API refuses
// gets a hint when its bytes look like another API's, and a turn the named
// API read with less reasoning than the bytes hold gets a warning.
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
			t, err := replay.UnmarshalTurn(data)
			return t, refused(err)
		}
		g := sniff(nil, data)
		detected := f.named() == ""
		if detected && g.api == "" {
			return nil, usageError("--api auto: %s is a JSON body of no API this build knows (%s); name it with --api", src.name, shape(data))
		}
		seen := g
		g = f.merge(g)
		if f.stream || explicit || g.event {
			// One line holding one stream event: a stream of one event.
			f.note(e, cmd, src.name, "jsonl", g, detected)
			return f.decodeStream(e, cmd, bytes.NewReader(data), int64(len(data)), g, stream.FramingJSONL)
		}
		c, err := lookup(g.api, g.provider, g.model)
		if err != nil {
			return nil, err
		}
		f.note(e, cmd, src.name, "json", g, detected)
		t, err := c.Decode(data)
		if detected || seen.api == "" || seen.api == g.api {
			return t, refused(err)
		}
		// The bytes look like another API's than the one named.
		if err != nil {
			return t, refused(f.hint(err, seen, "body"))
		}
		if oc, err := lookup(seen.api, seen.provider, seen.model); err == nil {
			if ot, err := oc.Decode(data); err == nil {
				f.compare(e, cmd, t, ot, seen, "body")
			}
		}
		return t, nil
	case sse.DetectSSE, sse.DetectJSONL, sse.DetectEventStream:
		what := src.what.String()
		if explicit && f.framing != what {
			return nil, usageError("--framing %s: %s is %s (it starts with %q); use --framing %s, or leave --framing out to detect it",
				f.framing, src.name, framingName(what), firstLine(src.prefix), what)
		}
		r, fr := src.r, stream.FramingSSE
		switch src.what {
		case sse.DetectJSONL:
			fr = stream.FramingJSONL
		case sse.DetectEventStream:
			fr = stream.FramingEventStream
		}
		g := f.merge(guess{})
		if f.named() != "" {
			f.note(e, cmd, src.name, what, g, false)
		} else {
			g.announce = func(g guess) { f.note(e, cmd, src.name, what, f.merge(g), true) }
		}
		return f.decodeStream(e, cmd, r, src.size, g, fr)
	}
	if len(bytes.TrimSpace(src.prefix)) == 0 {
		return nil, fmt.Errorf("%s is empty: expected a response body, a stream or a turn document", src.name)
	}
	if explicit {
		// The caller named a framing for bytes Detect does not know.
		fr, err := stream.ParseFraming(f.framing)
		if err != nil {
			return nil, usageError("--framing: %v", err)
		}
		return f.decodeStream(e, cmd, src.r, src.size, f.merge(guess{}), fr)
	}
	return nil, usageError("%s starts with %q: neither a JSON body, an SSE stream (\"data:\" lines), JSON lines nor an AWS event stream", src.name, firstLine(src.prefix))
}

// hint adds to err, the named API's refusal of the input, what the bytes
// look like.
func (f *inputFlags) hint(err error, seen guess, kind string) error {
	return &hinted{err: err, hint: fmt.Sprintf("the bytes look like %s %s %s: try --%s %s or leave --%s out",
		article(seen.api), seen.api, kind, f.apiFlag, seen.api, f.apiFlag)}
}

// hinted is an error with a hint that is said last.
type hinted struct {
	err  error
	hint string
	// note is said between the error and the hint.
	note string
}

func (h *hinted) Error() string {
	s := h.err.Error()
	if h.note != "" {
		s += " " + h.note
	}
	return s + "; " + h.hint
}

func (h *hinted) Unwrap() error { return h.err }

// withNote adds a note to err, before its hint when it has one.
func withNote(err error, note string) error {
	var h *hinted
	if errors.As(err, &h) {
		c := *h
		c.note = note
		return &exitError{code: exitCode(err), err: &c}
	}
	return &exitError{code: exitCode(err), err: fmt.Errorf("%w %s", err, note)}
}

// compare warns when the named API's reader kept less reasoning of the
// bytes than the reader of the API they look like: items, or the
// signatures and ciphertext that make them replayable.
func (f *inputFlags) compare(e *env, cmd string, got, other *replay.Turn, seen guess, kind string) {
	if got == nil || other == nil {
		return
	}
	a, b := keptOf(got), keptOf(other)
	if b.items <= a.items && b.handles <= a.handles {
		return
	}
	fmt.Fprintf(e.stderr, "replay %s: warning: --%s %s kept %s, but the bytes look like %s %s %s, and read as one they hold %s: try --%s %s or leave --%s out\n",
		cmd, f.apiFlag, f.api, a, article(seen.api), seen.api, kind, b, f.apiFlag, seen.api, f.apiFlag)
}

// kept counts the reasoning of a turn: its items, and those that carry a
// signature, ciphertext or an opaque item's bytes.
type kept struct{ items, handles int }

func keptOf(t *replay.Turn) kept {
	var k kept
	for _, it := range t.Items() {
		k.items++
		switch x := it.(type) {
		case *replay.ReasoningText:
			if x.Signed() {
				k.handles++
			}
		case *replay.Encrypted:
			if x.Data != "" {
				k.handles++
			}
		case *replay.Opaque:
			k.handles++
		}
	}
	return k
}

func (k kept) String() string {
	return fmt.Sprintf("%s (%d with a signature or ciphertext)", plural(k.items, "reasoning item", "reasoning items"), k.handles)
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

// decodeStream decodes a stream from r as its bytes arrive: with the
// named API's decoder, or, when the API is to be detected, the decoder of
// the API its first event is. The decoder's own errors refuse the input.
// size is r's length when known (a regular file), else 0.
func (f *inputFlags) decodeStream(e *env, cmd string, r io.Reader, size int64, g guess, fr stream.Framing) (*replay.Turn, error) {
	if f.single {
		relaxGC()
		prepareHeap(size)
	}
	w := &watch{named: f.named()}
	if w.named == "" {
		w.next = &sniffer{g: g}
	} else {
		c, err := lookup(g.api, g.provider, g.model)
		if err != nil {
			return nil, err
		}
		fd, ok := kit.FrameDecoderOf(c)
		if !ok {
			return nil, usageError("the %s codec decodes no streams", c.API())
		}
		w.next = fd
	}
	t, err := stream.Decode(r, kit.Decoding(w), stream.Options{Framing: fr})
	var ot *replay.Turn
	if w.other != nil {
		ot, _ = w.other.Finish()
	}
	switch {
	case err == nil:
		if w.other != nil && w.otherErr == nil {
			f.compare(e, cmd, t, ot, w.seen, "stream")
		}
		return t, nil
	case w.frames == 0:
		// Nothing was read that a decoder could judge.
		return t, &exitError{code: exitCannot, err: fmt.Errorf("%w (no event was seen in the input)", err)}
	case w.other != nil:
		err = f.hint(err, w.seen, "stream")
	}
	if w.err != nil && errors.Is(err, w.err) {
		return t, refused(err)
	}
	return t, err
}

// watch hands every frame to the decoder and watches the stream: it counts
// the frames and keeps the decoder's own error; when an API was named and
// the first event looks like another API's, it also decodes the stream
// with that API's decoder (other), to tell what the named one missed.
type watch struct {
	next   codecs.FrameDecoder
	frames int
	err    error
	named  string

	seen     guess
	other    codecs.FrameDecoder
	otherErr error
	limits   replay.Limits
	scratch  []stream.Event
}

func (w *watch) Decode(typ, data []byte, dst []stream.Event) ([]stream.Event, error) {
	w.frames++
	if w.frames == 1 && w.named != "" {
		if g := sniff(typ, data); g.api != "" && g.api != w.named {
			w.seen = g
			if c, err := lookup(g.api, g.provider, g.model); err == nil {
				w.other, _ = kit.FrameDecoderOf(c)
			}
			if w.other != nil {
				if w.limits != (replay.Limits{}) {
					w.other.SetLimits(w.limits)
				}
			}
		}
	}
	if w.other != nil && w.otherErr == nil {
		w.scratch, w.otherErr = w.other.Decode(typ, data, w.scratch[:0])
	}
	dst, err := w.next.Decode(typ, data, dst)
	if err != nil && w.err == nil {
		w.err = err
	}
	return dst, err
}

func (w *watch) Finish() (*replay.Turn, error) {
	t, err := w.next.Finish()
	if err != nil && w.err == nil {
		w.err = err
	}
	return t, err
}

func (w *watch) SetLimits(l replay.Limits) {
	w.limits = l
	w.next.SetLimits(l)
}

// sniffer tells the API of a stream from its first event, then hands every
// event to that API's stream decoder.
type sniffer struct {
	g      guess
	fd     codecs.FrameDecoder
	limits replay.Limits // set before the API is known, handed on
}

// SetLimits keeps the limits for the decoder the first event chooses.
func (s *sniffer) SetLimits(l replay.Limits) {
	s.limits = l
	if s.fd != nil {
		s.fd.SetLimits(l)
	}
}

func (s *sniffer) Decode(typ, data []byte, dst []stream.Event) ([]stream.Event, error) {
	if s.fd == nil {
		g := sniff(typ, data)
		if g.api == "" {
			return dst, usageError("--api auto: cannot tell the API from the first event (%s); name it with --api", shape(data))
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
		fd, ok := kit.FrameDecoderOf(c)
		if !ok {
			return dst, usageError("the %s codec decodes no streams", c.API())
		}
		s.fd = fd
		if s.limits != (replay.Limits{}) {
			s.fd.SetLimits(s.limits)
		}
	}
	return s.fd.Decode(typ, data, dst)
}

func (s *sniffer) Finish() (*replay.Turn, error) {
	if s.fd == nil {
		return nil, fmt.Errorf("the stream has no event: %w", io.ErrUnexpectedEOF)
	}
	return s.fd.Finish()
}
