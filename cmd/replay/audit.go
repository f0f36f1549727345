package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"runtime"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/sse"
	"github.com/tidwall/gjson"
)

const auditSummary = "Audit stored conversations before they are sent: a history (a turn document, or a JSON array of them) prints its report JSON; " +
	"several files, a directory, or JSON lines of histories (one a line) are audited in parallel, one verdict line per conversation and a summary by rule; " +
	"a native request body given alone with --request is audited as it is. " +
	"Exit status: 0 when no violation would make the provider reject a request, 1 when one would, 2 when it could not judge (a usage mistake or an unreadable input)"

// auditError marks an input the audit could not judge (exit status 2).
func auditError(err error) error {
	if _, ok := err.(*exitError); ok {
		return err
	}
	return &exitError{code: 2, err: err}
}

type auditFlags struct {
	t        replay.Target
	request  string
	compact  bool
	jobs     int
	progress bool
}

func defineAudit(fs *flag.FlagSet) func(*env, []string) error {
	var a auditFlags
	t := &a.t
	fs.StringVar(&t.API, "api", "", "the `API` the history is about to be sent to (required)")
	fs.StringVar(&t.Provider, "provider", "", "the target platform (`P`: anthropic, bedrock, vertex, aistudio, ...)")
	fs.StringVar(&t.Model, "model", "", "the target model (`M`)")
	fs.StringVar(&t.Account, "account", "", "the identity (organisation, account; `A`) the request is sent with")
	fs.StringVar(&t.PrefixHash, "prefix-hash", "", "the prefix hash (`H`) the latest turn is sent after")
	fs.BoolVar(&t.Tools, "tools", false, "tools are in play")
	fs.BoolVar(&t.Store, "store", false, "the provider stores responses (OpenAI store: true)")
	fs.BoolVar(&t.Thinking, "thinking", false, "reasoning is enabled on the request (for an Anthropic history without --request: manual thinking)")
	fs.StringVar(&a.request, "request", "", "the native request `BODY` (a file) that carries the history; alone, it is audited as it is (JSON pointers in the report point into it)")
	fs.BoolVar(&a.compact, "compact", false, "print the report on one line")
	fs.IntVar(&a.jobs, "jobs", runtime.GOMAXPROCS(0), "conversations audited at once (`N`), for many conversations")
	fs.BoolVar(&a.progress, "progress", false, "print a progress line on stderr for many conversations even when stderr is not a terminal")
	return func(e *env, pos []string) error {
		err := a.run(e, pos)
		if err != nil {
			if ee, ok := err.(*exitError); ok && ee.code == 1 {
				return err
			}
			return auditError(err)
		}
		return nil
	}
}

func (a *auditFlags) run(e *env, pos []string) error {
	if a.t.API == "" {
		return usageError("--api is required: the API the history is about to be sent to")
	}
	if err := checkAPIName("api", a.t.API); err != nil {
		return err
	}
	if a.jobs < 1 {
		return usageError("--jobs %d: want at least 1", a.jobs)
	}
	if len(pos) == 0 {
		if a.request == "" {
			return usageError("want a HISTORY file, a directory or - for standard input, or --request alone")
		}
		body, err := readFile(e, a.request)
		if err != nil {
			return err
		}
		rep, err := auditRequest(e, a.t, body)
		if err != nil {
			return err
		}
		return a.print(e, rep)
	}
	if len(pos) == 1 {
		single, err := a.single(e, pos[0])
		if err != nil || single {
			return err
		}
	}
	if a.request != "" {
		return usageError("--request goes with one HISTORY, not with many conversations")
	}
	return a.batch(e, pos)
}

// single audits one history file and prints its report. It returns false,
// having read nothing, when the operand holds many conversations (a
// directory, or JSON lines).
func (a *auditFlags) single(e *env, name string) (bool, error) {
	if name != "-" && isDir(name) {
		return false, nil
	}
	src, err := open(e, name)
	if err != nil {
		return true, err
	}
	defer src.close()
	var turns []*replay.Turn
	switch src.what {
	case sse.DetectJSONL:
		if !streamEvent(firstJSONLine(src.prefix)) {
			if name == "-" {
				return true, a.batchReader(e, src)
			}
			return false, nil
		}
		fallthrough
	case sse.DetectSSE, sse.DetectEventStream:
		// A provider's stream: decoded first, as replay decode does.
		t, err := decodeResponse(e, src)
		if t == nil {
			return true, err
		}
		turns = []*replay.Turn{t}
	case sse.DetectJSON:
		data, err := src.all()
		if err != nil {
			return true, err
		}
		var note string
		turns, note, err = readHistory(data)
		if err != nil {
			return true, fmt.Errorf("%s: %w", src.name, err)
		}
		if note != "" {
			fmt.Fprintf(e.stderr, "replay audit: %s: %s\n", src.name, note)
		}
	default:
		return true, fmt.Errorf("%s: expected a history (a turn document or a JSON array of them), a provider response, or JSON lines of histories; it starts with %q", src.name, firstLine(src.prefix))
	}
	h := replay.History{Turns: turns}
	t := a.t
	if a.request != "" {
		body, err := readFile(e, a.request)
		if err != nil {
			return true, err
		}
		h.Request = body
		// What the body says about the target is taken whenever the
		// codec reads it (the flags add to it); the turns' pointers when
		// the body carries as many turns as the history.
		rh, rt, err := decodeRequest(t, body)
		if err == nil {
			if len(rh.Turns) == len(turns) {
				h.Pointers = rh.Pointers
			}
			t.Tools = t.Tools || rt.Tools
			t.Store = t.Store || rt.Store
			t.Thinking = t.Thinking || rt.Thinking
			if t.Model == "" {
				t.Model = rt.Model
			}
		}
	}
	return true, a.print(e, replay.AuditReplay(h, t))
}

// print writes the report, one line per violation on stderr, and the exit
// status.
func (a *auditFlags) print(e *env, rep replay.Report) error {
	writeJSON(e.stdout, rep.AppendJSON(nil), a.compact)
	for _, v := range rep.Violations {
		fmt.Fprintf(e.stderr, "[%s] %s\n", v.Severity, v.Error())
	}
	if rep.Rejects() {
		n := 0
		for _, v := range rep.Violations {
			if v.Severity == replay.SeverityReject {
				n++
			}
		}
		return &exitError{code: 1, err: fmt.Errorf("the provider would reject this request (reject: %d of %s)", n, plural(len(rep.Violations), "violation", "violations"))}
	}
	return nil
}

// readFile reads a whole file (or standard input), at most maxBody bytes.
func readFile(e *env, name string) ([]byte, error) {
	src, err := open(e, name)
	if err != nil {
		return nil, err
	}
	defer src.close()
	return src.all()
}

// readHistory reads a turn document or a JSON array of them, or a
// provider's response body, decoded first (note then says so). A stream
// event (a line of a JSON Lines stream) is refused with the advice to
// decode its stream.
func readHistory(data []byte) (turns []*replay.Turn, note string, err error) {
	if !json.Valid(data) {
		return nil, "", fmt.Errorf("not JSON: expected a turn document or a JSON array of them")
	}
	r := gjson.ParseBytes(data)
	if !r.IsArray() {
		if r.IsObject() && !r.Get("version").Exists() {
			if g := sniff(nil, data); g.api != "" {
				if g.event {
					return nil, "", fmt.Errorf("an event of %s %s stream, not a history: audit the whole stream, or decode it first (replay decode)", article(g.api), g.api)
				}
				c, err := lookup(g.api, g.provider, g.model)
				if err != nil {
					return nil, "", err
				}
				t, err := c.Decode(data)
				if t == nil {
					return nil, "", fmt.Errorf("%s %s response body, which does not decode: %w", article(g.api), g.api, err)
				}
				return []*replay.Turn{t}, fmt.Sprintf("%s %s response body, decoded first (as replay decode does)", article(g.api), g.api), nil
			}
			if !r.Get("blocks").Exists() {
				return nil, "", fmt.Errorf("neither a history (a turn document or a JSON array of them) nor a provider response: %s", shape(data))
			}
		}
		t, err := replay.UnmarshalTurn(data)
		if err != nil {
			return nil, "", err
		}
		return []*replay.Turn{t}, "", nil
	}
	r.ForEach(func(k, v gjson.Result) bool {
		var t *replay.Turn
		if t, err = replay.UnmarshalTurn([]byte(v.Raw)); err != nil {
			err = fmt.Errorf("turn %d: %w", k.Int(), err)
			return false
		}
		turns = append(turns, t)
		return true
	})
	return turns, "", err
}

// streamEvent reports whether line is a provider's stream event.
func streamEvent(line []byte) bool {
	return line != nil && sniff(nil, line).event
}

// firstJSONLine is the first non-blank line of b, or nil.
func firstJSONLine(b []byte) []byte {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		line := b
		if i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if line = bytes.TrimSpace(line); len(line) > 0 {
			return line
		}
	}
	return nil
}

// decodeResponse decodes a provider's stream (or body) as replay decode
// does, telling its API from its bytes, and says so on stderr. A stream
// that fails returns its partial turn, marked incomplete, for the audit
// to judge, with the failure said on stderr.
func decodeResponse(e *env, src *source) (*replay.Turn, error) {
	f := &inputFlags{api: "auto", framing: "auto", apiFlag: "api"}
	t, err := f.readTurn(e, "audit", src, true)
	if t == nil {
		return nil, err
	}
	note := "a provider response, decoded first (as replay decode does)"
	if p := t.Provenance; p.API != "" {
		note = fmt.Sprintf("%s %s response, decoded first (as replay decode does)", article(p.API), p.API)
	}
	if err != nil {
		note += ": " + message(err)
	}
	fmt.Fprintf(e.stderr, "replay audit: %s: %s\n", src.name, note)
	return t, nil
}

// decodeRequest reads the turns of a request body with the codec of the
// target (its model taken from the body when the flags do not name one).
func decodeRequest(flags replay.Target, body []byte) (replay.History, replay.Target, error) {
	model := flags.Model
	if model == "" && json.Valid(body) {
		model = gjson.GetBytes(body, "model").String()
	}
	c, err := replay.Lookup(flags.API, flags.Provider, model)
	if err != nil {
		return replay.History{}, replay.Target{}, err
	}
	return c.DecodeRequest(body)
}

// auditRequest audits a request body with the target facts given on the
// command line taking precedence over what the body says: a Bedrock or
// Gemini body does not name its model (it is in the URL).
func auditRequest(e *env, flags replay.Target, body []byte) (replay.Report, error) {
	h, t, err := decodeRequest(flags, body)
	if err != nil {
		return replay.Report{}, err
	}
	if t.API == "" {
		t.API = flags.API
	}
	if flags.Provider != "" {
		t.Provider = flags.Provider
	}
	if flags.Model != "" {
		t.Model = flags.Model
	}
	if flags.Account != "" {
		t.Account = flags.Account
	}
	if flags.PrefixHash != "" {
		t.PrefixHash = flags.PrefixHash
	}
	t.Tools = t.Tools || flags.Tools
	t.Store = t.Store || flags.Store
	t.Thinking = t.Thinking || flags.Thinking
	return replay.AuditReplay(h, t), nil
}
