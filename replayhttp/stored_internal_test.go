package replayhttp

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/benchreq"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Carry's turn of a stored turn is kept per target by what Carry reads of
// a target: a field added to Target must be weighed for carryKey.
func TestCarryKeyNamesWhatCarryReads(t *testing.T) {
	var names []string
	tt := reflect.TypeOf(replay.Target{})
	for i := 0; i < tt.NumField(); i++ {
		names = append(names, tt.Field(i).Name)
	}
	assert.Equal(t, []string{"API", "Provider", "Model", "Account", "PrefixHash", "Tools", "Store", "Thinking", "Headers", "AccountCreated", "Batch"}, names,
		"Target changed: if Carry reads the new field, add it to carryKey")
}

// The same document reads once, whoever holds it; a document that does
// not read is remembered as such; the cache keeps within its bounds.
func TestStoredCache(t *testing.T) {
	var c storedCache
	reads := 0
	read := func(doc []byte) (*replay.Turn, error) {
		reads++
		if bytes.Contains(doc, []byte("bad")) {
			return nil, fmt.Errorf("bad document")
		}
		return &replay.Turn{}, nil
	}
	a := c.read([]byte(`{"a":1}`), read)
	require.NoError(t, a.err)
	assert.Same(t, a, c.read([]byte(`{"a":1}`), read))
	assert.NotSame(t, a, c.read([]byte(`{"a":2}`), read))
	bad := c.read([]byte(`"bad"`), read)
	require.Error(t, bad.err)
	assert.Same(t, bad, c.read([]byte(`"bad"`), read))
	assert.Equal(t, 3, reads)
	for i := 0; i < storedCacheEntries+10; i++ {
		c.read([]byte(fmt.Sprintf(`{"n":%d}`, i)), read)
	}
	assert.Equal(t, storedCacheEntries, c.order.Len())
	assert.Len(t, c.m, storedCacheEntries)
	big := bytes.Repeat([]byte("x"), storedCacheBytes/4)
	c.read(big, read)
	assert.LessOrEqual(t, c.bytes, storedCacheBytes)
	huge := bytes.Repeat([]byte("y"), storedCacheBytes/8)
	assert.NotSame(t, c.read(huge, read), c.read(huge, read), "a document larger than the cache takes is not kept")
}

// sameBlocks holds only for turns differences finds nothing between: every
// turn of the agent's conversation against itself, and against each of
// its turns changed one way.
func TestSameBlocksMeansNoDifferences(t *testing.T) {
	pc := newPathCase(t, benchreq.Anthropic(), 80<<10)
	c := pc.call(pc.body)
	require.Greater(t, len(c.req.History.Turns), 3)
	for _, tu := range c.req.History.Turns {
		want := cloneTurn(t, tu)
		same, _ := sameBlocks(tu, want, wireOf(want), nil)
		assert.True(t, same)
		assert.Empty(t, differences(tu, want))
		for _, change := range []func(*replay.Turn){
			func(x *replay.Turn) { x.Blocks[0].(*replay.ReasoningText).Signature = replay.Some("other") },
			func(x *replay.Turn) { x.Blocks[0].(*replay.ReasoningText).Text += " " },
			func(x *replay.Turn) { x.Blocks = x.Blocks[1:] },
			func(x *replay.Turn) { x.Blocks[0], x.Blocks[1] = x.Blocks[1], x.Blocks[0] },
			func(x *replay.Turn) { x.Blocks[1].(*replay.Text).ID = "msg_1" },
			func(x *replay.Turn) { x.Blocks[2].(*replay.ToolCall).ItemID = "fc_1" },
			func(x *replay.Turn) { x.Blocks[1].(*replay.Text).Text = "other" },
		} {
			got := cloneTurn(t, tu)
			change(got)
			same, _ := sameBlocks(got, want, wireOf(want), nil)
			assert.False(t, same)
		}
	}
}

func cloneTurn(t *testing.T, tu *replay.Turn) *replay.Turn {
	t.Helper()
	c, err := replay.UnmarshalTurn(tu.AppendJSON(nil))
	require.NoError(t, err)
	return c
}

// Repair reads a stored document once: a second request finds it read,
// and a document altered in the store since is read again (and refused
// when its items no longer match their digests).
func TestRepairReadsAStoredTurnOnce(t *testing.T) {
	pc := newPathCase(t, benchreq.Anthropic(), 80<<10)
	c := pc.call(pc.stripped)
	out, reps := pc.tr.repair(context.Background(), c)
	require.Equal(t, string(pc.body), string(out), "every turn put back")
	require.NotEmpty(t, reps)
	n := pc.tr.docs.order.Len()
	assert.Equal(t, len(c.req.History.Turns), n)
	again, reps2 := pc.tr.repair(context.Background(), pc.call(pc.stripped))
	assert.Equal(t, out, again)
	assert.Equal(t, reps, reps2)
	assert.Equal(t, n, pc.tr.docs.order.Len(), "nothing read again")

	// A stored document altered: its item no longer matches its digest.
	first, _ := c.req.TurnSpan(0)
	k := c.scope.key(first)
	docs, err := pc.tr.Store.Get(context.Background(), k)
	require.NoError(t, err)
	sig := benchreq.Turn(0).Signature
	bad := bytes.Replace(docs[0], []byte(sig), []byte(strings.ToLower(sig)), 1)
	store := &MemoryStore{}
	require.NoError(t, store.Put(context.Background(), k, bad))
	pc.tr.Store = store
	_, reps3 := pc.tr.repair(context.Background(), pc.call(pc.stripped))
	require.NotEmpty(t, reps3)
	assert.Equal(t, Repair{Pointer: "/messages/1", Action: RepairStoreError,
		Detail: "1 stored entry for this point did not read as a turn; judged by the request alone"}, reps3[0])
}

// Requests repaired at once from one Transport share what it read.
func TestRepairConcurrently(t *testing.T) {
	pc := newPathCase(t, benchreq.Anthropic(), 80<<10)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 4; i++ {
				out, _ := pc.tr.repair(context.Background(), pc.call(pc.stripped))
				if !bytes.Equal(out, pc.body) {
					t.Error("not put back")
				}
				out, reps := pc.tr.repair(context.Background(), pc.call(pc.body))
				if !bytes.Equal(out, pc.body) || len(reps) > 0 {
					t.Error("a request as captured was repaired")
				}
			}
		}()
	}
	wg.Wait()
}

// What repair made of a turn is recalled for the same bytes in the same
// place (last or not) only.
func TestRepairedRecall(t *testing.T) {
	var c carried
	_, _, ok := c.recall([]byte(`{"a":1}`), false)
	assert.False(t, ok)
	c.remember([]byte(`{"a":1}`), false, []byte(`{"a":2}`), []Repair{{Action: RepairRestored, Detail: "d"}})
	out, reps, ok := c.recall([]byte(`{"a":1}`), false)
	require.True(t, ok)
	assert.Equal(t, `{"a":2}`, string(out))
	assert.Equal(t, []Repair{{Action: RepairRestored, Detail: "d"}}, reps)
	_, _, ok = c.recall([]byte(`{"a":1}`), true)
	assert.False(t, ok, "the last turn of a request may read otherwise")
	_, _, ok = c.recall([]byte(`{"a":1} `), false)
	assert.False(t, ok)
}
