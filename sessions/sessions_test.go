package sessions

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	_ "github.com/reasonreplay/replay/codecs/all"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// fixture is one session file under testdata/<agent>/.
type fixture struct {
	path  string // relative to the package
	agent Agent
	name  string // path below testdata/, for the golden files
}

// fixtures lists the session files of testdata, every agent's.
func fixtures(t testing.TB) []fixture {
	var out []fixture
	for _, a := range Agents() {
		dir := filepath.Join("testdata", string(a))
		if _, err := os.Stat(dir); os.IsNotExist(err) {
			continue
		}
		found, err := Discover(dir, "")
		require.NoError(t, err, dir)
		for _, f := range found {
			require.NoError(t, f.Err)
			name, _ := filepath.Rel("testdata", f.Path)
			out = append(out, fixture{path: f.Path, agent: a, name: filepath.ToSlash(name)})
		}
	}
	require.NotEmpty(t, out)
	return out
}

// targetFor returns the target a fixture is audited for: its own, or the
// one its "<file>.target" names (lines "model=...", "provider=...",
// "account=...").
func targetFor(t testing.TB, s *Session, path string) replay.Target {
	var model, provider, account string
	if data, err := os.ReadFile(path + ".target"); err == nil {
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			k, v, _ := strings.Cut(l, "=")
			switch k {
			case "model":
				model = v
			case "provider":
				provider = v
			case "account":
				account = v
			default:
				t.Fatalf("%s.target: unknown key %q", path, k)
			}
		}
	}
	return s.Target(model, provider, account)
}

// unfixable lists the fixtures whose repair leaves a finding the provider
// rejects: none of the file formats' broken shapes needs one.
var unfixable = map[string]bool{}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -update to write %s", path)
	assert.Equal(t, string(want), string(got), path)
}

func indentJSON(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	require.NoError(t, json.Indent(&buf, b, "", "  "))
	buf.WriteByte('\n')
	return buf.Bytes()
}

// TestFixtures reads, audits and repairs every fixture: the agent is told
// from the file, a file written back without a repair is byte-identical,
// the report and the repair match their goldens, the repaired file passes
// the audit for its target, and it differs from the original only in the
// records the repair names for the report's findings.
func TestFixtures(t *testing.T) {
	for _, fx := range fixtures(t) {
		t.Run(fx.name, func(t *testing.T) {
			got, err := Detect(fx.path)
			require.NoError(t, err)
			assert.Equal(t, fx.agent, got, "detected agent")
			s, err := Read(fx.path, Options{})
			require.NoError(t, err)
			orig, err := os.ReadFile(fx.path)
			require.NoError(t, err)

			// Round trip: written back with no repair, the same bytes.
			var same bytes.Buffer
			_, err = (&Plan{Session: s}).WriteTo(&same)
			require.NoError(t, err)
			assert.Equal(t, orig, same.Bytes(), "a file written back without a repair is byte-identical")

			tg := targetFor(t, s, fx.path)
			rep := Audit(s, tg)
			golden(t, fx.name+".audit.json", indentJSON(t, rep.AppendJSON(nil)))
			reported := map[string]bool{}
			for _, f := range rep.Findings {
				for _, r := range f.Rules {
					reported[r] = true
				}
				assert.NotEmpty(t, f.Location.File)
				assert.Positive(t, f.Location.Line)
				assert.NotEmpty(t, f.Message)
			}

			p, err := Repair(s, tg)
			require.NoError(t, err)
			if !rep.Rejects() {
				assert.True(t, p.Empty(), "a session nothing would reject is left alone")
				return
			}
			require.False(t, p.Empty(), "a rejected session gets a repair")
			fixedAt := map[string]bool{}
			for _, fix := range p.Fixes {
				fixedAt[fix.Location.String()] = true
			}
			for _, fix := range p.Fixes {
				if fix.After != nil {
					assert.True(t, fixedAt[fix.After.String()], "the fix %q follows from a change the plan does not make", fix.Action)
					continue
				}
				for _, r := range fix.Rules {
					assert.True(t, reported[r], "the fix %q answers %s, which the report does not name", fix.Action, r)
				}
			}
			var diff bytes.Buffer
			require.NoError(t, p.Diff(&diff))
			golden(t, fx.name+".diff", diff.Bytes())
			var repaired bytes.Buffer
			_, err = p.WriteTo(&repaired)
			require.NoError(t, err)
			golden(t, fx.name+".repaired", repaired.Bytes())

			after, err := p.Verify()
			require.NoError(t, err)
			if !unfixable[fx.name] {
				assert.False(t, after.Rejects(), "the repaired session still rejects: %s", string(after.AppendJSON(nil)))
			}
			onlyWhereReported(t, s, p, orig, repaired.Bytes())
		})
	}
}

// onlyWhereReported checks that the repaired file keeps every record the
// plan does not name byte for byte, in order, and that a record it changes
// without naming it in a fix only had a link moved (parentUuid, parentId).
func onlyWhereReported(t *testing.T, s *Session, p *Plan, orig, repaired []byte) {
	t.Helper()
	named := map[int]bool{}
	for _, f := range p.Fixes {
		named[f.Location.Record] = true
	}
	a, b := records(t, s, orig), records(t, s, repaired)
	// The records both files have the same bytes of, in order (a longest
	// common subsequence); between two of them, the repaired file's
	// records are edited versions of the original's, the others deleted.
	n, m := len(a), len(b)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			switch {
			case bytes.Equal(a[i].data, b[j].data):
				lcs[i][j] = lcs[i+1][j+1] + 1
			case lcs[i+1][j] >= lcs[i][j+1]:
				lcs[i][j] = lcs[i+1][j]
			default:
				lcs[i][j] = lcs[i][j+1]
			}
		}
	}
	var gapA []int
	var gapB []int
	flush := func() {
		used := map[int]bool{}
		for _, jb := range gapB {
			paired := -1
			for _, ia := range gapA {
				if !used[ia] && similar(a[ia].data, b[jb].data) {
					paired = ia
					break
				}
			}
			if !assert.GreaterOrEqual(t, paired, 0, "the repaired file has a record the original did not: %s", b[jb].data) {
				continue
			}
			used[paired] = true
			if !named[paired] {
				assert.True(t, onlyLinkMoved(a[paired].data, b[jb].data), "record %d (line %d) changed but no fix names it:\n-%s\n+%s",
					paired, a[paired].line, a[paired].data, b[jb].data)
			}
		}
		for _, ia := range gapA {
			if !used[ia] {
				assert.True(t, named[ia], "record %d (line %d) is gone but no fix names it", ia, a[ia].line)
			}
		}
		gapA, gapB = gapA[:0], gapB[:0]
	}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && bytes.Equal(a[i].data, b[j].data):
			flush()
			i, j = i+1, j+1
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			gapB = append(gapB, j)
			j++
		default:
			gapA = append(gapA, i)
			i++
		}
	}
	flush()
	// Bytes before the first record are the same.
	if len(a) > 0 && len(b) > 0 {
		assert.Equal(t, string(orig[:a[0].off]), string(repaired[:b[0].off]), "the bytes before the first record")
	}
}

type rawRecord struct {
	data []byte
	line int
	off  int64
}

// records cuts a session file into its records as its reader does.
func records(t *testing.T, s *Session, data []byte) []rawRecord {
	var out []rawRecord
	if s.jsonl {
		lr := newLineReader(bytes.NewReader(data), 1<<30)
		for {
			d, rec, err := lr.next()
			if err == io.EOF {
				break
			}
			require.NoError(t, err)
			out = append(out, rawRecord{append([]byte(nil), d...), rec.line, rec.off})
		}
		return out
	}
	key := "messages"
	if s.Agent == Continue {
		key = "history"
	}
	dr := newDocReader(bytes.NewReader(data), 1<<30)
	for {
		it, err := dr.next(key)
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		if it.elem {
			out = append(out, rawRecord{append([]byte(nil), it.data...), it.rec.line, it.rec.off})
		}
	}
	return out
}

// similar reports whether two records are one record before and after an
// edit: the same top-level member names, or for a line the same uuid or id.
func similar(a, b []byte) bool {
	for _, k := range []string{"uuid", "id", "timestamp", "ts"} {
		va, vb := gjson.GetBytes(a, k), gjson.GetBytes(b, k)
		if va.Exists() {
			return va.Raw == vb.Raw
		}
	}
	return gjson.GetBytes(a, "message.role").Raw == gjson.GetBytes(b, "message.role").Raw
}

// onlyLinkMoved reports whether a and b differ only in a parent link.
func onlyLinkMoved(a, b []byte) bool {
	var ma, mb map[string]json.RawMessage
	if json.Unmarshal(a, &ma) != nil || json.Unmarshal(b, &mb) != nil || len(ma) != len(mb) {
		return false
	}
	var diff []string
	for k, v := range ma {
		if !bytes.Equal(v, mb[k]) {
			diff = append(diff, k)
		}
	}
	sort.Strings(diff)
	return len(diff) == 1 && (diff[0] == "parentUuid" || diff[0] == "parentId" || diff[0] == "logicalParentUuid")
}
