package bench

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/gemini"
	"github.com/reasonreplay/replay/stream"
	"google.golang.org/genai"
)

// geminiStream builds a long synthetic streamGenerateContent?alt=sse body in
// the documented Gemini 3 shape: thought summary chunks, visible text
// chunks, a signed function call followed by an unsigned parallel call,
// more text, and the final empty-text part with the turn's last
// signature. Every chunk repeats usageMetadata, modelVersion and
// responseId, as the API does.
func geminiStream(thoughts, texts int) []byte {
	var b bytes.Buffer
	sig := func(n int, seed byte) string {
		raw := make([]byte, n)
		for i := range raw {
			raw[i] = seed + byte(i*7)
		}
		return base64.StdEncoding.EncodeToString(raw)
	}
	usage := func(i int) string {
		return fmt.Sprintf(`"usageMetadata":{"promptTokenCount":812,"candidatesTokenCount":%d,"thoughtsTokenCount":%d,"totalTokenCount":%d}`, i*9, 300+i, 1112+i*10)
	}
	tail := `,"modelVersion":"gemini-3-flash-preview","responseId":"c3ludGhldGljU3RyZWFtMDE"}`
	i := 0
	chunk := func(parts, extra string) {
		fmt.Fprintf(&b, `data: {"candidates":[{"content":{"parts":[%s],"role":"model"}%s,"index":0}],%s%s`+"\n\n", parts, extra, usage(i), tail)
		i++
	}
	for k := 0; k < thoughts; k++ {
		chunk(fmt.Sprintf(`{"text":"**Step %d: weighing the options**\n\nI compare the harbour tide tables with the ferry timetable and check the \"slack water\" windows for step %d.","thought":true}`, k, k), "")
	}
	for k := 0; k < texts; k++ {
		chunk(fmt.Sprintf(`{"text":"Sentence %d of the answer explains the crossing plan, with times in UTC and a note on weather \u2014 wind from the north-west. "}`, k), "")
	}
	chunk(`{"functionCall":{"name":"get_tides","args":{"harbour":"Roscoff","day":"2026-03-02","units":"metric"},"id":"k3v9q1ab"},"thoughtSignature":"`+sig(3000, 17)+`"},{"functionCall":{"name":"get_tides","args":{"harbour":"Plymouth","day":"2026-03-02","units":"metric"},"id":"p0z7w2cd"}}`, "")
	for k := 0; k < texts/4; k++ {
		chunk(fmt.Sprintf(`{"text":"Follow-up %d: the return leg leaves at 17:45 if the swell stays under two metres. "}`, k), "")
	}
	chunk(`{"text":"","thoughtSignature":"`+sig(1000, 3)+`"}`, `,"finishReason":"STOP"`)
	return b.Bytes()
}

var geminiData = geminiStream(120, 400)

var cpuRatio = flag.Bool("gemini.cpu", false, "measure the CPU-time ratio in TestGeminiCPURatio")

// decodeReplay decodes the stream into a replayable turn with this module.
func decodeReplay(tb testing.TB, data []byte) *replay.Turn {
	d := stream.NewDecoder(gemini.Codec{}, stream.Options{})
	if _, err := d.Write(data); err != nil {
		tb.Fatal(err)
	}
	for _, ok := d.Next(); ok; _, ok = d.Next() {
	}
	t, err := d.Close()
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// decodeGenAI decodes each chunk into a genai.GenerateContentResponse the
// cheapest way the SDK's types allow: the SDK's own line scanner, then one
// json.Unmarshal per event straight into the struct. (The SDK's real
// stream path is slower: it unmarshals into a map, converts it, and
// re-encodes and decodes it into the struct; see BenchmarkGeminiGenAIPath.)
func decodeGenAI(tb testing.TB, data []byte) []*genai.GenerateContentResponse {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var out []*genai.GenerateContentResponse
	for sc.Scan() {
		line := sc.Bytes()
		_, payload, ok := bytes.Cut(line, []byte("data:"))
		if !ok {
			continue
		}
		r := new(genai.GenerateContentResponse)
		if err := json.Unmarshal(payload, r); err != nil {
			tb.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// decodeGenAIPath follows the SDK's own stream path per event: unmarshal
// into a map, then InternalMapToStruct (JSON re-encode and decode) into the
// struct. It skips only the SDK's field-name converter, a map copy.
func decodeGenAIPath(tb testing.TB, data []byte) []*genai.GenerateContentResponse {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var out []*genai.GenerateContentResponse
	for sc.Scan() {
		line := sc.Bytes()
		_, payload, ok := bytes.Cut(line, []byte("data:"))
		if !ok {
			continue
		}
		m := map[string]any{}
		if err := json.Unmarshal(payload, &m); err != nil {
			tb.Fatal(err)
		}
		r := new(genai.GenerateContentResponse)
		if err := genai.InternalMapToStruct(m, r); err != nil {
			tb.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func TestGeminiBenchInputsAgree(t *testing.T) {
	turn := decodeReplay(t, geminiData)
	resps := decodeGenAI(t, geminiData)
	if len(resps) != 120+400+1+100+1 {
		t.Fatalf("genai decoded %d chunks", len(resps))
	}
	// The SDK sees the same signatures (as bytes it decoded) and the same
	// visible text.
	var text strings.Builder
	var sigs []string
	for _, r := range resps {
		for _, p := range r.Candidates[0].Content.Parts {
			if len(p.ThoughtSignature) > 0 {
				sigs = append(sigs, base64.StdEncoding.EncodeToString(p.ThoughtSignature))
			}
			if !p.Thought {
				text.WriteString(p.Text)
			}
		}
	}
	var ours []string
	for _, b := range turn.Blocks {
		if e, ok := b.(*replay.Encrypted); ok {
			ours = append(ours, e.Data)
			if !e.Replayable() {
				t.Fatal("signature not replayable")
			}
		}
	}
	if fmt.Sprint(ours) != fmt.Sprint(sigs) || turn.VisibleText() != text.String() || !turn.Complete {
		t.Fatalf("decoders disagree: %d vs %d signatures", len(ours), len(sigs))
	}
	if n := len(decodeGenAIPath(t, geminiData)); n != len(resps) {
		t.Fatalf("SDK path decoded %d chunks", n)
	}
}

func BenchmarkGeminiReplay(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(geminiData)))
	for b.Loop() {
		decodeReplay(b, geminiData)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(bytes.Count(geminiData, []byte("\n\n"))), "ns/event")
}

func BenchmarkGeminiGenAI(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(geminiData)))
	for b.Loop() {
		decodeGenAI(b, geminiData)
	}
}

func BenchmarkGeminiGenAIPath(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(geminiData)))
	for b.Loop() {
		decodeGenAIPath(b, geminiData)
	}
}

// TestGeminiCPURatio reports the CPU time per decode of both decoders,
// alternating rounds so that both see the same machine load. Run with
// -v -run TestGeminiCPURatio -gemini.cpu.
func TestGeminiCPURatio(t *testing.T) {
	if !*cpuRatio {
		t.Skip("pass -gemini.cpu to measure")
	}
	c, stop := sdkServer(t, geminiData)
	defer stop()
	var ours, sdk, path, client time.Duration
	for round := 0; round < 5; round++ {
		ours += cpuPerOp(200, func() { decodeReplay(t, geminiData) })
		sdk += cpuPerOp(40, func() { decodeGenAI(t, geminiData) })
		path += cpuPerOp(20, func() { decodeGenAIPath(t, geminiData) })
		client += cpuPerOp(20, func() { decodeGenAIClient(t, c) })
	}
	t.Logf("CPU per decode of %d bytes: replay %v; json.Unmarshal into genai types %v (%.1fx); genai stream path %v (%.1fx); genai client over loopback %v (%.1fx)",
		len(geminiData), ours/5, sdk/5, float64(sdk)/float64(ours), path/5, float64(path)/float64(ours), client/5, float64(client)/float64(ours))
}
