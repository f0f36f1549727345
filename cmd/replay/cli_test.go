package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// When the API named refuses the input, the error says what the bytes
// look like and which flag helps, for a stream and for a body.
func TestAPIDisagreesWithTheBytes(t *testing.T) {
	const sse = "../../testdata/anthropic/thinking.sse"
	code, _, errOut := runCLI("", "decode", "--api", "openai-responses", sse)
	assert.Equal(t, 1, code)
	assert.Equal(t, "replay decode: openai-responses: event 13: the stream ended before response.completed: unexpected EOF "+
		"(the partial turn was printed, marked incomplete); the bytes look like an anthropic stream: try --api anthropic or leave --api out\n", errOut)
	const body = "../../testdata/openai/summary-encrypted.json"
	code, out, errOut := runCLI("", "decode", "--api", "gemini", body)
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.True(t, strings.HasSuffix(errOut, "; the bytes look like an openai-responses body: try --api openai-responses or leave --api out\n"), errOut)
	// convert names its own flag.
	code, _, errOut = runCLI("", "convert", "--from", "openai-responses", "--to", "anthropic", sse)
	assert.Equal(t, 1, code)
	assert.True(t, strings.HasSuffix(errOut, "the bytes look like an anthropic stream: try --from anthropic or leave --from out\n"), errOut)
	// The API the bytes look like reads them.
	code, _, errOut = runCLI("", "decode", "--api", "anthropic", sse)
	assert.Equal(t, 0, code)
	assert.Empty(t, errOut)
}

// A reader that keeps less reasoning than the bytes hold warns: an
// OpenRouter stream read as DeepSeek loses the signature. A named API
// that keeps as much says nothing.
func TestReaderWarnsOfReasoningItDoesNotKeep(t *testing.T) {
	code, out, errOut := runCLI("", "decode", "--api", "deepseek", "--compact", claudeLoop)
	assert.Equal(t, 0, code)
	assert.Equal(t, "replay decode: warning: --api deepseek kept 1 reasoning item (0 with a signature or ciphertext), but the bytes look like an openrouter stream, "+
		"and read as one they hold 1 reasoning item (1 with a signature or ciphertext): try --api openrouter or leave --api out\n", errOut)
	assert.Equal(t, "deepseek", gjson.Get(out, "provenance.api").String(), "the API named is the one used")
	// A body too.
	code, _, errOut = runCLI("", "decode", "--api", "deepseek", td+"claude-message.json")
	assert.Equal(t, 0, code)
	assert.Contains(t, errOut, "--api deepseek kept 1 reasoning item (0 with a signature or ciphertext), but the bytes look like an openrouter body, and read as one they hold 2 reasoning items (2 with")
	// Another chat API that reads the same reasoning: no warning.
	code, _, errOut = runCLI("", "decode", "--api", "openai-compatible", "../../testdata/chatcompat/xai-grok-3-mini.sse")
	assert.Equal(t, 0, code)
	assert.Empty(t, errOut)
	// encode reads the input as decode does, and warns the same way.
	code, _, errOut = runCLI("", "encode", "--api", "deepseek", claudeLoop)
	assert.Equal(t, 0, code)
	assert.Contains(t, errOut, "replay encode: warning: --api deepseek kept 1 reasoning item (0 with a signature or ciphertext)")
}

// convert to a target that will refuse the carried turn warns with the
// target's own audit: what it will answer, the fix, and whether the
// placeholder it documents (--sentinel) clears it.
func TestConvertWarnsOfRefusal(t *testing.T) {
	args := []string{"convert", "--to", "gemini", "--to-model", "gemini-3-pro-preview", claudeLoop}
	code, out, errOut := runCLI("", args...)
	assert.Equal(t, 0, code, "the message is written; the warning says what the target will do")
	assert.NotEmpty(t, out)
	lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
	require.Len(t, lines, 5, errOut)
	assert.True(t, strings.HasPrefix(lines[0], "notice: turn 0 block 0: foreign-visible-text -> drop"), lines[0])
	assert.Equal(t, `replay convert: warning: the target will refuse this turn: gemini/missing-signature: function call "get_weather" is the first call of a model step in the current turn and has no thoughtSignature (turn 0, block 1)`, lines[1])
	// What the target answers is the contract's prediction.
	rep := auditOf(t, out, "gemini-3-pro-preview")
	require.NotEmpty(t, rep.Violations)
	assert.Equal(t, "  it will answer: "+rep.Violations[0].Predicted, lines[2])
	assert.Equal(t, "  fix: "+rep.Violations[0].Fix, lines[3])
	assert.Equal(t, "  --sentinel (the placeholder signature the target documents, on an unsigned call) clears it", lines[4])

	code, _, errOut = runCLI("", append(args, "--sentinel")...)
	assert.Equal(t, 0, code)
	assert.NotContains(t, errOut, "warning")
	assert.Contains(t, errOut, "unsigned-call -> sentinel")
	// A target that accepts the turn: no warning.
	code, _, errOut = runCLI("", "convert", "--to", "anthropic", claudeLoop)
	assert.Equal(t, 0, code)
	assert.Empty(t, errOut)
}

// auditOf audits a Gemini assistant message as the target sees it.
func auditOf(t *testing.T, msg, model string) replay.Report {
	body := `{"contents":[{"role":"user","parts":[{"text":"q"}]},` + strings.TrimSpace(msg) + `]}`
	c, err := replay.Lookup("gemini", "", model)
	require.NoError(t, err)
	h, tg, err := c.DecodeRequest([]byte(body))
	require.NoError(t, err)
	tg.Model, tg.Tools = model, true
	h.Request, h.Pointers = nil, nil
	return replay.AuditReplay(h, tg)
}

// audit decodes a provider response first (a body, an SSE stream, a JSON
// Lines stream, in a directory too) and says so; the report is the one of
// the decoded turn. A line of a stream is refused with the advice.
func TestAuditDecodesResponses(t *testing.T) {
	target := []string{"audit", "--api", "openrouter", "--model", "anthropic/claude-sonnet-4.5", "--compact"}
	_, doc, _ := runCLI("", "decode", "--compact", claudeLoop)
	_, want, _ := runCLI(doc, append(target, "-")...)
	require.True(t, gjson.Get(want, "clean").Bool(), want)
	code, out, errOut := runCLI("", append(target, claudeLoop)...)
	assert.Equal(t, 0, code, errOut)
	assert.Equal(t, want, out)
	assert.Equal(t, "replay audit: "+claudeLoop+": an openrouter response, decoded first (as replay decode does)\n", errOut)

	body := td + "claude-message.json"
	_, doc, _ = runCLI("", "decode", "--compact", body)
	_, want, _ = runCLI(doc, append(target, "-")...)
	code, out, errOut = runCLI("", append(target, body)...)
	assert.Equal(t, 0, code, errOut)
	assert.Equal(t, want, out)
	assert.Equal(t, "replay audit: "+body+": an openrouter response body, decoded first (as replay decode does)\n", errOut)
	require.NoError(t, schema.Validate(schema.Report, []byte(out)))

	jsonl, err := os.ReadFile("../../testdata/cohere/thinking.jsonl")
	require.NoError(t, err)
	code, out, errOut = runCLI(string(jsonl), "audit", "--api", "cohere", "--compact", "-")
	assert.Equal(t, 0, code, errOut)
	assert.Equal(t, int64(1), gjson.Get(out, "turns").Int(), out)
	assert.Equal(t, "replay audit: standard input: a cohere response, decoded first (as replay decode does)\n", errOut)

	// A stream cut short is judged by what it gave.
	code, out, errOut = runCLI("", append(target, td+"cut-before-signature.sse")...)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "replay/incomplete-turn")
	assert.Contains(t, errOut, "cut-before-signature.sse: an openrouter response, decoded first (as replay decode does): openrouter: ")

	// In a directory: bodies and streams are conversations too.
	dir := t.TempDir()
	for _, f := range []string{claudeLoop, body, "../../testdata/cohere/thinking.jsonl"} {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "message.json"), []byte(`{"role":"assistant","content":"hi"}`), 0o644))
	code, out, _ = runCLI("", append(target, dir)...)
	assert.Equal(t, 2, code)
	assert.Equal(t, `{"source":"`+dir+`/claude-message.json","verdict":"clean","violations":0,"rules":[]}
{"source":"`+dir+`/claude-tool-loop.sse","verdict":"clean","violations":0,"rules":[]}
{"source":"`+dir+`/message.json","verdict":"unreadable","error":"neither a history (a turn document or a JSON array of them) nor a provider response: an object with \"role\", \"content\""}
{"source":"`+dir+`/thinking.jsonl","verdict":"clean","violations":0,"rules":[]}
`, out[:strings.LastIndex(strings.TrimSuffix(out, "\n"), "\n")+1])

	// One event of a stream is not a history.
	line := strings.SplitN(string(jsonl), "\n", 2)[0]
	code, _, errOut = runCLI(`[1]`+"\n"+line+"\n", "audit", "--api", "cohere", "-")
	assert.Equal(t, 2, code)
	_, out, _ = runCLI(`[1]`+"\n"+line+"\n", "audit", "--api", "cohere", "-")
	assert.Contains(t, out, `"error":"an event of a cohere stream, not a history: audit the whole stream, or decode it first (replay decode)"`)
}

// With a history and its request, what the body says of the target is
// read even when the body carries other turns than the history.
func TestAuditTargetFromTheBody(t *testing.T) {
	_, doc, _ := runCLI("", "decode", "--compact", claudeLoop)
	hist := writeFile(t, "turn.json", doc)
	req := writeFile(t, "req.json", `{"model":"anthropic/claude-sonnet-4.5","reasoning":{"enabled":true},"tools":[{"type":"function","function":{"name":"f"}}],`+
		`"messages":[{"role":"user","content":"q"},{"role":"assistant","content":"a"},{"role":"user","content":"q2"},{"role":"assistant","content":"b"}]}`)
	code, out, errOut := runCLI("", "audit", "--api", "openrouter", "--compact", "--request", req, hist)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, `{"api":"openrouter","model":"anthropic/claude-sonnet-4.5","tools":true,"store":false,"thinking":true}`, gjson.Get(out, "target").Raw)
}

// One exit status table for every command: 0 done, 1 the input refused
// for a reason the command judged, 2 it could not read or run.
func TestExitStatusTable(t *testing.T) {
	dir := t.TempDir()
	notJSON := writeFile(t, "notes.json", "this is not JSON\n")
	_, doc, _ := runCLI("", "decode", "--compact", claudeLoop)
	turn := writeFile(t, "turn.json", doc)
	_, cut, _ := runCLI("", "decode", "--compact", td+"cut-before-signature.sse")
	broken := writeFile(t, "broken.json", "["+strings.TrimSpace(doc)+","+strings.TrimSpace(cut)+"]")
	invalid := writeFile(t, "invalid.json", `{"version":1,"complete":true,"blocks":[{"type":"reasoning.encrypted"}]}`)
	missing := filepath.Join(dir, "missing.json")
	for _, c := range []struct {
		code int
		args []string
	}{
		{0, []string{"decode", claudeLoop}},
		{1, []string{"decode", td + "cut-before-signature.sse"}},
		{1, []string{"decode", td + "error-body.json"}},
		{2, []string{"decode", notJSON}},
		{2, []string{"decode", missing}},
		{2, []string{"decode", "--api", "nope", claudeLoop}},
		{0, []string{"encode", turn}},
		{1, []string{"encode", td + "cut-before-signature.sse"}},
		{2, []string{"encode", notJSON}},
		{2, []string{"encode", missing}},
		{0, []string{"convert", "--to", "anthropic", turn}},
		{1, []string{"convert", "--to", "anthropic", td + "cut-before-signature.sse"}},
		{2, []string{"convert", "--to", "anthropic", notJSON}},
		{2, []string{"convert", turn}},
		{0, []string{"audit", "--api", "openrouter", "--model", "anthropic/claude-sonnet-4.5", turn}},
		{1, []string{"audit", "--api", "openrouter", "--model", "anthropic/claude-sonnet-4.5", broken}},
		{2, []string{"audit", "--api", "openrouter", notJSON}},
		{2, []string{"audit", "--api", "openrouter", missing}},
		{2, []string{"audit", turn}},
		{0, []string{"validate", turn}},
		{1, []string{"validate", invalid}},
		{2, []string{"validate", notJSON}},
		{2, []string{"validate", invalid, notJSON}},
		{2, []string{"validate", missing}},
		{2, []string{"validate", "--kind", "nope", turn}},
		{0, []string{"session", "audit", sd + "claude-code/healthy.jsonl"}},
		{1, []string{"session", "audit", sd + "claude-code/truncated-signature.jsonl"}},
		{2, []string{"session", "audit", notJSON}},
		{2, []string{"session", "audit", missing}},
		{0, []string{"session", "repair", sd + "claude-code/truncated-signature.jsonl"}},
		{2, []string{"session", "repair", notJSON}},
		{2, []string{"session", "repair", "--write", "--undo", sd + "claude-code/healthy.jsonl"}},
		{2, []string{"proxy", "--mode", "nope"}},
		{2, []string{"proxy", "operand"}},
		{2, []string{"proxy", "--listen", "256.0.0.1:0"}},
		{0, []string{"demo"}},
		{2, []string{"demo", "x"}},
		{0, []string{"--version"}},
		{0, []string{"--help"}},
		{2, []string{}},
		{2, []string{"frobnicate"}},
	} {
		code, _, errOut := runCLI("", c.args...)
		assert.Equal(t, c.code, code, "%v: %s", c.args, errOut)
	}
	for _, c := range commands {
		code, _, _ := runCLI("", c.name, "--help")
		assert.Equal(t, 0, code, c.name)
		code, _, _ = runCLI("", c.name, "--no-such-flag")
		assert.Equal(t, 2, code, c.name)
	}
}

// A file that is not JSON says so, with the same status, in every command
// that reads one.
func TestNotJSONEverywhere(t *testing.T) {
	f := writeFile(t, "x.json", "{not json")
	for _, args := range [][]string{
		{"decode", f}, {"encode", f}, {"convert", "--to", "anthropic", f}, {"audit", "--api", "anthropic", f}, {"validate", f},
		{"session", "audit", f}, {"session", "repair", f},
	} {
		code, _, errOut := runCLI("", args...)
		assert.Equal(t, 2, code, "%v: %s", args, errOut)
		assert.Contains(t, errOut, f)
	}
}

// A JSON value of no API is described by its shape, in plain words.
func TestShapeInMessages(t *testing.T) {
	code, _, errOut := runCLI(`[{"file":"a"},{"file":"b"}]`, "encode", "-")
	assert.Equal(t, 2, code)
	assert.Equal(t, "replay encode: --api auto: standard input is a JSON body of no API this build knows (a JSON array of 2 values); name it with --api\n", errOut)
	assert.Equal(t, "a JSON array of 1 value", shape([]byte(`[1]`)))
	assert.Equal(t, "a JSON number", shape([]byte(`12`)))
	assert.Equal(t, "a JSON string", shape([]byte(`"s"`)))
	assert.Equal(t, "not JSON", shape([]byte(`{`)))
}

// --version prints the build's version line; every flag in every help is
// in the double-dash form (one dash for one letter).
func TestVersionAndHelpForm(t *testing.T) {
	code, out, errOut := runCLI("", "--version")
	assert.Equal(t, 0, code)
	assert.Empty(t, errOut)
	assert.True(t, strings.HasPrefix(out, "replay "), out)
	assert.True(t, strings.HasSuffix(out, ", "+runtime.Version()+"\n"), out)
	assert.Equal(t, version()+"\n", out)
	for _, c := range commands {
		_, _, help := runCLI("", c.name, "--help")
		for _, l := range strings.Split(help, "\n") {
			if strings.HasPrefix(l, "  -") && !strings.HasPrefix(l, "  --") {
				assert.Regexp(t, `^  -[a-zA-Z](\t| )`, l, "%s --help: a long flag with one dash", c.name)
			}
		}
	}
	// The proxy is replay-proxy (its --help, in the same form, is tested
	// in its module); replay proxy --help says where it is.
	code, _, help := runCLI("", "proxy", "--help")
	assert.Equal(t, exitCannot, code)
	assert.Equal(t, proxyMoved+"\n", help)
}
