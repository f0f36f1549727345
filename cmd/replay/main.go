// Command replay decodes provider responses into turn documents, writes
// them back as request messages, audits histories before they are sent,
// validates documents against the published schemas, and shows the whole
// job on a sample. The repairing reverse proxy for agents in any language
// is the replay-proxy command of the module
// github.com/reasonreplay/replay/replayproxy.
//
// Usage (generated from the commands' flag sets; a test keeps it current):
//
//	replay decode [--api API] [--compact] [--framing F] [--model M] [--provider P] [--stream] [-v] FILE|-
//	replay encode [--api API] [--compact] [--framing F] [--model M] [--provider P] [--stored] [--stream] [-v] FILE|-
//	replay convert --to API [--account A] [--compact] [--framing F] [--from API] [--model M] [--provider P] [--sentinel] [--stream] [--to-account A] [--to-model M] [--to-provider P] [--to-text] [-v] FILE|-
//	replay audit --api API [--account A] [--compact] [--jobs N] [--model M] [--prefix-hash H] [--progress] [--provider P] [--request BODY] [--store] [--thinking] [--tools] [HISTORY|DIR|-]...
//	replay validate [--kind KIND] FILE...
//	replay session audit [--agent A] [--compact] [--jobs N] [--progress] [--to-account A] [--to-model M] [--to-provider P] PATH...
//	replay session repair [--agent A] [--to-account A] [--to-model M] [--to-provider P] [--undo] [--write] PATH
//	replay demo
//	replay --version
//
// JSON goes to stdout, diagnostics to stderr. The exit status is the same
// for every command (see exitTable):
//
//	0  done: the input was read and, where the command judges it, passed
//	1  refused: the input was read and judged (audit: the provider would reject it; validate: a document is invalid; decode, encode, convert: the body or stream is refused, or failed)
//	2  could not read or run: a usage mistake, an input that cannot be read or is not JSON or a stream, an API this build does not know
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"

	"github.com/reasonreplay/replay"
	_ "github.com/reasonreplay/replay/codecs/all"
)

// proxyMoved says where the proxy is: one binary with every store,
// metrics and tracing, in a module of its own so that this one keeps its
// four dependencies.
const proxyMoved = "replay proxy: the proxy is the replay-proxy command (every store, Prometheus metrics, OpenTelemetry tracing), " +
	"in the module github.com/reasonreplay/replay/replayproxy:\n" +
	"  go install github.com/reasonreplay/replay/replayproxy/cmd/replay-proxy@latest\n" +
	"  replay-proxy --help"

// The exit statuses, the same for every command.
const (
	// exitOK: done; the input was read and, where judged, passed.
	exitOK = 0
	// exitRefused: the input was read and refused for a reason the
	// command judged.
	exitRefused = 1
	// exitCannot: the command could not read its input or run.
	exitCannot = 2
)

// exitTable is the exit status table that --help prints.
var exitTable = []struct {
	code    int
	meaning string
}{
	{exitOK, "done: the input was read and, where the command judges it, passed"},
	{exitRefused, "refused: the input was read and judged (audit: the provider would reject it; validate: a document is invalid; decode, encode, convert: the body or stream is refused, or failed)"},
	{exitCannot, "could not read or run: a usage mistake, an input that cannot be read or is not JSON or a stream, an API this build does not know"},
}

// exitError carries an exit status. An error that carries none exits with
// exitCannot: only a judgement refuses.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageError marks a command-line mistake (exit status 2).
func usageError(format string, args ...any) error {
	return &exitError{code: exitCannot, err: fmt.Errorf(format, args...)}
}

// refused marks err as a judgement on the input (exit status 1), unless
// it already carries a status.
func refused(err error) error {
	var ee *exitError
	if err == nil || errors.As(err, &ee) {
		return err
	}
	return &exitError{code: exitRefused, err: err}
}

// exitCode is the exit status of a command that returned err.
func exitCode(err error) int {
	var ee *exitError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ee):
		return ee.code
	}
	return exitCannot
}

// apiNames returns the API names the command line accepts: the registered
// codecs', listed when first asked for (the codecs register when the
// program starts; a command that does not ask lists nothing).
func apiNames() []string {
	apiNamesOnce.Do(func() { apiNamesList = replay.Default().APIs() })
	return apiNamesList
}

var (
	apiNamesOnce sync.Once
	apiNamesList []string
)

// command is one subcommand. define registers its flags on fs and returns
// the function that runs it with the operands left after the flags.
type command struct {
	name, operands, summary string
	// required lists the flags that must be given; they open the synopsis.
	required []string
	// aliases are other names of a flag, left out of the synopsis.
	aliases []string
	define  func(fs *flag.FlagSet) func(e *env, operands []string) error
}

var commands = []command{
	{name: "decode", operands: "FILE|-", define: defineDecode,
		summary: "Decode a response body or stream into a turn document. The API and the framing are told from the first bytes unless named; a stream is decoded as its bytes arrive"},
	{name: "encode", operands: "FILE|-", define: defineEncode,
		summary: "Write a turn as the next request's assistant message (or input items). FILE is a turn document (its provenance picks the codec; flags override) or a response to decode"},
	{name: "convert", operands: "FILE|-", required: []string{"to"}, aliases: []string{"api"}, define: defineConvert,
		summary: "Decode a response (or read a turn document), carry it over to another API with the policy table, and write the target's assistant message. Every loss is a notice on stderr"},
	{name: "audit", operands: "[HISTORY|DIR|-]...", required: []string{"api"}, define: defineAudit,
		summary: auditSummary},
	{name: "validate", operands: "FILE...", define: defineValidate,
		summary: "Validate turn, item and report documents against the published JSON Schemas"},
	{name: "session audit", operands: "PATH...", define: defineSessionAudit, summary: sessionAuditSummary},
	{name: "session repair", operands: "PATH", define: defineSessionRepair, summary: sessionRepairSummary},
	{name: "demo", define: defineDemo,
		summary: "Decode a sample in the shape of a real OpenRouter capture, show its reasoning items, write them back, switch providers, and audit"},
}

// env is where a run reads and writes; tests give their own.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// stderrTerminal reports that stderr is a terminal (progress lines).
	stderrTerminal bool
}

func main() {
	e := &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}
	if fi, err := os.Stderr.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		e.stderrTerminal = true
	}
	os.Exit(run(e, os.Args[1:]))
}

func run(e *env, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		if len(args) > 1 {
			return run(e, []string{args[1], "--help"})
		}
		usage(e.stdout)
		if len(args) == 0 {
			return exitCannot
		}
		return exitOK
	}
	if args[0] == "--version" {
		fmt.Fprintln(e.stdout, version())
		return exitOK
	}
	if len(args) > 1 && !strings.HasPrefix(args[1], "-") {
		// A command of two words ("session audit") given as two arguments.
		for _, c := range commands {
			if c.name == args[0]+" "+args[1] {
				args = append([]string{c.name}, args[2:]...)
				break
			}
		}
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		fs := c.flagSet(e)
		runner := c.define(fs)
		operands, err := parse(fs, args[1:])
		if err == nil {
			err = runner(e, operands)
		}
		if err == nil || errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintln(e.stderr, "replay "+c.name+": "+message(err))
		return exitCode(err)
	}
	if args[0] == "proxy" {
		fmt.Fprintln(e.stderr, proxyMoved)
		return exitCannot
	}
	fmt.Fprintf(e.stderr, "replay: unknown command %q\n\n", args[0])
	usage(e.stderr)
	return exitCannot
}

// version is the command's version line, from the build information: the
// main module's version, the revision it was built from when the build
// recorded one, and the Go version.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "replay (no build information)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	s := "replay " + v
	var rev, modified string
	for _, kv := range bi.Settings {
		switch kv.Key {
		case "vcs.revision":
			rev = kv.Value
		case "vcs.modified":
			modified = kv.Value
		}
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		s += ", revision " + rev
		if modified == "true" {
			s += " (modified)"
		}
	}
	return s + ", " + bi.GoVersion
}

// message renders err without the package prefixes that wrapped errors
// repeat ("replay: anthropic: ..." under "replay convert: ").
func message(err error) string {
	s := err.Error()
	for _, p := range []string{"replay: ", "schema: "} {
		s = strings.TrimPrefix(s, p)
		s = strings.ReplaceAll(s, ": "+p, ": ")
		s = strings.ReplaceAll(s, "\n"+p, "\n")
	}
	return s
}

// versionSynopsis is the synopsis line of --version, after the commands'.
const versionSynopsis = "replay --version"

func usage(w io.Writer) {
	fmt.Fprintln(w, "replay captures the reasoning of an assistant turn, writes it back, and checks it.")
	fmt.Fprintln(w, "\nUsage:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %s\n      %s.\n", c.synopsis(), c.summary)
	}
	fmt.Fprintf(w, "  %s\n      Print the version the binary was built from (its module version, revision and Go version).\n", versionSynopsis)
	fmt.Fprintf(w, "\nAPIs: %s, or auto (the default where --api is optional) to tell from the input.\n", strings.Join(apiNames(), ", "))
	fmt.Fprintln(w, "Run 'replay COMMAND --help' for a command's flags. JSON goes to stdout, diagnostics to stderr.")
	writeExitTable(w)
}

// writeExitTable writes the exit status table.
func writeExitTable(w io.Writer) {
	fmt.Fprintln(w, "\nExit status, the same for every command:")
	for _, r := range exitTable {
		fmt.Fprintf(w, "  %d  %s\n", r.code, r.meaning)
	}
}

// flagSet returns the command's flag set, printing its usage to e.stderr.
func (c command) flagSet(e *env) *flag.FlagSet {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "Usage: %s\n\n%s.\n", c.synopsis(), c.summary)
		if hasFlags(fs) {
			fmt.Fprintln(e.stderr, "\nFlags:")
			printDefaults(e.stderr, fs)
		}
		writeExitTable(e.stderr)
	}
	return fs
}

// printDefaults writes the flags of fs as flag.PrintDefaults does, in the
// form the synopsis and the README use: "--name VALUE" ("-v" for a
// one-letter flag), its usage, and its default when it is not the zero
// value.
func printDefaults(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		line := "  " + flagSynopsis(f)
		if len(line) <= 4 {
			line += "\t"
		} else {
			line += "\n    \t"
		}
		_, use := flag.UnquoteUsage(f)
		line += strings.ReplaceAll(use, "\n", "\n    \t")
		if d := f.DefValue; d != "" && d != "0" && d != "false" && d != "0s" && d != "[]" {
			if g, ok := f.Value.(flag.Getter); ok {
				if _, isString := g.Get().(string); isString {
					d = strconv.Quote(d)
				}
			}
			line += " (default " + d + ")"
		}
		fmt.Fprintln(w, line)
	})
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// synopsis is the command's one-line usage, made from its own flag set:
// required flags first, then the others in alphabetical order.
func (c command) synopsis() string {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	var order []string
	c.define(fs)
	fs.VisitAll(func(f *flag.Flag) { order = append(order, f.Name) })
	parts := []string{"replay", c.name}
	skip := map[string]bool{}
	for _, a := range c.aliases {
		skip[a] = true
	}
	for _, name := range c.required {
		parts = append(parts, flagSynopsis(fs.Lookup(name)))
		skip[name] = true
	}
	for _, name := range order {
		if !skip[name] {
			parts = append(parts, "["+flagSynopsis(fs.Lookup(name))+"]")
		}
	}
	if c.operands != "" {
		parts = append(parts, c.operands)
	}
	return strings.Join(parts, " ")
}

// flagSynopsis renders "--name VALUE", or "--name" for a boolean flag; a
// one-letter flag takes one dash.
func flagSynopsis(f *flag.Flag) string {
	dash := "--"
	if len(f.Name) == 1 {
		dash = "-"
	}
	value, _ := flag.UnquoteUsage(f)
	if isBool(f) {
		return dash + f.Name
	}
	if value == "" || value == "value" || value == "string" {
		value = "VALUE"
	}
	return dash + f.Name + " " + value
}

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// parse parses flags, allowing them after operands.
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

// given reports whether the flag name was set on the command line.
func given(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// plural returns "1 violation" or "n violations".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
