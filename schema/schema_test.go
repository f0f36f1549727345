package schema_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonreplay/replay/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFixturesValidate validates every JSON document under testdata that is
// a turn, item or report document (golden outputs included).
func TestFixturesValidate(t *testing.T) {
	n := 0
	err := filepath.WalkDir("../testdata", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") || strings.Contains(path, "/fuzz/") {
			return err
		}
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		kind, ok := schema.Detect(b)
		if !ok {
			return nil
		}
		n++
		assert.NoError(t, schema.Validate(kind, b), path)
		return nil
	})
	require.NoError(t, err)
	require.Positive(t, n, "no documents found under testdata")
	t.Logf("%d documents validated", n)
}

func TestBrokenDocumentsNameTheMember(t *testing.T) {
	cases := []struct {
		kind    schema.Kind
		doc     string
		pointer string
	}{
		{schema.Item, `{"type":"thinking","text":"x"}`, "/type"},
		{schema.Item, `{"type":"reasoning.encrypted","format":"anthropic-claude-v1"}`, ""},
		{schema.Item, `{"type":"reasoning.text","text":"x","signature":42}`, "/signature"},
		{schema.Turn, `{"version":1,"complete":true,"blocks":[{"type":"reasoning.encrypted","id":"rs_1"}]}`, "/blocks/0"},
		{schema.Turn, `{"version":1,"complete":true,"blocks":[{"type":"reasoning.text","text":"x","signature":false}]}`, "/blocks/0/signature"},
		{schema.Turn, `{"version":1,"complete":true,"blocks":[{"type":"banana"}]}`, "/blocks/0/type"},
		{schema.Turn, `{"version":3,"complete":true,"blocks":[]}`, "/version"},
		{schema.Turn, `{"version":1,"blocks":[]}`, ""},
		{schema.Report, `{"version":1,"target":{},"clean":true,"turns":0,"items":0,"signed":0,"formats":{},"violations":[{"rule":"x/y","severity":"fatal","turn":0,"block":0,"message":"m"}]}`, "/violations/0/severity"},
	}
	for _, c := range cases {
		err := schema.Validate(c.kind, []byte(c.doc))
		var se *schema.Error
		require.ErrorAs(t, err, &se, c.doc)
		found := false
		for _, p := range se.Problems {
			found = found || p.Pointer == c.pointer
		}
		assert.True(t, found, "%s: want a problem at %q, got %v", c.doc, c.pointer, se.Problems)
	}
	// The message names the missing member.
	err := schema.Validate(schema.Item, []byte(`{"type":"reasoning.encrypted"}`))
	assert.ErrorContains(t, err, "data")
	err = schema.Validate(schema.Item, []byte(`{"type":"reasoning.text","text":"x","signature":42}`))
	assert.ErrorContains(t, err, "/signature")
	err = schema.Validate(schema.Turn, []byte(`{not json`))
	assert.ErrorContains(t, err, "not valid JSON")
}

func TestDetect(t *testing.T) {
	for doc, want := range map[string]schema.Kind{
		`{"version":1,"blocks":[]}`:    schema.Turn,
		`{"violations":[]}`:            schema.Report,
		`{"type":"reasoning.summary"}`: schema.Item,
	} {
		got, ok := schema.Detect([]byte(doc))
		assert.True(t, ok)
		assert.Equal(t, want, got)
	}
	_, ok := schema.Detect([]byte(`{"type":"message"}`))
	assert.False(t, ok)
}
