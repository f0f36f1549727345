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

// A tape of an earlier text lent for a body is what Read reads the body
// after, while it is lent: the tape is the body's, as a cold read makes
// it, and shares the bytes the two texts share.
func TestLendAfter(t *testing.T) {
	before := []byte(`{"model":"m","messages":[{"role":"user","content":"a"},{"role":"assistant","content":"hi"}]}`)
	body := []byte(`{"model":"m","messages":[{"role":"user","content":"a"},{"role":"assistant","content":"hi"},{"role":"user","content":"b"}]}`)
	var prev jsonw.Tape
	require.True(t, prev.ResetBytes(before))
	snap := prev.Snapshot(string(before))
	assert.Nil(t, reqtape.LendAfter(body, nil))
	loan := reqtape.LendAfter(body, snap)
	require.Same(t, snap, loan)
	got, ok := reqtape.Read(body)
	require.True(t, ok)
	after, n := got.Prefix()
	assert.Equal(t, jsonw.Shared(string(body), string(before)), n)
	assert.Equal(t, string(before), after)
	var cold jsonw.Tape
	require.True(t, cold.ResetBytes(body))
	assert.Equal(t, cold.Root().Get("messages").Len(), got.Root().Get("messages").Len())
	assert.Equal(t, cold.Root().Get("messages").Index(2).Raw(), got.Root().Get("messages").Index(2).Raw())
	reqtape.Return(body, loan)
	assert.Nil(t, reqtape.Lent(body))
	again, ok := reqtape.Read(body)
	require.True(t, ok)
	_, n = again.Prefix()
	assert.Zero(t, n, "nothing lent: read cold")
}
