package patchtest

import (
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/benchreq"
	"github.com/reasonreplay/replay/internal/jsonw"
)

// Turn is an assistant turn of a tool loop as cold repair meets it: its
// message as the client sent it, the same stripped, and its turn as read
// from a request that carries it.
type Turn struct {
	Raw, Stripped []byte
	Want          *replay.Turn
}

// Shape returns the request shape of api in benchreq.Shapes, or fails b.
func Shape(b *testing.B, api string) *benchreq.Shape {
	b.Helper()
	for _, s := range benchreq.Shapes() {
		if s.API == api {
			return s
		}
	}
	b.Fatalf("no request shape for %q", api)
	return nil
}

// valid is jsonw.Valid over m, for scale.
func valid(b *testing.B, m []byte) {
	if !jsonw.ValidBytes(m) {
		b.Fatal("invalid")
	}
}

// BenchPatch patches the stripped turns back, as cold repair does, with
// ref ("impl=ref"), with patch ("impl=new") and, for scale, with
// jsonw.Valid over the same bytes ("impl=valid").
func BenchPatch(b *testing.B, turns []Turn, ref, patch Patch) {
	size := 0
	for _, t := range turns {
		size += len(t.Stripped)
	}
	run := func(b *testing.B, patch Patch) {
		b.ReportAllocs()
		b.SetBytes(int64(size / len(turns)))
		for i := 0; b.Loop(); i++ {
			t := &turns[i%len(turns)]
			if _, err := patch(t.Stripped, t.Want); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("impl=ref", func(b *testing.B) { run(b, ref) })
	b.Run("impl=new", func(b *testing.B) { run(b, patch) })
	b.Run("impl=valid", func(b *testing.B) {
		run(b, func(m []byte, _ *replay.Turn) ([]byte, error) { valid(b, m); return m, nil })
	})
}

// BenchStrip strips the turns as the client sent them ("msg=signed": the
// reasoning goes) and already stripped ("msg=bare": nothing goes, cold
// repair's case), with ref ("impl=ref"), with strip ("impl=new") and with
// jsonw.Valid ("impl=valid").
func BenchStrip(b *testing.B, turns []Turn, ref, strip Strip) {
	for _, c := range []struct {
		name string
		msg  func(t *Turn) []byte
	}{{"signed", func(t *Turn) []byte { return t.Raw }}, {"bare", func(t *Turn) []byte { return t.Stripped }}} {
		size := 0
		for i := range turns {
			size += len(c.msg(&turns[i]))
		}
		for _, impl := range []struct {
			name  string
			strip Strip
		}{
			{"ref", ref},
			{"new", strip},
			{"valid", func(m []byte) ([]byte, []codecs.Change) { valid(b, m); return m, nil }},
		} {
			b.Run("msg="+c.name+"/impl="+impl.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(size / len(turns)))
				for i := 0; b.Loop(); i++ {
					impl.strip(c.msg(&turns[i%len(turns)]))
				}
			})
		}
	}
}

// RequestCodec is what BenchChatPatch needs of a chat codec.
type RequestCodec interface {
	ReadRequest(body []byte) (*codecs.Request, error)
	Strip(raw []byte) ([]byte, []codecs.Change)
	Patch(msg []byte, t *replay.Turn) ([]byte, error)
}

// ChatTurn returns a tool-loop assistant message of the request shape of
// api (its fourth turn of six), the same without its reasoning (as repair
// strips it), and its decoded turn; it requires Patch of the stripped
// message to give what ref gives and to change it.
func ChatTurn(b *testing.B, api string, c RequestCodec, ref Patch) (raw, stripped []byte, tu *replay.Turn) {
	b.Helper()
	r, err := c.ReadRequest(Shape(b, api).Request(6))
	if err != nil {
		b.Fatal(err)
	}
	const ti = 3
	first, end := r.TurnSpan(ti)
	raw, tu = r.TurnRaw(first, end), r.History.Turns[ti]
	stripped, ch := c.Strip(raw)
	if len(ch) == 0 {
		b.Fatalf("nothing stripped from %s", raw)
	}
	out, err := c.Patch(stripped, tu)
	if err != nil {
		b.Fatal(err)
	}
	want, err := ref(stripped, tu)
	if err != nil {
		b.Fatal(err)
	}
	if string(want) != string(out) {
		b.Fatalf("patched %s, the reference %s", out, want)
	}
	if string(stripped) == string(out) {
		b.Fatalf("Patch left %s as it was", stripped)
	}
	return raw, stripped, tu
}

// BenchChatPatch patches the stripped message of ChatTurn, as cold repair
// does, with Patch ("new") and with the reference it replaced ("ref").
func BenchChatPatch(b *testing.B, api string, c RequestCodec, ref Patch) {
	_, stripped, tu := ChatTurn(b, api, c, ref)
	for _, p := range []struct {
		name  string
		patch Patch
	}{{"new", c.Patch}, {"ref", ref}} {
		b.Run(p.name, func(b *testing.B) {
			b.SetBytes(int64(len(stripped)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := p.patch(stripped, tu); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// LoopCodec is what LoopTurns needs of a codec.
type LoopCodec interface {
	DecodeRequest(body []byte) (replay.History, replay.Target, error)
	Strip(raw []byte) ([]byte, []codecs.Change)
	Patch(msg []byte, t *replay.Turn) ([]byte, error)
}

// LoopTurns returns the first eight assistant turns of the tool loop of
// api's request shape as cold repair meets them: each as the client sent
// it (its assistant element, through wrap when it is set), stripped of its
// reasoning (changes changes each), and its turn decoded from a request
// that carries it. Patch of each stripped turn must give it back as sent,
// or, with restored set, what restored accepts.
func LoopTurns(b *testing.B, api string, c LoopCodec, wrap func(string) []byte, changes int, restored func(raw, got []byte) bool) []Turn {
	b.Helper()
	const n = 8
	sh := Shape(b, api)
	h, _, err := c.DecodeRequest(sh.Request(n))
	if err != nil {
		b.Fatal(err)
	}
	if wrap == nil {
		wrap = func(s string) []byte { return []byte(s) }
	}
	if restored == nil {
		restored = func(raw, got []byte) bool { return string(got) == string(raw) }
	}
	var out []Turn
	for k := 0; k < n; k++ {
		raw := wrap(sh.AssistantOf(k))
		stripped, ch := c.Strip(raw)
		if len(ch) != changes {
			b.Fatalf("turn %d: %d changes, want %d", k, len(ch), changes)
		}
		want := h.Turns[k]
		if got, err := c.Patch(stripped, want); err != nil || !restored(raw, got) {
			b.Fatalf("turn %d: patched %s (%v), sent %s", k, got, err, raw)
		}
		out = append(out, Turn{Raw: raw, Stripped: stripped, Want: want})
	}
	return out
}
