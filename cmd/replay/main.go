// Command replay decodes provider responses into turn documents, writes
// them back as request messages, validates documents against the published
// schemas, and shows the whole job on embedded captures.
//
// Usage:
//
//	replay decode   --api API [--stream [--framing sse|jsonl]] FILE|-
//	replay encode   --api API FILE|-
//	replay validate FILE...
//	replay demo
//
// JSON goes to stdout, diagnostics to stderr; the exit status is non-zero on
// error.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/reasonreplay/replay"
	_ "github.com/reasonreplay/replay/codecs/all"
	"github.com/reasonreplay/replay/codecs/openai"
)

// exitError carries an exit status.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageError marks a command-line mistake (exit status 2).
func usageError(format string, args ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, args...)}
}

// apiNames are the API names the command line accepts, whether or not their
// codec is linked in.
var apiNames = []string{"openrouter", "anthropic", "openai-responses", "gemini", "deepseek", "xai",
	"openai-compatible", "bedrock-converse", "mistral", "cohere"}

type command struct {
	name, args, summary string
	run                 func(env *env, args []string) error
}

var commands []command

func init() {
	commands = []command{
		{"decode", "--api API [--stream [--framing sse|jsonl]] [--provider P] [--model M] FILE|-",
			"decode a response body or stream into a turn document", runDecode},
		{"encode", "--api API [--stream ...] [--stored] FILE|-",
			"write a turn (a turn document, or a response to decode) as the next request's assistant message", runEncode},
		{"validate", "FILE...", "validate turn, item and report documents against the schemas", runValidate},
		{"demo", "", "decode embedded captures, show their reasoning items, and write them back", runDemo},
	}
}

type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

func main() {
	os.Exit(run(&env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}, os.Args[1:]))
}

func run(e *env, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		if len(args) > 1 {
			return run(e, []string{args[1], "--help"})
		}
		usage(e.stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands {
		if c.name == args[0] {
			err := c.run(e, args[1:])
			if err == nil || errors.Is(err, flag.ErrHelp) {
				return 0
			}
			fmt.Fprintln(e.stderr, "replay "+c.name+": "+err.Error())
			var ee *exitError
			if errors.As(err, &ee) {
				return ee.code
			}
			return 1
		}
	}
	fmt.Fprintf(e.stderr, "replay: unknown command %q\n\n", args[0])
	usage(e.stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "replay captures the reasoning of an assistant turn, writes it back, and checks it.")
	fmt.Fprintln(w, "\nUsage:")
	for _, c := range commands {
		fmt.Fprintf(w, "  replay %s %s\n      %s\n", c.name, c.args, c.summary)
	}
	fmt.Fprintf(w, "\nAPIs: %s, or auto to sniff.\n", strings.Join(apiNames, ", "))
	fmt.Fprintln(w, "Run 'replay COMMAND --help' for a command's flags. JSON goes to stdout, diagnostics to stderr.")
}

// newFlags returns a flag set that prints its usage to e.stderr.
func newFlags(e *env, name, args, summary string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "Usage: replay %s %s\n\n%s.\n\nFlags:\n", name, args, summary)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses flags, allowing them after positional arguments.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, &exitError{code: 2, err: err}
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// input reads FILE, or standard input for "-".
func input(e *env, name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(e.stdin)
	}
	return os.ReadFile(name)
}

// inputFlags are the flags shared by the commands that read a response.
type inputFlags struct {
	api, framing, provider, model string
	stream                        bool
}

func (f *inputFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.api, "api", "auto", "wire API: "+strings.Join(apiNames, ", ")+", or auto")
	fs.BoolVar(&f.stream, "stream", false, "the input is a streamed response")
	fs.StringVar(&f.framing, "framing", "sse", "stream framing: sse (Server-Sent Events) or jsonl (one event's data per line)")
	fs.StringVar(&f.provider, "provider", "", "provider (platform) that served the response, to pick a codec profile")
	fs.StringVar(&f.model, "model", "", "model that produced the response, to pick a codec profile")
}

// codec resolves the codec for the flags, sniffing data when --api is auto.
func (f *inputFlags) codec(data []byte) (replay.ReasoningCodec, error) {
	api := f.api
	if api == "auto" || api == "" {
		api = sniff(data, f.stream)
		if api == "" {
			return nil, usageError("--api auto: cannot tell the API of this input; name it with --api")
		}
	}
	known := false
	for _, n := range apiNames {
		known = known || n == api
	}
	if !known {
		return nil, usageError("unknown --api %q (want one of %s)", api, strings.Join(apiNames, ", "))
	}
	c, err := replay.Lookup(api, f.provider, f.model)
	if err != nil {
		return nil, fmt.Errorf("--api %s: no codec for this API in this build: %w", api, err)
	}
	return c, nil
}

// decodeInput decodes data as a response per the flags.
func (f *inputFlags) decode(data []byte) (*replay.Turn, error) {
	c, err := f.codec(data)
	if err != nil {
		return nil, err
	}
	if !f.stream {
		return c.Decode(data)
	}
	fr, err := replay.ParseFraming(f.framing)
	if err != nil {
		return nil, usageError("%v", err)
	}
	return replay.DecodeStream(strings.NewReader(string(data)), c.NewStream(), replay.StreamOptions{Framing: fr})
}

func runDecode(e *env, args []string) error {
	const a, s = "--api API [--stream [--framing sse|jsonl]] [--provider P] [--model M] FILE|-", "Decode a response body or stream into a turn document"
	fs := newFlags(e, "decode", a, s)
	var f inputFlags
	f.register(fs)
	compact := fs.Bool("compact", false, "print the document on one line")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError("want one FILE (or - for standard input)")
	}
	data, err := input(e, pos[0])
	if err != nil {
		return err
	}
	t, err := f.decode(data)
	if t != nil {
		writeJSON(e.stdout, t.AppendJSON(nil), *compact)
	}
	if err != nil {
		if t != nil {
			return fmt.Errorf("%w (the partial turn was printed, marked incomplete)", err)
		}
		return err
	}
	return nil
}

func runEncode(e *env, args []string) error {
	const a, s = "--api API [--stream ...] [--stored] FILE|-", "Write a turn as the next request's assistant message (or input items). FILE is a turn document, or a response to decode"
	fs := newFlags(e, "encode", a, s)
	var f inputFlags
	f.register(fs)
	compact := fs.Bool("compact", false, "print the message on one line")
	stored := fs.Bool("stored", false, "openai-responses: the response was stored (store: true), so reasoning items are sent as item_reference by id")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError("want one FILE (or - for standard input)")
	}
	data, err := input(e, pos[0])
	if err != nil {
		return err
	}
	var t *replay.Turn
	if isTurnDocument(data) {
		if t, err = replay.UnmarshalTurn(data); err != nil {
			return err
		}
		if f.api == "auto" {
			f.api = t.Provenance.API
		}
	} else if t, err = f.decode(data); err != nil {
		return err
	}
	c, err := f.codec(data)
	if err != nil {
		return err
	}
	if *stored {
		oc, ok := c.(openai.Codec)
		if !ok {
			return usageError("--stored applies to --api openai-responses only")
		}
		oc.Stored = true
		c = oc
	}
	out, err := c.Encode(t)
	if err != nil {
		return err
	}
	writeJSON(e.stdout, out, *compact)
	return nil
}

func writeJSON(w io.Writer, b []byte, compact bool) {
	if !compact {
		b = indent(b)
	} else {
		b = append(b, '\n')
	}
	w.Write(b)
}
