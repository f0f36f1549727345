package main

import (
	"fmt"

	"github.com/reasonreplay/replay"
	"github.com/tidwall/gjson"
)

const (
	auditArgs    = "--api API [--provider P] [--model M] [--account A] [--tools] [--store] [--thinking] [--request BODY.json] [HISTORY.json|-]"
	auditSummary = "Audit a history (a turn document, or a JSON array of them) before it is sent, or a native request body with --request alone, and print the report JSON. Exit status: 0 when no violation would make the provider reject the request, 1 when there are reject violations, 2 on a usage error"
)

func runAudit(e *env, args []string) error {
	fs := newFlags(e, "audit", auditArgs, auditSummary)
	var t replay.Target
	fs.StringVar(&t.API, "api", "", "the API the history is about to be sent to (required)")
	fs.StringVar(&t.Provider, "provider", "", "the target platform (anthropic, bedrock, vertex, aistudio, ...)")
	fs.StringVar(&t.Model, "model", "", "the target model")
	fs.StringVar(&t.Account, "account", "", "the identity (organisation, account) the request is sent with")
	fs.StringVar(&t.PrefixHash, "prefix-hash", "", "the prefix hash the latest turn is sent after")
	fs.BoolVar(&t.Tools, "tools", false, "tools are in play")
	fs.BoolVar(&t.Store, "store", false, "the provider stores responses (OpenAI store: true)")
	fs.BoolVar(&t.Thinking, "thinking", false, "reasoning is enabled on the request (Anthropic: manual thinking)")
	request := fs.String("request", "", "the native request body that carries the history (JSON pointers in the report point into it)")
	compact := fs.Bool("compact", false, "print the report on one line")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if t.API == "" {
		return usageError("--api is required")
	}
	if len(pos) > 1 || (len(pos) == 0 && *request == "") {
		return usageError("want one HISTORY file (or - for standard input), or --request alone")
	}
	var rep replay.Report
	var body []byte
	if *request != "" {
		if body, err = input(e, *request); err != nil {
			return err
		}
	}
	if len(pos) == 0 {
		if rep, err = auditRequest(t, body); err != nil {
			return err
		}
	} else {
		data, err := input(e, pos[0])
		if err != nil {
			return err
		}
		turns, err := readHistory(data)
		if err != nil {
			return err
		}
		h := replay.History{Turns: turns, Request: body}
		if body != nil {
			// Take the turns' pointers and what the body says about the
			// target from the request, when the codec can read it.
			if c, err := replay.Lookup(t.API, t.Provider, t.Model); err == nil {
				if rh, rt, err := c.DecodeRequest(body); err == nil && len(rh.Turns) == len(turns) {
					h.Pointers = rh.Pointers
					t.Tools = t.Tools || rt.Tools
					t.Store = t.Store || rt.Store
					t.Thinking = t.Thinking || rt.Thinking
					if t.Model == "" {
						t.Model = rt.Model
					}
				}
			}
		}
		rep = replay.AuditReplay(h, t)
	}
	writeJSON(e.stdout, rep.AppendJSON(nil), *compact)
	for _, v := range rep.Violations {
		fmt.Fprintf(e.stderr, "%s [%s] %s\n", v.Rule, v.Severity, v.Error())
	}
	if rep.Rejects() {
		return &exitError{code: 1, err: fmt.Errorf("the provider would reject this request (%d violations)", len(rep.Violations))}
	}
	return nil
}

// readHistory reads a turn document or a JSON array of them.
func readHistory(data []byte) ([]*replay.Turn, error) {
	if !gjson.ValidBytes(data) {
		return nil, fmt.Errorf("HISTORY: not JSON")
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
			err = fmt.Errorf("HISTORY[%d]: %w", k.Int(), err)
			return false
		}
		out = append(out, t)
		return true
	})
	return out, err
}

// auditRequest is replay.AuditRequest with the target facts given on the
// command line taking precedence over what the body says: a Bedrock or
// Gemini body does not name its model (it is in the URL).
func auditRequest(flags replay.Target, body []byte) (replay.Report, error) {
	model := flags.Model
	if model == "" && gjson.ValidBytes(body) {
		model = gjson.GetBytes(body, "model").String()
	}
	c, err := replay.Lookup(flags.API, flags.Provider, model)
	if err != nil {
		return replay.Report{}, err
	}
	h, t, err := c.DecodeRequest(body)
	if err != nil {
		return replay.Report{}, err
	}
	t.API = c.API()
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
