package gemini

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// partialStream is a JSONL stream of one call whose arguments arrive as n
// pieces, per pieces in a frame; piece(i) is one partialArgs element.
func partialStream(n, per int, piece func(i int) string) string {
	var sb strings.Builder
	sb.WriteString(`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","willContinue":true}}]}}]}` + "\n")
	for i := 0; i < n; i += per {
		sb.WriteString(`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[`)
		for j := i; j < i+per && j < n; j++ {
			if j > i {
				sb.WriteByte(',')
			}
			sb.WriteString(piece(j))
		}
		sb.WriteString(`],"willContinue":true}}]}}]}` + "\n")
	}
	sb.WriteString(`{"candidates":[{"content":{"parts":[{"functionCall":{}}]},"finishReason":"STOP"}]}` + "\n")
	return sb.String()
}

func decodeJSONL(t testing.TB, data string) (*replay.Turn, time.Duration, error) {
	start := time.Now()
	tu, err := stream.Decode(strings.NewReader(data), Codec{}, stream.Options{Framing: stream.FramingJSONL})
	return tu, time.Since(start), err
}

// Issue 11: 100k distinct paths took 98 s and 400k one-character pieces
// 26 s (a string concatenation and an sjson rebuild per piece). Both are
// linear now: four times the input costs about four times the bytes
// allocated and about four times the time (the time is logged, memory is
// asserted: it is the deterministic measure on a shared machine; a
// quadratic reassembly allocates sixteen times as much).
func TestPartialArgsLinear(t *testing.T) {
	distinct := func(i int) string {
		return `{"jsonPath":"$.k` + strconv.Itoa(i) + `","numberValue":` + strconv.Itoa(i) + `}`
	}
	oneChar := func(int) string { return `{"jsonPath":"$.text","stringValue":"x"}` }
	for _, c := range []struct {
		name  string
		n     int
		piece func(int) string
	}{{"100k distinct paths", 100_000, distinct}, {"400k one-character pieces", 400_000, oneChar}} {
		if raceEnabled {
			c.n /= 10 // the ratio is what is checked; the sizes of issue 11 without -race
		}
		cost := func(data string) (time.Duration, uint64) {
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			tu, took, err := decodeJSONL(t, data)
			runtime.ReadMemStats(&m1)
			require.NoError(t, err, c.name)
			require.Len(t, tu.ToolCalls(), 1)
			return took, m1.TotalAlloc - m0.TotalAlloc
		}
		small, full := partialStream(c.n/4, 1000, c.piece), partialStream(c.n, 1000, c.piece)
		ts, as := cost(small)
		tf, af := cost(full)
		ratio := float64(af) / float64(as)
		t.Logf("%s: %d bytes in %v (%d MB allocated); a quarter in %v (%d MB): allocation ratio %.1f (linear 4, quadratic 16)",
			c.name, len(full), tf, af>>20, ts, as>>20, ratio)
		assert.Less(t, ratio, 6.0, c.name)
	}
	tu, _, err := decodeJSONL(t, partialStream(400_000, 1000, oneChar))
	require.NoError(t, err)
	assert.Equal(t, `{"text":"`+strings.Repeat("x", 400_000)+`"}`, tu.ToolCalls()[0].Arguments)
	tu, _, err = decodeJSONL(t, partialStream(3, 1000, distinct))
	require.NoError(t, err)
	assert.Equal(t, `{"k0":0,"k1":1,"k2":2}`, tu.ToolCalls()[0].Arguments)
}

// Issue 11: a jsonPath of millions of segments overflowed the stack in the
// sjson rebuild. A path deeper than the nesting bound is a typed error.
func TestPartialArgsDeepPath(t *testing.T) {
	for _, n := range []int{maxArgDepth + 1, 2_000_000} {
		path := "$" + strings.Repeat(".a", n)
		data := partialStream(1, 1, func(int) string { return `{"jsonPath":"` + path + `","numberValue":1}` })
		_, err := stream.Decode(strings.NewReader(data), Codec{}, stream.Options{Framing: stream.FramingJSONL, Limits: replay.Limits{MaxEvent: 8 << 20}})
		require.ErrorIs(t, err, replay.ErrMalformed, n)
		assert.Contains(t, err.Error(), `unsupported jsonPath "$.a.a.a.a`, n)
	}
	// At the bound it is read, and the arguments are as deep as the path.
	path := "$" + strings.Repeat(".a", 100) + "[0]"
	tu, _, err := decodeJSONL(t, partialStream(1, 1, func(int) string { return `{"jsonPath":"` + path + `","boolValue":true}` }))
	require.NoError(t, err)
	assert.Equal(t, strings.Repeat(`{"a":`, 100)+`[true]`+strings.Repeat("}", 100), tu.ToolCalls()[0].Arguments)
}

// Paths that revisit, replace and mix containers.
func TestPartialArgsShapes(t *testing.T) {
	for _, c := range []struct {
		pieces []string
		want   string
	}{
		{[]string{`{"jsonPath":"$.a","stringValue":"x"}`, `{"jsonPath":"$.b","numberValue":1}`, `{"jsonPath":"$.a","stringValue":"y"}`}, `{"a":"y","b":1}`},
		{[]string{`{"jsonPath":"$.a","stringValue":"x"}`, `{"jsonPath":"$.a","stringValue":"y"}`}, `{"a":"xy"}`},
		{[]string{`{"jsonPath":"$.l[0].n","stringValue":"p"}`, `{"jsonPath":"$.l[0].q","numberValue":2}`, `{"jsonPath":"$.l[1].n","stringValue":"r"}`}, `{"l":[{"n":"p","q":2},{"n":"r"}]}`},
		{[]string{`{"jsonPath":"$['a.b']","nullValue":"NULL_VALUE"}`, `{"jsonPath":"$['\"']","stringValue":"\"\\"}`}, `{"a.b":null,"\"":"\"\\"}`},
		{[]string{`{"jsonPath":"$.a","numberValue":1}`, `{"jsonPath":"$.a.b","numberValue":2}`}, `{"a":{"b":2}}`},
	} {
		i := 0
		tu, _, err := decodeJSONL(t, partialStream(len(c.pieces), 1, func(int) string { i++; return c.pieces[i-1] }))
		require.NoError(t, err, c.want)
		assert.Equal(t, c.want, tu.ToolCalls()[0].Arguments)
	}
	// Many members: the index map takes over past eight, order is kept.
	var pieces []string
	var want []string
	for k := 0; k < 20; k++ {
		pieces = append(pieces, `{"jsonPath":"$.m`+strconv.Itoa(k)+`","numberValue":`+strconv.Itoa(k)+`}`)
		want = append(want, `"m`+strconv.Itoa(k)+`":`+strconv.Itoa(k))
	}
	pieces = append(pieces, `{"jsonPath":"$.m3","numberValue":33}`)
	want[3] = `"m3":33`
	i := 0
	tu, _, err := decodeJSONL(t, partialStream(len(pieces), 7, func(int) string { i++; return pieces[i-1] }))
	require.NoError(t, err)
	assert.Equal(t, "{"+strings.Join(want, ",")+"}", tu.ToolCalls()[0].Arguments)

	for _, bad := range []string{"$.a[1]", "$.a[-1]", "$.a[x]", "$.a[", "$['a", "$..a", "a.b", "$.a[12345678901]"} {
		data := partialStream(1, 1, func(int) string { return `{"jsonPath":"` + bad + `","numberValue":1}` })
		_, _, err := decodeJSONL(t, data)
		require.ErrorIs(t, err, replay.ErrMalformed, bad)
		assert.Contains(t, err.Error(), "unsupported jsonPath", bad)
	}
}

// Issue 11: a lone surrogate escape in a signature became U+FFFD, an
// altered signature. It is refused, located at the member, in bodies,
// streams and requests.
func TestLoneSurrogateSignatureRefused(t *testing.T) {
	for _, sig := range []string{`QQ\ud800==`, `\udfff`, `\ud800\u0041`} {
		body := `{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{}},"thoughtSignature":"` + sig + `"}]},"finishReason":"STOP"}]}`
		_, err := Codec{}.Decode([]byte(body))
		require.ErrorIs(t, err, replay.ErrMalformed, sig)
		var me *replay.Error
		require.ErrorAs(t, err, &me)
		assert.Equal(t, "/candidates/0/content/parts/0/thoughtSignature", me.Pointer)
		_, err = stream.Decode(strings.NewReader("data: "+body+"\n\n"), Codec{}, stream.Options{})
		require.ErrorIs(t, err, replay.ErrMalformed, sig)

		thought := `{"candidates":[{"content":{"parts":[{"text":"t","thought":true,"thoughtSignature":"` + sig + `"}]},"finishReason":"STOP"}]}`
		_, err = Codec{}.Decode([]byte(thought))
		require.ErrorIs(t, err, replay.ErrMalformed, sig)

		req := `{"contents":[{"role":"user","parts":[{"text":"go"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{}},"thoughtSignature":"` + sig + `"}]}]}`
		_, _, err = Codec{}.DecodeRequest([]byte(req))
		require.ErrorIs(t, err, replay.ErrMalformed, sig)
		require.ErrorAs(t, err, &me)
		assert.Equal(t, "/contents/1/parts/0/thoughtSignature", me.Pointer)
	}
	// A pair is one character, kept.
	body := `{"candidates":[{"content":{"parts":[{"text":"","thoughtSignature":"QQ\ud83d\ude00"}]},"finishReason":"STOP"}]}`
	tu, err := Codec{}.Decode([]byte(body))
	require.NoError(t, err)
	assert.Equal(t, "QQ\U0001F600", tu.Blocks[0].(*replay.Encrypted).Data)
	// Lone surrogates in visible text are not signed bytes: kept as U+FFFD,
	// as encoding/json reads them.
	body = `{"candidates":[{"content":{"parts":[{"text":"a\ud800b"}]},"finishReason":"STOP"}]}`
	tu, err = Codec{}.Decode([]byte(body))
	require.NoError(t, err)
	assert.Equal(t, "a\uFFFDb", tu.VisibleText())
}

// Issue 11: every string the turn keeps is bounded, the response's own
// members too (model version, usage, finish reason).
func TestResponseMembersLimited(t *testing.T) {
	big := strings.Repeat("x", 64)
	for name, body := range map[string]string{
		"modelVersion":  `{"candidates":[{"content":{"parts":[{"text":"ok"}]},"finishReason":"STOP"}],"modelVersion":"` + big + `"}`,
		"usageMetadata": `{"candidates":[{"content":{"parts":[{"text":"ok"}]},"finishReason":"STOP"}],"usageMetadata":{"note":"` + big + `"}}`,
		"finishReason":  `{"candidates":[{"content":{"parts":[{"text":"ok"}]},"finishReason":"` + big + `"}]}`,
	} {
		_, err := Codec{Limits: replay.Limits{MaxItem: 32}}.Decode([]byte(body))
		var le *replay.LimitError
		require.ErrorAs(t, err, &le, name)
		assert.Equal(t, "item size", le.What, name)
		assert.Equal(t, 32, le.Limit, name)
		tu, err := Codec{}.Decode([]byte(body))
		require.NoError(t, err, name)
		assert.Equal(t, "ok", tu.VisibleText())
	}
}
