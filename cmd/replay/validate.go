package main

import (
	"fmt"
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
