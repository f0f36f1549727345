package replay

import (
	"reflect"
	"testing"

	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/turnfn"
	iview "github.com/reasonreplay/replay/internal/view"
)

// keptValues returns every non-empty string and byte slice that v holds,
// following pointers, interfaces, slices and struct fields (unexported
// ones too, as an Opt's).
func keptValues(v reflect.Value, strs *[]string, raws *[][]byte) {
	switch v.Kind() {
	case reflect.String:
		if v.Len() > 0 {
			*strs = append(*strs, v.String())
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			keptValues(v.Elem(), strs, raws)
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			if v.Len() > 0 {
				*raws = append(*raws, v.Bytes())
			}
			return
		}
		for i := 0; i < v.Len(); i++ {
			keptValues(v.Index(i), strs, raws)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			keptValues(v.Field(i), strs, raws)
		}
	}
}

// sharedDocs are documents whose turns hold strings of every kind, with
// and without escapes, and raw values of every kind.
func sharedDocs() map[string]string {
	docs := map[string]string{}
	for name, tu := range sampleDocTurns() {
		docs[name] = string(tu.AppendJSON(nil))
	}
	for name, tu := range typicalDocTurns() {
		docs[name] = string(tu.AppendJSON(nil))
	}
	docs["every-kind"] = `{"version":2,"provenance":{"api":"anthropic","model":"m\u0031","issuer":"acct"},"complete":false,` +
		`"finish_reason":"stop\ttab","error":{"api":"a","status":529,"type":"overloaded","message":"try \"later\"","raw":"{}"},` +
		`"usage":{"in":1},"transformations":[{"type":"dropped","reason":"r\n","path":"/blocks/1","n":2}],"blocks":[` +
		`{"type":"reasoning.text","text":"line\none","signature":"c2ln","digest":"sha256:` + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" + `","display":"shown"},` +
		`{"type":"reasoning.summary","summary":"s","id":"rs_1","format":"openai-responses-v1","index":0,"pro":true},` +
		`{"type":"reasoning.encrypted","data":"ZGF0YQ==","id":"rs_\u0032"},` +
		`{"type":"reasoning.x\u0079","raw":[1],"id":"o1","format":"f"},` +
		`{"type":"reasoning.zz","id":"o2","format":"g","extra":{"type":"reasoning.zz","id":"o3"},"unfinished":true},` +
		`{"type":"text","text":"plain","id":"msg_1","annotations":[]},` +
		`{"type":"tool_call","id":"c1","name":"n","arguments":"{\"a\":1}","item_id":"fc_1","extra":{"q":"r"}},` +
		`{"type":"native","kind":"web_search_call","raw":{"id":"ws_1"}},` +
		`{"type":"compaction","format":"f","id":"cmp_1","content":"c\\d","signature":"sg","data":"dd"}]}`
	return docs
}

// TestReadTurnSharedViews: the shared read's strings that the document
// holds as they are are views of it, and nothing else it returns is (a
// decoded string is a copy, a raw value always is); UnmarshalTurn's turn
// shares no memory with the caller's bytes.
func TestReadTurnSharedViews(t *testing.T) {
	readShared := turnfn.ReadTurnShared.(func(string) (*Turn, error))
	for name, doc := range sharedDocs() {
		sh, err := readShared(doc)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var strs []string
		var raws [][]byte
		keptValues(reflect.ValueOf(sh), &strs, &raws)
		views := 0
		for _, s := range strs {
			// The writer escapes what the document must hold escaped, and
			// these documents escape nothing else.
			literal := string(jsonw.String(nil, s)) == `"`+s+`"`
			if name == "every-kind" {
				literal = literal && s != "m1" && s != "rs_2" && s != "reasoning.xy"
			}
			switch within := iview.Within(doc, s); {
			case literal && !within:
				t.Errorf("%s: %q is a copy, not a view of the document", name, s)
			case !literal && within:
				t.Errorf("%s: %q, read from an escaped literal, views the document", name, s)
			case within:
				views++
			}
		}
		for _, r := range raws {
			if iview.Within(doc, iview.String(r)) {
				t.Errorf("%s: the raw value %s views the document", name, r)
			}
		}
		if views == 0 || len(raws) == 0 {
			t.Fatalf("%s: %d views and %d raw values: nothing checked", name, views, len(raws))
		}
		data := []byte(doc)
		tu, err := UnmarshalTurn(data)
		if err != nil {
			t.Fatal(err)
		}
		strs, raws = nil, nil
		keptValues(reflect.ValueOf(tu), &strs, &raws)
		for _, r := range raws {
			strs = append(strs, iview.String(r))
		}
		for _, s := range strs {
			if iview.Within(iview.String(data), s) {
				t.Errorf("%s: UnmarshalTurn's %q views the caller's bytes", name, s)
			}
		}
		if !reflect.DeepEqual(sh, tu) {
			t.Errorf("%s: the shared read and UnmarshalTurn differ:\n%#v\n%#v", name, sh, tu)
		}
	}
}

// TestReadTurnSharedAllocs: the shared read of a typical stored turn costs
// no more allocations than UnmarshalTurn's two (the turn, and a buffer for
// the strings it decodes and the raw values it copies), and one when
// there are none of those.
func TestReadTurnSharedAllocs(t *testing.T) {
	readShared := turnfn.ReadTurnShared.(func(string) (*Turn, error))
	docs := map[string]string{
		"views only": `{"version":2,"provenance":{"api":"anthropic"},"complete":true,"blocks":[` +
			`{"type":"reasoning.text","text":"t","signature":"s"},{"type":"text","text":"x"},{"type":"tool_call","id":"c","name":"n","arguments":"{}"}]}`,
	}
	for name, tu := range typicalDocTurns() {
		docs[name] = string(tu.AppendJSON(nil))
	}
	// The buffer is sized for what is still to be kept when it is made:
	// here the usage, read after the blocks, and before them in the
	// document; the blocks, read after the usage, and before it.
	const blocks = `[{"type":"text","text":"x"},{"type":"tool_call","id":"c","name":"n","arguments":"{\"a\":1}"}]`
	docs["usage before the blocks"] = `{"version":2,"complete":true,"usage":{"input_tokens":1520,"output_tokens":388},"blocks":` + blocks + `}`
	docs["blocks before the version"] = `{"blocks":` + blocks + `,"complete":true,"usage":{"input_tokens":1520,"output_tokens":388},"version":2}`
	for name, doc := range docs {
		want := 2.0
		if name == "views only" {
			want = 1
		}
		if n := testing.AllocsPerRun(20, func() {
			if _, err := readShared(doc); err != nil {
				t.Fatal(err)
			}
		}); n != want {
			t.Errorf("%s: %v allocations, want %v", name, n, want)
		}
	}
}
