package main

import (
	"bytes"
	"embed"
	"flag"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/schema"
	"github.com/reasonreplay/replay/stream"
)

//go:embed demodata
var demoFS embed.FS

func defineDemo(*flag.FlagSet) func(*env, []string) error { return runDemo }

func runDemo(e *env, args []string) error {
	if len(args) > 0 {
		return usageError("demo takes no operands")
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
	fmt.Fprintln(w, "replay demo: one assistant turn of a tool loop, decoded from a stream and written back.")
	fmt.Fprintln(w, "The stream is a sample in the shape of a real OpenRouter capture, written for this project:")
	fmt.Fprintln(w, "its ids and signature are invented. Turns and blocks are counted from 0, as in the report.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Act 1: one provider. Decode, store, write back and audit a Claude turn.")
	fmt.Fprintln(w)

	d := stream.NewDecoder(codec, stream.Options{})
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
	fmt.Fprintf(w, "1. Decode  the %s stream (%s, %d bytes) -> %s\n", p.API, strings.TrimPrefix(file, "demodata/"), len(data), plural(events, "event", "events"))
	fmt.Fprintf(w, "   model %s via %s; complete=%v finish_reason=%s; %s in provider order:\n", p.Model, p.Upstream, turn.Complete, turn.FinishReason, plural(len(turn.Blocks), "block", "blocks"))
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
	fmt.Fprintf(w, "4. Audit   before sending to %s %s: %s, %d signed, %s.\n", "openrouter", p.Model,
		plural(rep.Items, "item", "items"), rep.Signed, plural(len(rep.Violations), "violation", "violations"))
	printViolations(w, rep)
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
	fmt.Fprintf(w, "5. Carry   with the policy table (foreign-visible-text opted in to to-text): %s.\n", plural(len(notices), "notice", "notices"))
	for _, n := range notices {
		fmt.Fprintln(w, "   "+n.String())
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
	fmt.Fprintf(w, "6. Audit   the carried history: %s, %s, clean=%v.\n\n", plural(rep.Items, "item", "items"), plural(len(rep.Violations), "violation", "violations"), rep.Clean())

	// A broken history: the captured turn sent as it is, and a turn whose
	// stream was cut off before its signature.
	cut, err := replay.UnmarshalTurn(stored.AppendJSON(nil))
	if err != nil {
		return err
	}
	cut.MarkUnfinished()
	broken := replay.History{Turns: []*replay.Turn{stored, cut}}
	rep = replay.AuditReplay(broken, target)
	fmt.Fprintf(w, "7. Audit   a broken history (the Claude turn uncarried, then a cut-off turn): %s, rejects=%v.\n", plural(len(rep.Violations), "violation", "violations"), rep.Rejects())
	printViolations(w, rep)
	doc := rep.AppendJSON(nil)
	if err := schema.Validate(schema.Report, doc); err != nil {
		return err
	}
	fmt.Fprintf(w, "   the report (%d bytes) is valid against schema/report.schema.json; 'replay audit' prints it and exits 1.\n", len(doc))
	return nil
}

// printViolations lists a report's violations with where they are, what
// the provider would answer, and the fix, in full.
func printViolations(w io.Writer, rep replay.Report) {
	for _, v := range rep.Violations {
		fmt.Fprintf(w, "   %s [%s] at %s\n      %s\n", v.Rule, v.Severity, where(v), v.Message)
		if v.Predicted != "" {
			fmt.Fprintf(w, "      predicts: %s\n", v.Predicted)
		}
		fmt.Fprintf(w, "      fix: %s\n", v.Fix)
	}
}

// where says which turn and block a violation is about.
func where(v replay.Violation) string {
	switch {
	case v.Turn < 0:
		return "the whole history"
	case v.Block < 0:
		return fmt.Sprintf("turn %d (the whole turn)", v.Turn)
	}
	return fmt.Sprintf("turn %d, block %d", v.Turn, v.Block)
}

// describe renders a block on one line.
func describe(b replay.Block) string {
	switch b := b.(type) {
	case *replay.ReasoningText:
		sig := "unsigned"
		if b.Signed() {
			s := b.Signature.Value()
			sig = fmt.Sprintf("signature of %d bytes (%s...%s)", len(s), s[:min(6, len(s))], s[max(0, len(s)-4):])
		}
		return fmt.Sprintf("reasoning.text      %-20s %q  %s  replayable=%v", b.Format, clip(b.Text, 48), sig, b.Replayable())
	case *replay.Summary:
		return fmt.Sprintf("reasoning.summary   %-20s %q  replayable=%v", b.Format, clip(b.Summary, 48), b.Replayable())
	case *replay.Encrypted:
		return fmt.Sprintf("reasoning.encrypted %-20s %s id=%s  replayable=%v", b.Format, plural(len(b.Data), "byte", "bytes"), b.ID.Value(), b.Replayable())
	case *replay.Opaque:
		return fmt.Sprintf("%s (kept verbatim, %s)", b.Type, plural(len(b.Raw), "byte", "bytes"))
	case *replay.Text:
		return fmt.Sprintf("text                %q", clip(b.Text, 60))
	case *replay.ToolCall:
		return fmt.Sprintf("tool_call           %s(%s) id=%s", b.Name, clip(b.Arguments, 48), b.ID)
	case *replay.Native:
		return fmt.Sprintf("native %s (kept verbatim, %s)", b.Kind, plural(len(b.Raw), "byte", "bytes"))
	}
	return fmt.Sprintf("%T", b)
}

// clip shortens s to at most n runes, marking the cut with "...". It is
// for sample text shown in a table, never for messages and fixes.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-3]) + "..."
}
