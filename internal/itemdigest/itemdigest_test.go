package itemdigest

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

type wire string

func (w wire) AppendWire(dst []byte) []byte { return append(dst, w...) }

// Of is "sha256:" and the hex SHA-256 of the wire form, whatever buffer the
// pool hands it: a long form followed by a short one, and one over the
// pool's bound.
func TestOf(t *testing.T) {
	for _, s := range []string{`{"type":"reasoning.text","text":"a","signature":"c2ln"}`, strings.Repeat("x", 300<<10), `{}`, ""} {
		sum := sha256.Sum256([]byte(s))
		assert.Equal(t, "sha256:"+hex.EncodeToString(sum[:]), Of(wire(s)), "%.40s", s)
	}
	assert.Equal(t, "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", Of(wire("")))
}

// Matches says yes to the item's digest alone: not to another item's, a
// digest cut short or lengthened, one in capitals, or one of another form.
func TestMatches(t *testing.T) {
	it, other := wire(`{"type":"thinking","thinking":"a","signature":"c2ln"}`), wire(`{"type":"thinking","thinking":"b","signature":"c2ln"}`)
	d := Of(it)
	assert.True(t, Matches(it, d))
	assert.False(t, Matches(other, d))
	for _, bad := range []string{"", d[:len(d)-1], d + "0", strings.ToUpper(d), "sha512:" + d[len("sha256:"):], strings.Replace(d, "sha256:", "", 1)} {
		assert.False(t, Matches(it, bad), "%q", bad)
	}
	assert.Zero(t, testing.AllocsPerRun(100, func() { Matches(it, d) }), "no allocation")
}
