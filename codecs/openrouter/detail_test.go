package openrouter

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/benchreq"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/tidwall/gjson"
)

// detailSeeds are reasoning details of every shape: the common ones
// quickDetail reads, and the ones it leaves to parseDetail.
var detailSeeds = []string{
	`{"type":"reasoning.text","text":"why","signature":"c2ln","format":"anthropic-claude-v1","index":0}`,
	`{"type":"reasoning.text","text":"a\nb \u00e9","signature":"","format":"anthropic-claude-v1","index":12,"id":"rs_1"}`,
	`{"type":"reasoning.text","text":"no signature"}`,
	`{"index":3,"format":"x","text":"members in another order","type":"reasoning.text"}`,
	`{"type":"reasoning.text","text":"null signature","signature":null}`,
	`{"type":"reasoning.text","text":null}`,
	`{"type":"reasoning.text","text":"big index","index":1234567890}`,
	`{"type":"reasoning.text","text":"float index","index":1.0}`,
	`{"type":"reasoning.text","text":"negative index","index":-1}`,
	`{"type":"reasoning.text","text":"lone \ud800","signature":"s"}`,
	`{"type":"reasoning.text","text":"t","id":"\udc00"}`,
	`{"type":"reasoning.text","text":"extra","data":"x","other":[1]}`,
	`{"type":"reasoning.text","\u0074ext":"escaped name"}`,
	`{"type":"reasoning.text","text":7}`,
	`{"type":"reasoning.summary","summary":"s"}`,
	`{"type":"reasoning.encrypted","data":"ZW5j","format":"openai-responses-v1","id":"rs_2","index":1}`,
	`{"type":"reasoning.unknown","payload":{"a":1}}`,
	`{"type":"reasoning.text"}`,
	`"not an object"`,
}

// checkQuickDetail holds quickDetail to parseDetail on the detail raw:
// where it reads a detail, it reads the same item, in memory of its own.
func checkQuickDetail(t *testing.T, raw string) {
	buf := []byte(raw)
	var tape jsonw.Tape
	if !tape.ResetBytes(buf) {
		return
	}
	it, ok := quickDetail(tape.Root(), kit.ConvAlloc(tape.Root(), func(jsonw.Val) bool { return true }))
	if !ok {
		return
	}
	want, err := parseDetail(raw, "")
	if err != nil {
		t.Fatalf("quickDetail read %s, which parseDetail refuses: %v", raw, err)
	}
	for i := range buf {
		buf[i] = 'X'
	}
	if !reflect.DeepEqual(want, replay.ReasoningItem(it)) {
		t.Fatalf("quickDetail(%s) = %#v, parseDetail reads %#v", raw, it, want)
	}
}

func TestQuickDetailIsParseDetail(t *testing.T) {
	read := 0
	for _, raw := range detailSeeds {
		checkQuickDetail(t, raw)
		var tape jsonw.Tape
		if tape.Reset(raw) {
			if _, ok := quickDetail(tape.Root(), new(kit.Alloc)); ok {
				read++
			}
		}
	}
	if read < 4 {
		t.Fatalf("quickDetail read %d of the seeds: the common details must take it", read)
	}
	// Every detail of the request shape and of the fixtures.
	for _, s := range benchreq.Shapes() {
		if s.API == API {
			gjson.GetBytes(s.Request(3), "messages.#.reasoning_details|@flatten").ForEach(func(_, d gjson.Result) bool {
				checkQuickDetail(t, d.Raw)
				return true
			})
		}
	}
	names, _ := filepath.Glob("../../testdata/openrouter/*.json")
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		gjson.GetBytes(data, "choices.0.message.reasoning_details").ForEach(func(_, d gjson.Result) bool {
			checkQuickDetail(t, d.Raw)
			return true
		})
	}
}

// FuzzQuickDetail holds quickDetail to parseDetail on any detail.
func FuzzQuickDetail(f *testing.F) {
	for _, raw := range detailSeeds {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if len(raw) > 1<<14 {
			return
		}
		checkQuickDetail(t, raw)
	})
}
