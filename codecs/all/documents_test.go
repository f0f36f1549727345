package all_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/anthropic"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/internal/itemdigest"
	"github.com/reasonreplay/replay/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// encoderChanged names the earlier documents that encode otherwise than
// when they were written, and why (never the reading of the document):
// what this build encodes is in <name>.encode.today (go test -update
// writes it).
var encoderChanged = map[string]string{
	// Since af2020a `replay encode` picks the codec by the document's
	// provenance (its model too): deepseek-v4-flash gets the DeepSeek
	// profile, which sends reasoning_content back on an assistant message.
	"0cd03e4-chatcompat-midstream-error-sse": "the codec is picked by the model since af2020a",
	// The build that wrote it could not read it (unfinished:"yes" of an
	// item of a type kept whole); what it encoded is the turn it wrote
	// from, whose provider members (note, digest, ...) the version-1
	// writer of b04051d on reordered in the document (those named like
	// the document's own went in "extra", after the others): this build
	// reads them in the document's order, and writes them in their order.
	"c5c526f-library-openrouter": "the version-1 document holds the provider members reordered",
}

// auditChanged names the earlier documents whose audit reports otherwise
// than when they were written because a rule came or changed (never the
// reading of the document): the rules this build reports are in
// <name>.audit.today (go test -update writes it).
var auditChanged = map[string]string{
	// replay/foreign-format came with cd83431: the meta-llama-v9 and
	// xai-responses-v1 items are foreign to an Anthropic model.
	"502ef68-library-openrouter": "replay/foreign-format came with cd83431",
}

// TestEarlierDocuments: every shape of turn document earlier builds wrote
// (testdata/documents/<commit>-<what>.turn.json, written by the build of
// that commit: "library" ones by the library's writer from one turn with
// every member that build had, the others by its `replay decode` of the
// project's fixtures of that time) reads, validates against the schema,
// encodes to what that build encoded (<name>.encode, or fails as it
// failed, <name>.encode.err) and audits to the rules that build reported
// (<name>.audit); written again by this build, it reads back to the
// same document and the same encoding.
func TestEarlierDocuments(t *testing.T) {
	files, err := filepath.Glob("../../testdata/documents/*.turn.json")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 30)
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".turn.json")
		t.Run(name, func(t *testing.T) {
			doc, err := os.ReadFile(path)
			require.NoError(t, err)
			tu, err := replay.UnmarshalTurn(doc)
			require.NoError(t, err)
			require.NoError(t, schema.Validate(schema.Turn, doc))
			require.NoError(t, schema.ValidateSchema(schema.Turn, doc))
			p := tu.Provenance
			c, err := replay.Lookup(p.API, p.Provider, p.Model)
			require.NoError(t, err)
			enc, encErr := c.Encode(tu)

			// Written again: the same turn.
			again := tu.AppendJSON(nil)
			back, err := replay.UnmarshalTurn(again)
			require.NoError(t, err)
			assert.Equal(t, string(again), string(back.AppendJSON(nil)))
			enc2, encErr2 := c.Encode(back)
			assert.Equal(t, encErr == nil, encErr2 == nil)
			assert.Equal(t, string(enc), string(enc2), "encoded alike before and after this build's document")

			stem := strings.TrimSuffix(path, ".turn.json")
			wantEnc := stem + ".encode"
			if _, ok := encoderChanged[name]; ok {
				wantEnc = stem + ".encode.today"
			}
			if _, ok := encoderChanged[name]; ok && *codectest.Update {
				require.NoError(t, os.WriteFile(wantEnc, enc, 0o644))
			}
			if want, err := os.ReadFile(wantEnc); err == nil {
				require.NoError(t, encErr)
				assert.Equal(t, string(want), string(enc), "encodes as the build that wrote it did")
			} else if _, err := os.Stat(stem + ".encode.err"); err == nil {
				assert.Error(t, encErr, "fails to encode as the build that wrote it did")
			}

			target := replay.Target{API: p.API}
			if strings.Contains(name, "-library-") {
				target.Model = p.Model
			}
			wantAudit := stem + ".audit"
			if _, ok := auditChanged[name]; ok {
				wantAudit = stem + ".audit.today"
			}
			var got []string
			for _, v := range replay.AuditReplay(replay.History{Turns: []*replay.Turn{tu}}, target).Violations {
				got = append(got, v.Rule)
			}
			if _, ok := auditChanged[name]; ok && *codectest.Update {
				require.NoError(t, os.WriteFile(wantAudit, []byte(strings.Join(append(got, ""), "\n")), 0o644))
			}
			if want, err := os.ReadFile(wantAudit); err == nil {
				assert.Equal(t, strings.Join(strings.Fields(string(want)), " "), strings.Join(got, " "), "audits as the build that wrote it did")
			}
		})
	}
}

// The library-written documents of every earlier build: the provenance's
// issuer is the account; a version-1 prefix_hash, of whichever definition
// its build used, is legacy and audits clean after the prefix it was made
// after (never a mismatch); the provider's members named like the
// library's, kept beside the item or in "extra", go back to the provider;
// the library's own (a display copy, a digest) stay the library's.
func TestEarlierLibraryDocuments(t *testing.T) {
	req, err := os.ReadFile("../../testdata/documents/request.body")
	require.NoError(t, err)
	binding, err := anthropic.PrefixHashBefore(req, 1)
	require.NoError(t, err)
	files, err := filepath.Glob("../../testdata/documents/*-library-*.turn.json")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 14)
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".turn.json")
		doc, err := os.ReadFile(path)
		require.NoError(t, err)
		tu, err := replay.UnmarshalTurn(doc)
		require.NoError(t, err, name)
		assert.Equal(t, "org-1", tu.Provenance.Account, name)
		assert.Empty(t, tu.Provenance.PrefixHash, "%s: a version-1 prefix_hash is legacy", name)
		if strings.Contains(string(doc), `"prefix_hash"`) {
			assert.NotEmpty(t, tu.Provenance.LegacyPrefixHash, name)
			if tu.Provenance.API == "anthropic" {
				h := replay.History{Turns: []*replay.Turn{tu}, Request: req, Pointers: []string{"/messages/1"}}
				tg := replay.Target{API: "anthropic", Model: "claude-fable-5-1", AccountCreated: time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)}
				for _, v := range replay.AuditReplay(h, tg).Violations {
					assert.NotContains(t, []string{anthropic.RulePrefixMismatch, anthropic.RulePrefixUnverified}, v.Rule, "%s: %s", name, v.Message)
				}
				// Against the binding hash alone, a hash of the first
				// definition cannot be verified, and says so.
				tg.PrefixHash = binding
				var rules []string
				for _, v := range replay.AuditReplay(replay.History{Turns: []*replay.Turn{tu}}, tg).Violations {
					rules = append(rules, v.Rule)
				}
				assert.NotContains(t, rules, anthropic.RulePrefixMismatch, name)
				assert.Equal(t, tu.Provenance.LegacyPrefixHash != binding, slices.Contains(rules, anthropic.RulePrefixUnverified), name)
			}
		}
		if tu.Provenance.API != "openrouter" {
			continue
		}
		items := tu.Items()
		require.GreaterOrEqual(t, len(items), 5, name)
		// Item 1 came with the provider's digest, unfinished, attached and
		// display, none of the library's type.
		plain := items[1]
		assert.False(t, plain.Meta().Unfinished, name)
		assert.Empty(t, plain.Meta().Digest, name)
		wire := string(plain.AppendWire(nil))
		for _, m := range []string{`"digest":"x"`, `"unfinished":"yes"`, `"attached":1`, `"display":1`, `"note":"n"`} {
			assert.Contains(t, wire, m, "%s: the provider's member goes back", name)
		}
		// Item 4 is of a type kept whole: its object is the provider's.
		o, ok := items[4].(*replay.Opaque)
		require.True(t, ok, name)
		assert.Equal(t, `{"type":"reasoning.server_tool_call","id":"srvtool_9","format":"openai-responses-v1","index":4,"call": {"name": "web_search"},"display":"theirs","unfinished":"yes"}`, string(o.Raw), name)
		assert.False(t, o.Unfinished, name)
		if strings.Contains(string(doc), `"digest":"sha256:`) {
			// Built with Redact and Seal: the signed item's display copy
			// and digest are the library's, and match its bytes.
			signed := items[0]
			assert.Equal(t, replay.Some("Weather and **** first."), signed.Meta().Display, name)
			assert.Equal(t, itemdigest.Of(signed), signed.Meta().Digest, name)
			assert.NotContains(t, string(signed.AppendWire(nil)), "****", name)
		}
	}
}
