package openai

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// seen is what a test compares of a gjson value (Index aside: the readers
// never use it).
type seen struct {
	Type gjson.Type
	Raw  string
	Str  string
	Num  float64
}

func seenOf(r gjson.Result) seen { return seen{r.Type, r.Raw, r.Str, r.Num} }

// requireSameWalk requires get, forEach and count to read v, and every
// value nested in it, as gjson does.
func requireSameWalk(t *testing.T, v gjson.Result) {
	t.Helper()
	var want, got [][2]seen
	v.ForEach(func(k, x gjson.Result) bool {
		want = append(want, [2]seen{seenOf(k), seenOf(x)})
		return true
	})
	forEach(v, func(k, x gjson.Result) bool {
		got = append(got, [2]seen{seenOf(k), seenOf(x)})
		return true
	})
	require.Equal(t, want, got, v.Raw)
	require.Equal(t, int(v.Get("#").Int()), count(v), v.Raw)
	if v.IsObject() {
		v.ForEach(func(k, _ gjson.Result) bool {
			if k.Str != "" && !strings.ContainsAny(k.Str, `.*?#|@\!=<>%"`) {
				require.Equal(t, seenOf(v.Get(k.Str)), seenOf(get(v, k.Str)), "%s in %s", k.Str, v.Raw)
			}
			return true
		})
		require.Equal(t, seenOf(v.Get("absent")), seenOf(get(v, "absent")))
	}
	// Stopped early, as ForEach stops.
	n := 0
	forEach(v, func(_, _ gjson.Result) bool { n++; return false })
	m := 0
	v.ForEach(func(_, _ gjson.Result) bool { m++; return false })
	require.Equal(t, m, n)
	v.ForEach(func(_, x gjson.Result) bool {
		if x.Type == gjson.JSON {
			requireSameWalk(t, x)
		}
		return true
	})
}

// Every body and stream event of the fixtures, and values written to hit
// escapes, numbers, literals and space, read by get, forEach and count as
// gjson reads them.
func TestWalkReadsAsGjson(t *testing.T) {
	var docs []string
	files, err := filepath.Glob(filepath.Join("../../testdata/openai", "*"))
	require.NoError(t, err)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // a directory
		}
		if strings.HasSuffix(f, ".json") {
			docs = append(docs, string(b))
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := strings.TrimPrefix(sc.Text(), "data: ")
			if strings.HasPrefix(line, "{") {
				docs = append(docs, line)
			}
		}
	}
	require.Greater(t, len(docs), 50)
	docs = append(docs,
		` { "a\u0062" : "x\"y\\z\u00e9\ud83d\ude00" , "n": -0.5e+3, "i": 12345678901234567890, "t":true,"f":false,"z":null,`+
			`"o":{ },"e":[ ],"arr":[ 1 , "two\n" , {"k":[[]]} , null ], "lone":"\ud800x", "s":"" } `,
		`[ {"text":"a"}, 3, "x", [1,[2]] ]`,
		`{"type":"summary_text","text":"**Plan**\n\nThe \"kettle\" \u2014 85 \u00b0C"}`,
	)
	for _, d := range docs {
		require.True(t, jsonw.Valid(d), d)
		requireSameWalk(t, gjson.Parse(d))
	}
	// Neither an object nor an array: passed whole, as ForEach does.
	for _, s := range []string{`"x"`, `5`, `null`} {
		var got []seen
		forEach(gjson.Parse(s), func(k, x gjson.Result) bool {
			got = append(got, seenOf(k), seenOf(x))
			return true
		})
		require.Equal(t, []seen{{}, seenOf(gjson.Parse(s))}, got)
		require.Equal(t, seen{}, seenOf(get(gjson.Parse(s), "a")))
		require.Zero(t, count(gjson.Parse(s)))
	}
	forEach(gjson.Result{}, func(_, _ gjson.Result) bool { t.Fatal("called for nothing"); return false })
}

// A part that is not an object with a string text is refused at its
// pointer, in a body and in a stream's finished item.
func TestReadPartsRefusals(t *testing.T) {
	for _, tc := range []struct{ parts, ptr string }{
		{`[{"type":"summary_text","text":"a"},"x"]`, "/output/0/summary/1"},
		{`[{"type":"summary_text","text":"a"},{"type":"summary_text","text":"b"},{"type":"summary_text","text":5}]`, "/output/0/summary/2"},
		{`[{"type":"summary_text"}]`, "/output/0/summary/0"},
		{`{"text":"a"}`, "/output/0/summary"},
	} {
		body := `{"object":"response","status":"completed","output":[{"type":"reasoning","id":"rs_1","summary":` + tc.parts + `}]}`
		_, err := Codec{}.Decode([]byte(body))
		var e *replay.Error
		require.ErrorAs(t, err, &e, tc.parts)
		require.ErrorIs(t, err, replay.ErrMalformed)
		require.Equal(t, tc.ptr, e.Pointer)
		require.Equal(t, -1, e.Event)

		d := &StreamDecoder{}
		_, err = d.Decode(nil, []byte(`{"type":"response.output_item.done","output_index":0,"item":{"type":"reasoning","id":"rs_1","summary":`+tc.parts+`}}`), nil)
		require.ErrorAs(t, err, &e, tc.parts)
		require.Equal(t, strings.Replace(tc.ptr, "/output/0", "/item", 1), e.Pointer)
		require.Equal(t, 0, e.Event)
	}
	r := reasoning{}
	bud := kit.NewBudget(API, replay.Limits{}, -1)
	require.NoError(t, r.read(gjson.Parse(`{"type":"reasoning","status":"in_progress","summary":[{"text":"x"},{"text":"y\u00e9"}],"content":null}`), "/item", 0, &bud))
	require.Equal(t, []string{"x", "yé"}, r.summaries)
	require.Nil(t, r.texts)
	require.True(t, r.unfinished)
}

// The members of an event's item, part and response that readFields keeps
// in its one pass are the values get finds in them.
func TestReadFieldsNestedAsGet(t *testing.T) {
	var events []string
	files, err := filepath.Glob(filepath.Join("../../testdata/openai", "*.*"))
	require.NoError(t, err)
	for _, f := range files {
		if strings.HasSuffix(f, ".json") {
			continue
		}
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, line := range strings.Split(string(b), "\n") {
			if line = strings.TrimPrefix(line, "data: "); strings.HasPrefix(line, "{") {
				events = append(events, line)
			}
		}
	}
	require.Greater(t, len(events), 50)
	events = append(events,
		`{"type":"response.output_item.done","item":"x","part":[1],"response":5}`,
		`{"type":"response.output_item.done","item":{"t\u0079pe":"a\u0062","type2":1},"part":{"text":"x\ud800y","type":null}}`,
		`{"type":"response.completed","response":{"output":{"a":1},"usage":[1],"model":7}}`,
		`{"type":"response.completed","response":{"model":"m\"x","output":[ 1, {"a":[2]} , [] ,"s"],"usage":{"input_tokens":1}}}`,
		`{"type":"response.completed","response":{"output":[]}}`,
		`{"item":{"":0,"type":"a"},"part":{"":1,"text":""},"response":{"":[]}}`,
	)
	for _, e := range events {
		fl, obj, ok := readFields(e)
		require.True(t, ok && obj, e)
		require.Equal(t, seenOf(get(fl.item, "type")), seenOf(value(fl.itemType)), e)
		require.Equal(t, seenOf(get(fl.part, "type")), seenOf(value(fl.partType)), e)
		require.Equal(t, seenOf(get(fl.part, "text")), seenOf(value(fl.partText)), e)
		require.Equal(t, seenOf(get(fl.response, "model")), seenOf(value(fl.respModel)), e)
		require.Equal(t, seenOf(get(fl.response, "output")), seenOf(value(fl.respOutput)), e)
		require.Equal(t, seenOf(get(fl.response, "usage")), seenOf(value(fl.respUsage)), e)
		require.Equal(t, count(get(fl.response, "output")), fl.outputs, e)
		require.Equal(t, seenOf(gjson.Get(e, "item")), seenOf(fl.item), e)
		require.Equal(t, seenOf(gjson.Get(e, "response")), seenOf(fl.response), e)
	}
	fl, _, _ := readFields(`{"type":"response.completed","response":{"model":"m\"x","output":[ 1, {"a":[2]} , [] ,"s"],"usage":{"input_tokens":1}}}`)
	require.Equal(t, 4, fl.outputs)
	require.Equal(t, `"m\"x"`, fl.respModel)
}

// A finished item's texts that differ from what the deltas built replace
// it, copied out of the frame (the sweep overwrites every chunk it has
// written); the ones that extend it add the missing tail.
func TestItemDoneTextsReplaceDeltas(t *testing.T) {
	data := `data: {"type":"response.output_item.added","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}}

data: {"type":"response.reasoning_summary_text.delta","output_index":0,"summary_index":0,"delta":"abc"}

data: {"type":"response.reasoning_summary_text.delta","output_index":0,"summary_index":1,"delta":"de"}

data: {"type":"response.output_item.done","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"xyz"},{"type":"summary_text","text":"def\u00e9"}],"encrypted_content":"gAAA"}}

data: {"type":"response.completed","response":{"status":"completed","output":[]}}

`
	res := codectest.SweepStream(t, func() codecs.FrameDecoder { return &StreamDecoder{} }, stream.Options{}, []byte(data))
	require.NoError(t, res.Err)
	require.Len(t, res.Turn.Blocks, 3)
	require.Equal(t, "xyz", res.Turn.Blocks[0].(*replay.Summary).Summary)
	require.Equal(t, "defé", res.Turn.Blocks[1].(*replay.Summary).Summary)
	require.Equal(t, "gAAA", res.Turn.Blocks[2].(*replay.Encrypted).Data)
	require.Equal(t, map[int]string{0: "abc", 1: "defé"}, codectest.MergedDeltas(res.Events, stream.EventReasoningDelta))
}
