package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonreplay/replay/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

const claudeLoop = td + "claude-tool-loop.sse"

// claudeSignature is the signature in claudeLoop, read through decode.
func claudeSignature(t *testing.T) string {
	_, doc, _ := runCLI("", "decode", "--api", "openrouter", "--stream", claudeLoop)
	sig := gjson.Get(doc, `blocks.#(signature!="").signature`).String()
	require.NotEmpty(t, sig)
	return sig
}

func TestConvert(t *testing.T) {
	sig := claudeSignature(t)
	// Same family: the signature goes to Anthropic (and Bedrock) as it came.
	for _, p := range []string{"anthropic", "bedrock"} {
		code, out, errOut := runCLI("", "convert", "--from", "openrouter", "--to", "anthropic", "--to-provider", p, "--stream", claudeLoop)
		require.Equal(t, 0, code, errOut)
		assert.Empty(t, errOut)
		assert.Equal(t, sig, gjson.Get(out, `content.#(type=="thinking").signature`).String())
	}
	// Another issuer: dropped with a notice, or sent as plain text.
	code, out, errOut := runCLI("", "convert", "--from", "openrouter", "--to", "openrouter", "--to-model", "openai/gpt-5", "--stream", claudeLoop)
	require.Equal(t, 0, code, errOut)
	assert.NotContains(t, out, sig)
	assert.False(t, gjson.Get(out, "reasoning_details").Exists())
	assert.Contains(t, errOut, "notice: turn 0 block 0: foreign-visible-text -> drop")
	code, out, errOut = runCLI("", "convert", "--from", "openrouter", "--to", "openrouter", "--to-model", "openai/gpt-5", "--to-text", "--stream", claudeLoop)
	require.Equal(t, 0, code, errOut)
	assert.NotContains(t, out, sig)
	content := gjson.Get(out, "content").String()
	assert.True(t, strings.HasPrefix(content, "The user wants the weather in Zürich"), content)
	assert.NotContains(t, content, "<think")
	assert.Contains(t, errOut, "-> to-text")

	// A turn document works as input too.
	_, doc, _ := runCLI("", "decode", "--api", "openrouter", "--stream", claudeLoop)
	code, out, errOut = runCLI(doc, "convert", "--to", "anthropic", "-")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, sig)

	code, _, errOut = runCLI("", "convert", "--from", "openrouter", claudeLoop)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "--to is required")
	code, _, errOut = runCLI("", "convert", "--help")
	assert.Equal(t, 0, code)
	assert.Contains(t, errOut, "--to-text")
}

func writeFile(t *testing.T, name, data string) string {
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(data), 0o644))
	return p
}

func TestAudit(t *testing.T) {
	_, doc, _ := runCLI("", "decode", "--api", "openrouter", "--compact", "--stream", claudeLoop)
	one := writeFile(t, "turn.json", doc)

	code, out, errOut := runCLI("", "audit", "--api", "openrouter", "--model", "anthropic/claude-sonnet-4.5", one)
	require.Equal(t, 0, code, errOut)
	require.NoError(t, schema.Validate(schema.Report, []byte(out)))
	assert.True(t, gjson.Get(out, "clean").Bool())
	assert.Equal(t, int64(1), gjson.Get(out, "signed").Int())

	// The Claude turn sent to an OpenAI model, and a cut-off turn: exit 1.
	_, cut, _ := runCLI("", "decode", "--api", "openrouter", "--compact", "--stream", td+"cut-before-signature.sse")
	hist := writeFile(t, "history.json", "["+strings.TrimSpace(doc)+","+strings.TrimSpace(cut)+"]")
	code, out, errOut = runCLI("", "audit", "--api", "openrouter", "--model", "openai/gpt-5", hist)
	assert.Equal(t, 1, code)
	require.NoError(t, schema.Validate(schema.Report, []byte(out)))
	var rules []string
	for _, v := range gjson.Get(out, "violations.#.rule").Array() {
		rules = append(rules, v.String())
	}
	assert.Contains(t, rules, "replay/foreign-format")
	assert.Contains(t, rules, "replay/incomplete-turn")
	assert.Contains(t, errOut, "the provider would reject this request")

	// A request body alone, and a history with its request.
	req := `{"model":"anthropic/claude-sonnet-4.5","messages":[{"role":"user","content":"q"},` +
		`{"role":"assistant","content":"a","reasoning_details":[{"type":"reasoning.text","text":"t","signature":"","format":"anthropic-claude-v1"}]}]}`
	body := writeFile(t, "req.json", req)
	code, out, _ = runCLI("", "audit", "--api", "openrouter", "--request", body)
	assert.Equal(t, 1, code)
	assert.Equal(t, "/messages/1", gjson.Get(out, "violations.0.pointer").String())
	assert.Equal(t, "replay/empty-signature", gjson.Get(out, "violations.0.rule").String())
	code, out, errOut = runCLI("", "audit", "--api", "openrouter", "--request", body, one)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "anthropic/claude-sonnet-4.5", gjson.Get(out, "target.model").String(), "the target is read from the request")

	code, _, _ = runCLI("", "audit", one)
	assert.Equal(t, 2, code)
	code, _, errOut = runCLI("", "audit", "--help")
	assert.Equal(t, 0, code)
	assert.Contains(t, errOut, "0 when no violation would make the provider reject a request, 1 when one would, 2 when it could not judge")
	code, _, errOut = runCLI("[1]", "audit", "--api", "openrouter", "-")
	assert.Equal(t, 2, code, "an unreadable history cannot be judged")
	assert.Contains(t, errOut, "replay audit: standard input: turn 0: ")
}

func TestDemoSecondAct(t *testing.T) {
	code, out, errOut := runCLI("", "demo")
	require.Equal(t, 0, code, errOut)
	for _, want := range []string{
		"Act 2: switching providers",
		"foreign-visible-text -> to-text",
		"carries a Claude signature: false",
		"0 violations, clean=true",
		"replay/foreign-format [reject]",
		"replay/unfinished-item [reject]",
		"rejects=true",
	} {
		assert.Contains(t, out, want)
	}
}
