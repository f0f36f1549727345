package sessions

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// The readers take untrusted files: whatever the bytes, reading, auditing
// and repairing return (an error or a result) without a panic, and a
// repair writes a file the reader reads back. The seeds are the fixtures,
// some tens of kilobytes: fuzz with a short -fuzzminimizetime (2s), or the
// minimization of each new input holds the progress line still.

var (
	lineAgents = []Agent{ClaudeCode, Codex, Pi, OpenClaw, GeminiCLI}
	docAgents  = []Agent{GeminiCLI, Cline, RooCode, Continue}
)

func fuzzSession(t *testing.T, data []byte, agent Agent, ext string) {
	dir := t.TempDir()
	path := filepath.Join(dir, "session"+ext)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Read(path, Options{Agent: agent, Limits: Limits{MaxRecord: 1 << 20, MaxContext: 4 << 20}})
	if err != nil {
		return
	}
	tg := s.Target("", "", "")
	if tg.API == "" {
		tg = s.Target("claude-sonnet-4-5", "anthropic", "")
	}
	rep := Audit(s, tg)
	for _, f := range rep.Findings {
		if f.Location.Line < 0 || f.Location.File != path {
			t.Fatalf("finding at %+v", f.Location)
		}
	}
	rep.AppendJSON(nil)
	p, err := Repair(s, tg)
	if err != nil {
		return // an edit the record's bytes do not allow is refused, not written
	}
	var out bytes.Buffer
	if _, err := p.WriteTo(&out); err != nil {
		t.Fatal(err)
	}
	if p.Empty() && !bytes.Equal(out.Bytes(), data) {
		t.Fatal("a file written back without a repair changed")
	}
	p.Diff(io.Discard)
	repaired := filepath.Join(dir, "repaired"+ext)
	if err := os.WriteFile(repaired, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(repaired, Options{Agent: agent, Limits: Limits{MaxRecord: 1 << 20, MaxContext: 4 << 20}}); err != nil {
		t.Fatalf("the repaired file does not read back: %v", err)
	}
}

func seedFixtures(f *testing.F, ext string) {
	for _, fx := range fixtures(f) {
		if filepath.Ext(fx.path) != ext {
			continue
		}
		data, err := os.ReadFile(fx.path)
		if err != nil {
			f.Fatal(err)
		}
		for i, a := range Agents() {
			if a == fx.agent {
				f.Add(data, uint8(i))
			}
		}
	}
}

func FuzzReadJSONL(f *testing.F) {
	seedFixtures(f, ".jsonl")
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		fuzzSession(t, data, lineAgents[int(which)%len(lineAgents)], ".jsonl")
	})
}

func FuzzReadDocument(f *testing.F) {
	seedFixtures(f, ".json")
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		fuzzSession(t, data, docAgents[int(which)%len(docAgents)], ".json")
	})
}

// The document scanner hands out each element's bytes and where they are.
func FuzzDocReader(f *testing.F) {
	f.Add([]byte(`{"messages":[{"a":"]"},[1,2],"x"],"b":{"c":[]}}`))
	f.Add([]byte(`[{"role":"user","content":"\"}"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dr := newDocReader(bytes.NewReader(data), 1<<16)
		for i := 0; i < 1<<12; i++ {
			it, err := dr.next("messages")
			if err != nil {
				return
			}
			if it.rec.off < 0 || it.rec.end > int64(len(data)) || it.rec.off > it.rec.end {
				t.Fatalf("offsets %d..%d of %d bytes", it.rec.off, it.rec.end, len(data))
			}
			if !bytes.Equal(it.data, data[it.rec.off:it.rec.end]) {
				t.Fatalf("element %q is not the bytes at %d..%d", it.data, it.rec.off, it.rec.end)
			}
		}
	})
}
