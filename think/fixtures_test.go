package think

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/stretchr/testify/require"
)

// Fixture cases live in testdata/think/ (the repository root's testdata),
// one case per name:
//
//	NAME.txt        the message content, exact bytes (no trailing newline
//	                unless the case has one)
//	NAME.cuts       optional: byte offsets, space separated, of one named
//	                split of the content (e.g. inside "<thi|nk>" or inside a
//	                multibyte character), fed in addition to the others
//	NAME.visible    golden: the visible text, exact bytes
//	NAME.reasoning  golden: the reasoning text, exact bytes
//	NAME.runs.json  golden: the ordered visible/reasoning runs and the stats
//
// TestFixtures splits each case whole, with its named cuts, and with every
// cut the package's helpers make (splits: byte by byte, every 2- and 3-way
// cut of short inputs, seeded random cuts), requires the same runs and
// stats every time and from Split, compares with the goldens (go test
// -update rewrites them), and checks each case's expectations, written
// from the case's input rather than from the output.

type fixtureCase struct {
	opts Options
	// want returns the expected visible and reasoning texts and stats,
	// derived from the input.
	want func(t *testing.T, in string) (vis, reas string, st Stats)
}

// cut removes the first occurrence of each piece from s (each must occur).
func cut(t *testing.T, s string, pieces ...string) string {
	t.Helper()
	for _, p := range pieces {
		require.Contains(t, s, p)
		s = strings.Replace(s, p, "", 1)
	}
	return s
}

// between returns the text between open and the next close in s.
func between(t *testing.T, s, open, close string) string {
	t.Helper()
	_, rest, ok := strings.Cut(s, open)
	require.True(t, ok, "%q in input", open)
	in, _, ok := strings.Cut(rest, close)
	require.True(t, ok, "%q in input", close)
	return in
}

var fixtureCases = map[string]fixtureCase{
	"split-tags": {Options{Start: StartVisible}, func(t *testing.T, in string) (string, string, Stats) {
		return cut(t, in, "<think>check the sum</think>"), between(t, in, "<think>", "</think>"),
			Stats{Delimiters: 2, Blocks: 1}
	}},
	// the chat template opened the block: everything before the closer
	"closer-only": {Options{}, func(t *testing.T, in string) (string, string, Stats) {
		reas, vis, ok := strings.Cut(in, "</think>")
		require.True(t, ok)
		return vis, reas, Stats{Delimiters: 1, Blocks: 1}
	}},
	"unclosed-at-eof": {Options{Start: StartVisible}, func(t *testing.T, in string) (string, string, Stats) {
		vis, reas, ok := strings.Cut(in, "<think>")
		require.True(t, ok)
		return vis, reas, Stats{Delimiters: 1, Blocks: 1, Unclosed: 1}
	}},
	"several-blocks": {Options{Start: StartVisible}, func(t *testing.T, in string) (string, string, Stats) {
		return "one two three", "abc", Stats{Delimiters: 6, Blocks: 3}
	}},
	"thinking-variant": {Options{Start: StartVisible}, func(t *testing.T, in string) (string, string, Stats) {
		r := between(t, in, "<thinking>", "</thinking>")
		return cut(t, in, "<thinking>"+r+"</thinking>"), r, Stats{Delimiters: 2, Blocks: 1}
	}},
	"other-variants": {Options{Start: StartVisible}, func(t *testing.T, in string) (string, string, Stats) {
		var vis, reas strings.Builder
		rest := in
		for _, tg := range defaultTags[2:] { // the variants after <think> and <thinking>, in input order
			before, after, ok := strings.Cut(rest, tg.Open)
			require.True(t, ok, tg.Open)
			body, after, ok := strings.Cut(after, tg.Close)
			require.True(t, ok, tg.Close)
			vis.WriteString(before)
			reas.WriteString(body)
			rest = after
		}
		vis.WriteString(rest)
		return vis.String(), reas.String(), Stats{Delimiters: 8, Blocks: 4}
	}},
	// angle-bracket and bracket text that is not a configured tag survives
	"literal-tag-like": {Options{Start: StartVisible}, func(t *testing.T, in string) (string, string, Stats) {
		return in, "", Stats{}
	}},
	// tags inside a fenced block, a tilde fence and inline spans are
	// literal; the one real block outside code is split out
	"markdown-code": {Options{Start: StartVisible}, func(t *testing.T, in string) (string, string, Stats) {
		return cut(t, in, "<think>real</think>"), "real", Stats{Delimiters: 2, Blocks: 1}
	}},
	"multibyte-split": {Options{Start: StartVisible}, func(t *testing.T, in string) (string, string, Stats) {
		r1 := between(t, in, "<think>", "</think>")
		r2 := between(t, in, "◁think▷", "◁/think▷")
		return cut(t, in, "<think>"+r1+"</think>", "◁think▷"+r2+"◁/think▷"), r1 + r2, Stats{Delimiters: 4, Blocks: 2}
	}},
	// "◁thi" at the end may start a tag until the stream ends: then it is text
	"partial-prefix-at-eof": {Options{Start: StartVisible}, func(t *testing.T, in string) (string, string, Stats) {
		require.True(t, strings.HasSuffix(in, "◁thi"))
		return in, "", Stats{}
	}},
}

// goldenRun and goldenStats are the NAME.runs.json document.
type goldenRun struct {
	Reasoning bool   `json:"reasoning"`
	Text      string `json:"text"`
}

type goldenStats struct {
	Delimiters int `json:"delimiters"`
	Blocks     int `json:"blocks"`
	Orphans    int `json:"orphans"`
	Unclosed   int `json:"unclosed"`
}

func goldenJSON(t *testing.T, runs []run, st Stats) []byte {
	g := struct {
		Runs  []goldenRun `json:"runs"`
		Stats goldenStats `json:"stats"`
	}{Stats: goldenStats(st)}
	for _, r := range runs {
		g.Runs = append(g.Runs, goldenRun{r.R, r.T})
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // tags stay readable in the golden
	require.NoError(t, enc.Encode(g))
	return codectest.Indent(b.Bytes())
}

func readCuts(t *testing.T, path, in string) []string {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	var chunks []string
	prev := 0
	for _, f := range strings.Fields(string(b)) {
		n, err := strconv.Atoi(f)
		require.NoError(t, err, path)
		require.True(t, n > prev && n < len(in), "%s: offsets must increase inside the input", path)
		chunks = append(chunks, in[prev:n])
		prev = n
	}
	return append(chunks, in[prev:])
}

func TestFixtures(t *testing.T) {
	dir := filepath.Join("..", "testdata", "think")
	inputs, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	require.NoError(t, err)
	var names []string
	for _, p := range inputs {
		names = append(names, strings.TrimSuffix(filepath.Base(p), ".txt"))
	}
	var want []string
	for name := range fixtureCases {
		want = append(want, name)
	}
	sort.Strings(want)
	require.Equal(t, want, names, "every fixture has a case and every case a fixture")

	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			fc := fixtureCases[name]
			base := filepath.Join(dir, name)
			raw, err := os.ReadFile(base + ".txt")
			require.NoError(t, err)
			in := string(raw)

			runs, st := check(t, fc.opts, in) // whole, byte by byte, 2/3-way and random cuts, Split
			if chunks := readCuts(t, base+".cuts", in); chunks != nil {
				got, gst := feed(t, fc.opts, chunks)
				require.Equal(t, runs, got, "named cuts %q", chunks)
				require.Equal(t, st, gst, "named cuts %q", chunks)
			}
			vis, reas := texts(runs)

			codectest.Golden(t, base+".visible", []byte(vis))
			codectest.Golden(t, base+".reasoning", []byte(reas))
			codectest.Golden(t, base+".runs.json", goldenJSON(t, runs, st))

			wv, wr, wst := fc.want(t, in)
			require.Equal(t, wv, vis, "visible text")
			require.Equal(t, wr, reas, "reasoning text")
			require.Equal(t, wst, st, "stats")
			requireNoTag(t, fc.opts, stripCode(in))

			// KeepRaw keeps the content as it came, byte for byte, with the
			// same split.
			o := fc.opts
			o.KeepRaw = true
			s, err := New(o)
			require.NoError(t, err)
			var kv, kr []byte
			for i := 0; i < len(in); i++ {
				kv, kr = s.Append(kv, kr, []byte{in[i]})
			}
			require.Equal(t, in, string(s.Raw()))
			kv, kr = s.Finish(kv, kr)
			require.Equal(t, vis, string(kv))
			require.Equal(t, reas, string(kr))
		})
	}
}

// stripCode blanks Markdown code (the spans this package keeps literal) so
// that the no-tag invariant can be checked on the rest.
func stripCode(s string) string {
	if !strings.ContainsAny(s, "`~") {
		return s
	}
	var b strings.Builder
	lines := strings.SplitAfter(s, "\n")
	fence := ""
	for _, l := range lines {
		tl := strings.TrimRight(l, "\n")
		if fence != "" {
			if strings.HasPrefix(tl, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(tl, "```") || strings.HasPrefix(tl, "~~~") {
			fence = tl[:3]
			continue
		}
		// inline spans: drop text between matching backtick runs
		for {
			i := strings.IndexByte(tl, '`')
			if i < 0 {
				break
			}
			n := i
			for n < len(tl) && tl[n] == '`' {
				n++
			}
			j := strings.Index(tl[n:], tl[i:n])
			if j < 0 {
				break
			}
			tl = tl[:i] + tl[n+j+(n-i):]
		}
		b.WriteString(tl)
		b.WriteString("\n")
	}
	return b.String()
}
