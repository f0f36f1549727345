package sse

import (
	"encoding/binary"
	"hash/crc32"
	"strings"
	"testing"
)

// prelude returns an AWS event-stream message prelude with a valid CRC.
func prelude(total, headers uint32) []byte {
	b := make([]byte, 12)
	binary.BigEndian.PutUint32(b[0:], total)
	binary.BigEndian.PutUint32(b[4:], headers)
	binary.BigEndian.PutUint32(b[8:], crc32.ChecksumIEEE(b[:8]))
	return b
}

func TestDetect(t *testing.T) {
	bad := prelude(100, 20)
	bad[11] ^= 1
	for _, c := range []struct {
		name  string
		in    string
		atEOF bool
		want  Detected
		ok    bool
	}{
		{"sse data", "data: {}\n\n", false, DetectSSE, true},
		{"sse event first", "event: message_start\ndata: {}\n", false, DetectSSE, true},
		{"sse comment", ": OPENROUTER PROCESSING\n\n", false, DetectSSE, true},
		{"sse after bom and blank lines", "\xEF\xBB\xBF\r\n\ndata: x\n", false, DetectSSE, true},
		{"sse field split", "da", false, DetectUnknown, false},
		{"sse field without colon", "data\n", false, DetectSSE, true},
		{"not a field", "hello: x\n", false, DetectUnknown, true},
		{"jsonl", "{\"a\":1}\n{\"a\":2}\n", false, DetectJSONL, true},
		{"jsonl crlf", "{\"a\":1}\r\n{\"a\":2}", false, DetectJSONL, true},
		{"one line then more to come", "{\"a\":1}\n", false, DetectUnknown, false},
		{"one line at eof", "{\"a\":1}\n", true, DetectJSON, true},
		{"no newline yet", "{\"a\":", false, DetectUnknown, false},
		{"no newline at eof", "{\"a\":1}", true, DetectJSON, true},
		{"pretty body", "{\n  \"a\": 1\n}\n", false, DetectJSON, true},
		{"array body", "[\n{\"a\":1}\n]", false, DetectJSON, true},
		{"empty", "", false, DetectUnknown, false},
		{"empty at eof", "", true, DetectUnknown, true},
		{"blank at eof", " \n\t", true, DetectUnknown, true},
		{"partial bom", "\xEF\xBB", false, DetectUnknown, false},
		{"binary", "\x89PNG", false, DetectUnknown, true},
		{"eventstream", string(prelude(100, 20)) + "rest", false, DetectEventStream, true},
		{"eventstream short", "\x00\x00\x00", false, DetectUnknown, false},
		{"eventstream bad crc", string(bad), false, DetectUnknown, true},
		{"eventstream headers too long", string(prelude(20, 10)), false, DetectUnknown, true},
	} {
		got, ok := Detect([]byte(c.in), c.atEOF)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: Detect(%q, %v) = %v, %v; want %v, %v", c.name, c.in, c.atEOF, got, ok, c.want, c.ok)
		}
	}
}

func TestDetectAtLimit(t *testing.T) {
	for in, want := range map[string]Detected{
		"  {\"a\":\"very long": DetectJSON,
		"[1,2,":                DetectJSON,
		"xxxxxxxx":             DetectUnknown,
	} {
		if got := DetectAtLimit([]byte(in)); got != want {
			t.Errorf("DetectAtLimit(%q) = %v, want %v", in, got, want)
		}
	}
	if got := Detected(9).String(); got != "<invalid Detected>" {
		t.Errorf("String of an invalid value = %q", got)
	}
	if got := DetectEventStream.String(); got != "eventstream" {
		t.Errorf("DetectEventStream.String() = %q", got)
	}
}

// DetectReaderSize, told the input's size (right, too small, too large),
// says what DetectReader says of the input, within the same limit, of a
// prefix of the input.
func TestDetectReaderSize(t *testing.T) {
	body := `{"type":"message","content":[{"type":"text","text":"` + strings.Repeat("tide ", 3000) + `"}]}`
	inputs := []string{body, body + "\n", "data: {\"a\":1}\n\n" + strings.Repeat("data: {}\n\n", 500), "{\"a\":1}\n{\"b\":2}\n", ""}
	for _, in := range inputs {
		for _, max := range []int{0, 64, len(in) + 10} {
			want, wantWhat, wantErr := DetectReader(strings.NewReader(in), max)
			for _, size := range []int64{0, int64(len(in)), int64(len(in)) / 2, int64(len(in)) * 3} {
				got, what, err := DetectReaderSize(strings.NewReader(in), max, size)
				if what != wantWhat || (err == nil) != (wantErr == nil) || !strings.HasPrefix(in, string(got)) {
					t.Fatalf("len %d, max %d, size %d: %v %v, want %v %v (or a prefix that is not the input's)", len(in), max, size, what, err, wantWhat, wantErr)
				}
				if size == 0 && string(got) != string(want) {
					t.Fatalf("len %d, max %d: no size, another prefix than DetectReader's", len(in), max)
				}
			}
		}
	}
}
