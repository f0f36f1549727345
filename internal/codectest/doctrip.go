package codectest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/itemdigest"
	"github.com/reasonreplay/replay/replayhttp"
	"github.com/reasonreplay/replay/stream"
)

// Via passes a turn document through something that keeps it (a store's
// Put then Get) and returns the bytes it gave back.
type Via struct {
	Name string
	Trip func(t testing.TB, doc []byte) []byte
}

// DocumentTrip requires that a decoded turn loses nothing through its
// document: tu written as a document reads back (the reader reads what
// the decoder made) into a turn whose document is the same bytes, that
// encodes with c, writes every item's wire form and digest, and (sealed)
// audits free of replay/altered-item exactly as tu does; and the same after
// each of vias, which must give the document back byte for byte. tu is not
// changed.
func DocumentTrip(t testing.TB, c replay.ReasoningCodec, tu *replay.Turn, vias ...Via) {
	t.Helper()
	doc := tu.AppendJSON(nil)
	sealed, err := replay.UnmarshalTurn(doc)
	if err != nil {
		t.Fatalf("the document of a decoded turn does not read: %v\n%s", err, doc)
	}
	sealed.Seal()
	for i, it := range sealed.Items() {
		if d := it.Meta().Digest; d != "" && tu.Items()[i].Meta().Digest == "" && d != itemdigest.Of(tu.Items()[i]) {
			t.Fatalf("item %d: sealed from the document, its digest is not the decoded item's", i)
		}
	}
	sealedDoc := sealed.AppendJSON(nil)
	check := func(where string, got []byte, want *replay.Turn, wantDoc []byte) {
		t.Helper()
		if !bytes.Equal(got, wantDoc) {
			t.Fatalf("%s: the document changed:\nwant %s\ngot  %s", where, wantDoc, got)
		}
		back, err := replay.UnmarshalTurn(got)
		if err != nil {
			t.Fatalf("%s: the document does not read: %v\n%s", where, err, got)
		}
		if again := back.AppendJSON(nil); !bytes.Equal(again, wantDoc) {
			t.Fatalf("%s: read and written again, the document changed:\nwant %s\ngot  %s", where, wantDoc, again)
		}
		sameEncoding(t, where, c, want, back)
	}
	check("document", doc, tu, doc)
	check("sealed document", sealedDoc, sealed, sealedDoc)
	if n := altered(c, sealed); n != 0 {
		t.Fatalf("a turn sealed from its own document has %d altered items", n)
	}
	for _, v := range vias {
		check(v.Name, v.Trip(t, doc), tu, doc)
		got := v.Trip(t, sealedDoc)
		check(v.Name+" (sealed)", got, sealed, sealedDoc)
		back, _ := replay.UnmarshalTurn(got)
		if n := altered(c, back); n != 0 {
			t.Fatalf("%s: a sealed turn has %d altered items after the trip", v.Name, n)
		}
	}
}

// sameEncoding requires that want and got encode alike with c (both fail,
// or the same bytes), and that their items' wire forms and digests are the
// same.
func sameEncoding(t testing.TB, where string, c replay.ReasoningCodec, want, got *replay.Turn) {
	t.Helper()
	a, errA := c.Encode(want)
	b, errB := c.Encode(got)
	if (errA == nil) != (errB == nil) || !bytes.Equal(a, b) {
		t.Fatalf("%s: %s encodes differently:\nbefore %s (%v)\nafter  %s (%v)", where, c.API(), a, errA, b, errB)
	}
	wi, gi := want.Items(), got.Items()
	if len(wi) != len(gi) {
		t.Fatalf("%s: %d items, then %d", where, len(wi), len(gi))
	}
	for i := range wi {
		x, y := wi[i].AppendWire(nil), gi[i].AppendWire(nil)
		if !bytes.Equal(x, y) {
			t.Fatalf("%s: item %d's wire form changed:\nbefore %s\nafter  %s", where, i, x, y)
		}
		if wi[i].Meta().Digest != gi[i].Meta().Digest || wi[i].Replayable() != gi[i].Replayable() {
			t.Fatalf("%s: item %d's digest or replayability changed", where, i)
		}
	}
}

// altered counts the replay/altered-item violations of t audited alone
// for c's API.
func altered(c replay.ReasoningCodec, t *replay.Turn) int {
	rep := replay.Default().AuditReplay(replay.History{Turns: []*replay.Turn{t}}, replay.Target{API: c.API()})
	n := 0
	for _, v := range rep.Violations {
		if v.Rule == replay.RuleAlteredItem {
			n++
		}
	}
	return n
}

// FuzzTrip is the document trip as a fuzz target over the decoders of
// apis (registered in replay.Default(); the input picks one): seeded with
// the files of each API's directories under testdata (response bodies,
// and streams of any framing), each input is decoded as a body or as a
// stream, and [DocumentTrip] runs on what the decoder makes of it,
// through vias.
func FuzzTrip(f *testing.F, testdata string, apis []string, vias ...Via) {
	for i, api := range apis {
		for _, dir := range TripDirsOf(api) {
			files, _ := filepath.Glob(filepath.Join(testdata, dir, "*"))
			for _, name := range files {
				if strings.HasSuffix(name, ".golden.json") || strings.HasSuffix(name, ".request") {
					continue
				}
				data, err := os.ReadFile(name)
				if err != nil || len(data) > 64<<10 {
					continue
				}
				f.Add(uint8(i), data, !strings.HasSuffix(name, ".json"))
			}
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte, streamed bool) {
		c, err := replay.Lookup(apis[int(which)%len(apis)], "", "")
		if err != nil {
			t.Fatal(err)
		}
		var tu *replay.Turn
		if streamed {
			opts := stream.Options{Framing: stream.FramingAuto, Limits: replay.Limits{MaxEvent: 1 << 16, MaxItem: 1 << 16, MaxBlocks: 64}}
			tu, _ = stream.Decode(bytes.NewReader(data), c, opts)
		} else {
			tu, _ = c.Decode(data)
		}
		if tu == nil {
			return
		}
		DocumentTrip(t, c, tu, vias...)
	})
}

// TripDirsOf returns the testdata directories (under the module's
// testdata) whose captures api's decoders read: those TripDirs names, else
// the directory named for the API.
func TripDirsOf(api string) []string {
	if dirs, ok := TripDirs[api]; ok {
		return dirs
	}
	return []string{api}
}

// TripDirs are the testdata directories of the APIs whose captures are not
// (or not only) in a directory named for the API.
var TripDirs = map[string][]string{
	"deepseek":          {"chatcompat"},
	"openai-compatible": {"chatcompat"},
	"openai-responses":  {"openai"},
	"xai":               {"chatcompat"},
}

// StoreVia is the trip through a store: each document put under a key of
// its own (of tenant "t"), and read back as the one document the key holds.
func StoreVia(name string, s replayhttp.Store) Via {
	var n atomic.Int64
	return Via{Name: name, Trip: func(t testing.TB, doc []byte) []byte {
		t.Helper()
		k := replayhttp.Key{Tenant: "t", Conversation: name + strconv.FormatInt(n.Add(1), 10)}
		if err := s.Put(context.Background(), k, doc); err != nil {
			t.Fatalf("%s: Put: %v", name, err)
		}
		got, err := s.Get(context.Background(), k)
		if err != nil || len(got) != 1 {
			t.Fatalf("%s gave back %d documents (%v)", name, len(got), err)
		}
		return got[0]
	}}
}
