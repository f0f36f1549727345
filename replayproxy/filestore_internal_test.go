package replayproxy

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/replayhttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readAllRecords reads every record of data (a store file) and the
// reasons of the skipped ones.
func readAllRecords(t *testing.T, data []byte, maxDoc int) (recs []record, skipped []string) {
	t.Helper()
	require.True(t, bytes.HasPrefix(data, []byte(fileMagic)))
	r := &recordReader{f: bytes.NewReader(data), off: int64(len(fileMagic)), size: int64(len(data)), maxDoc: maxDoc}
	for i := 0; i < 1000; i++ {
		rec, why, err := r.next()
		require.NoError(t, err)
		switch {
		case why != "":
			skipped = append(skipped, why)
		case rec.doc == nil:
			return recs, skipped
		default:
			recs = append(recs, rec)
		}
	}
	t.Fatal("the reader does not end")
	return nil, nil
}

var exp = time.UnixMilli(1_900_000_000_000)

// Records read back byte for byte: documents with line breaks and white
// space between their members, escapes, characters encoding/json would
// escape, keys of any bytes.
func TestRecordsByteExact(t *testing.T) {
	docs := []string{
		`{"a":1}`,
		"{\n  \"caller\": {\"type\": \"direct\"},\n\t\"x\": \"&<>\\u0026 é \\ud83d\\ude00\"\r\n}",
		`{"R":"\nR 1 2 3 4 5"}`,
	}
	data := []byte(fileMagic)
	keys := []replayhttp.Key{{Tenant: "t1", Conversation: "c1"}, {Tenant: "t\n2", Conversation: "R c"}, {Tenant: "", Conversation: strings.Repeat("f", 64)}}
	for i, d := range docs {
		data = appendRecord(data, keys[i], []byte(d), exp)
	}
	recs, skipped := readAllRecords(t, data, 1<<20)
	assert.Empty(t, skipped)
	require.Len(t, recs, len(docs))
	for i, r := range recs {
		assert.Equal(t, docs[i], string(r.doc))
		assert.Equal(t, keys[i], r.key)
		assert.Equal(t, exp.UnixMilli(), r.expires)
	}
}

// A damaged record is skipped and reading goes on at the next one,
// whatever was damaged: its document (the CRC), its lengths, its header,
// or its end cut off by a crash.
func TestRecordsDamaged(t *testing.T) {
	k := replayhttp.Key{Tenant: "t", Conversation: "c"}
	rec := func(d string) []byte { return appendRecord(nil, k, []byte(d), exp) }
	good1, good2 := rec(`{"n":1}`), rec(`{"n":2}`)
	for name, c := range map[string]struct {
		bad  []byte
		want string
	}{
		"document":       {bytes.Replace(rec(`{"n":9}`), []byte(`9`), []byte(`8`), 1), "a record that fails its CRC (a write cut short, or damage)"},
		"length longer":  {bytes.Replace(rec(`{"n":9}`), []byte(" 7 "), []byte(" 70 "), 1), "a record cut short (a write cut by a crash), or whose length was damaged"},
		"length shorter": {bytes.Replace(rec(`{"n":9}`), []byte(" 7 "), []byte(" 3 "), 1), "a record that fails its CRC (a write cut short, or damage)"},
		"huge length":    {bytes.Replace(rec(`{"n":9}`), []byte(" 7 "), []byte(" 99999999999 "), 1), "a record header that does not read (a write cut short, or damage)"},
		"header":         {append([]byte("R x"), rec(`{"n":9}`)[3:]...), "a record header that does not read (a write cut short, or damage)"},
		"no header end":  {[]byte("R " + strings.Repeat("1", 200)), "a record header that does not read (a write cut short, or damage)"},
	} {
		data := append([]byte(fileMagic), good1...)
		data = append(data, c.bad...)
		data = append(data, good2...)
		recs, skipped := readAllRecords(t, data, 1<<20)
		assert.Equal(t, []string{c.want}, skipped, name)
		require.Len(t, recs, 2, name)
		assert.Equal(t, `{"n":2}`, string(recs[1].doc), name)
	}
	// Cut at every byte of the last record: the records before it read,
	// the cut one is skipped, nothing else is read.
	whole := append(append([]byte(fileMagic), good1...), rec("{\n \"n\": 3}")...)
	for cut := len(fileMagic) + len(good1) + 1; cut < len(whole); cut++ {
		recs, skipped := readAllRecords(t, whole[:cut], 1<<20)
		require.Len(t, recs, 1, "cut at %d", cut)
		require.Len(t, skipped, 1, "cut at %d", cut)
	}
}

// Read back as untrusted input: a document over the bound, or not valid
// JSON within the depth a request body may have, is skipped; the records
// after it read.
func TestRecordsUntrusted(t *testing.T) {
	k := replayhttp.Key{Tenant: "t", Conversation: "c"}
	data := []byte(fileMagic)
	for _, d := range []string{`{"big":"` + strings.Repeat("x", 100) + `"}`, `{"a":1,"a":2}`, strings.Repeat("[", 600) + strings.Repeat("]", 600), "\xff", `{"ok":1}`} {
		data = appendRecord(data, k, []byte(d), exp)
	}
	recs, skipped := readAllRecords(t, data, 64)
	assert.Equal(t, []string{"a document larger than MaxEntryBytes",
		"a document that is not valid JSON within the depth a request body may have",
		"a document larger than MaxEntryBytes",
		"a document that is not valid JSON within the depth a request body may have"}, skipped)
	require.Len(t, recs, 1)
	assert.Equal(t, `{"ok":1}`, string(recs[0].doc))
}

// A file that is not a store file is refused, not overwritten.
func TestForeignFileRefused(t *testing.T) {
	path := t.TempDir() + "/turns"
	require.NoError(t, os.WriteFile(path, []byte("precious\n"), 0o600))
	_, err := OpenFileStore(path, StoreOptions{})
	require.ErrorContains(t, err, "is not a replay store file")
	b, _ := os.ReadFile(path)
	assert.Equal(t, "precious\n", string(b))
}

// FuzzRecords: a record of any document and key reads back byte for byte
// (a document that is not valid JSON is skipped, as untrusted input), and
// any file, however damaged, reads to an end without a panic, yielding
// only records whose CRC holds.
func FuzzRecords(f *testing.F) {
	f.Add("t", "c", []byte(`{"a":1}`), []byte(fileMagic+"R 1 1 1 2 00000000\ntc{}\n"))
	f.Add("", "R ", []byte("{\n\"R\": \"\\nR 1\"}"), []byte(fileMagic+"R x\nR 1 2 3"))
	f.Fuzz(func(t *testing.T, tenant, conv string, doc, file []byte) {
		if len(tenant) > maxKeyBytes || len(conv) > maxKeyBytes || len(doc) == 0 {
			return
		}
		k := replayhttp.Key{Tenant: tenant, Conversation: conv}
		data := appendRecord(append([]byte(fileMagic), file...), k, doc, exp)
		r := &recordReader{f: bytes.NewReader(data), off: int64(len(fileMagic)), size: int64(len(data)), maxDoc: 1 << 20}
		var last record
		var lastWhy string
		for i := 0; ; i++ {
			if i > len(data)+2 {
				t.Fatal("the reader does not end")
			}
			rec, why, err := r.next()
			if err != nil {
				t.Fatal(err)
			}
			if why == "" && rec.doc == nil {
				break
			}
			last, lastWhy = rec, why
		}
		// The record appended last reads back, unless the damage before
		// it swallowed it whole in a record of its own that checks out.
		if lastWhy == "" && last.key == k {
			if !bytes.Equal(last.doc, doc) {
				t.Fatalf("read back %q, want %q", last.doc, doc)
			}
		}
		if len(file) == 0 {
			valid := jsonw.ValidBytes(doc)
			if valid && (lastWhy != "" || !bytes.Equal(last.doc, doc) || last.key != k) {
				t.Fatalf("a record alone does not read back: %q %q", lastWhy, last.doc)
			}
			if !valid && lastWhy == "" {
				t.Fatal("a document that is not JSON was read")
			}
		}
	})
}

// A file of JSON lines an earlier build wrote is kept aside, whole, and
// the store starts empty.
func TestEarlierFileSetAside(t *testing.T) {
	path := t.TempDir() + "/turns"
	old := `{"expires":99999999999999,"tenant":"t","conversation":"c","turn":{"version":1,"complete":true,"blocks":[]}}` + "\n"
	require.NoError(t, os.WriteFile(path, []byte(old), 0o600))
	s, err := OpenFileStore(path, StoreOptions{})
	require.NoError(t, err)
	assert.Zero(t, s.Len())
	require.NoError(t, s.Close())
	b, err := os.ReadFile(path + ".old")
	require.NoError(t, err)
	assert.Equal(t, old, string(b))
	b, err = os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, fileMagic, string(b))
	// Taken: refused rather than overwrite it.
	require.NoError(t, os.WriteFile(path, []byte(old), 0o600))
	_, err = OpenFileStore(path, StoreOptions{})
	assert.ErrorContains(t, err, "was written by an earlier build, and "+path+".old is taken")
}
