package think

import (
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// run is one (channel, text) run of merged output.
type run struct {
	R bool
	T string
}

func merge(segs []Segment, into []run) []run {
	for _, sg := range segs {
		if len(sg.Text) == 0 {
			panic("empty segment")
		}
		if n := len(into); n > 0 && into[n-1].R == sg.Reasoning {
			into[n-1].T += string(sg.Text)
			continue
		}
		into = append(into, run{sg.Reasoning, string(sg.Text)})
	}
	return into
}

// feed streams chunks through a fresh splitter, poisoning each chunk after
// the call so that a splitter keeping caller memory is caught.
func feed(t testing.TB, o Options, chunks []string) ([]run, Stats) {
	s, err := New(o)
	require.NoError(t, err)
	var runs []run
	for _, c := range chunks {
		buf := []byte(c)
		runs = merge(s.Write(nil, buf), runs)
		for i := range buf {
			buf[i] = 0xAA
		}
	}
	runs = merge(s.Close(nil), runs)
	return runs, s.Stats()
}

func texts(runs []run) (vis, reas string) {
	var v, r strings.Builder
	for _, x := range runs {
		if x.R {
			r.WriteString(x.T)
		} else {
			v.WriteString(x.T)
		}
	}
	return v.String(), r.String()
}

// splits returns cuts of s: whole, byte by byte, every 2- and 3-way cut for
// short inputs, and random cuts.
func splits(s string) [][]string {
	out := [][]string{{s}}
	var bytewise []string
	for i := 0; i < len(s); i++ {
		bytewise = append(bytewise, s[i:i+1])
	}
	out = append(out, bytewise)
	if len(s) <= 80 {
		for i := 1; i < len(s); i++ {
			out = append(out, []string{s[:i], s[i:]})
			for j := i + 1; j < len(s) && len(s) <= 40; j++ {
				out = append(out, []string{s[:i], s[i:j], s[j:]})
			}
		}
	}
	r := rand.New(rand.NewSource(int64(len(s))))
	for k := 0; k < 20; k++ {
		var cs []string
		for rest := s; rest != ""; {
			n := 1 + r.Intn(9)
			if n > len(rest) {
				n = len(rest)
			}
			cs = append(cs, rest[:n])
			rest = rest[n:]
		}
		out = append(out, cs)
	}
	return out
}

// check runs content whole and in every cut, requires identical runs and
// stats, and returns them.
func check(t *testing.T, o Options, content string) ([]run, Stats) {
	t.Helper()
	want, wst := feed(t, o, []string{content})
	for _, cs := range splits(content) {
		got, st := feed(t, o, cs)
		require.Equal(t, want, got, "cuts %q", cs)
		require.Equal(t, wst, st, "cuts %q", cs)
	}
	v, r, st, err := Split(content, o)
	require.NoError(t, err)
	wv, wr := texts(want)
	require.Equal(t, wv, v)
	require.Equal(t, wr, r)
	require.Equal(t, wst, st)
	return want, wst
}

func TestSplit(t *testing.T) {
	vis := Options{Start: StartVisible}
	auto := Options{}
	for _, tc := range []struct {
		name    string
		o       Options
		in      string
		want    []run
		stats   Stats
		visible string // when want is nil: the whole output is visible
	}{
		{name: "block then answer", o: vis, in: "<think>\nplan\n</think>\n\nThe answer.",
			want:  []run{{true, "\nplan\n"}, {false, "\n\nThe answer."}},
			stats: Stats{Delimiters: 2, Blocks: 1}},
		{name: "thinking variant", o: vis, in: "<thinking>a</thinking>b",
			want: []run{{true, "a"}, {false, "b"}}, stats: Stats{Delimiters: 2, Blocks: 1}},
		{name: "kimi raw", o: vis, in: "◁think▷日本語◁/think▷答え",
			want: []run{{true, "日本語"}, {false, "答え"}}, stats: Stats{Delimiters: 2, Blocks: 1}},
		{name: "mistral raw", o: vis, in: "[THINK]x[/THINK]y [link](u)",
			want: []run{{true, "x"}, {false, "y [link](u)"}}, stats: Stats{Delimiters: 2, Blocks: 1}},
		{name: "seed", o: vis, in: "<seed:think>s</seed:think>t",
			want: []run{{true, "s"}, {false, "t"}}, stats: Stats{Delimiters: 2, Blocks: 1}},
		{name: "paired closer only", o: vis, in: "<think>a</thinking>b</think>c",
			want: []run{{true, "a</thinking>b"}, {false, "c"}}, stats: Stats{Delimiters: 2, Blocks: 1}},
		{name: "several blocks", o: vis, in: "<think>a</think>x<think>b</think>y",
			want:  []run{{true, "a"}, {false, "x"}, {true, "b"}, {false, "y"}},
			stats: Stats{Delimiters: 4, Blocks: 2}},
		{name: "empty block", o: vis, in: "a<think></think>b",
			want: []run{{false, "ab"}}, stats: Stats{Delimiters: 2, Blocks: 1}},
		{name: "unclosed at end", o: vis, in: "hi <think>still thinking",
			want: []run{{false, "hi "}, {true, "still thinking"}}, stats: Stats{Delimiters: 1, Blocks: 1, Unclosed: 1}},
		{name: "partial prefix at end is text", o: vis, in: "see <thi",
			want: []run{{false, "see <thi"}}},
		{name: "partial closer at end is reasoning", o: vis, in: "<think>a</thi",
			want: []run{{true, "a</thi"}}, stats: Stats{Delimiters: 1, Blocks: 1, Unclosed: 1}},
		{name: "angle brackets kept", o: vis, in: "if a<b && c>d then <thin> <br/> [THIN] << <<think>x</think>",
			want:  []run{{false, "if a<b && c>d then <thin> <br/> [THIN] << <"}, {true, "x"}},
			stats: Stats{Delimiters: 2, Blocks: 1}},
		{name: "orphan closer in visible mode", o: vis, in: "reasoning here</think>answer",
			want: []run{{false, "reasoning hereanswer"}}, stats: Stats{Delimiters: 1, Orphans: 1}},
		{name: "closer only in auto mode", o: auto, in: "reasoning\nhere\n</think>\n\nanswer",
			want: []run{{true, "reasoning\nhere\n"}, {false, "\n\nanswer"}}, stats: Stats{Delimiters: 1, Blocks: 1}},
		{name: "auto then opener", o: auto, in: "\n<think>r</think>v",
			want: []run{{false, "\n"}, {true, "r"}, {false, "v"}}, stats: Stats{Delimiters: 2, Blocks: 1}},
		{name: "auto without tags", o: auto, in: "plain answer",
			want: []run{{false, "plain answer"}}},
		{name: "auto second closer is orphan", o: auto, in: "r</think>v</think>w",
			want: []run{{true, "r"}, {false, "vw"}}, stats: Stats{Delimiters: 2, Blocks: 1, Orphans: 1}},
		{name: "auto hold bounded", o: Options{MaxHold: 4}, in: "abcdef</think>g",
			want: []run{{false, "abcdefg"}}, stats: Stats{Delimiters: 1, Orphans: 1}},
		{name: "start reasoning", o: Options{Start: StartReasoning}, in: "r</think>v",
			want: []run{{true, "r"}, {false, "v"}}, stats: Stats{Delimiters: 1, Blocks: 1}},
		{name: "start reasoning echoed opener", o: Options{Start: StartReasoning}, in: "<think>r</think>v",
			want: []run{{true, "r"}, {false, "v"}}, stats: Stats{Delimiters: 2, Blocks: 1}},
		{name: "start reasoning unclosed", o: Options{Start: StartReasoning}, in: "all reasoning",
			want: []run{{true, "all reasoning"}}, stats: Stats{Blocks: 1, Unclosed: 1}},
		{name: "inline code literal", o: vis, in: "Wrap it in `<think>` and `</think>` tags.",
			want: []run{{false, "Wrap it in `<think>` and `</think>` tags."}}},
		{name: "double backtick span", o: vis, in: "``a ` <think> b``<think>r</think>",
			want: []run{{false, "``a ` <think> b``"}, {true, "r"}}, stats: Stats{Delimiters: 2, Blocks: 1}},
		{name: "fenced code literal", o: vis, in: "Example:\n```xml\n<think>\nplan\n</think>\n```\n<think>r</think>done",
			want:  []run{{false, "Example:\n```xml\n<think>\nplan\n</think>\n```\n"}, {true, "r"}, {false, "done"}},
			stats: Stats{Delimiters: 2, Blocks: 1}},
		{name: "tilde fence indented", o: vis, in: "   ~~~~\n</think>\n ~~~\n~~~~\n<think>x",
			want:  []run{{false, "   ~~~~\n</think>\n ~~~\n~~~~\n"}, {true, "x"}},
			stats: Stats{Delimiters: 1, Blocks: 1, Unclosed: 1}},
		{name: "fence needs line start", o: vis, in: "a ``` <think>x</think>`",
			want: []run{{false, "a ``` <think>x</think>`"}}},
		{name: "stray backtick ends at blank line", o: vis, in: "it`s\n\n<think>r</think>v",
			want: []run{{false, "it`s\n\n"}, {true, "r"}, {false, "v"}}, stats: Stats{Delimiters: 2, Blocks: 1}},
		{name: "code in reasoning is not tracked", o: vis, in: "<think>`</think>`v",
			want: []run{{true, "`"}, {false, "`v"}}, stats: Stats{Delimiters: 2, Blocks: 1}},
		{name: "multibyte around tags", o: vis, in: "é<think>ü€</think>𝄞",
			want: []run{{false, "é"}, {true, "ü€"}, {false, "𝄞"}}, stats: Stats{Delimiters: 2, Blocks: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, st := check(t, tc.o, tc.in)
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.stats, st)
		})
	}
}

func TestRelease(t *testing.T) {
	s := &Splitter{}
	require.Empty(t, s.WriteString(nil, "The answer "))
	segs := s.Release(nil)
	segs = s.WriteString(segs, "is 4.</think>")
	require.Equal(t, []run{{false, "The answer is 4."}}, merge(segs, nil))
	require.Equal(t, Stats{Delimiters: 1, Orphans: 1}, s.Stats())
}

func TestKeepRaw(t *testing.T) {
	s, err := New(Options{KeepRaw: true, Start: StartVisible})
	require.NoError(t, err)
	var vis, reas []byte
	for _, c := range []string{"<thi", "nk>\nr\n</th", "ink>\n\nv"} {
		vis, reas = s.Append(vis, reas, []byte(c))
	}
	require.Equal(t, "<think>\nr\n</think>\n\nv", string(s.Raw()))
	vis, reas = s.Finish(vis, reas)
	require.Equal(t, "\n\nv", string(vis))
	require.Equal(t, "\nr\n", string(reas))
	require.Empty(t, s.Raw(), "Close starts the next message")
	require.Equal(t, Stats{Delimiters: 2, Blocks: 1}, s.Stats())
	s.Reset()
	require.Equal(t, Stats{}, s.Stats())
}

func TestReuseAcrossMessages(t *testing.T) {
	var s Splitter
	var got []run
	got = merge(s.WriteString(nil, "r</think>v<thi"), got)
	got = merge(s.Close(nil), got)
	got = merge(s.WriteString(nil, "second"), got)
	got = merge(s.Close(nil), got)
	require.Equal(t, []run{{true, "r"}, {false, "v<thisecond"}}, got)
}

func TestBadTags(t *testing.T) {
	for _, tags := range [][]Tag{
		{}, {{"", "</x>"}}, {{"<a b>", "</a>"}}, {{"`x", "y"}}, {{strings.Repeat("x", 65), "y"}},
		{{"a", "b"}, {"c", "d"}, {"e", "f"}, {"g", "h"}, {"i", "j"}, {"k", "l"}},
	} {
		_, err := New(Options{Tags: tags})
		require.ErrorIs(t, err, ErrBadTag, "%q", tags)
	}
	s, err := New(Options{Tags: []Tag{{"<reasoning>", "</reasoning>"}}, Start: StartVisible})
	require.NoError(t, err)
	segs := s.WriteString(nil, "<think>x</think><reasoning>y</reasoning>z")
	require.Equal(t, []run{{false, "<think>x</think>"}, {true, "y"}, {false, "z"}}, merge(s.Close(segs), nil))
}

// TestNoTagLeaks checks the visible invariant on generated content: with no
// Markdown code in the input, no visible run contains a configured tag.
func TestNoTagLeaks(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	pieces := []string{"<think>", "</think>", "<thinking>", "</thinking>", "◁think▷", "◁/think▷",
		"[THINK]", "[/THINK]", "<thi", "nk>", "</", "<", "[", "\n", " ", "é", "text", "\xe2"}
	for n := 0; n < 300; n++ {
		var b strings.Builder
		for k := r.Intn(12); k >= 0; k-- {
			b.WriteString(pieces[r.Intn(len(pieces))])
		}
		for _, o := range []Options{{}, {Start: StartVisible}, {Start: StartReasoning}} {
			check(t, o, b.String())
			requireNoTag(t, o, b.String())
		}
	}
}

// requireNoTag checks that no visible segment of the whole-string split
// holds a tag. (Removing a tag may join the text around it into a tag, as in
// "<thi</think>nk>"; the splitter does not re-scan such joins, so the check
// is per segment: each is a contiguous piece of the input.)
func requireNoTag(t testing.TB, o Options, in string) {
	s, err := New(o)
	require.NoError(t, err)
	segs := s.Close(s.WriteString(nil, in))
	for _, sg := range segs {
		if sg.Reasoning {
			continue
		}
		for _, tg := range defaultTags {
			if strings.Contains(string(sg.Text), tg.Open) || strings.Contains(string(sg.Text), tg.Close) {
				t.Fatalf("visible segment %q of %q holds a tag", sg.Text, in)
			}
		}
	}
}

func FuzzSplit(f *testing.F) {
	for _, s := range []string{
		"<think>a</think>b", "r</think>v", "`<think>`", "```\n<think>\n```\n<think>x",
		"◁think▷x◁/think▷y", "[THINK]x[/THINK]", "<thi<think>nk>", "it`s\n\n<think>r</think>",
	} {
		f.Add(s, uint8(0), uint64(1))
	}
	f.Fuzz(func(t *testing.T, in string, mode uint8, seed uint64) {
		o := Options{Start: Start(mode % 3), MaxHold: 1 + int(seed%64)}
		want, wst := feed(t, o, []string{in})
		r := rand.New(rand.NewSource(int64(seed)))
		for k := 0; k < 4; k++ {
			var cs []string
			for rest := in; rest != ""; {
				n := 1 + r.Intn(1+len(in)/3)
				if n > len(rest) {
					n = len(rest)
				}
				cs = append(cs, rest[:n])
				rest = rest[n:]
			}
			got, st := feed(t, o, cs)
			require.Equal(t, want, got, "cuts %q", cs)
			require.Equal(t, wst, st)
		}
		v, rs := texts(want)
		require.Equal(t, len(in)-len(v)-len(rs) >= 0, true)
		if !strings.ContainsAny(in, "`~") {
			requireNoTag(t, o, in)
		}
		if utf8.ValidString(in) && wst.Delimiters == 0 {
			require.Equal(t, in, v+rs, "nothing removed, nothing lost")
		}
	})
}
