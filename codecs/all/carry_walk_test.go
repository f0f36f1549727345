package all_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	_ "github.com/reasonreplay/replay/codecs/all"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// capture is one recorded response to walk.
type capture struct {
	name, api, provider string
	stream              bool
	framing             stream.Framing
}

// walkTargets are the targets every capture is carried to: each registered
// API, and OpenRouter routing to two vendors.
func walkTargets() []replay.Target {
	profile := map[string]replay.Target{
		"anthropic":        {Provider: "anthropic", Model: "claude-sonnet-4-5"},
		"openai-responses": {Provider: "openai", Model: "gpt-5"},
		"gemini":           {Provider: "aistudio", Model: "gemini-3-pro-preview"},
		"bedrock-converse": {Provider: "bedrock", Model: "anthropic.claude-sonnet-4-5"},
		"deepseek":         {Provider: "deepseek", Model: "deepseek-reasoner"},
		"mistral":          {Provider: "mistral", Model: "magistral-medium-latest"},
		"cohere":           {Provider: "cohere", Model: "command-a-reasoning"},
		"xai":              {Provider: "xai", Model: "grok-4"},
	}
	var out []replay.Target
	for _, api := range replay.Default().APIs() {
		t := profile[api]
		t.API, t.Tools = api, true
		if api == "openrouter" {
			out = append(out, replay.Target{API: api, Model: "anthropic/claude-sonnet-4.5", Tools: true})
			t.Model = "openai/gpt-5"
		}
		out = append(out, t)
	}
	return out
}

// nativeFamilies tells, independently of the library's tables, which
// issuers a target may receive signatures and ciphertext from.
func nativeFamilies(t replay.Target) []string {
	switch {
	case t.API == "openrouter" && strings.HasPrefix(t.Model, "anthropic/"), t.API == "anthropic",
		t.API == "bedrock-converse" && strings.Contains(t.Model, "claude"):
		return []string{"anthropic"}
	case t.API == "openrouter" && strings.HasPrefix(t.Model, "openai/"), t.API == "openai-responses":
		return []string{string(formats.OpenAIResponses)}
	case t.API == "gemini":
		return []string{"google"}
	}
	return nil
}

// needsToolIDs tells, independently of the contracts, whether a target's
// tool results name their call by id: every API here but those that name
// it by function name (byName).
func needsToolIDs(t replay.Target) bool { return !byName[t.API] }

// emptyIDs are the spellings of an empty call id in the encoded shapes.
var emptyIDs = []string{`"id":""`, `"call_id":""`, `"toolUseId":""`, `"tool_call_id":""`}

// checkToolIDs asserts that every tool call of the carried turn has a
// non-empty id of its own and that the encoded message carries it.
func checkToolIDs(t *testing.T, name string, tg replay.Target, carried *replay.Turn, msg []byte) int {
	seen := map[string]bool{}
	for _, c := range carried.ToolCalls() {
		assert.NotEmpty(t, c.ID, "%s -> %s: a tool call %q without an id", name, tg.API, c.Name)
		assert.False(t, seen[c.ID], "%s -> %s: the tool call id %q twice", name, tg.API, c.ID)
		seen[c.ID] = true
		assert.Contains(t, string(msg), c.ID, "%s -> %s: the id of %q is not encoded", name, tg.API, c.Name)
	}
	for _, e := range emptyIDs {
		assert.NotContains(t, string(msg), e, "%s -> %s: an empty id was encoded", name, tg.API)
	}
	return len(seen)
}

// handles lists the signatures and encrypted data of a turn's items with
// their format families.
func handles(tu *replay.Turn) map[string]string {
	out := map[string]string{}
	for _, it := range tu.Items() {
		fam := it.Meta().Format.Family()
		switch x := it.(type) {
		case *replay.ReasoningText:
			if s := x.Signature.Value(); len(s) >= 8 {
				out[s] = fam
			}
		case *replay.Encrypted:
			if len(x.Data) >= 8 {
				out[x.Data] = fam
			}
		}
	}
	return out
}

// walk carries every capture to every target and checks that no foreign
// signature or ciphertext is emitted, and that the carried history passes
// the cross-provider and core rules.
func walk(t *testing.T, captures []capture, read func(capture) ([]byte, error)) int {
	walked, idCalls := 0, 0
	defer func() { t.Logf("checked %d tool call ids on targets that need them", idCalls) }()
	for _, c := range captures {
		codec, err := replay.Lookup(c.api, c.provider, "")
		if err != nil {
			t.Logf("%s: no %s codec in this build; skipped", c.name, c.api)
			continue
		}
		data, err := read(c)
		require.NoError(t, err)
		var tu *replay.Turn
		if c.stream {
			tu, _ = stream.Decode(strings.NewReader(string(data)), codec, stream.Options{Framing: c.framing})
		} else {
			tu, _ = codec.Decode(data)
		}
		if tu == nil {
			continue // an error body or a malformed fixture
		}
		walked++
		hs := handles(tu)
		for _, tg := range walkTargets() {
			out, notices := replay.Carry(replay.History{Turns: []*replay.Turn{tu}}, tg, replay.Policy{replay.CaseForeignText: replay.ToText})
			enc, err := replay.Default().Lookup(tg.API, tg.Provider, tg.Model)
			require.NoError(t, err)
			msg, err := enc.Encode(out.Turns[0])
			if err != nil {
				t.Logf("%s -> %s: encode: %v", c.name, tg.API, err)
				continue
			}
			if needsToolIDs(tg) {
				idCalls += checkToolIDs(t, c.name, tg, out.Turns[0], msg)
			}
			native := nativeFamilies(tg)
			for h, fam := range hs {
				if !strings.Contains(string(msg), h) {
					continue
				}
				ok := tu.Provenance.API == tg.API && !(tg.API == "openrouter")
				for _, f := range native {
					ok = ok || f == fam
				}
				assert.True(t, ok, "%s -> %s %s: a %s handle %.12s… was emitted", c.name, tg.API, tg.Model, fam, h)
			}
			rep := replay.AuditReplay(out, tg)
			for _, v := range rep.Violations {
				if strings.HasPrefix(v.Rule, "replay/") {
					t.Errorf("%s -> %s %s: carried history: %v (notices: %v)", c.name, tg.API, tg.Model, v, notices)
				}
			}
		}
	}
	return walked
}

// manifestAPI maps the corpus manifest's api names to codec API names.
var manifestAPI = map[string]string{"anthropic-messages": "anthropic"}

func TestCarryWalkCorpus(t *testing.T) {
	const dir = "../../../shared/corpus"
	data, err := os.ReadFile(filepath.Join(dir, "MANIFEST.json"))
	if err != nil {
		t.Skipf("no corpus next to the project (%v): the walk over the project's testdata still runs", err)
	}
	var manifest []struct {
		File, API, Provider, Format string
		Streaming                   bool
	}
	require.NoError(t, json.Unmarshal(data, &manifest))
	var cs []capture
	for _, m := range manifest {
		api := m.API
		if a, ok := manifestAPI[api]; ok {
			api = a
		}
		fr := stream.FramingSSE
		if m.Format == "chunks-jsonl" {
			fr = stream.FramingJSONL
		}
		cs = append(cs, capture{name: m.File, api: api, provider: m.Provider, stream: m.Streaming, framing: fr})
	}
	n := walk(t, cs, func(c capture) ([]byte, error) { return os.ReadFile(filepath.Join(dir, c.name)) })
	t.Logf("carried %d of %d captures to %d targets", n, len(cs), len(walkTargets()))
	assert.Positive(t, n)
}

// testdataAPI maps the project's testdata directories to codec API names.
var testdataAPI = map[string]string{"openai": "openai-responses", "chatcompat": "openai-compatible", "bedrock": "bedrock-converse"}

func TestCarryWalkTestdata(t *testing.T) {
	files, err := filepath.Glob("../../testdata/*/*")
	require.NoError(t, err)
	var cs []capture
	for _, f := range files {
		dir := filepath.Base(filepath.Dir(f))
		if dir == "fuzz" {
			continue
		}
		api := dir
		if a, ok := testdataAPI[dir]; ok {
			api = a
		}
		c := capture{name: f, api: api}
		switch filepath.Ext(f) {
		case ".sse":
			c.stream, c.framing = true, stream.FramingSSE
		case ".jsonl":
			c.stream, c.framing = true, stream.FramingJSONL
		case ".json":
		default:
			continue
		}
		cs = append(cs, c)
	}
	n := walk(t, cs, func(c capture) ([]byte, error) { return os.ReadFile(c.name) })
	t.Logf("carried %d of %d fixtures to %d targets", n, len(cs), len(walkTargets()))
	assert.Positive(t, n)
}
