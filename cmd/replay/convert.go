package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/reasonreplay/replay"
)

func defineConvert(fs *flag.FlagSet) func(*env, []string) error {
	var f inputFlags
	f.register(fs, "from")
	fs.StringVar(&f.api, "api", "auto", "an alias of --from (`API`)")
	to := fs.String("to", "", "the `API` to write for (required)")
	toProvider := fs.String("to-provider", "", "the target platform (`P`: anthropic, bedrock, vertex, aistudio, ...)")
	toModel := fs.String("to-model", "", "the target model (`M`)")
	account := fs.String("account", "", "the account (organisation, key pool; `A`) the turn was minted under")
	toAccount := fs.String("to-account", "", "the account (`A`) the next request is sent with")
	toText := fs.Bool("to-text", false, "send another issuer's visible reasoning as plain, untagged text instead of dropping it")
	sentinel := fs.Bool("sentinel", false, "Gemini 3 targets: write the documented skip_thought_signature_validator value on an unsigned first function call")
	compact := fs.Bool("compact", false, "print the message on one line")
	return func(e *env, pos []string) error {
		if err := oneOperand(pos); err != nil {
			return err
		}
		if *to == "" {
			return usageError("--to is required")
		}
		if err := checkAPIName("to", *to); err != nil {
			return err
		}
		if err := f.check("from"); err != nil {
			return err
		}
		codec, err := lookup(*to, *toProvider, *toModel)
		if err != nil {
			return err
		}
		if *sentinel && !gemini3(*to, *toModel) {
			fmt.Fprintf(e.stderr, "replay convert: --sentinel applies to Gemini 3 targets only (a gemini-3 --to-model); ignored for --to %s%s\n", *to, modelSuffix(*toModel))
		}
		src, err := open(e, pos[0])
		if err != nil {
			return err
		}
		defer src.close()
		t, err := f.readTurn(e, "convert", src, true)
		if err != nil {
			// The same error as encode: a cut-off stream is not carried on.
			return err
		}
		if *account != "" {
			t.Provenance.Account = *account
		}
		target := replay.Target{API: *to, Provider: *toProvider, Model: *toModel, Account: *toAccount, Tools: len(t.ToolCalls()) > 0}
		policy := replay.DefaultPolicy()
		if *toText {
			for _, c := range []replay.Case{replay.CaseForeignText, replay.CaseNotReplayable, replay.CaseFailedTurn, replay.CaseBackendMismatch} {
				policy[c] = replay.ToText
			}
		}
		if *sentinel {
			policy[replay.CaseUnsignedCall] = replay.Sentinel
		}
		out, notices := replay.Carry(replay.History{Turns: []*replay.Turn{t}}, target, policy)
		for _, n := range notices {
			fmt.Fprintln(e.stderr, "notice: "+n.String())
		}
		msg, err := codec.Encode(out.Turns[0])
		if err != nil {
			return err
		}
		writeJSON(e.stdout, msg, *compact)
		return nil
	}
}

// gemini3 reports whether the target is a Gemini 3 model, the only one
// the sentinel signature is for.
func gemini3(api, model string) bool {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	return strings.HasPrefix(m, "gemini-3")
}

func modelSuffix(m string) string {
	if m == "" {
		return " (no --to-model)"
	}
	return " --to-model " + m
}
