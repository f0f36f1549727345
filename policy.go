package replay

import (
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/reasonreplay/replay/internal/turnfn"
)

// Case is a situation the carry-over [Policy] decides on: how a block of a
// stored turn relates to the target it is about to be sent to.
type Case string

// The cases of the carry-over table, in the order [Carry] tests them.
const (
	// CaseFailedTurn: the item's turn did not complete (cut-off stream,
	// provider error, limit).
	CaseFailedTurn Case = "failed-turn"
	// CaseNotReplayable: the item is unfinished, or unsigned where its
	// format signs its text, or encrypted without data.
	CaseNotReplayable Case = "not-replayable"
	// CaseForeignOpaque: a signature-only text, encrypted blob or opaque
	// item of an issuer the target does not accept.
	CaseForeignOpaque Case = "foreign-opaque"
	// CaseForeignText: visible reasoning (text, summary) of an issuer the
	// target does not accept.
	CaseForeignText Case = "foreign-visible-text"
	// CaseIdentityMismatch: ciphertext of an account-bound format
	// (codecs.FormatTraits.AccountBound) whose turn's Account differs from the
	// target's.
	CaseIdentityMismatch Case = "identity-mismatch"
	// CaseBackendMismatch: a signature minted in one key domain of its
	// format (codecs.FormatTraits.Domain, e.g. one of two backends of a model family)
	// going to another.
	CaseBackendMismatch Case = "backend-mismatch"
	// CaseUnread: the target accepts the issuer but its model or account
	// will not read the item (codecs.FormatTraits.Unread): the provider drops it
	// silently.
	CaseUnread Case = "unread-by-target"
	// CaseSameFamily: the target accepts the issuer, on another platform of
	// the same family (one vendor's signature going to a cloud platform
	// that serves the same models).
	CaseSameFamily Case = "same-family-other-platform"
	// CaseSameIssuer: the target is the issuer (format, platform and, where
	// known, account), and the item is replayable.
	CaseSameIssuer Case = "same-issuer"
	// CaseUnsignedCall: the first function call of a turn carries no
	// signature and the target documents a placeholder for such calls
	// ([ReplayContract].Placeholder): history the model did not produce.
	CaseUnsignedCall Case = "unsigned-call"
	// CaseToolCallID is the situation of a tool call with no id, or with the id
	// of an earlier call, going to a target whose tool results must name a
	// unique, non-empty call id ([ReplayContract].ToolIDs): a Gemini call often
	// has no id. It is not a policy choice: [Carry] always mints an id there
	// (action [MintID]) and reports the old and new id in the notice
	// ([Notice].OldID, [Notice].NewID), so that the caller sends each tool
	// result with the id its call now has.
	CaseToolCallID Case = "tool-call-id"
)

// Action is what [Carry] does with a block.
type Action string

// The actions of the carry-over table.
const (
	// Keep sends the item as it is.
	Keep Action = "keep"
	// ToText sends the item's visible text as plain, untagged assistant
	// text (never wrapped in <think>) and drops its signature.
	ToText Action = "to-text"
	// Drop leaves the item out.
	Drop Action = "drop"
	// Sentinel writes the target's documented placeholder signature
	// ([ReplayContract].Placeholder) on an unsigned function call.
	Sentinel Action = "sentinel"
	// MintID is what [Carry] does in [CaseToolCallID]: it gives the call a new
	// id, deterministic (the same history carried again gets the same ids) and
	// unique in the carried history.
	MintID Action = "mint-id"
)

// Policy maps each [Case] to the [Action] [Carry] takes. A case missing from
// the map takes its default from [PolicyTable]. An action a case does not
// allow (see PolicyRow.Allowed) is refused and the default is taken: no
// override sends one issuer's signature or ciphertext to another.
type Policy map[Case]Action

// PolicyRow is one row of [PolicyTable].
type PolicyRow struct {
	// Case is the situation.
	Case Case `json:"case"`
	// Default is the action [DefaultPolicy] takes.
	Default Action `json:"default"`
	// Allowed lists the actions a [Policy] may choose; any other is refused.
	Allowed []Action `json:"allowed"`
	// Doc says why, in one sentence.
	Doc string `json:"doc"`
}

// policyTable is the declared carry-over table. It is not exported as a
// variable: a caller who could append Keep to a row would defeat "never
// send a foreign signature". [PolicyTable] returns a copy.
var policyTable = [...]PolicyRow{
	{CaseFailedTurn, Drop, []Action{Drop, ToText},
		"A turn that did not complete is not trusted: its reasoning is dropped (OpenAI reasoning items with their follower's id), or shown as text when asked."},
	{CaseNotReplayable, Drop, []Action{Drop, ToText},
		"An unfinished or unsigned item cannot be replayed natively; a signature is never fabricated."},
	{CaseForeignOpaque, Drop, []Action{Drop},
		"A signature, ciphertext or opaque item is never sent to another issuer, whatever the policy says."},
	{CaseForeignText, Drop, []Action{Drop, ToText},
		"Another issuer's visible reasoning is dropped; to-text (opt-in) sends it as plain untagged text, since some models mimic tags."},
	{CaseIdentityMismatch, Drop, []Action{Drop},
		"Account-bound ciphertext (OpenAI Responses) is bound to the organisation that minted it; another account cannot decrypt it."},
	{CaseBackendMismatch, Drop, []Action{Drop, ToText},
		"A signature minted in one key domain is not accepted in another (AI Studio and Vertex, for Gemini)."},
	{CaseUnread, Drop, []Action{Drop, Keep},
		"The target's model or account does not read the item (Claude 5.5 blocks bound to their account or model, Haiku 5.5 dropping other models' blocks, only the 5.2 models reading Fable 5.2's, Fable and Opus 5.5 not reading each other's, Bedrock removing blocks of another AWS account or of a Claude app): the provider would drop it silently, so it is dropped with a notice."},
	{CaseSameFamily, Keep, []Action{Keep, Drop, ToText},
		"A family's signatures are valid on every platform that serves its models (Claude on Anthropic, Bedrock and Vertex), where the model and account read them."},
	{CaseSameIssuer, Keep, []Action{Keep, Drop, ToText},
		"The issuer accepts its own replayable items back as they are."},
	{CaseUnsignedCall, Keep, []Action{Keep, Sentinel},
		"An unsigned first function call is left as it is (the audit flags it where the target requires signatures); sentinel (opt-in) writes the target's documented placeholder."},
}

// PolicyTable returns the declared carry-over table: per case, the default
// action, the actions a caller may choose instead, and why. [Carry] tests
// the cases in this order and takes the first that holds. The result is a
// copy: changing it changes nothing.
func PolicyTable() []PolicyRow {
	out := make([]PolicyRow, len(policyTable))
	for i, r := range policyTable {
		r.Allowed = append([]Action(nil), r.Allowed...)
		out[i] = r
	}
	return out
}

// DefaultPolicy returns a fresh copy of the default actions of
// [PolicyTable], for the caller to change.
func DefaultPolicy() Policy {
	p := make(Policy, len(policyTable))
	for _, r := range policyTable {
		p[r.Case] = r.Default
	}
	return p
}

// action returns the action p takes for c, and a note when p's choice was
// refused.
func (p Policy) action(c Case) (Action, string) {
	for _, r := range policyTable {
		if r.Case != c {
			continue
		}
		a, ok := p[c]
		if !ok || a == "" {
			return r.Default, ""
		}
		for _, x := range r.Allowed {
			if x == a {
				return a, ""
			}
		}
		return r.Default, fmt.Sprintf(" (the policy's %q is not allowed for %s)", a, c)
	}
	return Drop, ""
}

// Notice reports one decision of [Carry] that loses or changes something.
type Notice struct {
	// Turn is the index of the turn in the history given to Carry.
	Turn int `json:"turn"`
	// Block is the index of the block in that turn, as given to Carry.
	Block int `json:"block"`
	// Case is the situation found.
	Case Case `json:"case"`
	// Action is what Carry did.
	Action Action `json:"action"`
	// Reason says what was lost and why, in one sentence.
	Reason string `json:"reason"`
	// OldID and NewID are set in [CaseToolCallID]: the tool call's id as
	// stored (empty when it had none) and the id it is sent with. The
	// tool result of the call (at Turn, Block) must name NewID.
	OldID string `json:"old_id,omitempty"`
	NewID string `json:"new_id,omitempty"`
}

// String renders the notice on one line.
func (n Notice) String() string {
	return fmt.Sprintf("turn %d block %d: %s -> %s: %s", n.Turn, n.Block, n.Case, n.Action, n.Reason)
}

// Carry prepares a stored history for a target: it returns a new history
// (the input is never modified; the new turns share only immutable strings
// and byte slices with it) in which every block has been decided by the
// policy table, and a notice for every block lost or changed. A nil policy
// is [DefaultPolicy]. What the target accepts comes from its codec's
// [ReplayContract] in [Default].
//
// Per reasoning item, the first case of [PolicyTable] that holds decides.
// Besides reasoning items: a native block (a server-side tool element) goes
// only to the API it came from; an unfinished tool call or native block is
// dropped; ids and members that belong to the source API's wire shape
// (OpenAI `msg_`/`fc_` item ids, extra members) are not carried to another
// API. The parts of one provider item (blocks with the same id, e.g. an
// OpenAI reasoning item's summaries and encrypted content) are kept or
// dropped together, and when a reasoning item whose format pairs with its
// follower (codecs.FormatTraits.PairsWithFollower) is not sent, its following message
// or function call loses its original item id, so that it is never sent
// without its reasoning item. For a target that requires tool call ids
// ([ReplayContract].ToolIDs), a call with no id or with an earlier call's
// id gets a minted one ([CaseToolCallID]; the notice carries the old and
// new id for the caller's tool results).
//
// Carry takes and returns a [History], the shape [AuditReplay] takes, so
// that the carried history can be audited as it is. Only h.Turns is read;
// the result has Turns alone (the carried turns are no longer the elements
// of h.Request).
func Carry(h History, target Target, policy Policy) (History, []Notice) {
	return Default().Carry(h, target, policy)
}

// Carry is the package-level [Carry] on this registry.
func (r *Registry) Carry(h History, target Target, policy Policy) (History, []Notice) {
	history := h.Turns
	c := &carrier{}
	c.start(r, target, policy)
	c.ids.history = history
	out := make([]*Turn, len(history))
	for ti, t := range history {
		out[ti] = c.turn(ti, t)
	}
	return History{Turns: out}, c.notices
}

// start readies the carrier for target and policy.
func (c *carrier) start(r *Registry, target Target, policy Policy) {
	if policy == nil {
		policy = DefaultPolicy()
	}
	c.target, c.policy = target, policy
	c.contract, _ = r.contract(target)
	c.sentinel = c.sentinelTarget()
}

func init() { turnfn.CarryStored = carryStored }

// carryStored returns Carry of one turn at a time to target under policy,
// for a caller that changes neither the turns it gives nor what it gets
// (see turnfn.CarryStored): every block that Carry would copy unchanged is
// the given turn's own, and the turn is the given turn itself when no
// block changes. Each turn's carried turn and notices are otherwise
// Carry's of a history of that turn alone. The function it returns is for
// one goroutine: it reuses its carrier, whose target's contract is looked
// up once.
func carryStored(r *Registry, target Target, policy Policy) func(*Turn) (*Turn, []Notice) {
	c := &carrier{shared: true}
	c.start(r, target, policy)
	return func(t *Turn) (*Turn, []Notice) {
		c.one[0] = t
		c.ids, c.notices = toolIDs{history: c.one[:]}, nil
		out := c.turn(0, t)
		c.one[0], c.ids.history = nil, nil
		return out, c.notices
	}
}

// contract returns the replay contract of the target's codec, found once:
// by name when the target names its API, else by provider and model.
func (r *Registry) contract(t Target) (ReplayContract, bool) {
	var c ReasoningCodec
	var err error
	if t.API != "" {
		c, err = r.Lookup(t.API, t.Provider, t.Model)
	} else {
		c, err = r.Resolve(t.Provider, t.Model)
	}
	if err != nil {
		return ReplayContract{}, false
	}
	return r.contractOf(c), true
}

// maxContracts bounds the contracts a registry keeps (see
// Registry.contracts): a codec value may carry what a request names.
const maxContracts = 256

// contractOf returns c.Contract(), kept for a c whose type makes every
// value a map key (see keyable).
func (r *Registry) contractOf(c ReasoningCodec) ReplayContract {
	if !keyable(reflect.TypeOf(c)) {
		return c.Contract()
	}
	if rc, ok := r.contracts.Load(c); ok {
		return rc.(ReplayContract)
	}
	rc := c.Contract()
	if r.ncontracts.Add(1) <= maxContracts {
		r.contracts.Store(c, rc)
	}
	return rc
}

// keyables remembers keyable's answer per type.
var keyables sync.Map // reflect.Type -> bool

// keyable reports whether every value of t can be a map key: t is
// comparable and holds no interface (whose value may not be).
func keyable(t reflect.Type) bool {
	if k, ok := keyables.Load(t); ok {
		return k.(bool)
	}
	var walk func(t reflect.Type) bool
	walk = func(t reflect.Type) bool {
		switch t.Kind() {
		case reflect.Interface, reflect.Slice, reflect.Map, reflect.Func:
			return false
		case reflect.Array:
			return walk(t.Elem())
		case reflect.Struct:
			for i := 0; i < t.NumField(); i++ {
				if !walk(t.Field(i).Type) {
					return false
				}
			}
		}
		return true
	}
	k := walk(t)
	keyables.Store(t, k)
	return k
}

type carrier struct {
	target   Target
	policy   Policy
	contract ReplayContract
	sentinel bool
	notices  []Notice
	ids      toolIDs // used when the target requires tool call ids (contract.ToolIDs)
	ds       [16]decision
	// shared: the turns carried and the carried turns are never changed,
	// so a block carried unchanged is the source's own (see carryStored).
	shared bool
	one    [1]*Turn // the history of a shared carry: the turn carried
}

func (c *carrier) note(ti, bi int, cs Case, a Action, reason string) {
	c.notices = append(c.notices, Notice{Turn: ti, Block: bi, Case: cs, Action: a, Reason: reason})
}

// sentinelTarget reports whether the placeholder may be written: the
// policy opts in and the target documents one.
func (c *carrier) sentinelTarget() bool {
	a, _ := c.policy.action(CaseUnsignedCall)
	return a == Sentinel && c.contract.Placeholder != nil
}

func (c *carrier) accepted(f Format) bool { return c.contract.accepts(f) }

// acceptsUnattributed reports whether the target's contract lists
// [FormatUnknown] among the formats it takes back.
func (c *carrier) acceptsUnattributed() bool {
	for _, f := range c.contract.Accepts {
		if f == FormatUnknown {
			return true
		}
	}
	return false
}

// accepts reports whether the contract's target accepts items of f's
// family.
func (rc *ReplayContract) accepts(f Format) bool {
	for _, a := range rc.Accepts {
		if a.Family() == f.Family() {
			return true
		}
	}
	return false
}

func sameName(a, b string) bool { return a == "" || b == "" || strings.EqualFold(a, b) }

// classify returns the case of a reasoning item of turn t.
func (c *carrier) classify(t *Turn, it ReasoningItem) (Case, string) {
	m := it.Meta()
	p := t.Provenance
	tg := c.target
	if !t.Complete || t.Error != nil {
		return CaseFailedTurn, "the turn did not complete"
	}
	if !it.Replayable() {
		switch {
		case m.Unfinished:
			return CaseNotReplayable, "the item is unfinished"
		default:
			return CaseNotReplayable, fmt.Sprintf("the %s item lacks its signature or data", m.Format)
		}
	}
	visible := visibleText(it) != ""
	if m.Format == "" || m.Format == FormatUnknown {
		// Unattributed reasoning goes back only through the API it came
		// from, and only to a target whose contract takes unattributed
		// reasoning (a host with no format of its own): what the target's
		// encoder writes, and no more.
		if strings.EqualFold(p.API, tg.API) && c.acceptsUnattributed() && sameName(p.Provider, tg.Provider) {
			return CaseSameIssuer, ""
		}
		if visible && !signedOrOpaque(it) {
			return CaseForeignText, fmt.Sprintf("unattributed reasoning from %s is not native to %s", p.API, tg.API)
		}
		return CaseForeignOpaque, fmt.Sprintf("an unattributed %s item from %s is never sent to %s", it.Kind(), p.API, tg.API)
	}
	if !c.accepted(m.Format) {
		if visible {
			return CaseForeignText, fmt.Sprintf("%s reasoning is foreign to %s", m.Format, describeTarget(tg))
		}
		return CaseForeignOpaque, fmt.Sprintf("%s of issuer %s is never sent to %s", opaqueName(it), m.Format, describeTarget(tg))
	}
	from := m.Format.domain(p.Upstream)
	if from == "" {
		from = m.Format.domain(p.Provider)
	}
	if to := m.Format.domain(tg.Provider); from != "" && to != "" && from != to {
		return CaseBackendMismatch, fmt.Sprintf("the %s signature was minted on %s and the target is %s", m.Format, from, to)
	}
	if m.Format.traits().AccountBound && p.Account != "" && tg.Account != "" && p.Account != tg.Account {
		if _, enc := it.(*Encrypted); enc {
			return CaseIdentityMismatch, fmt.Sprintf("the ciphertext was minted by account %q and the target is %q", p.Account, tg.Account)
		}
	}
	if u := m.Format.traits().Unread; u != nil {
		if why := u(p, tg); why != "" {
			return CaseUnread, why
		}
	}
	if !sameName(p.Provider, tg.Provider) && !c.contract.Gateway {
		return CaseSameFamily, fmt.Sprintf("%s item from %s going to %s", m.Format, p.Provider, tg.Provider)
	}
	return CaseSameIssuer, ""
}

func describeTarget(t Target) string {
	s := t.API
	if t.Model != "" {
		s += " " + t.Model
	}
	if s == "" {
		return "the target"
	}
	return s
}

func opaqueName(it ReasoningItem) string {
	switch it.(type) {
	case *ReasoningText:
		return "signature"
	case *Encrypted:
		return "ciphertext"
	}
	return "opaque item " + string(it.Kind())
}

// signedOrOpaque reports whether the item's worth is in bytes only its
// issuer can read.
func signedOrOpaque(it ReasoningItem) bool {
	switch x := it.(type) {
	case *ReasoningText:
		return x.Text == ""
	case *Summary:
		return false
	}
	return true
}

// visibleText returns the text a reader can see in the item.
func visibleText(it ReasoningItem) string {
	switch x := it.(type) {
	case *ReasoningText:
		return x.Text
	case *Summary:
		return x.Summary
	}
	return ""
}

// decision is the fate of one block of a turn.
type decision struct {
	cs     Case
	action Action
	reason string
}

func (c *carrier) turn(ti int, t *Turn) *Turn {
	ds := c.decide(t)
	c.keepPartsTogether(t, ds)
	return c.emit(ti, t, ds)
}

// decide classifies every reasoning item of t and takes the policy's
// action for its case.
func (c *carrier) decide(t *Turn) []decision {
	var ds []decision
	if len(t.Blocks) <= len(c.ds) {
		// The carrier's own: a turn's decisions are done with once it is
		// emitted.
		ds = c.ds[:len(t.Blocks)]
		clear(ds)
	} else {
		ds = make([]decision, len(t.Blocks))
	}
	for bi, b := range t.Blocks {
		it, ok := b.(ReasoningItem)
		if !ok {
			continue
		}
		cs, why := c.classify(t, it)
		a, refused := c.policy.action(cs)
		if a == ToText && visibleText(it) == "" {
			a = Drop
		}
		ds[bi] = decision{cs, a, why + refused}
	}
	return ds
}

// keepPartsTogether makes the parts of one provider item share one fate:
// if any part is not kept, none is sent natively. A reasoning item that
// pairs with its follower and is not sent takes the follower's original
// item id with it.
func (c *carrier) keepPartsTogether(t *Turn, ds []decision) {
	for i := 0; i < len(t.Blocks); {
		j := groupEnd(t.Blocks, i)
		lost := -1
		for k := i; k < j; k++ {
			if ds[k].action != Keep {
				lost = k
			}
		}
		if j-i > 1 && lost >= 0 {
			for k := i; k < j; k++ {
				if ds[k].action == Keep {
					ds[k] = decision{ds[lost].cs, Drop, fmt.Sprintf("dropped with the other parts of item %q (%s)", t.Blocks[k].(ReasoningItem).Meta().ID.Value(), ds[lost].reason)}
				}
			}
		}
		if it, ok := t.Blocks[i].(ReasoningItem); ok && lost >= 0 && pairs(it.Meta().Format) && j < len(t.Blocks) && isFollower(t.Blocks[j]) {
			ds[j].reason = fmt.Sprintf("its reasoning item %q is not sent", it.Meta().ID.Value())
			ds[j].cs = ds[lost].cs
			ds[j].action = Drop
		}
		if j == i {
			j++
		}
		i = j
	}
}

// pairs reports whether a reasoning item of format f may have paired its
// follower's item id: a format that declares it, or an unattributed one,
// whose host's ids are never sent anywhere else.
func pairs(f Format) bool {
	return f == "" || f == FormatUnknown || f.traits().PairsWithFollower
}

// emitState is what emit carries from one block to the next.
type emitState struct {
	crossAPI   bool
	signedCall bool // the previous block is a kept item attached to what follows
	firstCall  bool
	calls      int // tool calls emitted so far in the turn
}

// emit builds the carried turn from t and the decisions, noting every
// loss.
func (c *carrier) emit(ti int, t *Turn, ds []decision) *Turn {
	e := blockList{src: t.Blocks}
	if !c.shared {
		e.out = make([]Block, 0, len(t.Blocks)+1)
	}
	st := emitState{crossAPI: !strings.EqualFold(t.Provenance.API, c.target.API), firstCall: true}
	for bi, b := range t.Blocks {
		d := ds[bi]
		signed := false
		switch x := b.(type) {
		case ReasoningItem:
			signed = c.emitItem(ti, bi, &e, x, d)
		case *Text:
			e.add(c.emitText(ti, bi, x, d, st))
		case *ToolCall:
			c.emitCall(ti, bi, &e, x, d, &st)
		case *Native:
			c.emitNative(ti, bi, &e, x, t.Provenance.API, st)
		case *Compaction:
			c.emitCompaction(ti, bi, &e, x, t, st)
		}
		st.signedCall = signed
	}
	if e.out == nil {
		if e.n == len(t.Blocks) {
			return t // a shared carry that changed nothing
		}
		e.out = t.Blocks[:e.n:e.n] // that dropped the blocks after these
	}
	nt := *t
	nt.Blocks = e.out
	return &nt
}

// blockList is the blocks a carry emits. A shared carry (out nil) makes
// none while they are the source's own (src), in order, and counts them.
type blockList struct {
	src []Block
	n   int     // the blocks of src emitted so far as they are, while out is nil
	out []Block // the blocks emitted
}

func (e *blockList) add(b Block) {
	if e.out == nil {
		if e.n < len(e.src) && e.src[e.n] == b {
			e.n++
			return
		}
		e.out = make([]Block, e.n, len(e.src)+1)
		copy(e.out, e.src)
	}
	e.out = append(e.out, b)
}

// emitItem appends the item as its decision says and reports whether it
// was kept attached to the block that follows.
func (c *carrier) emitItem(ti, bi int, out *blockList, x ReasoningItem, d decision) bool {
	switch d.action {
	case Keep:
		if c.shared {
			out.add(x)
		} else {
			out.add(cloneItem(x))
		}
		return x.Meta().Attached
	case ToText:
		c.note(ti, bi, d.cs, ToText, d.reason+"; sent as plain text, its signature and format dropped")
		out.add(&Text{Text: visibleText(x) + "\n\n"})
		return false
	}
	c.note(ti, bi, d.cs, Drop, d.reason)
	return false
}

func (c *carrier) emitText(ti, bi int, x *Text, d decision, st emitState) *Text {
	y := *x
	if d.action == Drop && y.ID != "" {
		c.note(ti, bi, d.cs, Drop, "the message's item id "+strconvQuote(y.ID)+" is not sent: "+d.reason)
		y.ID = ""
	}
	if st.crossAPI {
		y.ID, y.Extra = "", nil
	}
	if c.shared && y.ID == x.ID && (y.Extra == nil) == (x.Extra == nil) {
		return x
	}
	return copyOf(y)
}

// copyOf returns a new copy of v. (What the carry emits is allocated only
// when it is not the source's: taking the address of a local the source
// was copied into would allocate it in every case.)
func copyOf[T any](v T) *T {
	p := new(T)
	*p = v
	return p
}

func (c *carrier) emitCall(ti, bi int, out *blockList, x *ToolCall, d decision, st *emitState) {
	if x.Unfinished {
		c.note(ti, bi, CaseNotReplayable, Drop, "the tool call "+strconvQuote(x.ID)+" is unfinished")
		return
	}
	y := *x
	if d.action == Drop && y.ItemID != "" {
		c.note(ti, bi, d.cs, Drop, "the function call's item id "+strconvQuote(y.ItemID)+" is not sent: "+d.reason)
		y.ItemID = ""
	}
	if st.crossAPI {
		y.ItemID, y.Extra = "", nil
	}
	if st.firstCall && c.sentinel && !st.signedCall {
		out.add(cloneItem(c.contract.Placeholder))
		c.note(ti, bi, CaseUnsignedCall, Sentinel, "the function call "+strconvQuote(x.Name)+" has no signature; the target's documented placeholder is sent")
	}
	st.firstCall = false
	if c.contract.ToolIDs {
		if id, minted := c.ids.assign(&y, st.calls); minted {
			c.mintNote(ti, bi, x, id)
			y.ID = id
		}
	}
	st.calls++
	if c.shared && y.ID == x.ID && y.ItemID == x.ItemID && (y.Extra == nil) == (x.Extra == nil) {
		out.add(x)
	} else {
		out.add(copyOf(y))
	}
}

// emitCompaction keeps a compaction block only for the API, issuer and
// account that minted it: its state is opaque, like ciphertext.
func (c *carrier) emitCompaction(ti, bi int, out *blockList, x *Compaction, t *Turn, st emitState) {
	cs, why := c.classifyCompaction(t, x, st)
	switch {
	case cs != CaseSameIssuer:
		c.note(ti, bi, cs, Drop, why)
	case c.shared:
		out.add(x)
	default:
		y := *x
		out.add(&y)
	}
}

// classifyCompaction returns the case of a compaction block of turn t.
func (c *carrier) classifyCompaction(t *Turn, x *Compaction, st emitState) (Case, string) {
	p, tg := t.Provenance, c.target
	switch {
	case x.Unfinished || !t.Complete:
		return CaseNotReplayable, "the compaction block is unfinished"
	case st.crossAPI:
		return CaseForeignOpaque, "a compaction block of " + p.API + " is never sent to " + tg.API
	case x.Format != "" && x.Format != FormatUnknown && !c.accepted(x.Format):
		return CaseForeignOpaque, fmt.Sprintf("a compaction block of issuer %s is never sent to %s", x.Format, describeTarget(tg))
	case (x.Format == "" || x.Format == FormatUnknown) && !sameName(p.Provider, tg.Provider):
		return CaseForeignOpaque, "an unattributed compaction block from " + p.Provider + " is never sent to " + tg.Provider
	case x.Format.traits().AccountBound && p.Account != "" && tg.Account != "" && p.Account != tg.Account:
		return CaseIdentityMismatch, fmt.Sprintf("the compaction block was minted by account %q and the target is %q", p.Account, tg.Account)
	case x.Signature.Value() != "" && p.Account != "" && tg.Account != "" && p.Account != tg.Account:
		return CaseIdentityMismatch, fmt.Sprintf("the signed compaction block was minted by account %q and the target is %q", p.Account, tg.Account)
	}
	return CaseSameIssuer, ""
}

func (c *carrier) emitNative(ti, bi int, out *blockList, x *Native, api string, st emitState) {
	switch {
	case x.Unfinished:
		c.note(ti, bi, CaseNotReplayable, Drop, "the "+x.Kind+" element is unfinished")
	case st.crossAPI:
		c.note(ti, bi, CaseForeignOpaque, Drop, "the "+x.Kind+" element belongs to "+api+" and is never sent to "+c.target.API)
	case c.shared:
		out.add(x)
	default:
		y := *x
		out.add(&y)
	}
}

// groupEnd returns the end of the run of reasoning items starting at i that
// share a non-empty id and format (the parts of one provider item), or i
// when the block at i is not a reasoning item.
func groupEnd(bs []Block, i int) int {
	it, ok := bs[i].(ReasoningItem)
	if !ok {
		return i
	}
	id := it.Meta().ID.Value()
	j := i + 1
	if id == "" {
		return j
	}
	for j < len(bs) {
		nx, ok := bs[j].(ReasoningItem)
		if !ok || nx.Meta().ID.Value() != id || nx.Meta().Format != it.Meta().Format {
			break
		}
		j++
	}
	return j
}

// isFollower reports whether b can be the item that follows an OpenAI
// reasoning item (a message or a function call).
func isFollower(b Block) bool {
	switch b.(type) {
	case *Text, *ToolCall:
		return true
	}
	return false
}

func strconvQuote(s string) string { return fmt.Sprintf("%q", s) }

// cloneItem returns a shallow copy of it (strings and byte slices shared).
func cloneItem(it ReasoningItem) ReasoningItem {
	switch x := it.(type) {
	case *ReasoningText:
		y := *x
		return &y
	case *Summary:
		y := *x
		return &y
	case *Encrypted:
		y := *x
		return &y
	case *Opaque:
		y := *x
		return &y
	}
	panic("replay: unknown ReasoningItem type")
}
