package chatstream

import (
	"encoding/binary"
	"math/bits"
	"strings"

	"github.com/reasonreplay/replay/internal/jsonw"
)

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// writeValue appends the value of raw, a JSON string literal already
// validated that holds no \u escape, to b: val when the match decoded it,
// else raw decoded by writeEscaped.
func writeValue(b *strings.Builder, raw, val string, decoded bool) {
	if !decoded {
		writeEscaped(b, raw)
		return
	}
	b.Grow(len(val)) // doubling, where append would grow large texts by a quarter
	b.WriteString(val)
}

// writeEscaped appends the value of raw to b. raw is a JSON string
// literal already validated (by a shape's match) that holds no \u escape:
// b gets what [jsonw.WriteUnquoted] writes for it. It reads and writes
// eight bytes at a time into a buffer on the stack, and writes the buffer
// to b in one piece.
func writeEscaped(b *strings.Builder, raw string) {
	s := raw[1 : len(raw)-1]
	b.Grow(len(s)) // doubling, where append would grow large texts by a quarter
	var buf [256]byte
	o, i := 0, 0
	for {
		if o > len(buf)-16 {
			b.Write(buf[:o])
			o = 0
		}
		if i+8 <= len(s) {
			x := jsonw.Load64(s, i)
			binary.LittleEndian.PutUint64(buf[o:], x)
			y := x ^ '\\'*lsb
			m := (y - lsb) &^ y & msb
			if m == 0 {
				i, o = i+8, o+8
				continue
			}
			k := bits.TrailingZeros64(m) / 8
			i, o = i+k, o+k
		} else {
			for i < len(s) && s[i] != '\\' {
				buf[o] = s[i]
				i, o = i+1, o+1
			}
			if i >= len(s) {
				break
			}
		}
		// s[i] is a backslash; a valid literal has its escape letter next
		buf[o] = jsonw.Unescapes[s[i+1]]
		i, o = i+2, o+1
	}
	b.Write(buf[:o])
}
