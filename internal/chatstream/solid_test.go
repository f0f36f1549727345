package chatstream

import (
	"bytes"
	"testing"
)

// TestSolid: data that starts and ends with a solid byte is what
// bytes.TrimSpace returns for it, and data whose either end is ASCII
// white space is not solid there.
func TestSolid(t *testing.T) {
	for c := 0; c < 256; c++ {
		data := []byte{byte(c), 'x', byte(c)}
		trimmed := bytes.TrimSpace(data)
		if solid(byte(c)) && !bytes.Equal(trimmed, data) {
			t.Fatalf("%#x is solid, and TrimSpace(%q) = %q", c, data, trimmed)
		}
		if c < 0x80 && !solid(byte(c)) && !bytes.Equal(trimmed, []byte("x")) {
			t.Fatalf("%#x is ASCII and not solid, and TrimSpace(%q) = %q", c, data, trimmed)
		}
	}
}
