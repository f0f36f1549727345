package gemini

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The pointer and the predicted error written into one string are the
// texts written one by one: the formulas they were always made by.
func TestBase64TextsAreTheFormulas(t *testing.T) {
	for _, s := range []reqCall{
		{content: 0, part: 0, sig: "x"},
		{content: 7, part: 12, sig: "Zm9v-_8="},
		{content: 153, part: 3, sig: "EqQB\"quoted\"\\"},
		{content: 10000, part: 100, sig: ""},
	} {
		ptr, pred := base64Texts(s)
		wantPtr := "/contents/" + strconv.Itoa(s.content) + "/parts/" + strconv.Itoa(s.part) + "/thoughtSignature"
		wantPred := "Invalid value at 'contents[" + strconv.Itoa(s.content) + "].parts[" + strconv.Itoa(s.part) +
			"].thought_signature' (TYPE_BYTES), Base64 decoding failed for \"" + s.sig + "\""
		assert.Equal(t, wantPtr, ptr)
		assert.Equal(t, wantPtr, sigPointer(s))
		assert.Equal(t, wantPred, pred)
		assert.Equal(t, wantPred, predictBase64(s.content, s.part, s.sig))
	}
	assert.Equal(t, `Invalid value at 'contents[?].parts[?].thought_signature' (TYPE_BYTES), Base64 decoding failed for "ab"`,
		predictBase64(-1, -1, "ab"))
}
