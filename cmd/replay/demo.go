package main

import (
	"bytes"
	"embed"
	"fmt"
	"io"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/schema"
)

//go:embed demodata
var demoFS embed.FS

func runDemo(e *env, args []string) error {
	fs := newFlags(e, "demo", "", "Decode embedded captures, show their reasoning items, and write them back")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	w := e.stdout
	const file = "demodata/openrouter-claude-tool-loop.sse"
	data, err := demoFS.ReadFile(file)
	if err != nil {
		return err
	}
	codec, err := replay.Lookup("openrouter", "", "")
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "replay demo: one assistant turn of a tool loop, captured from a stream and written back.")
	fmt.Fprintln(w)

	d := replay.NewDecoder(codec.NewStream(), replay.StreamOptions{})
	if _, err := d.Write(data); err != nil {
		return err
	}
	turn, err := d.Close()
	if err != nil {
		return err
	}
	events := 0
	for _, ok := d.Next(); ok; _, ok = d.Next() {
		events++
	}
	p := turn.Provenance
	fmt.Fprintf(w, "1. Decode  %s stream (%s, %d bytes) -> %d events\n", p.API, strings.TrimPrefix(file, "demodata/"), len(data), events)
	fmt.Fprintf(w, "   model %s via %s; complete=%v finish_reason=%s; %d blocks in provider order:\n", p.Model, p.Upstream, turn.Complete, turn.FinishReason, len(turn.Blocks))
	for i, b := range turn.Blocks {
		fmt.Fprintf(w, "   [%d] %s\n", i, describe(b))
	}
	fmt.Fprintln(w)

	doc := turn.AppendJSON(nil)
	if err := schema.Validate(schema.Turn, doc); err != nil {
		return err
	}
	stored, err := replay.UnmarshalTurn(doc)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "2. Store   the turn document: %d bytes, valid against schema/turn.schema.json, read back.\n\n", len(doc))

	msg, err := codec.Encode(stored)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "3. Write back  the assistant message for the next request:")
	for _, line := range strings.Split(strings.TrimRight(string(indent(msg)), "\n"), "\n") {
		fmt.Fprintln(w, "   "+clip(line, 110))
	}
	same := true
	for _, it := range stored.Items() {
		if x, ok := it.(*replay.ReasoningText); ok {
			same = same && bytes.Contains(msg, []byte(x.Signature.Value()))
		}
	}
	fmt.Fprintf(w, "   every signature of the turn is in the message, byte for byte: %v\n\n", same)

	rep := replay.AuditReplay(replay.History{Turns: []*replay.Turn{stored}}, replay.Target{API: "openrouter", Model: p.Model, Tools: true})
	fmt.Fprintf(w, "4. Audit   before sending to %s %s: %d items, %d signed, %d violations.\n", "openrouter", p.Model, rep.Items, rep.Signed, len(rep.Violations))
	for _, v := range rep.Violations {
		fmt.Fprintf(w, "   %s [%s] %s\n", v.Rule, v.Severity, v.Message)
	}
	fmt.Fprintln(w)
	return demoSwitch(w, stored)
}

// demoSwitch is the demo's second act: the captured Claude turn carried to
// an OpenAI model, then a broken history and the audit that catches it.
func demoSwitch(w io.Writer, stored *replay.Turn) error {
	target := replay.Target{API: "openrouter", Model: "openai/gpt-5", Tools: true}
	fmt.Fprintf(w, "Act 2: switching providers. The same conversation continues on %s.\n\n", target.Model)
	policy := replay.DefaultPolicy()
	policy[replay.CaseForeignText] = replay.ToText
	carried, notices := replay.Carry(replay.History{Turns: []*replay.Turn{stored}}, target, policy)
	fmt.Fprintf(w, "5. Carry   with the policy table (foreign-visible-text opted in to to-text): %d notices.\n", len(notices))
	for _, n := range notices {
		fmt.Fprintln(w, "   "+clip(n.String(), 140))
	}
	codec, err := replay.Lookup(target.API, "", target.Model)
	if err != nil {
		return err
	}
	msg, err := codec.Encode(carried.Turns[0])
	if err != nil {
		return err
	}
	foreign := false
	for _, it := range stored.Items() {
		if x, ok := it.(*replay.ReasoningText); ok && x.Signed() {
			foreign = foreign || bytes.Contains(msg, []byte(x.Signature.Value()))
		}
	}
	fmt.Fprintf(w, "   the message for %s carries a Claude signature: %v\n", target.Model, foreign)
	rep := replay.AuditReplay(carried, target)
	fmt.Fprintf(w, "6. Audit   the carried history: %d items, %d violations, clean=%v.\n\n", rep.Items, len(rep.Violations), rep.Clean())

	// A broken history: the captured turn sent as it is, and a turn whose
	// stream was cut off before its signature.
	cut, err := replay.UnmarshalTurn(stored.AppendJSON(nil))
	if err != nil {
		return err
	}
	cut.MarkUnfinished()
	broken := replay.History{Turns: []*replay.Turn{stored, cut}}
	rep = replay.AuditReplay(broken, target)
	fmt.Fprintf(w, "7. Audit   a broken history (the Claude turn uncarried, then a cut-off turn): %d violations, rejects=%v.\n", len(rep.Violations), rep.Rejects())
	for _, v := range rep.Violations {
		fmt.Fprintf(w, "   turn %d block %d  %s [%s]\n      %s\n", v.Turn, v.Block, v.Rule, v.Severity, clip(v.Message, 120))
		if v.Predicted != "" {
			fmt.Fprintf(w, "      predicts: %s\n", clip(v.Predicted, 120))
		}
		fmt.Fprintf(w, "      fix: %s\n", clip(v.Fix, 120))
	}
	doc := rep.AppendJSON(nil)
	if err := schema.Validate(schema.Report, doc); err != nil {
		return err
	}
	fmt.Fprintf(w, "   the report (%d bytes) is valid against schema/report.schema.json; 'replay audit' prints it and exits 1.\n", len(doc))
	return nil
}
