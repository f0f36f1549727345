package gemini

import (
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/formats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func audit(h replay.History, t replay.Target) []replay.Violation {
	return Codec{}.Contract().Audit(h, t).Violations
}

func only(vs []replay.Violation, rule string) []replay.Violation {
	var out []replay.Violation
	for _, v := range vs {
		if v.Rule == rule {
			out = append(out, v)
		}
	}
	return out
}

func sigItem(data string) *replay.Encrypted {
	e := &replay.Encrypted{Data: data}
	e.Format, e.Attached = formats.GoogleGemini, true
	return e
}

func callTurn(provider string, signed bool, names ...string) *replay.Turn {
	tu := &replay.Turn{Complete: true, Provenance: replay.Provenance{API: API, Provider: provider, Model: "gemini-3-pro-preview"}}
	for i, n := range names {
		if i == 0 && signed {
			tu.Blocks = append(tu.Blocks, sigItem("U2lnbmF0dXJlQQ=="))
		}
		tu.Blocks = append(tu.Blocks, &replay.ToolCall{Name: n, Arguments: `{}`})
	}
	return tu
}

const missingAIStudio = "Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:book_taxi` , position 3. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details."

func TestRuleMissingSignatureRequest(t *testing.T) {
	req := `{"contents":[
{"role":"user","parts":[{"text":"Check AA100 and book a taxi."}]},
{"role":"model","parts":[{"functionCall":{"name":"check_flight","args":{"flight":"AA100"}},"thoughtSignature":"U2lnbmF0dXJlQQ=="}]},
{"role":"user","parts":[{"functionResponse":{"name":"check_flight","response":{"status":"delayed"}}}]},
{"role":"model","parts":[{"functionCall":{"name":"book_taxi","args":{"time":"10 AM"}}}]},
{"role":"user","parts":[{"functionResponse":{"name":"book_taxi","response":{"ok":true}}}]}]}`
	h := replay.History{Request: []byte(req)}
	vs := only(audit(h, replay.Target{API: API, Model: "gemini-3-pro-preview"}), RuleMissingSignature)
	require.Len(t, vs, 1)
	assert.Equal(t, "/contents/3/parts/0", vs[0].Pointer)
	assert.Equal(t, missingAIStudio, vs[0].Predicted)
	assert.Equal(t, replay.SeverityReject, vs[0].Severity)

	vs = only(audit(h, replay.Target{API: API, Provider: "vertex", Model: "gemini-3-pro-preview"}), RuleMissingSignature)
	require.Len(t, vs, 1)
	assert.Equal(t, "Unable to submit request because function call `book_taxi` in the 3. content block is missing a `thought_signature`. Learn more: https://docs.cloud.google.com/vertex-ai/generative-ai/docs/thought-signatures", vs[0].Predicted)

	// Gemini 2.5 (validated since 2026-01-30, rowboat#694): the turn's
	// first step is signed, so the model signs and the loss is a reject.
	vs = only(audit(h, replay.Target{Model: "gemini-2.5-flash"}), RuleMissingSignature)
	require.Len(t, vs, 1)
	assert.Equal(t, replay.SeverityReject, vs[0].Severity)
	assert.Equal(t, "/contents/3/parts/0", vs[0].Pointer)
	assert.Equal(t, `function call "book_taxi" is in a model step of the current turn with no thoughtSignature, and the model signs its steps (Gemini 2.5 validates signatures since 2026-01-30)`, vs[0].Message)
	assert.Equal(t, missingAIStudio, vs[0].Predicted)
	// Nothing signed in the turn (2.5 without thinking signs nothing): a risk.
	unsigned := strings.Replace(req, `,"thoughtSignature":"U2lnbmF0dXJlQQ=="`, "", 1)
	vs = only(audit(replay.History{Request: []byte(unsigned)}, replay.Target{Model: "gemini-2.5-flash-lite"}), RuleMissingSignature)
	require.Len(t, vs, 2)
	assert.Equal(t, replay.SeverityRisk, vs[0].Severity)
	assert.Equal(t, `function call "check_flight" is in a model step of the current turn with no thoughtSignature; Gemini 2.5 validates signatures since 2026-01-30 when it thinks`, vs[0].Message)
	// 2.5 signs the first part of a step whatever its type: a signed text
	// part before the call signs the step.
	textSigned := strings.Replace(req, `{"role":"model","parts":[{"functionCall":{"name":"book_taxi"`, `{"role":"model","parts":[{"text":"Booking.","thoughtSignature":"VGV4dFNpZw=="},{"functionCall":{"name":"book_taxi"`, 1)
	assert.Empty(t, only(audit(replay.History{Request: []byte(textSigned)}, replay.Target{Model: "gemini-2.5-pro"}), RuleMissingSignature))
	require.Len(t, only(audit(replay.History{Request: []byte(textSigned)}, replay.Target{Model: "gemini-3-pro-preview"}), RuleMissingSignature), 1, "Gemini 3 wants it on the call")

	// Not triggered: Gemini 2.0; a new user message started a new turn;
	// every step signed.
	assert.Empty(t, only(audit(h, replay.Target{Model: "gemini-2.0-flash"}), RuleMissingSignature))
	newTurn := req[:len(req)-2] + `,{"role":"user","parts":[{"text":"Thanks. Now the hotel?"}]}]}`
	assert.Empty(t, only(audit(replay.History{Request: []byte(newTurn)}, replay.Target{Model: "gemini-3-pro-preview"}), RuleMissingSignature))
	signed := `{"contents":[{"role":"user","parts":[{"text":"go"}]},{"role":"model","parts":[{"functionCall":{"name":"a"},"thoughtSignature":"QQ=="},{"functionCall":{"name":"b"}}]}]}`
	assert.Empty(t, only(audit(replay.History{Request: []byte(signed)}, replay.Target{Model: "gemini-3-pro-preview"}), RuleMissingSignature))
}

func TestRuleMissingSignatureTurns(t *testing.T) {
	h := replay.History{Turns: []*replay.Turn{
		callTurn("", false, "old_call"), // an earlier turn: not checked
		{Complete: true, Blocks: []replay.Block{&replay.Text{Text: "done"}}},
		callTurn("", true, "a", "b"),
		callTurn("", false, "c"),
	}}
	vs := only(audit(h, replay.Target{API: API, Model: "gemini-3-flash-preview"}), RuleMissingSignature)
	require.Len(t, vs, 1)
	assert.Equal(t, 3, vs[0].Turn)
	assert.Equal(t, 0, vs[0].Block)
	assert.Contains(t, vs[0].Predicted, "function call `default_api:c` , position 7.")

	// 2.5: turn 2 is signed, so the model signs: turn 3's loss is a reject.
	vs = only(audit(h, replay.Target{Model: "gemini-2.5-pro"}), RuleMissingSignature)
	require.Len(t, vs, 1)
	assert.Equal(t, 3, vs[0].Turn)
	assert.Equal(t, replay.SeverityReject, vs[0].Severity)
	// Nothing signed anywhere: a risk.
	vs = only(audit(replay.History{Turns: []*replay.Turn{callTurn("", false, "c")}}, replay.Target{Model: "gemini-2.5-pro"}), RuleMissingSignature)
	require.Len(t, vs, 1)
	assert.Equal(t, replay.SeverityRisk, vs[0].Severity)

	// Not triggered: 2.0 target, or the signature relayed by id.
	assert.Empty(t, only(audit(h, replay.Target{Model: "gemini-2.0-flash"}), RuleMissingSignature))
	relayed := &replay.Encrypted{Data: "QQ==", ItemMeta: replay.ItemMeta{Format: formats.GoogleGemini, ID: replay.Some("c1")}}
	h.Turns[3] = &replay.Turn{Complete: true, Blocks: []replay.Block{relayed, &replay.ToolCall{ID: "c1", Name: "c"}}}
	assert.Empty(t, only(audit(h, replay.Target{Model: "gemini-3-flash-preview"}), RuleMissingSignature))
}

func TestRuleInterleaved(t *testing.T) {
	turn := &replay.Turn{Complete: true, Provenance: replay.Provenance{Model: "gemini-3-pro-preview"}, Blocks: []replay.Block{
		sigItem("U2lnbmF0dXJlQQ=="),
		&replay.ToolCall{ID: "fc1", Name: "get_weather", Arguments: `{"city":"Paris"}`},
		&replay.ToolCall{ID: "fc2", Name: "get_weather", Arguments: `{"city":"Tokyo"}`},
	}}
	bad := `{"contents":[
{"role":"user","parts":[{"text":"Weather in Paris and Tokyo?"}]},
{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"},"id":"fc1"},"thoughtSignature":"U2lnbmF0dXJlQQ=="}]},
{"role":"user","parts":[{"functionResponse":{"name":"get_weather","id":"fc1","response":{"t":12}}}]},
{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Tokyo"},"id":"fc2"}}]},
{"role":"user","parts":[{"functionResponse":{"name":"get_weather","id":"fc2","response":{"t":20}}}]}]}`
	vs := audit(replay.History{Turns: []*replay.Turn{turn}, Request: []byte(bad)}, replay.Target{Model: "gemini-3-pro-preview"})
	in := only(vs, RuleInterleavedResponses)
	require.Len(t, in, 1)
	assert.Equal(t, "/contents/3/parts/0", in[0].Pointer)
	assert.Contains(t, in[0].Predicted, "function call `default_api:get_weather` , position 3.")
	assert.Empty(t, only(vs, RuleMissingSignature), "reported once, as interleaving")

	good := `{"contents":[
{"role":"user","parts":[{"text":"Weather in Paris and Tokyo?"}]},
{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"},"id":"fc1"},"thoughtSignature":"U2lnbmF0dXJlQQ=="},{"functionCall":{"name":"get_weather","args":{"city":"Tokyo"},"id":"fc2"}}]},
{"role":"user","parts":[{"functionResponse":{"name":"get_weather","id":"fc1","response":{"t":12}}},{"functionResponse":{"name":"get_weather","id":"fc2","response":{"t":20}}}]}]}`
	vs = audit(replay.History{Turns: []*replay.Turn{turn}, Request: []byte(good)}, replay.Target{Model: "gemini-3-pro-preview"})
	assert.Empty(t, vs)
	// 2.5: a risk (whether 2.5 binds a batch's signature to its first
	// call is not documented); 2.0: nothing.
	in = only(audit(replay.History{Turns: []*replay.Turn{turn}, Request: []byte(bad)}, replay.Target{Model: "gemini-2.5-flash"}), RuleInterleavedResponses)
	require.Len(t, in, 1)
	assert.Equal(t, replay.SeverityRisk, in[0].Severity)
	assert.Empty(t, only(audit(replay.History{Turns: []*replay.Turn{turn}, Request: []byte(bad)}, replay.Target{Model: "gemini-2.0-flash"}), RuleInterleavedResponses))
}

func TestRuleForeignSignature(t *testing.T) {
	h := replay.History{Turns: []*replay.Turn{callTurn("vertex", true, "f")}}
	vs := only(audit(h, replay.Target{Provider: "aistudio", Model: "gemini-3-pro-preview"}), RuleForeignSignature)
	require.Len(t, vs, 1)
	assert.Equal(t, "Corrupted thought signature.", vs[0].Predicted)
	assert.Equal(t, 0, vs[0].Block)

	h = replay.History{Turns: []*replay.Turn{callTurn("aistudio", true, "f")}}
	vs = only(audit(h, replay.Target{Provider: "vertex", Model: "gemini-3-pro-preview"}), RuleForeignSignature)
	require.Len(t, vs, 1)
	assert.Equal(t, "Unable to submit request because Thought signature is not valid.. Learn more: https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/gemini", vs[0].Predicted)

	claude := &replay.Encrypted{Data: "RXJVQ2xhdWRl"}
	claude.Format, claude.Attached = formats.AnthropicClaude, true
	h = replay.History{Turns: []*replay.Turn{{Complete: true, Blocks: []replay.Block{claude, &replay.ToolCall{Name: "f"}}}}}
	require.Len(t, only(audit(h, replay.Target{Model: "gemini-3-pro-preview"}), RuleForeignSignature), 1)

	// 2.5 validates the signatures it is sent as 3 does.
	h = replay.History{Turns: []*replay.Turn{callTurn("vertex", true, "f")}}
	vs = only(audit(h, replay.Target{Provider: "aistudio", Model: "gemini-2.5-pro"}), RuleForeignSignature)
	require.Len(t, vs, 1)
	assert.Equal(t, "Corrupted thought signature.", vs[0].Predicted)

	// Not triggered: same backend, unknown backend, 2.0.
	assert.Empty(t, only(audit(h, replay.Target{Provider: "vertex", Model: "gemini-3-pro-preview"}), RuleForeignSignature))
	assert.Empty(t, only(audit(h, replay.Target{Provider: "google", Model: "gemini-3-pro-preview"}), RuleForeignSignature))
	assert.Empty(t, only(audit(h, replay.Target{Provider: "aistudio", Model: "gemini-2.0-flash"}), RuleForeignSignature))
}

func TestRuleBadBase64(t *testing.T) {
	tu := &replay.Turn{Complete: true, Blocks: []replay.Block{sigItem("Es4DCssD-_url_safe"), &replay.ToolCall{Name: "f"}}}
	vs := only(audit(replay.History{Turns: []*replay.Turn{tu}}, replay.Target{Model: "gemini-3-pro-preview"}), RuleBadBase64)
	require.Len(t, vs, 1)
	assert.Equal(t, `Invalid value at 'contents[?].parts[?].thought_signature' (TYPE_BYTES), Base64 decoding failed for "Es4DCssD-_url_safe"`, vs[0].Predicted)

	req := `{"contents":[{"role":"user","parts":[{"text":"hi"}]},{"role":"model","parts":[{"text":"a"}]},{"role":"model","parts":[{"functionCall":{"name":"f"},"thoughtSignature":"Es4DCssD"},{"text":"","thoughtSignature":"Es4D*"}]}]}`
	vs = only(audit(replay.History{Request: []byte(req)}, replay.Target{Model: "gemini-2.5-pro"}), RuleBadBase64)
	require.Len(t, vs, 1)
	assert.Equal(t, "/contents/2/parts/1/thoughtSignature", vs[0].Pointer)
	assert.Equal(t, `Invalid value at 'contents[2].parts[1].thought_signature' (TYPE_BYTES), Base64 decoding failed for "Es4D*"`, vs[0].Predicted)

	// Not triggered: valid base64, unpadded base64, the documented dummies.
	tu = &replay.Turn{Complete: true, Blocks: []replay.Block{sigItem("Es4DCssD"), &replay.ToolCall{Name: "f"},
		sigItem("QQ"), &replay.Text{Text: ""}, sigItem(Sentinel), &replay.ToolCall{Name: "g"}}}
	assert.Empty(t, only(audit(replay.History{Turns: []*replay.Turn{tu}}, replay.Target{Model: "gemini-3-pro-preview"}), RuleBadBase64))
}

func TestRuleSentinel(t *testing.T) {
	tu := &replay.Turn{Complete: true, Blocks: []replay.Block{sigItem(Sentinel), &replay.ToolCall{Name: "f"}}}
	vs := only(audit(replay.History{Turns: []*replay.Turn{tu}}, replay.Target{Model: "gemini-3-pro-preview"}), RuleSentinel)
	require.Len(t, vs, 1)
	assert.Equal(t, replay.SeverityDegrade, vs[0].Severity)

	req := `{"contents":[{"role":"model","parts":[{"functionCall":{"name":"f"},"thoughtSignature":"skip_thought_signature_validator"}]}]}`
	vs = only(audit(replay.History{Request: []byte(req)}, replay.Target{}), RuleSentinel)
	require.Len(t, vs, 1)
	assert.Equal(t, "/contents/0/parts/0/thoughtSignature", vs[0].Pointer)

	assert.Empty(t, only(audit(replay.History{Turns: []*replay.Turn{callTurn("", true, "f")}}, replay.Target{}), RuleSentinel))
}

func TestContractThroughRegistry(t *testing.T) {
	c := Codec{}.Contract()
	assert.Equal(t, API, c.API)
	ids := map[string]bool{}
	for _, r := range c.Rules {
		assert.NotEmpty(t, r.Doc)
		ids[r.ID] = true
	}
	assert.Equal(t, map[string]bool{RuleMissingSignature: true, RuleInterleavedResponses: true, RuleForeignSignature: true, RuleBadBase64: true, RuleSentinel: true, RuleEncodedSentinel: true}, ids)
	rep := replay.AuditReplay(replay.History{Turns: []*replay.Turn{callTurn("", false, "f")}}, replay.Target{Provider: "vertex", Model: "gemini-3-pro-preview"})
	assert.True(t, rep.Rejects())
	assert.Len(t, only(rep.Violations, RuleMissingSignature), 1)
}

// The dummy is the plain string; base64 of it is a corrupt signature
// (wire-2026-update.md §22): rejected on every model, in a request and in
// stored turns.
func TestRuleEncodedSentinel(t *testing.T) {
	const enc = "c2tpcF90aG91Z2h0X3NpZ25hdHVyZV92YWxpZGF0b3I="
	req := `{"contents":[{"role":"user","parts":[{"text":"go"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{}},"thoughtSignature":"` + enc + `"}]}]}`
	vs := audit(replay.History{Request: []byte(req)}, replay.Target{Model: "gemini-3-pro-preview"})
	require.Len(t, vs, 1, "%v", vs)
	assert.Equal(t, RuleEncodedSentinel, vs[0].Rule)
	assert.Equal(t, replay.SeverityReject, vs[0].Severity)
	assert.Equal(t, "/contents/1/parts/0/thoughtSignature", vs[0].Pointer)
	assert.Equal(t, "Corrupted thought signature.", vs[0].Predicted)
	assert.Equal(t, "the thoughtSignature is a base64 encoding of the skip_thought_signature_validator dummy: Gemini reads it as a corrupt signature, not as the dummy", vs[0].Message)

	vs = only(audit(replay.History{Request: []byte(req)}, replay.Target{Provider: "vertex", Model: "gemini-2.5-flash"}), RuleEncodedSentinel)
	require.Len(t, vs, 1)
	assert.Equal(t, "Unable to submit request because Thought signature is not valid.. Learn more: https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/gemini", vs[0].Predicted)

	// Stored turns: the URL-safe unpadded form, on a call and on a thought.
	thought := &replay.ReasoningText{Text: "plan", Signature: replay.Some("c2tpcF90aG91Z2h0X3NpZ25hdHVyZV92YWxpZGF0b3I")}
	thought.Format = formats.GoogleGemini
	tu := &replay.Turn{Complete: true, Blocks: []replay.Block{thought, sigItem(enc), &replay.ToolCall{Name: "f", Arguments: `{}`}}}
	vs = only(audit(replay.History{Turns: []*replay.Turn{tu}}, replay.Target{Model: "gemini-3-pro-preview"}), RuleEncodedSentinel)
	require.Len(t, vs, 2)
	assert.Equal(t, []int{0, 1}, []int{vs[0].Block, vs[1].Block})

	// Not triggered: the plain dummy (flagged as degrading, not corrupt),
	// a real signature.
	plain := strings.Replace(req, enc, Sentinel, 1)
	vs = audit(replay.History{Request: []byte(plain)}, replay.Target{Model: "gemini-3-pro-preview"})
	require.Len(t, vs, 1)
	assert.Equal(t, RuleSentinel, vs[0].Rule)
	assert.Empty(t, only(audit(replay.History{Turns: []*replay.Turn{callTurn("", true, "f")}}, replay.Target{Model: "gemini-3-pro-preview"}), RuleEncodedSentinel))
}
