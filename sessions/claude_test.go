package sessions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writeLines(t *testing.T, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	return path
}

var ccSig = strings.Repeat("EqQBCkYIBRgCKkBz", 20)

func ccUser(uuid, parent, content string, extra ...string) string {
	p := `null`
	if parent != "" {
		p = `"` + parent + `"`
	}
	return `{"parentUuid":` + p + `,"isSidechain":false,"type":"user","uuid":"` + uuid + `","message":{"role":"user","content":` + content + `}` + strings.Join(extra, "") + `}`
}

func ccAsst(uuid, parent, id, block string, extra ...string) string {
	return `{"parentUuid":"` + parent + `","isSidechain":false,"type":"assistant","uuid":"` + uuid + `","message":{"id":"` + id + `","role":"assistant","model":"claude-sonnet-4-5","content":[` + block + `]}` + strings.Join(extra, "") + `}`
}

// The branch resumed: parallel tool calls written as sibling lines with a
// result each, a synthetic error line and a sidechain left out, a
// compaction whose preserved segment is relinked to the boundary, an
// abandoned branch left out.
func TestClaudeChain(t *testing.T) {
	think := `{"type":"thinking","thinking":"t","signature":"` + ccSig + `"}`
	path := writeLines(t,
		ccUser("u0", "", `"old prompt"`),
		ccAsst("a0", "u0", "m0", `{"type":"text","text":"old answer"}`),
		ccUser("u1", "a0", `"prompt"`),
		ccAsst("a1", "u1", "m1", think),
		ccAsst("a2", "a1", "m1", `{"type":"tool_use","id":"t1","name":"Read","input":{}}`),
		ccAsst("a3", "a1", "m1", `{"type":"tool_use","id":"t2","name":"Read","input":{}}`),
		ccUser("r1", "a2", `[{"type":"tool_result","tool_use_id":"t1","content":"x"}]`),
		ccUser("r2", "a3", `[{"type":"tool_result","tool_use_id":"t2","content":"y"}]`),
		`{"parentUuid":"r2","isSidechain":true,"type":"user","uuid":"s1","message":{"role":"user","content":"side task"}}`,
		`{"parentUuid":"r2","isSidechain":false,"type":"assistant","uuid":"e1","isApiErrorMessage":true,"message":{"id":"e","role":"assistant","model":"<synthetic>","content":[{"type":"text","text":"API Error: 529"}]}}`,
		`{"parentUuid":null,"isSidechain":false,"type":"system","subtype":"compact_boundary","uuid":"cb","logicalParentUuid":"r2","compactMetadata":{"trigger":"auto","preservedSegment":{"headUuid":"u1","anchorUuid":"cb","tailUuid":"r2"}}}`,
		ccUser("cs", "cb", `"summary of the old part"`, `,"isCompactSummary":true`),
		ccAsst("b1", "r2", "m2", `{"type":"text","text":"an answer the user went back on"}`),
		ccUser("u2", "r2", `"next prompt"`),
		ccAsst("a4", "u2", "m3", think),
		ccAsst("a5", "a4", "m3", `{"type":"text","text":"done"}`),
	)
	s, err := Read(path, Options{})
	require.NoError(t, err)
	var roles []string
	for _, m := range s.msgs {
		var kinds []string
		for _, b := range m.blocks {
			kinds = append(kinds, b.kind.String())
		}
		roles = append(roles, m.role+":"+strings.Join(kinds, "+"))
	}
	assert.Equal(t, []string{
		"user:user content",
		"assistant:thinking block+tool call+tool call",
		"user:tool result+tool result+user content",
		"assistant:thinking block+text block",
	}, roles, "the preserved segment from u1, the sibling calls and both results, then the branch that was resumed")
	h := s.History(replay.Target{})
	require.Len(t, h.Turns, 2)
	assert.Equal(t, "claude-sonnet-4-5", h.Turns[1].Provenance.Model)
	rep := Audit(s, s.Target("", "", ""))
	assert.Equal(t, "clean", rep.Verdict(), "%s", rep.AppendJSON(nil))
	loc, ok := s.Locate(replay.Target{}, 0, 2)
	require.True(t, ok)
	assert.Equal(t, 6, loc.Line)
	assert.Equal(t, "/message/content/0", loc.Pointer)
}

// A thinking block in the in-progress tool step that cannot be sent: the
// step is rewound, its call and result taken out and the chain relinked
// around them, and what is left resumes.
func TestClaudeRewindRelinks(t *testing.T) {
	good := `{"type":"thinking","thinking":"t","signature":"` + ccSig + `"}`
	path := writeLines(t,
		ccUser("u1", "", `"prompt"`),
		ccAsst("a1", "u1", "m1", good),
		ccAsst("a2", "a1", "m1", `{"type":"tool_use","id":"t1","name":"Read","input":{}}`),
		ccUser("r1", "a2", `[{"type":"tool_result","tool_use_id":"t1","content":"x"}]`),
		ccAsst("a3", "r1", "m2", `{"type":"thinking","thinking":"t","signature":"`+ccSig[:20]+`"}`),
		ccAsst("a4", "a3", "m2", `{"type":"tool_use","id":"t2","name":"Read","input":{}}`),
		ccUser("r2", "a4", `[{"type":"tool_result","tool_use_id":"t2","content":"y"}]`),
		`{"parentUuid":"r2","isSidechain":false,"type":"system","uuid":"x1","content":"note","level":"info"}`,
	)
	s, err := Read(path, Options{})
	require.NoError(t, err)
	p, err := Repair(s, s.Target("", "", ""))
	require.NoError(t, err)
	var lines []int
	for _, f := range p.Fixes {
		lines = append(lines, f.Location.Line)
	}
	assert.Equal(t, []int{5, 6, 7}, lines)
	var out strings.Builder
	_, err = p.WriteTo(&out)
	require.NoError(t, err)
	got := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, got, 5)
	assert.Contains(t, got[4], `"parentUuid":"r1"`, "the line after the rewound step hangs off what is left")
	after, err := p.Verify()
	require.NoError(t, err)
	assert.Equal(t, "clean", after.Verdict())
}
