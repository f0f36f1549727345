package sessions

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/reasonreplay/replay"
	"github.com/tidwall/gjson"
)

// Diff writes the plan as a readable diff: per changed record its line,
// what changes and why, the bytes it had and the bytes it gets (a deleted
// record has no "+" line), strings longer than 80 bytes shortened in the
// middle so that signatures do not flood the screen.
func (p *Plan) Diff(w io.Writer) error {
	bw := bufio.NewWriter(w)
	if len(p.changes) == 0 {
		fmt.Fprintf(bw, "%s: nothing to change\n", p.Session.Path)
		return bw.Flush()
	}
	f, err := os.Open(p.Session.Path)
	if err != nil {
		return err
	}
	defer f.Close()
	fmt.Fprintf(bw, "--- %s\n+++ %s (repaired for %s)\n", p.Session.Path, p.Session.Path, targetString(p.Target))
	for _, c := range p.changes {
		old := make([]byte, c.end-c.off)
		if _, err := f.ReadAt(old, c.off); err != nil {
			return err
		}
		// What changes in the records, one line per action, its places
		// joined.
		var why []string
		at := map[string][]string{}
		for _, fx := range p.Fixes {
			for _, ri := range c.recs {
				if fx.Location.rec != ri {
					continue
				}
				s := fx.Action + " (" + strings.Join(fx.Rules, ", ")
				if fx.After != nil {
					s += ", once the change at line " + itoa(fx.After.Line) + " is made"
				}
				s += ")"
				if _, ok := at[s]; !ok {
					why = append(why, s)
				}
				if p := orRoot(fx.Location.Pointer); !contains(at[s], p) {
					at[s] = append(at[s], p)
				}
			}
		}
		for i, s := range why {
			why[i] = s + " at " + strings.Join(at[s], ", ")
		}
		r := p.Session.recs[c.recs[0]]
		fmt.Fprintf(bw, "@@ line %d (record %d) @@\n", c.line, r.index)
		if len(why) == 0 {
			why = append(why, "move a link off a deleted record to that record's parent")
		}
		for _, s := range why {
			fmt.Fprintf(bw, "# %s\n", s)
		}
		if len(c.with) > 0 && gjson.ValidBytes(old) && gjson.ValidBytes(c.with) {
			// An edit in place: the values that change.
			var lines []string
			jsonDiff(gjson.ParseBytes(old), gjson.ParseBytes(c.with), "", &lines)
			for _, l := range lines {
				fmt.Fprintln(bw, l)
			}
			continue
		}
		for _, l := range strings.Split(strings.TrimRight(string(old), "\r\n"), "\n") {
			fmt.Fprintf(bw, "-%s\n", shorten(strings.TrimRight(l, "\r")))
		}
		if len(c.with) > 0 {
			for _, l := range strings.Split(string(c.with), "\n") {
				fmt.Fprintf(bw, "+%s\n", shorten(strings.TrimRight(l, "\r")))
			}
		}
	}
	return bw.Flush()
}

func orRoot(p string) string {
	if p == "" {
		return "the record"
	}
	return p
}

// targetString names a target: "anthropic anthropic claude-opus-4-1".
func targetString(t replay.Target) string {
	var parts []string
	for _, s := range []string{t.API, t.Provider, t.Model} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	if t.Account != "" {
		parts = append(parts, "as "+t.Account)
	}
	if len(parts) == 0 {
		return "its target"
	}
	return strings.Join(parts, " ")
}

// jsonDiff appends a line per value that differs between a and b, by JSON
// Pointer: "- ptr: old" (gone), "+ ptr: new" (new), "~ ptr: old -> new".
func jsonDiff(a, b gjson.Result, ptr string, out *[]string) {
	if a.Raw == b.Raw {
		return
	}
	show := func(v gjson.Result) string { return shorten(compactJSON(v.Raw)) }
	switch {
	case a.IsObject() && b.IsObject():
		seen := map[string]bool{}
		a.ForEach(func(k, va gjson.Result) bool {
			seen[k.Str] = true
			p := ptr + "/" + pointerEscape(k.Str)
			if vb := b.Get(gjsonPath("/" + pointerEscape(k.Str))); vb.Exists() {
				jsonDiff(va, vb, p, out)
			} else {
				*out = append(*out, "- "+p+": "+show(va))
			}
			return true
		})
		b.ForEach(func(k, vb gjson.Result) bool {
			if !seen[k.Str] {
				*out = append(*out, "+ "+ptr+"/"+pointerEscape(k.Str)+": "+show(vb))
			}
			return true
		})
	case a.IsArray() && b.IsArray():
		ea, eb := a.Array(), b.Array()
		if len(ea) == len(eb) {
			for i := range ea {
				jsonDiff(ea[i], eb[i], ptr+"/"+itoa(i), out)
			}
			return
		}
		// Elements removed: match the rest in order.
		j := 0
		for i, x := range ea {
			if j < len(eb) && x.Raw == eb[j].Raw && len(ea)-i >= len(eb)-j {
				j++
				continue
			}
			if len(ea)-i > len(eb)-j {
				*out = append(*out, "- "+ptr+"/"+itoa(i)+": "+show(x))
				continue
			}
			jsonDiff(x, eb[j], ptr+"/"+itoa(i), out)
			j++
		}
		for ; j < len(eb); j++ {
			*out = append(*out, "+ "+ptr+"/"+itoa(j)+": "+show(eb[j]))
		}
	default:
		*out = append(*out, "~ "+ptr+": "+show(a)+" -> "+show(b))
	}
}

// compactJSON returns raw on one line.
func compactJSON(raw string) string {
	var b bytes.Buffer
	if json.Compact(&b, []byte(raw)) != nil {
		return raw
	}
	return b.String()
}

// shorten shortens every JSON string literal of line longer than 80 bytes
// to its first 24 and last 8 bytes around its length.
func shorten(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); {
		if line[i] != '"' {
			b.WriteByte(line[i])
			i++
			continue
		}
		j := i + 1
		for j < len(line) && line[j] != '"' {
			if line[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(line) {
			b.WriteString(line[i:])
			break
		}
		lit := line[i : j+1]
		if len(lit) > 80 {
			head, tail := cutRune(lit[:25], true), cutRune(lit[len(lit)-9:], false)
			fmt.Fprintf(&b, "%s…(%d bytes)…%s", head, len(lit)-2, tail)
		} else {
			b.WriteString(lit)
		}
		i = j + 1
	}
	return b.String()
}

// cutRune trims a partial UTF-8 sequence (or a lone backslash) off the end
// (head) or the start (tail) of s.
func cutRune(s string, head bool) string {
	if head {
		for n := 0; n < 3 && len(s) > 0 && !utf8.ValidString(s); n++ {
			s = s[:len(s)-1]
		}
		if k := len(s) - len(strings.TrimRight(s, `\`)); k%2 == 1 {
			s = s[:len(s)-1]
		}
		return s
	}
	for len(s) > 0 && s[0]&0xC0 == 0x80 {
		s = s[1:]
	}
	return s
}
