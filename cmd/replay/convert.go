package main

import (
	"fmt"

	"github.com/reasonreplay/replay"
)

const (
	convertArgs    = "--from API --to API [--stream [--framing sse|jsonl]] [--to-provider P] [--to-model M] [--to-text] [--sentinel] FILE|-"
	convertSummary = "Decode a response (or read a turn document), carry it over to another API with the policy table, and write the target's assistant message. Every loss is a notice on stderr"
)

func runConvert(e *env, args []string) error {
	fs := newFlags(e, "convert", convertArgs, convertSummary)
	var f inputFlags
	f.register(fs)
	fs.StringVar(&f.api, "from", "auto", "the API the input came from (ignored for a turn document, which says)")
	to := fs.String("to", "", "the API to write for (required)")
	toProvider := fs.String("to-provider", "", "the target platform (anthropic, bedrock, vertex, aistudio, ...)")
	toModel := fs.String("to-model", "", "the target model")
	account := fs.String("account", "", "the account (organisation, key pool) the turn was minted under")
	toAccount := fs.String("to-account", "", "the account the next request is sent with")
	toText := fs.Bool("to-text", false, "send another issuer's visible reasoning as plain, untagged text instead of dropping it")
	sentinel := fs.Bool("sentinel", false, "Gemini 3 targets: write the documented skip_thought_signature_validator value on an unsigned first function call")
	compact := fs.Bool("compact", false, "print the message on one line")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError("want one FILE (or - for standard input)")
	}
	if *to == "" {
		return usageError("--to is required")
	}
	data, err := input(e, pos[0])
	if err != nil {
		return err
	}
	t, err := readTurn(&f, data)
	if err != nil {
		return err
	}
	if *account != "" {
		t.Provenance.Account = *account
	}
	target := replay.Target{API: *to, Provider: *toProvider, Model: *toModel, Account: *toAccount, Tools: len(t.ToolCalls()) > 0}
	tf := inputFlags{api: *to, provider: *toProvider, model: *toModel}
	codec, err := tf.codec(nil)
	if err != nil {
		return err
	}
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

// readTurn reads a turn document, or decodes a response per f. A partial
// turn decoded from a cut-off stream is returned with no error: Carry
// decides what of it may go.
func readTurn(f *inputFlags, data []byte) (*replay.Turn, error) {
	if isTurnDocument(data) {
		return replay.UnmarshalTurn(data)
	}
	t, err := f.decode(data)
	if t != nil {
		return t, nil
	}
	return nil, err
}
