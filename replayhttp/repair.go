package replayhttp

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/itemdigest"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/view"
)

// RepairAction says what repair did with one element of a request.
type RepairAction string

// The repair actions.
const (
	// RepairRestored: reasoning the element had lost or changed was put
	// back, byte for byte, from the turn captured at the same point of
	// the same tenant's conversation. Detail says what differed.
	RepairRestored RepairAction = "restored"
	// RepairRemoved: an item the target must not get (another issuer's
	// signature or ciphertext, or one the policy drops for the target's
	// model) was removed, or not restored; Detail is the [replay.Notice].
	RepairRemoved RepairAction = "removed"
	// RepairAmbiguous: more than one capture of the conversation's point
	// shows what the element shows; it was left as it was.
	RepairAmbiguous RepairAction = "ambiguous"
	// RepairMismatch: the conversation's point has a capture, but the
	// element shows something else (other tool calls or other visible
	// text); it was left as it was.
	RepairMismatch RepairAction = "mismatch"
	// RepairFailed: the codec could not rebuild the element; it was left
	// as it was.
	RepairFailed RepairAction = "failed"
	// RepairStoreError: the store could not be read for the element, or
	// what it held there did not read as a turn (Detail says which); the
	// element was judged by the request alone.
	RepairStoreError RepairAction = "store-error"
	// RepairSet: a member was set on the request by a one-shot fix (see
	// [Retry]): drop_block, the Gemini sentinel, an empty
	// reasoning_content, a beta header.
	RepairSet RepairAction = "set"
)

// Repair reports one thing repair did, or refused to do, to a request.
type Repair struct {
	// Pointer is the JSON Pointer of the element in the request body
	// ("/messages/3", "/input/2", "/contents/1").
	Pointer string
	// Action says what was done.
	Action RepairAction
	// Detail says what, in one sentence.
	Detail string
}

// String renders the repair for logs. The text is not API.
func (r Repair) String() string { return string(r.Action) + " " + r.Pointer + ": " + r.Detail }

// scope is what names a request's place in the store: its tenant and its
// conversation's digest before each element.
type scope struct {
	tenant string   // "" when the request names none: no store
	chain  []string // see chain
	vis    []string // the visible digest of each model turn, by index, where chain computed it
}

func (s scope) key(element int) Key { return Key{Tenant: s.tenant, Conversation: s.chain[element]} }

// repair checks every model turn of the request against the turn captured
// at the same point of the same tenant's conversation and puts back, byte
// for byte, whatever reasoning differs; a turn without a capture is judged
// by the request alone, and loses only what the policy keeps from the
// target. The body is rebuilt in one pass; the store is read once per
// turn. Repair stops, leaving the body as it was, when ctx is done.
func (t *Transport) repair(ctx context.Context, cl *call) ([]byte, []Repair) {
	c, r, target, sc := cl.codec, cl.req, cl.target, cl.scope
	turns := r.History.Turns
	cl.captured = nil
	var reps []Repair
	var at []int      // the element each of reps is about
	var repl [][]byte // by turn: its new raw text, nil to leave it
	var docs [][]byte // scratch for the store's documents
	var wire []byte   // scratch for sameBlocks and repairTurn
	report := func(first int, rp ...Repair) {
		if reps == nil && len(rp) > 0 {
			// Mostly one a turn, when there are any.
			n := max(len(turns), len(rp))
			reps, at = make([]Repair, 0, n), make([]int, 0, n)
		}
		for _, x := range rp {
			reps, at = append(reps, x), append(at, first)
		}
	}
	dg := newDigester(r.Invisible)
	defer dg.release()
	// Carry to the target, one turn at a time (stored turns and the
	// request's, which are only read), made the first time a turn is
	// carried: a request whose turns were all carried before needs none.
	var carrier func(*replay.Turn) (*replay.Turn, []replay.Notice)
	carry := func(tu *replay.Turn) (*replay.Turn, []replay.Notice) {
		if carrier == nil {
			carrier = carryStored(t.registry(), target, t.Policy) // nil: the default policy
		}
		return carrier(tu)
	}
	for ti, tu := range turns {
		if ctx.Err() != nil {
			setPointers(r, reps, at)
			return r.Body, append(reps, Repair{Action: RepairFailed, Detail: "repair stopped: " + ctx.Err().Error()})
		}
		first, end := r.TurnSpan(ti)
		if first < 0 {
			continue
		}
		var capture *stored
		var why Repair
		capture, why, docs = t.captured(ctx, sc, first, tu, r, dg, docs)
		if why.Action != "" {
			report(first, why)
		}
		raw := func() []byte { return r.TurnRaw(first, end) }
		var out []byte
		var treps []Repair
		if capture != nil {
			if cl.captured == nil {
				cl.captured = make([]bool, len(turns))
			}
			cl.captured[ti] = true
			cr := capture.carry(target, carry)
			// What repair makes of a turn is a function of its bytes (and
			// of whether it is the last, which a cut may leave unfinished):
			// the same bytes met again with this capture and target get
			// what they got, nothing when they were the capture's.
			b, last := raw(), ti == len(turns)-1
			var ok bool
			if out, treps, ok = cr.recall(b, last); !ok {
				var same bool
				if same, wire = sameBlocks(tu, cr.want, cr.wires, wire); same {
					cr.remember(b, last, nil, nil)
					continue // the request sends what the target gets of the capture: no differences
				}
				out, treps, wire = repairTurn(c, tu, b, cr.want, cr.notices, true, wire)
				cr.remember(b, last, out, treps)
			}
		} else {
			// The request's turn is only read, and so is what the target
			// gets of it.
			want, notices := carry(tu)
			out, treps, wire = repairTurn(c, tu, nil, want, notices, false, wire)
			if out == nil && treps == nil {
				continue
			}
			out, treps, wire = repairTurn(c, tu, raw(), want, notices, false, wire)
		}
		if out != nil {
			if repl == nil {
				repl = make([][]byte, len(turns))
			}
			repl[ti] = out
		}
		report(first, treps...)
	}
	setPointers(r, reps, at)
	if repl == nil {
		return r.Body, reps
	}
	return r.Splice(func(ti int, _ []byte) []byte { return repl[ti] }), reps
}

// setPointers gives each of reps the JSON Pointer of the element at[i] of
// r, the pointers written into one string; at is overwritten.
func setPointers(r *codecs.Request, reps []Repair, at []int) {
	if len(reps) == 0 {
		return
	}
	buf := make([]byte, 0, len(at)*(len(r.Member)+2+len(strconv.Itoa(len(r.Elements)))))
	prev := -1
	for i, e := range at {
		if e == prev {
			at[i] = -1 // the same element as the one before
			continue
		}
		prev = e
		buf = append(buf, '/')
		buf = append(buf, r.Member...)
		buf = append(buf, '/')
		buf = strconv.AppendInt(buf, int64(e), 10)
		at[i] = len(buf)
	}
	all := string(buf)
	from := 0
	for i := range reps {
		if at[i] < 0 {
			reps[i].Pointer = reps[i-1].Pointer
			continue
		}
		reps[i].Pointer = all[from:at[i]]
		from = at[i]
	}
}

// repairTurn is what repair makes of one turn of the request (tu, whose
// raw text is raw) given what the target should get of it (want, and the
// notices of the Carry that made it; restoring: want is the turn's
// capture): the turn's new raw text (nil to leave it), and the repairs to
// report, without pointers. A nil raw asks whether there is anything to
// do at all: (nil, nil) when there is not. buf is scratch space, returned
// grown.
func repairTurn(c codecs.HTTPCodec, tu *replay.Turn, raw []byte, want *replay.Turn, notices []replay.Notice, restoring bool, buf []byte) ([]byte, []Repair, []byte) {
	var removed []replay.Notice
	for _, n := range notices {
		if n.Case != replay.CaseToolCallID && n.Action != replay.Keep && (restoring || foreign(n)) {
			removed = append(removed, n)
		}
	}
	var diffs []byte // "put back as captured: " and the differences
	if restoring {
		diffs = appendDifferences(append(buf[:0], restoredPrefix...), tu, want)
		buf = diffs[:0]
		if len(diffs) == len(restoredPrefix) {
			return nil, nil, buf // the request sends what was captured
		}
	} else if len(removed) == 0 || !carriesReasoning(tu) {
		return nil, nil, buf // judged by the request: nothing it must not send
	}
	if raw == nil {
		return nil, []Repair{}, buf // something to do
	}
	stripped, _ := c.Strip(raw)
	out, err := c.Patch(stripped, want)
	if err != nil {
		return nil, []Repair{{Action: RepairFailed, Detail: err.Error()}}, buf
	}
	if bytes.Equal(out, raw) {
		return nil, nil, buf
	}
	var reps []Repair
	if restoring && carriesReasoning(want) {
		reps = append(reps, Repair{Action: RepairRestored, Detail: string(diffs)})
	}
	for _, n := range removed {
		reps = append(reps, Repair{Action: RepairRemoved, Detail: n.String()})
	}
	return out, reps, buf
}

// captured returns the turn captured at element first of the request's
// conversation whose visible content is the request turn tu's; or nil and
// why none is used (an empty Repair when there simply is none).
//
// docs is scratch for the store's documents, returned for the next call.
func (t *Transport) captured(ctx context.Context, sc scope, first int, tu *replay.Turn, r *codecs.Request, dg *digester, docs [][]byte) (*stored, Repair, [][]byte) {
	if t.Store == nil || sc.tenant == "" {
		return nil, Repair{}, docs
	}
	got, own, err := storeGet(ctx, t.Store, docs, sc.key(first))
	if err != nil {
		return nil, Repair{Action: RepairStoreError, Detail: "the store could not be read (" + err.Error() + "); judged by the request alone"}, docs
	}
	if cap(got) > cap(docs) {
		docs = got
	}
	m, why := t.capturedOf(got, own, tu, r, dg, first, sc)
	return m, why, docs
}

// capturedOf is captured's choice among docs, the documents stored at
// element first (a MemoryStore's own bytes when own is set).
func (t *Transport) capturedOf(docs [][]byte, own bool, tu *replay.Turn, r *codecs.Request, dg *digester, first int, sc scope) (*stored, Repair) {
	if len(docs) == 0 {
		return nil, Repair{}
	}
	want := ""
	if ti := r.Elements[first].Turn; ti >= 0 && ti < len(sc.vis) && r.History.Turns[ti] == tu {
		want = sc.vis[ti]
	}
	if want == "" {
		want = dg.visible(tu)
	}
	var match []*stored
	bad := 0
	maxDoc := t.Limits.WithDefaults().MaxEvent
	for _, d := range docs {
		if len(d) > maxDoc {
			bad++ // past the limits: refused before the cache copies it or anything reads it
			continue
		}
		c := t.docs.read(d, own, t.readStored)
		if c.err != nil {
			bad++
			continue
		}
		if v := c.visibleOf(dg, r.Invisible); string(v[:]) == want {
			match = append(match, c)
		}
	}
	switch {
	case len(match) == 1:
		return match[0], Repair{}
	case len(match) > 1:
		for _, m := range match {
			if len(appendDifferences(nil, tu, m.turn)) == 0 {
				return m, Repair{} // the request sends one of them as captured
			}
		}
		return nil, Repair{Action: RepairAmbiguous,
			Detail: fmt.Sprintf("%d captures of this point of the conversation show what the message shows; left as it was", len(match))}
	case bad > 0:
		return nil, Repair{Action: RepairStoreError, Detail: fmt.Sprintf("%d stored entr%s for this point did not read as a turn; judged by the request alone", bad, plural(bad, "y", "ies"))}
	}
	return nil, Repair{Action: RepairMismatch, Detail: "the conversation's capture at this point shows other text or tool calls than the message; left as it was"}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// readStored reads a stored document as untrusted input: within the
// request limits (capturedOf refuses a document larger than they take
// before it gets here), and refused when an item's recorded digest does
// not match its bytes. doc never changes, and the turn may share its
// memory (see turnfn.ReadTurnShared).
func (t *Transport) readStored(doc string) (*replay.Turn, error) {
	lim := t.Limits.WithDefaults()
	tu, err := readTurnShared(doc)
	if err != nil {
		return nil, err
	}
	if len(tu.Blocks) > lim.MaxBlocks {
		return nil, &replay.LimitError{What: "block count", Limit: lim.MaxBlocks, Event: -1, Block: -1}
	}
	for i, b := range tu.Blocks {
		if it, ok := b.(replay.ReasoningItem); ok {
			if d := it.Meta().Digest; d != "" && !itemdigest.Matches(it, d) {
				return nil, fmt.Errorf("replayhttp: stored item %d does not match its digest", i)
			}
		}
	}
	return tu, nil
}

// carriesReasoning reports whether a turn holds a reasoning item.
func carriesReasoning(tu *replay.Turn) bool {
	for _, b := range tu.Blocks {
		if _, ok := b.(replay.ReasoningItem); ok {
			return true
		}
	}
	return false
}

// foreign reports whether a notice of Carry is a removal by origin: an
// item of another issuer, account or backend than the target's.
func foreign(n replay.Notice) bool {
	switch n.Case {
	case replay.CaseForeignOpaque, replay.CaseForeignText, replay.CaseIdentityMismatch, replay.CaseBackendMismatch:
		return n.Action != replay.Keep
	}
	return false
}

// kept is one reasoning element of a turn as the comparison sees it: the
// item, where it stands among what the turn shows, and its wire form (the
// bytes its digest is the SHA-256 of: two items are the same when these
// are), set by wires only when an answer needs it.
type kept struct {
	it   replay.ReasoningItem
	at   place
	what string
	wire string
}

// place is where a reasoning item stands among the visible blocks of its
// turn: after how many tool calls, how many bytes of text (so that text
// split into several blocks or joined into one stands the same) and how
// many other visible blocks.
type place struct{ calls, text, others int }

// keptOf appends the reasoning items of t to ks and the output item id of
// each of its tool calls and texts to followers.
func keptOf(t *replay.Turn, ks []kept, followers []string) ([]kept, []string) {
	var at place
	for _, b := range t.Blocks {
		switch b := b.(type) {
		case replay.ReasoningItem:
			ks = append(ks, kept{it: b, at: at, what: string(b.Kind())})
		case *replay.ToolCall:
			at.calls++
			followers = append(followers, b.ItemID)
		case *replay.Text:
			at.text += len(b.Text)
			followers = append(followers, b.ID)
		case *replay.Native:
			at.others++
		}
	}
	return ks, followers
}

// wires sets the wire form of each of ks, written into buf (returned
// grown), as views of it.
func wires(ks []kept, buf []byte) []byte {
	var ends [16]int
	at := ends[:0]
	for _, k := range ks {
		buf = k.it.AppendWire(buf)
		at = append(at, len(buf))
	}
	all := view.String(buf)
	from := 0
	for i := range ks {
		ks[i].wire = all[from:at[i]]
		from = at[i]
	}
	return buf
}

// restoredPrefix starts the detail of a restoration.
const restoredPrefix = "put back as captured: "

// appendDifferences appends to dst how the reasoning a request turn sends
// differs from what the target should get of the capture (want): each
// item missing, changed, added or moved, and each output item id the
// request lost, separated by "; ". Nothing when they are the same.
func appendDifferences(dst []byte, got, want *replay.Turn) []byte {
	var gk, wk [8]kept
	var gfk, wfk [8]string
	g, gf := keptOf(got, gk[:0], gfk[:0])
	w, wf := keptOf(want, wk[:0], wfk[:0])
	d := diffs{buf: dst, from: len(dst)}
	if !sameItems(g, w) {
		if len(g) > 0 && len(w) > 0 {
			// Only an item on both sides is compared; the wire forms
			// are views of the buffer wires writes them into.
			buf := wires(g, make([]byte, 0, 4<<10))
			wires(w, buf[len(buf):])
		}
		d.items(g, w)
	}
	for i := 0; i < len(wf) && i < len(gf); i++ {
		if wf[i] != "" && gf[i] != wf[i] {
			if gf[i] == "" {
				d.next()
				d.buf = append(d.buf, "the id "...)
				d.buf = strconv.AppendQuote(d.buf, wf[i])
				d.buf = append(d.buf, " that pairs an item with its reasoning was missing"...)
			} else {
				d.next()
				d.buf = append(d.buf, "an item's id was "...)
				d.buf = strconv.AppendQuote(d.buf, gf[i])
				d.buf = append(d.buf, ", captured "...)
				d.buf = strconv.AppendQuote(d.buf, wf[i])
			}
		}
	}
	return d.buf
}

// diffs is differences written one after the other into buf from from.
type diffs struct {
	buf  []byte
	from int
}

// next starts a difference.
func (d *diffs) next() {
	if len(d.buf) > d.from {
		d.buf = append(d.buf, "; "...)
	}
}

// item starts a difference about item i, of kind what.
func (d *diffs) item(what string, i int, says string) {
	d.next()
	d.buf = append(d.buf, what...)
	d.buf = append(d.buf, ' ')
	d.buf = strconv.AppendInt(d.buf, int64(i), 10)
	d.buf = append(d.buf, says...)
}

// sameItems reports whether g and w are the same items in the same places.
func sameItems(g, w []kept) bool {
	if len(g) != len(w) {
		return false
	}
	var buf []byte
	for i := range g {
		if g[i].at != w[i].at {
			return false
		}
		if sameWire(g[i].it, w[i].it) {
			continue
		}
		buf = g[i].it.AppendWire(buf[:0])
		n := len(buf)
		buf = w[i].it.AppendWire(buf)
		if !bytes.Equal(buf[:n], buf[n:]) {
			return false
		}
	}
	return true
}

// items writes how the items g differ from w, whose wire forms are set
// when both have items.
func (d *diffs) items(g, w []kept) {
	if len(g) == 0 {
		for i, k := range w {
			d.item(k.what, i, " was missing")
		}
		return
	}
	if len(w) == 0 {
		for i, k := range g {
			d.item(k.what, i, " of the request is not in the capture")
		}
		return
	}
	gi := make(map[string]int, len(g))
	for i, k := range g {
		gi[k.wire] = i
	}
	wi := make(map[string]bool, len(w))
	for i, k := range w {
		wi[k.wire] = true
		j, ok := gi[k.wire]
		switch {
		case ok && (j != i || g[j].at != k.at):
			d.item(k.what, i, " was out of place")
		case ok:
		case i < len(g) && g[i].what == k.what && !wi[g[i].wire]:
			d.item(k.what, i, " was ")
			d.buf = append(d.buf, changed(g[i].it, k.it)...)
		default:
			d.item(k.what, i, " was missing")
		}
	}
	for i, k := range g {
		if !wi[k.wire] && (i >= len(w) || w[i].what != k.what) {
			d.item(k.what, i, " of the request is not in the capture")
		}
	}
}

// changed says how an item was changed from its capture.
func changed(got, want replay.ReasoningItem) string {
	if got == nil || want == nil {
		return "changed"
	}
	gw, ww := got.AppendJSON(nil), want.AppendJSON(nil)
	var what []string
	for _, m := range []struct{ name, g, w string }{
		{"text", member(gw, "text"), member(ww, "text")},
		{"signature", member(gw, "signature"), member(ww, "signature")},
		{"encrypted data", member(gw, "data"), member(ww, "data")},
		{"summary", member(gw, "summary"), member(ww, "summary")},
		{"id", member(gw, "id"), member(ww, "id")},
	} {
		switch {
		case m.g == m.w:
		case m.g == "":
			what = append(what, m.name+" deleted")
		case len(m.g) < len(m.w) && strings.HasPrefix(m.w, strings.TrimSuffix(m.g, `"`)):
			what = append(what, m.name+" truncated")
		default:
			what = append(what, m.name+" altered")
		}
	}
	if len(what) == 0 {
		return "changed"
	}
	return strings.Join(what, ", ")
}

func member(obj []byte, name string) string { return jsonw.RawMember(string(obj), name) }
