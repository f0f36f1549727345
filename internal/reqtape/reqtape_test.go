package reqtape_test

import (
	"bytes"
	"sync"
	"testing"

	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/reqtape"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A lent tape is shared for the very bytes it was read from, only while
// it is lent; a copy of the bytes elsewhere is read again.
func TestLend(t *testing.T) {
	body := []byte(`{"model":"m","messages":[{"role":"assistant","content":"hi"}]}`)
	var read jsonw.Tape
	require.True(t, read.ResetBytes(body))
	assert.Nil(t, reqtape.Lent(body))

	loan := reqtape.Lend(body, &read)
	require.NotNil(t, loan)
	assert.Same(t, loan, reqtape.Lent(body))
	assert.Nil(t, reqtape.Lent(bytes.Clone(body)), "other bytes of the same text")
	assert.Nil(t, reqtape.Lent(body[:len(body)-1]), "a prefix of the bytes")

	got, ok := reqtape.Read(body)
	require.True(t, ok)
	assert.NotSame(t, loan, got, "the reader gets a tape of its own")
	assert.Equal(t, `"hi"`, got.Root().Path("messages.0.content").Raw())
	assert.Equal(t, loan.Root().Path("messages.0").Start(), got.Root().Path("messages.0").Start())

	reqtape.Return(body, loan)
	assert.Nil(t, reqtape.Lent(body))
	got, ok = reqtape.Read(body)
	require.True(t, ok, "read again")
	assert.Equal(t, `"m"`, got.Root().Get("model").Raw())

	_, ok = reqtape.Read([]byte(`{"a":`))
	assert.False(t, ok)
	assert.Nil(t, reqtape.Lend(nil, &read))
}

// Loans of the same bytes by several goroutines at once: each reader
// gets a tape of those bytes, and every loan ends.
func TestLendConcurrent(t *testing.T) {
	body := []byte(`{"messages":[{"role":"assistant","content":[{"type":"text","text":"a"}]}]}`)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 200 {
				var tp jsonw.Tape
				if !tp.ResetBytes(body) {
					t.Error("invalid")
					return
				}
				loan := reqtape.Lend(body, &tp)
				got, ok := reqtape.Read(body)
				if !ok || got.Root().Path("messages.0.content.0.text").Str() != "a" {
					t.Error("the tape read is not the body's")
				}
				reqtape.Return(body, loan)
			}
		})
	}
	wg.Wait()
	assert.Nil(t, reqtape.Lent(body))
}
