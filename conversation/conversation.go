// Package conversation keeps a conversation for callers who build their
// requests themselves: the native messages of one wire API, with the
// captured turn of each model response at its position, from which it
// yields the messages for the next request to any target that takes the
// same request shape: every turn carried over by the policy
// ([replay.Carry]) and encoded by the target's codec, the tool results
// made to name the ids the carried calls are sent with, and the audit of
// the result.
//
//	c, _ := conversation.New("openrouter", nil)
//	c.Append(userMessage)
//	c.AppendTurn(turn)          // the response's turn: its assistant message is the codec's Encode of it
//	c.Append(toolResult)
//	p, _ := c.Messages(replay.Target{API: "deepseek", Model: "deepseek-chat", Tools: true}, nil)
//	// p.Messages for the request, p.Notices for what was lost, p.Report before sending
//
// The package is not about HTTP (a [replayhttp.Capture] or a stream
// decoder gives the turns), and knows no provider: what it needs of an
// API (the member holding the conversation, which APIs share a request
// shape, where tool results name their call) its codec declares (package
// codecs).
//
// Import github.com/reasonreplay/replay/codecs/all (or the codecs you use)
// so that the registry knows the APIs.
package conversation

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/tidwall/gjson"
)

// ErrShape is wrapped by the error of [Conversation.Messages] for a target
// whose requests are not in the conversation's shape (an Anthropic
// conversation sent to OpenAI Responses): its user messages and tool
// results would have to be translated, which this package does not do.
var ErrShape = errors.New("the target's requests are not in the conversation's shape")

// ErrModelElement is wrapped by the error of [Conversation.Append] given
// an element of the model's (an assistant message, a model content, a
// Responses output item): model elements come in with their turn, through
// [Conversation.AppendTurn].
var ErrModelElement = errors.New("a model element is appended with its turn")

// Error is the error of a [Conversation] method: what was being done, the
// element concerned (-1 when none) and the cause ([ErrShape],
// [ErrModelElement], [replay.ErrMalformed], or a codec's error).
type Error struct {
	Op    string
	Index int
	Err   error
}

func (e *Error) Error() string {
	s := "conversation: " + e.Op
	if e.Index >= 0 {
		s += ": element " + strconv.Itoa(e.Index)
	}
	return s + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Conversation is a conversation in one wire API's native shape: the
// elements of its message list (Anthropic and chat `messages`, Responses
// `input` items, Gemini `contents`, ...) in order, each model response kept
// as its captured [replay.Turn]. The zero value is not usable; create one
// with [New]. A Conversation is not safe for concurrent use.
type Conversation struct {
	api   string
	reg   *replay.Registry
	codec codecs.HTTPCodec
	elems []elem
}

// elem is one entry: a native element the caller appended, or a turn.
type elem struct {
	raw  json.RawMessage
	turn *replay.Turn
}

// New returns an empty conversation in the request shape of api (a
// registered API name: "anthropic", "openai-responses", "gemini",
// "openrouter", "deepseek", ...). reg nil means [replay.Default].
func New(api string, reg *replay.Registry) (*Conversation, error) {
	if reg == nil {
		reg = replay.Default()
	}
	c, err := reg.Lookup(api, "", "")
	if err != nil {
		return nil, &Error{Op: "new", Index: -1, Err: err}
	}
	hc, err := httpOf(c)
	if err != nil {
		return nil, &Error{Op: "new", Index: -1, Err: err}
	}
	return &Conversation{api: c.API(), reg: reg, codec: hc}, nil
}

// API returns the wire API whose shape the conversation is in.
func (c *Conversation) API() string { return c.api }

// Len returns the number of entries: elements appended and turns.
func (c *Conversation) Len() int { return len(c.elems) }

// Append adds native elements that are not the model's: user messages,
// tool results, system messages, each one JSON object as the API's
// request carries it. They are kept byte for byte, and validated: an
// element that is not a JSON object, or that is the model's, is refused
// (nothing is appended).
func (c *Conversation) Append(elems ...json.RawMessage) error {
	for i, e := range elems {
		r := gjson.ParseBytes(e)
		if !jsonw.ValidBytes(e) || !r.IsObject() {
			return &Error{Op: "append", Index: len(c.elems) + i, Err: fmt.Errorf("%w: expected a JSON object", replay.ErrMalformed)}
		}
		if isModel(c.codec, e) {
			return &Error{Op: "append", Index: len(c.elems) + i, Err: ErrModelElement}
		}
	}
	for _, e := range elems {
		c.elems = append(c.elems, elem{raw: append(json.RawMessage(nil), e...)})
	}
	return nil
}

// AppendTurn adds a model response: its captured turn, whose native
// element(s) are the conversation codec's Encode of it. The turn is kept
// as given (not copied): do not change it afterwards.
func (c *Conversation) AppendTurn(t *replay.Turn) error {
	if t == nil {
		return &Error{Op: "append turn", Index: len(c.elems), Err: fmt.Errorf("%w: no turn", replay.ErrMalformed)}
	}
	c.elems = append(c.elems, elem{turn: t})
	return nil
}

// Renamed is a tool call sent with another id than the one it was
// captured with: [replay.Carry] minted one for a target whose tool results
// name their call (the call had none, or an earlier call's). The tool
// results that followed the turn were changed to name New.
type Renamed struct {
	// Turn is the index of the turn among the conversation's turns; Call
	// the index of the call among the turn's tool calls.
	Turn, Call int
	// Old is the id as captured ("" when it had none); New the id sent.
	Old, New string
}

// Prepared is the conversation made ready for one target.
type Prepared struct {
	// Messages are the elements of the request's message list (`messages`,
	// `input`, `contents`), in order: the appended elements as they came
	// (tool results renamed), and each turn as the target's codec encodes
	// it after the policy.
	Messages []json.RawMessage
	// Pointers hold the JSON Pointer of each turn's first element in the
	// list ("/messages/3"), turn for turn.
	Pointers []string
	// Notices are what [replay.Carry] lost or changed, by turn index.
	Notices []replay.Notice
	// Renamed are the tool calls sent with another id than captured.
	Renamed []Renamed
	// Report is the audit of the carried turns against the target, located
	// in the message list.
	Report replay.Report
}

// List returns the messages as one JSON array, for a request body's
// message list.
func (p *Prepared) List() []byte {
	n := 2
	for _, m := range p.Messages {
		n += len(m) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, '[')
	for i, m := range p.Messages {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, m...)
	}
	return append(b, ']')
}

// Messages prepares the conversation for target: every turn is carried
// over by policy (nil means [replay.DefaultPolicy]) and encoded by the
// target's codec, the tool results after a turn whose calls are sent with
// new ids are made to name them, and the result is audited. target.API
// empty means the conversation's API; the target's requests must be in
// the conversation's shape (the chat-completions APIs share one), else the
// error wraps [ErrShape]. The conversation is not changed.
func (c *Conversation) Messages(target replay.Target, policy replay.Policy) (*Prepared, error) {
	if target.API == "" {
		target.API = c.api
	}
	codec, err := c.reg.Lookup(target.API, target.Provider, target.Model)
	if err != nil {
		return nil, &Error{Op: "messages", Index: -1, Err: err}
	}
	target.API = codec.API()
	tc, err := httpOf(codec)
	if err != nil {
		return nil, &Error{Op: "messages", Index: -1, Err: err}
	}
	if codecs.SharedShape(tc) != codecs.SharedShape(c.codec) {
		return nil, &Error{Op: "messages", Index: -1, Err: fmt.Errorf("%w: %s, not %s", ErrShape, target.API, c.api)}
	}
	var turns []*replay.Turn
	for _, e := range c.elems {
		if e.turn != nil {
			turns = append(turns, e.turn)
		}
	}
	carried, notices := c.reg.Carry(replay.History{Turns: turns}, target, policy)
	p := &Prepared{Notices: notices}
	renames := renamed(turns, carried.Turns)
	list := tc.HTTP().Member
	ti := -1
	var pending []Renamed // the calls of the latest turn sent with new ids
	for i, e := range c.elems {
		if e.turn == nil {
			p.Messages = append(p.Messages, rename(codec, e.raw, &pending))
			continue
		}
		ti++
		out, err := codec.Encode(carried.Turns[ti])
		if err != nil {
			return nil, &Error{Op: "messages", Index: i, Err: err}
		}
		p.Pointers = append(p.Pointers, "/"+list+"/"+strconv.Itoa(len(p.Messages)))
		if r := gjson.ParseBytes(out); r.IsArray() { // Responses: the turn's items
			r.ForEach(func(_, it gjson.Result) bool {
				p.Messages = append(p.Messages, json.RawMessage(it.Raw))
				return true
			})
		} else {
			p.Messages = append(p.Messages, out)
		}
		pending = renames[ti]
		p.Renamed = append(p.Renamed, pending...)
	}
	body := append(append([]byte(`{"`+list+`":`), p.List()...), '}')
	p.Report = c.reg.AuditReplay(replay.History{Turns: carried.Turns, Request: body, Pointers: p.Pointers}, target)
	return p, nil
}

// renamed compares each turn's tool calls with the carried turn's, call
// for call (Carry drops only unfinished calls), and returns, per turn, the
// calls sent with another id. Reading the result rather than the notices
// keeps this right whatever Carry reports the change with.
func renamed(in, out []*replay.Turn) [][]Renamed {
	res := make([][]Renamed, len(in))
	for ti := range in {
		var kept []*replay.ToolCall
		for _, x := range in[ti].ToolCalls() {
			if !x.Unfinished {
				kept = append(kept, x)
			}
		}
		sent := out[ti].ToolCalls()
		for k := 0; k < len(kept) && k < len(sent); k++ {
			if kept[k].ID != sent[k].ID {
				res[ti] = append(res[ti], Renamed{Turn: ti, Call: k, Old: kept[k].ID, New: sent[k].ID})
			}
		}
	}
	return res
}

// rename makes the tool results in el that name a renamed call's old id
// name its new one; each renamed call is taken once, in call order.
func rename(codec replay.ReasoningCodec, el json.RawMessage, pending *[]Renamed) json.RawMessage {
	rr, ok := codec.(codecs.ResultRenamer)
	if len(*pending) == 0 || !ok {
		return el
	}
	return rr.RenameResults(el, func(id string) (string, bool) {
		for k, r := range *pending {
			if r.Old == id {
				*pending = append((*pending)[:k:k], (*pending)[k+1:]...)
				return r.New, true
			}
		}
		return "", false
	})
}

// httpOf returns what the codec declares of its requests, or an error
// naming the API whose codec declares nothing.
func httpOf(c replay.ReasoningCodec) (codecs.HTTPCodec, error) {
	hc, ok := c.(codecs.HTTPCodec)
	if !ok || hc.HTTP() == nil || hc.HTTP().Member == "" {
		return nil, fmt.Errorf("%w: the %s codec does not say how its requests hold a conversation", ErrShape, c.API())
	}
	return hc, nil
}

// isModel reports whether el, an element of codec's conversation, is the
// model's: the codec's request reader reads a turn out of it.
func isModel(codec codecs.HTTPCodec, el []byte) bool {
	member := codec.HTTP().Member
	body := make([]byte, 0, len(el)+len(member)+8)
	body = append(body, `{"`...)
	body = append(body, member...)
	body = append(body, `":[`...)
	body = append(append(body, el...), "]}"...)
	r, err := codec.ReadRequest(body)
	return err == nil && len(r.History.Turns) > 0
}
