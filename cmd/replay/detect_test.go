package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// wantAPI is the API of each response fixture: the one its golden turn
// names when it has one of its own (a chat host's), else its directory's
// (a registered API's name, or the API every golden turn of the directory
// was decoded with), except where the fixture is another API's.
func wantAPI(t *testing.T, path string) string {
	dir, base := filepath.Dir(path), filepath.Base(path)
	switch base {
	case "not-openrouter.json":
		return "anthropic" // an Anthropic message, kept to show the OpenRouter codec refuses it
	case "deepseek-tool-call.json", "midstream-error.sse":
		return "deepseek" // DeepSeek's own API (model deepseek-v4-flash, no host markers)
	case "error-429.json", "no-message.json":
		return "openai-compatible"
	}
	if filepath.Base(dir) == "openrouter" && base == "gemini-raw-signatures.sse" {
		return "openai-compatible" // a gateway's chat stream (no OpenRouter markers), read by the superset reader
	}
	if golden, err := os.ReadFile(path + ".golden.json"); err == nil {
		return gjson.GetBytes(golden, "provenance.api").String()
	}
	if _, err := replay.Default().Lookup(filepath.Base(dir), "", ""); err == nil {
		return filepath.Base(dir)
	}
	goldens, _ := filepath.Glob(filepath.Join(dir, "golden", "*.json"))
	api := ""
	for _, g := range goldens {
		b, err := os.ReadFile(g)
		require.NoError(t, err)
		a := gjson.GetBytes(b, "provenance.api").String()
		require.True(t, api == "" || a == "" || a == api, "%s: golden turns of several APIs; name the fixture's API here", path)
		if a != "" {
			api = a
		}
	}
	require.NotEmpty(t, api, "%s: no golden turn names the directory's API", path)
	return api
}

var detectedLine = regexp.MustCompile(`^replay decode: .*?: (an SSE stream|a JSON Lines stream|a JSON body|a binary AWS event stream) \((?:detected|named)\), api ([a-z-]+) \(detected\)`)

// TestAutoDetectScore decodes every response fixture under testdata with
// --api auto and no --stream, and scores what -v says was detected (API
// and framing) against the fixture's API and file type; every turn
// document (the golden turns) must read as one.
func TestAutoDetectScore(t *testing.T) {
	framingOf := map[string]string{".sse": "an SSE stream", ".jsonl": "a JSON Lines stream", ".json": "a JSON body"}
	var responses, responsesOK, docs, docsOK, others int
	var misses []string
	err := filepath.WalkDir("../../testdata", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel := strings.TrimPrefix(p, "../../testdata/")
		switch {
		case strings.HasSuffix(p, ".turn.json") || strings.HasSuffix(p, ".golden.json"):
			docs++
			src, err := open(&env{}, p)
			require.NoError(t, err)
			data, err := src.all()
			require.NoError(t, err)
			if isTurnDocument(data) {
				docsOK++
			} else {
				misses = append(misses, rel+": not read as a turn document")
			}
		case strings.Count(rel, "/") == 1 && framingOf[filepath.Ext(p)] != "" && !strings.HasPrefix(rel, "think/"):
			responses++
			_, _, errOut := runCLI("", "decode", "-v", "--compact", p)
			m := detectedLine.FindStringSubmatch(errOut)
			want := framingOf[filepath.Ext(p)] + ", " + wantAPI(t, p)
			got := "nothing: " + errOut
			if m != nil {
				got = m[1] + ", " + m[2]
			}
			if got == want {
				responsesOK++
			} else {
				misses = append(misses, rel+": detected "+got+", want "+want)
			}
		default:
			others++ // events, messages, think and fuzz files: not inputs of decode
		}
		return nil
	})
	require.NoError(t, err)
	sort.Strings(misses)
	t.Logf("auto-detection over testdata: %d of %d response fixtures (API and framing), %d of %d turn documents; %d other files are not responses",
		responsesOK, responses, docsOK, docs, others)
	for _, m := range misses {
		t.Logf("  miss: %s", m)
	}
	assert.Equal(t, docs, docsOK)
	// The one known miss: an OpenAI error body ({"error":{"message","type",
	// "param","code"}}) is the same for Responses and chat completions.
	assert.Equal(t, []string{"openai/error.json: detected a JSON body, openai-compatible, want a JSON body, openai-responses"}, misses)
	assert.GreaterOrEqual(t, responses, 90)
}

// A stream needs no --stream: the framing and the API are told from the
// first bytes, and -v says what was found.
func TestDecodeDetectsWithoutFlags(t *testing.T) {
	_, want, _ := runCLI("", "decode", "--api", "anthropic", "--stream", "--framing", "jsonl", "../../testdata/anthropic/omitted.jsonl")
	data, err := os.ReadFile("../../testdata/anthropic/omitted.jsonl")
	require.NoError(t, err)
	code, got, errOut := runCLI(string(data), "decode", "-v", "-")
	assert.Equal(t, 0, code, errOut)
	assert.Equal(t, want, got)
	assert.Equal(t, "replay decode: standard input: a JSON Lines stream (detected), api anthropic (detected), model claude-sonnet-5\n", errOut)

	code, _, errOut = runCLI("", "decode", "-v", "--api", "cohere", "../../testdata/cohere/thinking.jsonl")
	assert.Equal(t, 0, code)
	assert.Equal(t, "replay decode: ../../testdata/cohere/thinking.jsonl: a JSON Lines stream (detected), api cohere (named)\n", errOut)

	// Groq serves models of other vendors: the body's x_groq decides, not
	// the model name.
	groq := `{"id":"chatcmpl-1","object":"chat.completion","model":"deepseek-r1-distill-llama-70b","x_groq":{"id":"req_1"},` +
		`"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"hi","reasoning":"r"}}]}`
	code, out, errOut := runCLI(groq, "decode", "-v", "-")
	assert.Equal(t, 0, code, errOut)
	assert.Equal(t, "replay decode: standard input: a JSON body (detected), api openai-compatible (detected), provider groq, model deepseek-r1-distill-llama-70b\n", errOut)
	assert.Equal(t, "openai-compatible", gjson.Get(out, "provenance.api").String())
	// A Hugging Face router slug is not DeepSeek's own API either.
	hf := strings.Replace(strings.Replace(groq, `"x_groq":{"id":"req_1"},`, "", 1), "deepseek-r1-distill-llama-70b", "deepseek-ai/DeepSeek-R1", 1)
	_, _, errOut = runCLI(hf, "decode", "-v", "-")
	assert.Contains(t, errOut, "api openai-compatible (detected), model deepseek-ai/DeepSeek-R1\n")
}

// Hints say what was seen and which flag helps.
func TestDecodeHints(t *testing.T) {
	sse := "../../testdata/anthropic/thinking.sse"
	jsonl := "../../testdata/anthropic/omitted.jsonl"
	body := "../../testdata/anthropic/message.json"
	for _, c := range []struct {
		stdin string
		args  []string
		code  int
		err   string
	}{
		{"", []string{"decode", "--framing", "sse", jsonl}, 2,
			"replay decode: --framing sse: " + jsonl + ` is a JSON Lines stream (it starts with "{\"type\":\"message_start\",\"message\":{\"id\":..."); use --framing jsonl, or leave --framing out to detect it` + "\n"},
		{"", []string{"decode", "--api", "anthropic", "--stream", "--framing", "jsonl", sse}, 2,
			"replay decode: --framing jsonl: " + sse + ` is an SSE stream (it starts with "event: message_start"); use --framing sse, or leave --framing out to detect it` + "\n"},
		{"", []string{"decode", "--stream", body}, 2,
			"replay decode: --stream: " + body + " is one JSON value over several lines (a response body), not a stream; leave out --stream\n"},
		{"hello there\n", []string{"decode", "-"}, 2,
			`replay decode: standard input starts with "hello there": neither a JSON body, an SSE stream ("data:" lines), JSON lines nor an AWS event stream` + "\n"},
		{"", []string{"decode", "-"}, 2,
			"replay decode: standard input is empty: expected a response body, a stream or a turn document\n"},
		{`{"runs":[],"stats":{}}`, []string{"decode", "-"}, 2,
			`replay decode: --api auto: standard input is a JSON body of no API this build knows (an object with "runs", "stats"); name it with --api` + "\n"},
		{"data: {\"nothing\":1}\n\n", []string{"decode", "-"}, 2,
			`replay decode: --api auto: cannot tell the API from the first event (an object with "nothing"); name it with --api` + "\n"},
		{"", []string{"decode", "--api", "nope", "-"}, 2,
			`replay decode: unknown --api "nope" (want one of ` + strings.Join(replay.Default().APIs(), ", ") + ")\n"},
		{"", []string{"decode", "--framing", "xml", "-"}, 2,
			`replay decode: unknown --framing "xml" (want sse, jsonl, eventstream or auto)` + "\n"},
		{"", []string{"decode", "a", "b"}, 2, "replay decode: want one FILE (or - for standard input), got 2\n"},
	} {
		code, _, errOut := runCLI(c.stdin, c.args...)
		assert.Equal(t, c.code, code, "%v", c.args)
		assert.Equal(t, c.err, errOut, "%v", c.args)
	}
	// A turn document given to decode.
	_, doc, _ := runCLI("", "decode", body)
	code, _, errOut := runCLI(doc, "decode", "-")
	assert.Equal(t, 2, code)
	assert.Equal(t, "replay decode: standard input is a turn document, already decoded (encode, convert, audit and validate read it)\n", errOut)
}

// convert reports a cut-off stream as encode does, with a non-zero exit
// and nothing on stdout; messages carry no repeated "replay:" prefix.
func TestConvertAndEncodeFailAlike(t *testing.T) {
	const cut = "../../testdata/anthropic/cut-before-signature.sse"
	code, out, errOut := runCLI("", "encode", cut)
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Equal(t, "replay encode: anthropic: event 4: stream ended before message_stop: unexpected EOF\n", errOut)
	code, out, errOut = runCLI("", "convert", "--to", "openrouter", cut)
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Equal(t, "replay convert: anthropic: event 4: stream ended before message_stop: unexpected EOF\n", errOut)
	assert.NotContains(t, errOut, "replay: ")
}

func TestConvertSentinelAndAlias(t *testing.T) {
	// The target's contract says whether it documents a placeholder.
	code, _, errOut := runCLI("", "convert", "--to", "anthropic", "--sentinel", claudeLoop)
	assert.Equal(t, 0, code, errOut)
	assert.Equal(t, "replay convert: --sentinel: --to anthropic (no --to-model) documents no placeholder signature; ignored\n", errOut)
	code, _, errOut = runCLI("", "convert", "--to", "gemini", "--to-model", "gemini-2.0-flash", "--sentinel", claudeLoop)
	assert.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, "replay convert: --sentinel: --to gemini --to-model gemini-2.0-flash documents no placeholder signature; ignored\n")
	code, _, errOut = runCLI("", "convert", "--to", "gemini", "--to-model", "gemini-3-pro-preview", "--sentinel", claudeLoop)
	assert.Equal(t, 0, code, errOut)
	assert.NotContains(t, errOut, "--sentinel")
	assert.NotContains(t, errOut, "warning")
	// --api is --from under another name.
	_, a, _ := runCLI("", "convert", "--from", "openrouter", "--to", "anthropic", claudeLoop)
	_, b, _ := runCLI("", "convert", "--api", "openrouter", "--to", "anthropic", claudeLoop)
	assert.Equal(t, a, b)
	code, _, errOut = runCLI("", "convert", "--help")
	assert.Equal(t, 0, code)
	assert.Contains(t, errOut, "  --api API\n    \tan alias of --from")
}

// encode reads every provenance field of a turn document: a DeepSeek-R1
// turn is written without reasoning_content, which R1 refuses.
func TestEncodeReadsProvenance(t *testing.T) {
	doc := `{"version":1,"provenance":{"api":"deepseek","provider":"deepseek","model":"deepseek-r1"},"complete":true,` +
		`"blocks":[{"type":"reasoning.text","text":"think","format":"deepseek-v1"},{"type":"text","text":"answer"}]}`
	code, out, errOut := runCLI(doc, "encode", "--compact", "-")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, `{"role":"assistant","content":"answer"}`+"\n", out)
	// A flag overrides the document.
	code, out, errOut = runCLI(doc, "encode", "--compact", "--model", "deepseek-v4-flash", "-")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, `{"role":"assistant","content":"answer","reasoning_content":"think"}`+"\n", out)
}
