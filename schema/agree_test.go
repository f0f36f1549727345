package schema_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/schema"
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
}

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
				again = replay.MarshalItem(it)
				back, err := replay.UnmarshalItem(again)
				require.NoError(t, err, "the library writes an item it cannot read: %s", again)
				require.Equal(t, string(again), string(replay.MarshalItem(back)))
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
}

func TestSchemaAgreesWithLibrary(t *testing.T) {
	for _, s := range agreeSeeds {
		checkAgreement(t, s)
	}
	// A document the library refuses for a repeated name is refused by
	// Validate too, at the member.
	err := schema.Validate(schema.Item, []byte(`{"type":"reasoning.text","text":"a","signature":"REAL","signature":""}`))
	var se *schema.Error
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "/signature", se.Problems[0].Pointer)
}
