package schema_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/reasonreplay/replay"
	_ "github.com/reasonreplay/replay/codecs/all"
	"github.com/reasonreplay/replay/internal/itemdigest"
	"github.com/reasonreplay/replay/schema"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// agreeSeeds are documents on the edge of what the schema and the library
// accept (the library's findings included).
var agreeSeeds = []string{
	// An item of a type the library keeps whole still has its common
	// members checked: an index must be an integer.
	`{"version":1,"complete":true,"blocks":[{"type":"reasoning.0","index":0.1}]}`,
	`{"type":"reasoning.x","digest":"sha1:00","unfinished":"yes"}`,
	`{"version":1,"complete":true,"blocks":[{"type":"reasoning.text","text":"a","index":1.0}]}`,
	`{"version":1,"complete":true,"blocks":[{"type":"reasoning.text","text":"a","index":1e2}]}`,
	`{"version":1,"complete":true,"blocks":[{"type":"reasoning.text","text":"a","index":1.5}]}`,
	`{"version":1.0,"complete":true,"blocks":[]}`,
	`{"version":1,"complete":true,"blocks":[{"type":"reasoning.text","text":"a","digest":"md5:x"}]}`,
	`{"version":1,"complete":true,"blocks":[{"type":"reasoning.text","text":"a","extra":{"foo":1}}]}`,
	`{"version":1,"complete":true,"blocks":[{"type":"reasoning.text","text":"a","extra":{"text":1}}]}`,
	`{"version":1,"complete":true,"blocks":[{"type":"tool_call","id":"c","name":"f"}]}`,
	`{"version":1,"complete":true,"blocks":[{"type":"text","text":"a","extra":{"x":1}}]}`,
	`{"version":1,"complete":true,"error":{"status":400.5},"blocks":[]}`,
	`{"version":1,"complete":true,"error":{"status":400},"blocks":[]}`,
	`{"version":1,"complete":true,"provenance":{"issuer":"x"},"blocks":[]}`,
	`{"version":1,"complete":true,"usage":null,"blocks":[]}`,
	`{"version":1,"complete":true,"blocks":[{"type":"native","kind":"k","raw":null}]}`,
	`{"version":1,"complete":true,"blocks":[{"type":"reasoning.future","anything":[1]}]}`,
	`{"type":"reasoning.encrypted","data":"x","format":null,"id":null,"index":null}`,
	`{"type":"reasoning.summary","summary":"s","signature":1}`,
	`{"version":1,"complete":true,"blocks":[{"type":"compaction","format":"openai-responses-v1","id":"cmp_1","data":"x","content":null}]}`,
	`{"version":1,"complete":true,"blocks":[{"type":"compaction","content":"c","signature":"s","extra":{"data":1},"other":[1]}]}`,
	`{"version":1,"complete":true,"blocks":[{"type":"compaction","unfinished":"yes"}]}`,
	`{"version":1,"complete":true,"blocks":[{"type":"compaction","extra":{"nope":1}}]}`,
	`{"version":1,"complete":true,"provenance":{"model":"claude-opus-5-5","requested_model":"claude-fable-5-1","chain_hash":"sha256:00"},"blocks":[]}`,
	`{"version":1,"complete":true,"transformations":[{"type":"thinking_dropped","reason":"prefix_binding_mismatch","path":"messages.3.content.0","note":1}],"blocks":[]}`,
	`{"version":1,"complete":true,"transformations":[{"reason":"x"}],"blocks":[]}`,
	`{"version":1,"complete":true,"transformations":[{"type":1}],"blocks":[]}`,
	`{"version":1,"complete":true,"transformations":{},"blocks":[]}`,
	`{"version":1,"complete":true,"provenance":{"requested_model":1},"blocks":[]}`,
	// Version 2 and the members version 1 named otherwise.
	`{"version":2,"complete":true,"provenance":{"issuer":"acct","prefix_hash":"sha256:00"},"blocks":[]}`,
	`{"version":2,"complete":true,"provenance":{"issuer":"a","account":"a"},"blocks":[]}`,
	`{"version":1,"complete":true,"provenance":{"legacy_prefix_hash":"x"},"blocks":[]}`,
	`{"version":2,"complete":true,"provenance":{"legacy_prefix_hash":"x","prefix_hash":"y"},"blocks":[]}`,
	`{"version":2,"complete":true,"blocks":[{"type":"reasoning.x","unfinished":true,"digest":"sha256:` + strings.Repeat("0", 64) + `","extra":{"type":"reasoning.x","digest":"x"}}]}`,
	`{"version":2,"complete":true,"blocks":[{"type":"reasoning.x","unfinished":"yes","extra":{"type":"reasoning.x"}}]}`,
	`{"version":1,"complete":true,"blocks":[{"type":"reasoning.x","unfinished":true,"extra":{"type":"reasoning.x"}}]}`,
	`{"version":2,"complete":true,"blocks":[{"type":"reasoning.text","text":"a","extra":{"p": 1,"text":2}}]}`,
	`{"version":1,"complete":true,"blocks":[{"type":"tool_call","id":"c","name":"f","arguments":"{}","unfinished":"yes","extra":5}]}`,
	`{"version":3,"complete":true,"blocks":[]}`,
}

// mistyped are the common and library members of a reasoning_details
// entry of a type the library does not know, mistyped: decode keeps such
// an entry whole, and the document reader reads it the same way.
var mistyped = []string{`"format":10`, `"index":{}`, `"index":1.5`, `"id":5`, `"digest":"x"`, `"unfinished":"yes"`, `"attached":1`, `"display":1`, `"extra":5`}

// FuzzSchemaAgreement: the published schema accepts a document if and
// only if the library reads it, and what the library reads it writes back
// to a document it reads again, unchanged. JSON Schema cannot see a name
// repeated in one object, invalid UTF-8 or a lone surrogate escape in a
// signature (the JSON decoder replaces both), or nesting deeper than the
// library reads: such documents are refused by the library and left out of
// the comparison.
func FuzzSchemaAgreement(f *testing.F) {
	for _, s := range agreeSeeds {
		f.Add(s)
	}
	for _, m := range mistyped {
		f.Add(`{"type":"reasoning.future",` + m + `}`)
	}
	_ = filepath.WalkDir("../testdata", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".json") && !strings.Contains(path, "/fuzz/") {
			if b, err := os.ReadFile(path); err == nil {
				if _, ok := schema.Detect(b); ok && len(b) < 4096 {
					f.Add(string(b))
				}
			}
		}
		return nil
	})
	f.Fuzz(func(t *testing.T, doc string) {
		checkAgreement(t, doc)
	})
}

func checkAgreement(t *testing.T, doc string) {
	t.Helper()
	if !utf8.ValidString(doc) || strings.Count(doc, "[")+strings.Count(doc, "{") > 500 {
		return
	}
	for _, kind := range []schema.Kind{schema.Turn, schema.Item} {
		var libErr error
		var again []byte
		if kind == schema.Turn {
			tu, err := replay.UnmarshalTurn([]byte(doc))
			libErr = err
			if err == nil {
				again = tu.AppendJSON(nil)
				back, err := replay.UnmarshalTurn(again)
				require.NoError(t, err, "the library writes a turn it cannot read: %s", again)
				require.Equal(t, string(again), string(back.AppendJSON(nil)))
			}
		} else {
			it, err := replay.UnmarshalItem([]byte(doc))
			libErr = err
			if err == nil {
				again = it.AppendJSON(nil)
				back, err := replay.UnmarshalItem(again)
				require.NoError(t, err, "the library writes an item it cannot read: %s", again)
				require.Equal(t, string(again), string(back.AppendJSON(nil)))
			}
		}
		if libErr != nil && (strings.Contains(libErr.Error(), "repeats an earlier member") || strings.Contains(libErr.Error(), "lone surrogate")) {
			continue // what JSON Schema cannot see: the library refuses it
		}
		schemaErr := schema.ValidateSchema(kind, []byte(doc))
		require.Equal(t, schemaErr == nil, libErr == nil, "%s %s: schema says %v, library says %v", kind, doc, schemaErr, libErr)
		if again != nil {
			require.NoError(t, schema.ValidateSchema(kind, again), "the library writes a %s the schema refuses: %s", kind, again)
		}
	}
	checkDecoders(t, doc)
}

// checkDecoders puts doc, as a reasoning_details entry, in an OpenRouter
// response body and stream, and in the same shapes of the
// OpenAI-compatible hosts: what a decoder accepts, the document reader
// reads and the published schema validates, and the turn encodes the
// same before and after its document.
func checkDecoders(t *testing.T, detail string) {
	t.Helper()
	if !strings.HasPrefix(strings.TrimSpace(detail), "{") {
		return
	}
	body := `{"id":"gen-1","model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"ok","reasoning_details":[` + detail + `]}}]}`
	events := "data: " + `{"id":"gen-1","model":"m","choices":[{"index":0,"delta":{"role":"assistant","reasoning_details":[` + detail + `]}}]}` + "\n\ndata: " +
		`{"id":"gen-1","model":"m","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"
	if strings.Contains(detail, "\n") || strings.Contains(detail, "\r") {
		events = "" // an SSE data line cannot hold it
	}
	for _, api := range []string{"openrouter", "openai-compatible"} {
		c, err := replay.Lookup(api, "", "")
		require.NoError(t, err)
		var turns []*replay.Turn
		if tu, err := c.Decode([]byte(body)); err == nil {
			turns = append(turns, tu)
		}
		if events != "" {
			if tu, err := stream.Decode(strings.NewReader(events), c, stream.Options{}); err == nil {
				turns = append(turns, tu)
			}
		}
		for _, tu := range turns {
			doc := tu.AppendJSON(nil)
			back, err := replay.UnmarshalTurn(doc)
			require.NoError(t, err, "%s decodes what the document reader refuses: %s", api, doc)
			require.NoError(t, schema.ValidateSchema(schema.Turn, doc), "%s decodes what the schema refuses: %s", api, doc)
			a, errA := c.Encode(tu)
			b, errB := c.Encode(back)
			require.Equal(t, errA == nil, errB == nil)
			require.True(t, bytes.Equal(a, b), "%s encodes differently after the document:\n%s\n%s", api, a, b)
		}
	}
}

func TestSchemaAgreesWithLibrary(t *testing.T) {
	for _, s := range agreeSeeds {
		checkAgreement(t, s)
	}
	for _, m := range mistyped {
		checkAgreement(t, `{"type":"reasoning.future",`+m+`}`)
	}
	// A document the library refuses for a repeated name is refused by
	// Validate too, at the member.
	err := schema.Validate(schema.Item, []byte(`{"type":"reasoning.text","text":"a","signature":"REAL","signature":""}`))
	var se *schema.Error
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "/signature", se.Problems[0].Pointer)
}

// TestMistypedMembersReadAsDecoded: an OpenRouter reasoning_details entry of
// a type the library does not know, with a common or library member
// mistyped, decodes (kept whole), and its document reads, validates and
// encodes the entry back byte for byte, in the body and in the stream.
func TestMistypedMembersReadAsDecoded(t *testing.T) {
	c, err := replay.Lookup("openrouter", "", "")
	require.NoError(t, err)
	for _, m := range mistyped {
		detail := `{"type":"reasoning.future","format":"meta-llama-v9",` + m + `,"payload":{"a": [1, 2]}}`
		if strings.HasPrefix(m, `"format"`) {
			detail = `{"type":"reasoning.future",` + m + `,"payload":{"a": [1, 2]}}`
		}
		body := `{"id":"gen-1","model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"ok","reasoning_details":[` + detail + `]}}]}`
		tu, err := c.Decode([]byte(body))
		require.NoError(t, err, m)
		require.Len(t, tu.Items(), 1, m)
		o, ok := tu.Items()[0].(*replay.Opaque)
		require.True(t, ok, m)
		assert.Equal(t, detail, string(o.Raw), m)
		doc := tu.AppendJSON(nil)
		require.NoError(t, schema.Validate(schema.Turn, doc), m)
		require.NoError(t, schema.ValidateSchema(schema.Turn, doc), m)
		back, err := replay.UnmarshalTurn(doc)
		require.NoError(t, err, m)
		assert.Equal(t, detail, string(back.Items()[0].(*replay.Opaque).Raw), m)
		want, err := c.Encode(tu)
		require.NoError(t, err)
		got, err := c.Encode(back)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), m)
		assert.Contains(t, string(got), detail, m)
		// The same sealed: the digest rides beside the provider's object.
		back.Seal()
		sealed, err := replay.UnmarshalTurn(back.AppendJSON(nil))
		require.NoError(t, err, m)
		assert.Equal(t, itemdigest.Of(o), sealed.Items()[0].Meta().Digest, m)
		assert.Equal(t, detail, string(sealed.Items()[0].(*replay.Opaque).Raw), m)
		checkDecoders(t, detail)
	}
}
