package main

import (
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
	fs.BoolVar(&t.Thinking, "thinking", false, "reasoning is enabled on the request (Anthropic: manual thinking)")
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
	switch src.what {
	case sse.DetectJSONL:
		if name == "-" {
			return true, a.batchReader(e, src)
		}
		return false, nil
	case sse.DetectJSON:
	default:
		return true, fmt.Errorf("%s: expected a history (a turn document or a JSON array of them) or JSON lines of histories; it starts with %q", src.name, firstLine(src.prefix))
	}
	data, err := src.all()
	if err != nil {
		return true, err
	}
	turns, err := readHistory(data)
	if err != nil {
		return true, fmt.Errorf("%s: %w", src.name, err)
	}
	h := replay.History{Turns: turns}
	t := a.t
	if a.request != "" {
		body, err := readFile(e, a.request)
		if err != nil {
			return true, err
		}
		h.Request = body
		// Take the turns' pointers and what the body says about the
		// target from the request, when the codec can read it.
		rh, rt, err := decodeRequest(t, body)
		if err == nil && len(rh.Turns) == len(turns) {
			h.Pointers = rh.Pointers
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

// readHistory reads a turn document or a JSON array of them.
func readHistory(data []byte) ([]*replay.Turn, error) {
	if !json.Valid(data) {
		return nil, fmt.Errorf("not JSON: expected a turn document or a JSON array of them")
	}
	r := gjson.ParseBytes(data)
	if !r.IsArray() {
		t, err := replay.UnmarshalTurn(data)
		if err != nil {
			return nil, err
		}
		return []*replay.Turn{t}, nil
	}
	var out []*replay.Turn
	var err error
	r.ForEach(func(k, v gjson.Result) bool {
		var t *replay.Turn
		if t, err = replay.UnmarshalTurn([]byte(v.Raw)); err != nil {
			err = fmt.Errorf("turn %d: %w", k.Int(), err)
			return false
		}
		out = append(out, t)
		return true
	})
	return out, err
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
