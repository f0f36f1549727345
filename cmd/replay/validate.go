package main

import (
	"bytes"
	"embed"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/schema"
)

func runValidate(e *env, args []string) error {
	const a, s = "[--kind turn|item|report] FILE...", "Validate turn, item and report documents against the published JSON Schemas"
	fs := newFlags(e, "validate", a, s)
	kindFlag := fs.String("kind", "", "document kind; by default told from the document's shape")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usageError("want at least one FILE")
	}
	bad := 0
	for _, name := range pos {
		data, err := input(e, name)
		if err != nil {
			return err
		}
		kind := schema.Kind(*kindFlag)
		if kind == "" {
			k, ok := schema.Detect(data)
			if !ok {
				fmt.Fprintf(e.stderr, "%s: not a turn, item or report document (name it with --kind)\n", name)
				bad++
				continue
			}
			kind = k
		}
		if err := schema.Validate(kind, data); err != nil {
			fmt.Fprintf(e.stderr, "%s: %v\n", name, err)
			bad++
			continue
		}
		if kind == schema.Turn {
			if _, err := replay.UnmarshalTurn(data); err != nil {
				fmt.Fprintf(e.stderr, "%s: %v\n", name, err)
				bad++
				continue
			}
		}
		fmt.Fprintf(e.stdout, "ok  %s (%s)\n", name, kind)
	}
	if bad > 0 {
		return &exitError{code: 1, err: fmt.Errorf("%d of %d documents are not valid", bad, len(pos))}
	}
	return nil
}

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
	return nil
}

// describe renders a block on one line.
func describe(b replay.Block) string {
	switch b := b.(type) {
	case *replay.ReasoningText:
		sig := "unsigned"
		if b.Signed() {
			s := b.Signature.Value()
			sig = fmt.Sprintf("signature %d bytes (%s…%s)", len(s), s[:min(6, len(s))], s[max(0, len(s)-4):])
		}
		return fmt.Sprintf("reasoning.text      %-20s %q  %s  replayable=%v", b.Format, clip(b.Text, 48), sig, replay.Replayable(b))
	case *replay.Summary:
		return fmt.Sprintf("reasoning.summary   %-20s %q  replayable=%v", b.Format, clip(b.Summary, 48), replay.Replayable(b))
	case *replay.Encrypted:
		return fmt.Sprintf("reasoning.encrypted %-20s %d bytes id=%s  replayable=%v", b.Format, len(b.Data), b.ID.Value(), replay.Replayable(b))
	case *replay.Opaque:
		return fmt.Sprintf("%s (kept verbatim, %d bytes)", b.Type, len(b.Raw))
	case *replay.Text:
		return fmt.Sprintf("text                %q", clip(b.Text, 60))
	case *replay.ToolCall:
		return fmt.Sprintf("tool_call           %s(%s) id=%s", b.Name, clip(b.Arguments, 48), b.ID)
	case *replay.Native:
		return fmt.Sprintf("native %s (kept verbatim, %d bytes)", b.Kind, len(b.Raw))
	}
	return fmt.Sprintf("%T", b)
}

// clip shortens s to at most n runes.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
