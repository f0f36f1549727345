package main

import (
	"flag"
	"fmt"

	"github.com/reasonreplay/replay"
)

func defineConvert(fs *flag.FlagSet) func(*env, []string) error {
	var f inputFlags
	f.register(fs, "from")
	f.single = true
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
		placeholder := codec.Contract().Placeholder != nil
		if *sentinel && !placeholder {
			fmt.Fprintf(e.stderr, "replay convert: --sentinel: --to %s%s documents no placeholder signature; ignored\n", *to, modelSuffix(*toModel))
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
		in := replay.History{Turns: []*replay.Turn{t}}
		out, notices := replay.Carry(in, target, policy)
		for _, n := range notices {
			fmt.Fprintln(e.stderr, "notice: "+n.String())
		}
		msg, err := codec.Encode(out.Turns[0])
		if err != nil {
			return refused(err)
		}
		writeJSON(e.stdout, msg, *compact)
		warnRejects(e, out, in, target, policy, placeholder && !*sentinel)
		return nil
	}
}

// warnRejects audits the carried turn for its target and warns of every
// violation that makes the target refuse the request, with what the
// target will answer and the fix. When withSentinel, it says whether the
// target's documented placeholder (--sentinel) clears them.
func warnRejects(e *env, out, in replay.History, target replay.Target, policy replay.Policy, withSentinel bool) {
	rep := replay.AuditReplay(out, target)
	n := 0
	for _, v := range rep.Violations {
		if v.Severity != replay.SeverityReject {
			continue
		}
		n++
		fmt.Fprintf(e.stderr, "replay convert: warning: the target will refuse this turn: %s\n", v.Error())
		if v.Predicted != "" {
			fmt.Fprintf(e.stderr, "  it will answer: %s\n", v.Predicted)
		}
		if v.Fix != "" {
			fmt.Fprintf(e.stderr, "  fix: %s\n", v.Fix)
		}
	}
	if n == 0 || !withSentinel {
		return
	}
	p := replay.Policy{}
	for c, a := range policy {
		p[c] = a
	}
	p[replay.CaseUnsignedCall] = replay.Sentinel
	with, _ := replay.Carry(in, target, p)
	m := rejects(replay.AuditReplay(with, target))
	what := "it"
	switch {
	case m >= n:
		return
	case m > 0:
		what = fmt.Sprintf("%d of them", n-m)
	case n > 1:
		what = "them"
	}
	fmt.Fprintf(e.stderr, "  --sentinel (the placeholder signature the target documents, on an unsigned call) clears %s\n", what)
}

func rejects(rep replay.Report) int {
	n := 0
	for _, v := range rep.Violations {
		if v.Severity == replay.SeverityReject {
			n++
		}
	}
	return n
}

func modelSuffix(m string) string {
	if m == "" {
		return " (no --to-model)"
	}
	return " --to-model " + m
}
