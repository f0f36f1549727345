package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonindent"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/view"
	"github.com/tidwall/gjson"
)

// indent pretty-prints JSON, keeping every string's bytes.
func indent(b []byte) []byte {
	var buf bytes.Buffer
	if err := json.Indent(&buf, b, "", "  "); err != nil {
		return append(b, '\n')
	}
	buf.WriteByte('\n')
	return buf.Bytes()
}

func writeJSON(w io.Writer, b []byte, compact bool) {
	if !compact {
		b = indent(b)
	} else {
		b = append(oneLine(b), '\n')
	}
	w.Write(b)
}

// oneLine removes the line breaks of a JSON text, in place: a raw CR or LF
// in valid JSON is white space between tokens (a string cannot hold one),
// put there by a provider inside a member kept as it came, and no two
// tokens need white space between them. Every other byte stays.
func oneLine(b []byte) []byte {
	if bytes.IndexAny(b, "\r\n") < 0 {
		return b
	}
	out := b[:0]
	for _, c := range b {
		if c != '\r' && c != '\n' {
			out = append(out, c)
		}
	}
	return out
}

// writeTurn writes t's document as writeJSON writes t.AppendJSON(nil),
// byte for byte, but while the document is made: indented as it is
// written, in pieces of some tens of kilobytes, never held whole. (A turn
// from a decoder is valid JSON, its raw members checked when read, so the
// fallback of indent, the compact document as it is, never applies.)
func writeTurn(w io.Writer, t *replay.Turn, compact bool) {
	if compact {
		t.WriteTo(oneLineWriter{w: w})
		w.Write([]byte{'\n'})
		return
	}
	ind := jsonindent.NewWriter(w, "", "  ")
	t.WriteTo(ind)
	if ind.Flush() == nil {
		w.Write([]byte{'\n'})
	}
}

// oneLineWriter writes what it is given to w without its line breaks
// (oneLine on a copy: a Write must not change its argument).
type oneLineWriter struct {
	w   io.Writer
	buf []byte
}

func (o oneLineWriter) Write(p []byte) (int, error) {
	if bytes.IndexAny(p, "\r\n") < 0 {
		return o.w.Write(p)
	}
	if _, err := o.w.Write(oneLine(append(o.buf[:0], p...))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// isTurnDocument reports whether data is a turn document.
func isTurnDocument(data []byte) bool {
	if !jsonw.ValidBytes(data) {
		return false
	}
	r := gjson.Parse(view.String(data)) // read in place: a whole body, not copied to be asked two members
	return r.Get("version").Exists() && r.Get("blocks").IsArray()
}

// shape describes a JSON value by its first members, for a message.
func shape(data []byte) string {
	if !json.Valid(data) {
		return "not JSON"
	}
	r := gjson.ParseBytes(data)
	switch {
	case r.IsArray():
		return fmt.Sprintf("a JSON array of %s", plural(len(r.Array()), "value", "values"))
	case !r.IsObject():
		return "a JSON " + strings.ToLower(r.Type.String())
	}
	var keys []string
	r.ForEach(func(k, _ gjson.Result) bool {
		keys = append(keys, `"`+k.Str+`"`)
		return len(keys) < 4
	})
	if len(keys) == 0 {
		return "an empty object"
	}
	return "an object with " + strings.Join(keys, ", ")
}

// guess is what sniff told of an input.
type guess struct {
	api, provider, model string
	// event reports that the value is a stream event, not a whole body.
	event bool
	// announce, when set, is told the guess once the API is known.
	announce func(guess)
}

// sniff tells the API of a response body or of a stream's first event
// (typ is its event type, or nil) by the registered codecs' declarations
// (codecs.Sniff). It returns a zero api when none recognises it.
func sniff(typ, data []byte) guess {
	c, s, ok := codecs.Sniff(replay.Default(), typ, data)
	if !ok {
		return guess{}
	}
	return guess{api: c.API(), provider: s.Provider, model: s.Model, event: s.Event}
}
