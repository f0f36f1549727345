package replayhttp

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/canon"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/readafter"
)

// tenantOf names the tenant of a request: a digest, keyed by the
// deployment's secret, of the upstream it goes to and of what
// Transport.Tenant returned or, without one, the credential the request
// carries where its API says. It returns "" when there is none: such a
// request is neither repaired from nor captured into the store.
func (t *Transport) tenantOf(req *http.Request, c codecs.HTTPCodec) string {
	var who string
	if t.Tenant != nil {
		who = t.Tenant(req)
		if who != "" {
			who = "caller\x00" + who
		}
	} else if f := c.HTTP().Credential; f != nil {
		if cred := f(req); cred != "" {
			who = "credential\x00" + cred
		}
	}
	if who == "" {
		return ""
	}
	up := ""
	if req.URL != nil {
		up = strings.ToLower(req.URL.Scheme + "://" + req.URL.Host)
	}
	m := hmac.New(sha256.New, t.secret())
	m.Write([]byte("replay tenant v1\x00"))
	m.Write([]byte(up))
	m.Write([]byte{0})
	m.Write([]byte(who))
	return hex.EncodeToString(m.Sum(nil)[:16])
}

// secret returns the deployment's secret: Transport.Secret, or one drawn
// at random for this Transport (a store kept in this process's memory only
// needs it to live as long as the process).
func (t *Transport) secret() []byte {
	if len(t.Secret) > 0 {
		return t.Secret
	}
	t.secretOnce.Do(func() {
		t.randSecret = make([]byte, 32)
		_, _ = rand.Read(t.randSecret)
	})
	return t.randSecret
}

// newDigest makes the hash the conversation's digests are taken with.
var newDigest = sha256.New

// chain returns the conversation's digest before each element of r and
// after the last one: d[i] names the conversation up to element i, over
// its visible content only. It starts from the members the turns are
// bound to (the system prompt, the tools); an element of the model's turn
// counts by what the turn shows (its text, its tool calls, its other
// visible blocks: see visible), every other element by its canonical JSON;
// reasoning, signatures, item ids and cache markers never count, so a
// client that dropped or mangled its reasoning still names its
// conversation, and any change to what the conversation says names
// another. The values come from the request's tape (the pass that read
// it) where it has one.
func chain(r *codecs.Request) []string {
	d, _, _ := newChainer(r).run(nil, false)
	return d
}

func newChainer(r *codecs.Request) *chainer {
	return &chainer{r: r, dg: newDigester(r.Invisible), vis: make([]string, len(r.History.Turns))}
}

// chain is the package's chain, continuing from a recent request of the
// same tenant (see chainCache) when there is one; it also returns the
// visible digest of each model turn it computed ("" for the others). A
// request of no tenant, or larger than the cache keeps, is computed whole
// and not kept.
func (t *Transport) chain(r *codecs.Request, tenant string) (d, vis []string) {
	return t.chainOf(r, tenant, nil, false)
}

// chainOf is chain for a request read by codec (nil: a codec that makes
// no promise of reading its turns from their own bytes); owned says that
// no one writes the request's body again (a cache entry keeps it as it
// is).
func (t *Transport) chainOf(r *codecs.Request, tenant string, codec codecs.HTTPCodec, owned bool) (d, vis []string) {
	ch := newChainer(r)
	defer ch.dg.release()
	if codec != nil {
		ch.key = readafter.TurnKey(codec)
	}
	ch.owned = owned
	if tp := r.History.RequestTape(r.History.Request); tp != nil {
		ch.after, ch.prefix = tp.Prefix()
	}
	if tenant == "" || len(r.Body) > chainCacheMaxBody {
		d, _, _ = ch.run(nil, false)
		return d, ch.vis
	}
	key := chainKey(tenant, r.Invisible)
	d, ent, replaced := ch.run(t.chains.get(key), true)
	if ent != nil {
		t.chains.put(key, ent, replaced)
	}
	return d, ch.vis
}

// digester writes the canonical forms a request's digests are made of,
// reusing its writers.
type digester struct {
	skip func(string) bool
	w    *canon.Writer // the conversation's
	tw   *canon.Writer // a turn's (visible)
	th   hash.Hash
	sum  [sha256.Size]byte
}

func newDigester(invisible []string) *digester {
	skip := func(name string) bool { return slices.Contains(invisible, name) }
	if dg, ok := digesters.Get().(*digester); ok {
		dg.skip = skip
		dg.w.SetSkip(skip)
		dg.tw.SetSkip(skip)
		return dg
	}
	th := newDigest()
	return &digester{skip: skip, w: canon.New(newDigest(), skip), tw: canon.New(th, skip), th: th}
}

// digesters are the digesters requests are done with: their writers'
// buffers serve the next request.
var digesters sync.Pool

// release hands dg to the next request. Nothing dg wrote may be in use:
// the digests it returned are strings of their own.
func (dg *digester) release() {
	if dg.w.Footprint()+dg.tw.Footprint() > maxPooledDigester {
		return
	}
	dg.skip = nil
	dg.w.SetSkip(nil)
	dg.tw.SetSkip(nil)
	digesters.Put(dg)
}

// maxPooledDigester bounds the buffers a pooled digester keeps.
const maxPooledDigester = 256 << 10

// value writes the value at body[start:end], read from v, its value on the
// request's tape, when v is present.
func (dg *digester) value(body []byte, v jsonw.Val, start, end int) {
	if v.Exists() {
		dg.w.Val(v)
		return
	}
	dg.w.Value(string(body[start:end]))
}

// visible returns the digest of what a turn shows: its text (all of it,
// as one string: an agent may join or split text blocks), then its tool
// calls (id, name, canonical arguments) and its other visible blocks in
// order. Reasoning, compactions, and the ids of output items are left
// out.
func visible(t *replay.Turn, skip func(string) bool) string {
	dg := &digester{skip: skip, th: newDigest()}
	dg.tw = canon.New(dg.th, skip)
	return dg.visible(t)
}

// visible is the package's visible with dg's turn writer.
func (dg *digester) visible(t *replay.Turn) string {
	var x [32]byte
	return string(dg.visibleHex(t, x[:]))
}

// visibleHex writes visible's digest of t, in hex, into x (32 bytes) and
// returns x.
func (dg *digester) visibleHex(t *replay.Turn, x []byte) []byte {
	dg.th.Reset()
	w := dg.tw
	w.Reset(dg.th)
	n := 0
	for _, b := range t.Blocks {
		if x, ok := b.(*replay.Text); ok {
			n += len(x.Text)
		}
	}
	w.TagLen('t', n)
	for _, b := range t.Blocks {
		if x, ok := b.(*replay.Text); ok {
			w.Piece(x.Text)
		}
	}
	for _, b := range t.Blocks {
		switch b := b.(type) {
		case *replay.ToolCall:
			w.Tag('c', b.ID)
			w.Tag('n', b.Name)
			args := strings.TrimSpace(b.Arguments)
			switch {
			case args == "":
				w.Tag('j', "")
				w.Value("{}")
			case jsonw.Valid(args):
				w.Tag('j', "")
				w.Value(args)
			default:
				w.Tag('r', args)
			}
		case *replay.Native:
			w.Tag('x', b.Kind)
			if jsonw.ValidBytes(b.Raw) {
				w.Value(string(b.Raw))
			}
		}
	}
	hex.Encode(x, w.Sum(dg.sum[:0])[:16])
	return x
}
