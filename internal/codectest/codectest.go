// Package codectest holds the checks every codec's tests run: feeding a
// stream whole, line by line, byte by byte and in seeded random splits (the
// same turn every time), golden files rewritten with -update, and the
// document round trip.
package codectest

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/require"
)

// Update is the -update flag: rewrite golden files instead of comparing.
var Update = flag.Bool("update", false, "rewrite golden files")

// Split is one way of cutting a stream into writes.
type Split struct {
	Name   string
	Chunks [][]byte
}

// Splits returns the ways every stream fixture is fed: whole, line by line
// (each line with its end), byte by byte, in 2- and 3-byte pieces, and in
// random pieces from fixed seeds.
func Splits(data []byte) []Split {
	out := []Split{{Name: "whole", Chunks: [][]byte{data}}}
	var lines [][]byte
	for rest := data; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			lines = append(lines, rest)
			break
		}
		lines = append(lines, rest[:i+1])
		rest = rest[i+1:]
	}
	out = append(out, Split{Name: "lines", Chunks: lines})
	for _, n := range []int{1, 2, 3} {
		out = append(out, Split{Name: fmt.Sprintf("every%d", n), Chunks: fixed(data, n)})
	}
	for seed := int64(1); seed <= 5; seed++ {
		r := rand.New(rand.NewSource(seed))
		var chunks [][]byte
		for rest := data; len(rest) > 0; {
			n := 1 + r.Intn(64)
			if seed%2 == 0 {
				n = 1 + r.Intn(7)
			}
			if n > len(rest) {
				n = len(rest)
			}
			chunks = append(chunks, rest[:n])
			rest = rest[n:]
		}
		out = append(out, Split{Name: fmt.Sprintf("random%d", seed), Chunks: chunks})
	}
	return out
}

func fixed(data []byte, n int) [][]byte {
	var out [][]byte
	for i := 0; i < len(data); i += n {
		j := i + n
		if j > len(data) {
			j = len(data)
		}
		out = append(out, data[i:j])
	}
	return out
}

// Result is what a stream decode produced.
type Result struct {
	Turn   *replay.Turn
	Err    error
	Events []stream.Event
}

// Document returns the turn document as indented JSON.
func (r Result) Document() []byte { return Indent(r.Turn.AppendJSON(nil)) }

// FeedPush decodes the chunks with the push Decoder, poisoning each chunk
// after it is written (so that a decoder that keeps a reference to caller
// memory is caught), and draining events after every write.
func FeedPush(fd codecs.FrameDecoder, opts stream.Options, chunks [][]byte) Result {
	d := stream.NewDecoder(kit.Decoding(fd), opts)
	var res Result
	for _, c := range chunks {
		buf := append([]byte(nil), c...)
		_, err := d.Write(buf)
		for i := range buf {
			buf[i] = 0xAA
		}
		for ev, ok := d.Next(); ok; ev, ok = d.Next() {
			res.Events = append(res.Events, ev)
		}
		if err != nil {
			break
		}
	}
	res.Turn, res.Err = d.Close()
	for ev, ok := d.Next(); ok; ev, ok = d.Next() {
		res.Events = append(res.Events, ev)
	}
	return res
}

// ChunkReader returns the chunks one Read at a time, then err (io.EOF when
// nil).
type ChunkReader struct {
	Chunks [][]byte
	Err    error
	cur    []byte
}

func (r *ChunkReader) Read(p []byte) (int, error) {
	for len(r.cur) == 0 {
		if len(r.Chunks) == 0 {
			if r.Err != nil {
				return 0, r.Err
			}
			return 0, io.EOF
		}
		r.cur, r.Chunks = r.Chunks[0], r.Chunks[1:]
	}
	n := copy(p, r.cur)
	r.cur = r.cur[n:]
	return n, nil
}

// FeedPull decodes the chunks with the pull Stream over a ChunkReader.
func FeedPull(fd codecs.FrameDecoder, opts stream.Options, chunks [][]byte) Result {
	s := stream.New(&ChunkReader{Chunks: chunks}, kit.Decoding(fd), opts)
	var res Result
	for s.Next() {
		res.Events = append(res.Events, s.Event())
	}
	res.Turn, res.Err = s.Turn()
	return res
}

// SweepStream feeds data every way [Splits] cuts it, through both the push
// and the pull form, with a fresh decoder from newFD each time, and requires
// the same turn document, the same error text and the same events every
// time. It returns the result of the whole feed.
func SweepStream(t testing.TB, newFD func() codecs.FrameDecoder, opts stream.Options, data []byte) Result {
	t.Helper()
	want := FeedPush(newFD(), opts, [][]byte{data})
	wantDoc := want.Document()
	wantEvents := EventSummary(want.Events)
	for _, sp := range Splits(data) {
		for _, form := range []string{"push", "pull"} {
			var got Result
			if form == "push" {
				got = FeedPush(newFD(), opts, sp.Chunks)
			} else {
				got = FeedPull(newFD(), opts, sp.Chunks)
			}
			require.Equal(t, string(wantDoc), string(got.Document()), "%s/%s: turn differs from the whole feed", form, sp.Name)
			require.Equal(t, errText(want.Err), errText(got.Err), "%s/%s: error differs", form, sp.Name)
			require.Equal(t, wantEvents, EventSummary(got.Events), "%s/%s: events differ", form, sp.Name)
		}
	}
	return want
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// EventSummary renders events one per line for comparison and goldens.
func EventSummary(evs []stream.Event) []string {
	out := make([]string, 0, len(evs))
	for _, ev := range evs {
		s := fmt.Sprintf("%s block=%d", ev.Kind, ev.Block)
		if ev.Delta != "" {
			s += fmt.Sprintf(" delta=%q", ev.Delta)
		}
		if ev.ID != "" || ev.Name != "" {
			s += fmt.Sprintf(" id=%q name=%q", ev.ID, ev.Name)
		}
		if ev.Item != nil {
			s += " item=" + string(ev.Item.Kind())
		}
		if ev.Err != nil {
			s += " err=" + ev.Err.Error()
		}
		out = append(out, s)
	}
	return out
}

// MergedDeltas concatenates, per block, the deltas of the given kind.
func MergedDeltas(evs []stream.Event, kind stream.EventKind) map[int]string {
	out := map[int]string{}
	for _, ev := range evs {
		if ev.Kind == kind {
			out[ev.Block] += ev.Delta
		}
	}
	return out
}

// Indent pretty-prints JSON with two-space indentation, keeping every
// string's bytes as they are.
func Indent(b []byte) []byte {
	var buf bytes.Buffer
	if err := json.Indent(&buf, b, "", "  "); err != nil {
		return b
	}
	buf.WriteByte('\n')
	return buf.Bytes()
}

// Golden compares got with the file at path, or rewrites the file under
// -update.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if *Update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		t.Fatalf("golden file %s is missing: run go test -update", path)
	}
	require.NoError(t, err)
	require.Equal(t, string(want), string(got), "golden %s differs (go test -update rewrites it)", path)
}

// RoundTripDocument requires that the turn document of tu reads back into a
// turn whose document is byte-identical.
func RoundTripDocument(t testing.TB, tu *replay.Turn) {
	t.Helper()
	doc := tu.AppendJSON(nil)
	back, err := replay.UnmarshalTurn(doc)
	require.NoError(t, err)
	require.Equal(t, string(doc), string(back.AppendJSON(nil)), "document round trip")
}

// LimitCase is one limit a codec's decoders must honour: the limits to set,
// and the What of the *replay.LimitError expected.
type LimitCase struct {
	Name   string
	Limits replay.Limits
	What   string
}

// TightLimits returns the cases [SweepLimits] and [CheckBodyLimits] run:
// one byte per item, one block per turn, one byte per turn and (for
// streams) eight bytes per event. A fixture meant for them has a block
// with more than one byte of text and more than one block.
func TightLimits() []LimitCase {
	return []LimitCase{
		{"MaxItem", replay.Limits{MaxItem: 1}, "item size"},
		{"MaxBlocks", replay.Limits{MaxBlocks: 1}, "block count"},
		{"MaxTurn", replay.Limits{MaxTurn: 1}, ""},
		{"MaxEvent", replay.Limits{MaxEvent: 8}, "event size"},
	}
}

// SweepLimits feeds data with each of [TightLimits] set through
// StreamOptions, every way [Splits] cuts it, push and pull, and requires a
// *replay.LimitError of the expected kind every time, with the same text
// however the bytes were split, and a partial turn marked incomplete. The
// MaxTurn case accepts an item-size error too (a one-byte turn is hit by
// whichever check runs first, the same one every time).
func SweepLimits(t testing.TB, newFD func() codecs.FrameDecoder, framing stream.Framing, data []byte) {
	t.Helper()
	for _, lc := range TightLimits() {
		opts := stream.Options{Framing: framing, Limits: lc.Limits}
		want := FeedPush(newFD(), opts, [][]byte{data})
		requireLimit(t, lc, want.Err, "whole")
		require.False(t, want.Turn.Complete, "%s: a turn cut by a limit is not complete", lc.Name)
		for _, sp := range Splits(data) {
			for _, form := range []string{"push", "pull"} {
				var got Result
				if form == "push" {
					got = FeedPush(newFD(), opts, sp.Chunks)
				} else {
					got = FeedPull(newFD(), opts, sp.Chunks)
				}
				require.Equal(t, errText(want.Err), errText(got.Err), "%s %s/%s: the limit error differs from the whole feed", lc.Name, form, sp.Name)
			}
		}
	}
}

// CheckBodyLimits decodes a body with each of [TightLimits] but MaxEvent
// set on a codec made by newCodec, and requires a *replay.LimitError of the
// expected kind.
func CheckBodyLimits(t testing.TB, newCodec func(replay.Limits) replay.ReasoningCodec, body []byte) {
	t.Helper()
	for _, lc := range TightLimits() {
		if lc.What == "event size" {
			continue
		}
		_, err := newCodec(lc.Limits).Decode(body)
		requireLimit(t, lc, err, "body")
	}
}

func requireLimit(t testing.TB, lc LimitCase, err error, where string) {
	t.Helper()
	var le *replay.LimitError
	require.True(t, errors.As(err, &le), "%s %s: want a *replay.LimitError, got %v", lc.Name, where, err)
	if lc.What != "" {
		require.Equal(t, lc.What, le.What, "%s %s: %v", lc.Name, where, err)
	} else {
		require.Contains(t, []string{"turn size", "item size"}, le.What, "%s %s: %v", lc.Name, where, err)
	}
}
