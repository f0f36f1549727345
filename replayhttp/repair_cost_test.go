package replayhttp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"hash"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reasonreplay/replay/codecs"
	_ "github.com/reasonreplay/replay/codecs/all"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The requests below are long tool loops: a user prompt, then model
// turns, each answered by the caller. Each generator returns the body as
// a client that keeps every byte sends it (kept) or without its
// reasoning, and the number of model turns.

func costSig(i int) string { return fmt.Sprintf("EqQBCkgIAhABGAIiQ%08dSig+/=", i) }

// anthropicLoop is a Messages request of n messages.
func anthropicLoop(n int, kept bool) ([]byte, int) {
	var b strings.Builder
	b.WriteString(`{"model":"claude-sonnet-4-5","max_tokens":2048,"thinking":{"type":"enabled","budget_tokens":1024},` +
		`"system":"You are an agent.","tools":[{"name":"step","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"Go."}`)
	turns := 0
	for i := 1; i < n; i++ {
		k := (i - 1) / 2
		if i%2 == 1 {
			b.WriteString(`,{"role":"assistant","content":[`)
			if kept {
				b.WriteString(`{"type":"thinking","thinking":"Step ` + strconv.Itoa(k) + `: call the tool again.","signature":"` + costSig(k) + `"},`)
			}
			b.WriteString(`{"type":"tool_use","id":"toolu_` + strconv.Itoa(k) + `","name":"step","input":{"n":` + strconv.Itoa(k) + `}}]}`)
			turns++
			continue
		}
		b.WriteString(`,{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_` + strconv.Itoa(k) + `","content":"ok"}]}`)
	}
	b.WriteString(`]}`)
	return []byte(b.String()), turns
}

// responsesLoop is a Responses request of about n input items: each model
// turn a reasoning item and a function call, then the call's output.
func responsesLoop(n int, kept bool) ([]byte, int) {
	var b strings.Builder
	b.WriteString(`{"model":"gpt-5","store":false,"include":["reasoning.encrypted_content"],"instructions":"You are an agent.",` +
		`"tools":[{"type":"function","name":"step","parameters":{"type":"object"}}],"input":[{"role":"user","content":"Go."}`)
	turns := 0
	for i := 1; i < n; i += 3 {
		k := strconv.Itoa(turns)
		if kept {
			b.WriteString(`,{"type":"reasoning","id":"rs_` + k + `","summary":[],"encrypted_content":"gAAAAB` + costSig(turns) + `"}`)
			b.WriteString(`,{"type":"function_call","id":"fc_` + k + `","call_id":"call_` + k + `","name":"step","arguments":"{\"n\":` + k + `}"}`)
		} else {
			b.WriteString(`,{"type":"function_call","call_id":"call_` + k + `","name":"step","arguments":"{\"n\":` + k + `}"}`)
		}
		b.WriteString(`,{"type":"function_call_output","call_id":"call_` + k + `","output":"ok"}`)
		turns++
	}
	b.WriteString(`]}`)
	return []byte(b.String()), turns
}

// geminiLoop is a generateContent request of n contents.
func geminiLoop(n int, kept bool) ([]byte, int) {
	var b strings.Builder
	b.WriteString(`{"systemInstruction":{"parts":[{"text":"You are an agent."}]},"tools":[{"functionDeclarations":[{"name":"step"}]}],` +
		`"contents":[{"role":"user","parts":[{"text":"Go."}]}`)
	turns := 0
	for i := 1; i < n; i++ {
		k := strconv.Itoa((i - 1) / 2)
		if i%2 == 1 {
			b.WriteString(`,{"role":"model","parts":[{"functionCall":{"name":"step","args":{"n":` + k + `}}`)
			if kept {
				b.WriteString(`,"thoughtSignature":"` + strings.TrimSuffix(costSig((i-1)/2), "+/=") + `"`)
			}
			b.WriteString(`}]}`)
			turns++
			continue
		}
		b.WriteString(`,{"role":"user","parts":[{"functionResponse":{"name":"step","response":{"n":` + k + `}}}]}`)
	}
	b.WriteString(`]}`)
	return []byte(b.String()), turns
}

// manyCalls is a Messages request whose one model turn calls the tool n
// times, and whose last message holds the n results.
func manyCalls(n int, kept bool) ([]byte, int) {
	var b strings.Builder
	b.WriteString(`{"model":"claude-sonnet-4-5","max_tokens":2048,"thinking":{"type":"enabled","budget_tokens":1024},` +
		`"tools":[{"name":"step","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"Go."},{"role":"assistant","content":[`)
	if kept {
		b.WriteString(`{"type":"thinking","thinking":"Call the tool for every item.","signature":"` + costSig(0) + `"},`)
	}
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"type":"tool_use","id":"toolu_` + strconv.Itoa(i) + `","name":"step","input":{"n":` + strconv.Itoa(i) + `}}`)
	}
	b.WriteString(`]},{"role":"user","content":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"type":"tool_result","tool_use_id":"toolu_` + strconv.Itoa(i) + `","content":"ok"}`)
	}
	b.WriteString(`]}]}`)
	return []byte(b.String()), 1
}

// costCase is a kind of long request and where it goes.
type costCase struct {
	name string
	url  string
	gen  func(n int, kept bool) ([]byte, int)
}

var costCases = []costCase{
	{"anthropic", "http://127.0.0.1:1/v1/messages", anthropicLoop},
	{"openai-responses", "http://127.0.0.1:1/v1/responses", responsesLoop},
	{"gemini", "http://127.0.0.1:1/v1beta/models/gemini-3-pro-preview:generateContent", geminiLoop},
	{"anthropic-many-calls", "http://127.0.0.1:1/v1/messages", manyCalls},
}

// countingStore counts the reads of a store.
type countingStore struct {
	Store
	gets atomic.Int64
}

func (s *countingStore) Get(ctx context.Context, k Key) ([][]byte, error) {
	s.gets.Add(1)
	return s.Store.Get(ctx, k)
}

func costRequest(ctx context.Context, url string, body []byte) *http.Request {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Api-Key", "sk-cost")
	req.Header.Set("Authorization", "Bearer sk-cost")
	req.Header.Set("X-Goog-Api-Key", "sk-cost")
	return req
}

// seed puts every model turn of kept, the request as a client that keeps
// every byte sends it, into tr's store, as the turns captured at their
// points of the conversation.
func seed(t testing.TB, tr *Transport, url string, kept []byte) {
	t.Helper()
	req := costRequest(context.Background(), url, kept)
	rec, ok := codecs.Recognise(tr.registry(), req.Method, req.URL, "", "")
	require.True(t, ok)
	r, err := rec.Codec.ReadRequest(kept)
	require.NoError(t, err)
	tenant := tr.tenantOf(req, rec.Codec)
	require.NotEmpty(t, tenant)
	d := chain(r)
	for ti, tu := range r.History.Turns {
		first, _ := r.TurnSpan(ti)
		tu.Seal()
		require.NoError(t, tr.Store.Put(context.Background(), Key{Tenant: tenant, Conversation: d[first]}, tu.AppendJSON(nil)))
	}
}

// answer is what the provider answers: a short turn, read and dropped.
func answer(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
	}
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(`{"id":"x","type":"message","role":"assistant","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn"}`))}, nil
}

// countingHash counts the bytes written into the conversation digests.
type countingHash struct {
	hash.Hash
	n *atomic.Int64
}

func (h countingHash) Write(p []byte) (int, error) {
	h.n.Add(int64(len(p)))
	return h.Hash.Write(p)
}

// The work of repairing a request grows with the request, not faster: one
// store read per model turn (however many calls a turn names), every
// turn restored, and the canonical bytes hashed within a small multiple
// of the body. Counts, not times: they hold on a busy machine.
func TestRepairWorkIsLinear(t *testing.T) {
	var hashed atomic.Int64
	newDigest = func() hash.Hash { return countingHash{sha256.New(), &hashed} }
	t.Cleanup(func() { newDigest = sha256.New })
	for _, c := range costCases {
		for _, n := range []int{10, 100, 1000, 5000} {
			t.Run(c.name+"/"+strconv.Itoa(n), func(t *testing.T) {
				store := &countingStore{Store: &MemoryStore{MaxTurns: 100000}}
				tr := &Transport{Store: store, Audit: AuditRefuse}
				kept, turns := c.gen(n, true)
				seed(t, tr, c.url, kept)
				stripped, _ := c.gen(n, false)
				store.gets.Store(0)
				hashed.Store(0)
				var sent []byte
				ctx, capture := WithCapture(context.Background())
				resp, err := tr.Middleware(costRequest(ctx, c.url, stripped), func(req *http.Request) (*http.Response, error) {
					sent, _ = io.ReadAll(req.Body)
					return answer(req)
				})
				require.NoError(t, err)
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				assert.Equal(t, int64(turns), store.gets.Load(), "one store read per model turn")
				restored := 0
				for _, r := range capture.Repairs() {
					if r.Action == RepairRestored {
						restored++
					}
				}
				assert.Equal(t, turns, restored, "every turn restored")
				assert.Equal(t, len(kept), len(sent), "the provider gets every byte back")
				ratio := float64(hashed.Load()) / float64(len(stripped))
				t.Logf("%d bytes, %d turns: %d store reads, %.2f canonical bytes hashed per body byte", len(stripped), turns, store.gets.Load(), ratio)
				assert.Less(t, ratio, 4.0, "canonical bytes hashed per body byte")
			})
		}
	}
}

// The repair loop stops when the caller goes away: the store is read no
// more, nothing is audited or sent, and the call fails with the
// context's error.
func TestRepairStopsWhenTheCallerGoesAway(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := &cancellingStore{Store: &MemoryStore{MaxTurns: 100000}, after: 3, cancel: cancel}
	audited := false
	tr := &Transport{Store: store, Audit: AuditRefuse, OnCapture: func(_ *http.Request, c *Capture) { _, audited = c.Report() }}
	kept, turns := anthropicLoop(2000, true)
	require.Equal(t, 1000, turns)
	seed(t, tr, costCases[0].url, kept)
	stripped, _ := anthropicLoop(2000, false)
	sent := false
	_, err := tr.Middleware(costRequest(ctx, costCases[0].url, stripped), func(req *http.Request) (*http.Response, error) {
		sent = true
		return answer(req)
	})
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, int64(3), store.gets.Load(), "the store is not read after the caller left")
	assert.False(t, audited, "nothing audited")
	assert.False(t, sent, "nothing sent")
}

// cancellingStore cancels the caller's context at its after-th read.
type cancellingStore struct {
	Store
	after  int64
	cancel func()
	gets   atomic.Int64
}

func (s *cancellingStore) Get(ctx context.Context, k Key) ([][]byte, error) {
	if s.gets.Add(1) == s.after {
		s.cancel()
	}
	return s.Store.Get(ctx, k)
}

// BenchmarkRepair repairs requests of 10 to 10,000 messages (and one turn
// naming 10 to 10,000 tool calls) whose every model turn lost its
// reasoning and has a capture: the whole middleware path (read,
// recognise, tenant, conversation digests, a store read and a rebuild
// per turn, the re-read, the audit). ns/msg is the time per message (per
// tool call for anthropic-many-calls): flat when the cost is linear.
func BenchmarkRepair(b *testing.B) {
	for _, c := range costCases {
		for _, n := range []int{10, 100, 1000, 10000} {
			b.Run(c.name+"/"+strconv.Itoa(n), func(b *testing.B) {
				tr := &Transport{Store: &MemoryStore{MaxTurns: 100000}, Audit: AuditRefuse}
				kept, _ := c.gen(n, true)
				seed(b, tr, c.url, kept)
				stripped, _ := c.gen(n, false)
				b.SetBytes(int64(len(stripped)))
				b.ReportAllocs()
				b.ResetTimer()
				start := time.Now()
				for b.Loop() {
					resp, err := tr.Middleware(costRequest(context.Background(), c.url, stripped), answer)
					if err != nil {
						b.Fatal(err)
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N)/float64(n), "ns/msg")
			})
		}
	}
}
