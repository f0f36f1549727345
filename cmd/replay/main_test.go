package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonreplay/replay/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

func runCLI(stdin string, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(&env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb}, args)
	return code, out.String(), errb.String()
}

const td = "../../testdata/openrouter/"

func TestDecodePrintsValidTurnDocuments(t *testing.T) {
	files, _ := filepath.Glob(td + "*.sse")
	require.NotEmpty(t, files)
	for _, f := range files {
		for _, api := range []string{"openrouter", "auto"} {
			code, out, errOut := runCLI("", "decode", "--api", api, "--stream", f)
			require.NoError(t, schema.Validate(schema.Turn, []byte(out)), "%s: %s", f, errOut)
			complete := gjson.Get(out, "complete").Bool()
			if complete {
				assert.Equal(t, 0, code, "%s: %s", f, errOut)
			} else {
				assert.Equal(t, 1, code, f)
				assert.Contains(t, errOut, "partial turn was printed")
			}
		}
	}
	code, out, _ := runCLI("", "decode", "--api", "openrouter", "--compact", td+"claude-message.json")
	assert.Equal(t, 0, code)
	assert.Equal(t, 1, strings.Count(out, "\n"))
	require.NoError(t, schema.Validate(schema.Turn, []byte(out)))
}

func TestDecodeStdinAndJSONL(t *testing.T) {
	sse, err := os.ReadFile(td + "claude-tool-loop.sse")
	require.NoError(t, err)
	var jsonl strings.Builder
	for _, line := range strings.Split(string(sse), "\n") {
		if p, ok := strings.CutPrefix(line, "data: "); ok {
			jsonl.WriteString(p + "\n")
		}
	}
	_, want, _ := runCLI("", "decode", "--api", "openrouter", "--stream", td+"claude-tool-loop.sse")
	code, got, errOut := runCLI(jsonl.String(), "decode", "--api", "openrouter", "--stream", "--framing", "jsonl", "-")
	assert.Equal(t, 0, code, errOut)
	assert.Equal(t, want, got)
}

func TestEncode(t *testing.T) {
	code, doc, _ := runCLI("", "decode", "--api", "openrouter", td+"openai-tool-call.json")
	require.Equal(t, 0, code)
	code, fromDoc, errOut := runCLI(doc, "encode", "-")
	require.Equal(t, 0, code, errOut)
	code, fromBody, errOut := runCLI("", "encode", "--api", "openrouter", td+"openai-tool-call.json")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, fromDoc, fromBody)
	body, _ := os.ReadFile(td + "openai-tool-call.json")
	assert.JSONEq(t, gjson.GetBytes(body, "choices.0.message.reasoning_details").Raw, gjson.Get(fromDoc, "reasoning_details").Raw)
}

func TestValidate(t *testing.T) {
	files, _ := filepath.Glob(td + "golden/*.turn.json")
	code, out, errOut := runCLI("", append([]string{"validate"}, files...)...)
	assert.Equal(t, 0, code, errOut)
	assert.Equal(t, len(files), strings.Count(out, "ok  "))

	code, _, errOut = runCLI(`{"version":1,"complete":true,"blocks":[{"type":"reasoning.encrypted"}]}`, "validate", "-")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "/blocks/0")
	code, _, errOut = runCLI(`{"type":"message"}`, "validate", "-")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "--kind")
}

func TestErrorsAndExitCodes(t *testing.T) {
	code, _, errOut := runCLI("", "decode", "--api", "openrouter", td+"error-body.json")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "Provider returned error")
	code, _, errOut = runCLI("", "decode", "--api", "nonsense", td+"error-body.json")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "unknown --api")
	code, _, errOut = runCLI("", "decode", "--api", "openrouter")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "want one FILE")
	code, _, _ = runCLI("", "decode", "--api", "openrouter", "/no/such/file")
	assert.Equal(t, 2, code)
	code, _, errOut = runCLI("", "frobnicate")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "unknown command")
	code, _, errOut = runCLI("", "decode", "--api", "openrouter", "--stream", "--framing", "xml", td+"claude-tool-loop.sse")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "framing")
}

func TestHelp(t *testing.T) {
	code, out, _ := runCLI("", "--help")
	assert.Equal(t, 0, code)
	for _, c := range commands {
		assert.Contains(t, out, "replay "+c.name)
		code, _, errOut := runCLI("", c.name, "--help")
		assert.Equal(t, 0, code, c.name)
		assert.Contains(t, errOut, "Usage: replay "+c.name)
	}
	code, _, _ = runCLI("")
	assert.Equal(t, 2, code)
}

func TestDemo(t *testing.T) {
	code, out, errOut := runCLI("", "demo")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "1. Decode")
	assert.Contains(t, out, "reasoning.text")
	assert.Contains(t, out, "replayable=true")
	assert.Contains(t, out, "byte for byte: true")
	assert.Contains(t, out, "0 violations")
}

func TestEncodeStored(t *testing.T) {
	const f = "../../testdata/openai/summary-encrypted.json"
	code, stateless, errOut := runCLI("", "encode", "--api", "openai-responses", f)
	require.Equal(t, 0, code, errOut)
	code, stored, errOut := runCLI("", "encode", "--api", "openai-responses", "--stored", f)
	require.Equal(t, 0, code, errOut)
	rs := gjson.Get(stateless, `#(type=="reasoning")`)
	require.True(t, rs.Exists(), stateless)
	assert.True(t, rs.Get("encrypted_content").Exists())
	ref := gjson.Get(stored, `#(type=="item_reference")`)
	require.True(t, ref.Exists(), stored)
	assert.Equal(t, rs.Get("id").Str, ref.Get("id").Str)
	code, _, errOut = runCLI("", "encode", "--api", "openrouter", "--stored", "../../testdata/openrouter/claude-message.json")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "--stored")
}

// replay audit --request alone takes the target's model from --model when
// the body does not name it (Gemini and Bedrock bodies keep it in the URL).
func TestAuditRequestModelFlag(t *testing.T) {
	code, msg, errOut := runCLI("", "encode", "--api", "gemini", "../../testdata/gemini/body-parallel-calls.json")
	require.Equal(t, 0, code, errOut)
	require.True(t, gjson.Get(msg, "parts.#(functionCall).thoughtSignature").Exists(), msg)
	body := `{"contents":[{"role":"user","parts":[{"text":"Weather in two cities?"}]},` + msg + `]}`
	// Drop the signature of the first function call.
	var stripped strings.Builder
	parts := gjson.Get(msg, "parts").Array()
	stripped.WriteString(`{"role":"model","parts":[`)
	dropped := false
	for i, p := range parts {
		if i > 0 {
			stripped.WriteString(",")
		}
		if !dropped && p.Get("functionCall").Exists() {
			stripped.WriteString(`{"functionCall":` + p.Get("functionCall").Raw + `}`)
			dropped = true
			continue
		}
		stripped.WriteString(p.Raw)
	}
	stripped.WriteString(`]}`)
	broken := `{"contents":[{"role":"user","parts":[{"text":"Weather in two cities?"}]},` + stripped.String() + `]}`
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.json"), filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(good, []byte(body), 0o644))
	require.NoError(t, os.WriteFile(bad, []byte(broken), 0o644))

	code, out, errOut := runCLI("", "audit", "--api", "gemini", "--model", "gemini-3-pro-preview", "--tools", "--request", good)
	assert.Equal(t, 0, code, errOut)
	assert.True(t, gjson.Get(out, "clean").Bool(), out)
	code, out, _ = runCLI("", "audit", "--api", "gemini", "--model", "gemini-3-pro-preview", "--tools", "--request", bad)
	assert.Equal(t, 1, code)
	assert.Equal(t, "gemini/missing-signature", gjson.Get(out, "violations.0.rule").String(), out)
	require.NoError(t, schema.Validate(schema.Report, []byte(out)))
	// Without the model, Gemini 3's rule cannot know it applies.
	code, _, _ = runCLI("", "audit", "--api", "gemini", "--request", bad)
	assert.Equal(t, 0, code)
}
