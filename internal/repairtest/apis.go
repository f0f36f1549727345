// Package repairtest holds the checks the repair of replayhttp is held to,
// run by the library's, the proxy's and the Redis store's tests against
// their stores: per wire API a tool loop written from the documented
// shapes (APIs), a loopback provider that mints reasoning per tenant and
// conversation (Provider), deployments to send through (Library, Proxy),
// and the properties (CrossTenant, Mangle).
package repairtest

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/tidwall/gjson"
)

// Reasoning names the reasoning the provider mints: one tenant's (the
// credential its answer went to), for one conversation. Its bytes differ
// from every other tenant's, whatever the conversation shows.
type Reasoning struct{ Tenant, Conv string }

func (r Reasoning) sum(what string) []byte {
	s := sha256.Sum256([]byte("repairtest\x00" + what + "\x00" + r.Tenant + "\x00" + r.Conv))
	return s[:]
}

// Text is the reasoning text.
func (r Reasoning) Text() string {
	return "Reasoning " + hex.EncodeToString(r.sum("text")[:6]) + ": the user wants the weather in Bern, so call the tool."
}

// Sig is a signature: standard base64, with '+', '/' and '=' in it.
func (r Reasoning) Sig() string {
	return "EqQBCkgIAhAB" + base64.StdEncoding.EncodeToString(append(r.sum("sig"), 0xfb, 0xef, 0xbf, 0xff))
}

// Blob is an encrypted blob (ciphertext, redacted thinking).
func (r Reasoning) Blob() string {
	return "gAAAAABp" + base64.StdEncoding.EncodeToString(append(r.sum("blob"), r.sum("blob2")...))
}

// ID is an item id suffix unique to the reasoning.
func (r Reasoning) ID() string { return hex.EncodeToString(r.sum("id")[:8]) }

// Shape is the kind of turn the provider answers with.
type Shape uint8

const (
	// Tool is a turn that calls a tool; the next request carries its
	// result.
	Tool Shape = iota
	// Text is a turn that answers "Done."; the next request carries the
	// user's next message.
	Text
)

func (s Shape) String() string {
	if s == Text {
		return "text"
	}
	return "tool"
}

// Mangle is one way a client damages the model's turn it sends back. It
// touches reasoning only (what the conversation shows stays), and does
// nothing when what it damages is not there.
type Mangle struct {
	Name  string
	Apply func(echo string) string
}

// API is one wire API's tool loop.
type API struct {
	// Name names the case ("kimi").
	Name string
	// Codec is the API the middleware reads the requests as.
	Codec string
	// Upstream is the proxy's name of the upstream (which names the
	// provider).
	Upstream string
	// Provider is what a library Transport is told the provider is (a
	// loopback host names none).
	Provider string
	// Model is the model the requests name.
	Model string
	// Path is the generation path, below the upstream's base URL.
	Path string
	// Auth puts a credential where the API's clients put it.
	Auth func(h http.Header, key string)
	// First is the conversation's first request.
	First func(conv string) string
	// Respond is the provider's answer: its body and content type.
	Respond func(r Reasoning, s Shape) (string, string)
	// Echo is the model's turn as a client that keeps every byte sends
	// it back: the assistant element, or for a run of items a JSON array.
	Echo func(r Reasoning, s Shape) string
	// Next is the request after the turn, with echo in the turn's place.
	Next func(conv, echo string, s Shape) string
	// Secrets are the reasoning bytes of r, as they stand in a request
	// body: no other tenant may receive one.
	Secrets func(r Reasoning) []string
	// Mangles are the ways a client damages the echo.
	Mangles []Mangle
	// Bare, when set, takes every byte of reasoning out of an echo, as a
	// client that keeps none sends the turn; nil means the codec's Strip.
	Bare func(echo string) string
	// ClientOwned, when set, picks the reasoning items of a request that
	// are the client's to send as it likes: the provider neither signs
	// nor checks them, the policy never sends the capture's, and repair
	// leaves them as they came.
	ClientOwned func(replay.ReasoningItem) bool
}

// Prompt is the user's first message of a conversation.
func Prompt(conv string) string { return "Weather in Bern? (" + conv + ")" }

func bearer(h http.Header, key string) { h.Set("Authorization", "Bearer "+key) }

const (
	weatherArgs = `{"city":"Bern"}`
	done        = "Done."
)

// APIs returns every case, one per wire API (two chat-completions hosts).
func APIs() []*API {
	return []*API{anthropic(), responses(), gemini(), openrouter(), deepseek(), kimi(), converse(), cohere(), mistral()}
}

// ByName returns the case named name, or nil.
func ByName(name string) *API {
	for _, a := range APIs() {
		if a.Name == name {
			return a
		}
	}
	return nil
}

func anthropic() *API {
	blocks := func(r Reasoning, s Shape) string {
		b := `{"type":"thinking","thinking":"` + r.Text() + `","signature":"` + r.Sig() + `"},` +
			`{"type":"redacted_thinking","data":"` + r.Blob() + `"},{"type":"text","text":"` + done + `"}`
		if s == Tool {
			b += `,{"type":"tool_use","id":"toolu_01","name":"get_weather","input":` + weatherArgs + `}`
		}
		return b
	}
	head := `{"model":"claude-sonnet-4-5","max_tokens":2048,"thinking":{"type":"enabled","budget_tokens":1024},` +
		`"system":"You are a weather agent.","tools":[{"name":"get_weather","input_schema":{"type":"object"}}],"messages":[`
	user := func(conv string) string { return `{"role":"user","content":"` + Prompt(conv) + `"}` }
	thinking := typed("thinking")
	redacted := typed("redacted_thinking")
	return &API{
		Name: "anthropic", Codec: "anthropic", Upstream: "anthropic", Provider: "anthropic", Model: "claude-sonnet-4-5",
		Path:  "/v1/messages",
		Auth:  func(h http.Header, key string) { h.Set("X-Api-Key", key); h.Set("Anthropic-Version", "2023-06-01") },
		First: func(conv string) string { return head + user(conv) + `]}` },
		Respond: func(r Reasoning, s Shape) (string, string) {
			stop := "end_turn"
			if s == Tool {
				stop = "tool_use"
			}
			return `{"id":"msg_` + r.ID() + `","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[` + blocks(r, s) +
				`],"stop_reason":"` + stop + `","usage":{"input_tokens":12,"output_tokens":40}}`, "application/json"
		},
		Echo: func(r Reasoning, s Shape) string { return `{"role":"assistant","content":[` + blocks(r, s) + `]}` },
		Next: func(conv, echo string, s Shape) string {
			after := `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"18°C"}]}`
			if s == Text {
				after = `{"role":"user","content":"Thanks."}`
			}
			return head + user(conv) + `,` + echo + `,` + after + `]}`
		},
		Secrets: func(r Reasoning) []string { return []string{r.Text(), r.Sig(), r.Blob()} },
		Mangles: signedMangles("content", thinking, redacted, "thinking", "signature", "data"),
	}
}

func responses() *API {
	items := func(r Reasoning, s Shape) string {
		b := `{"type":"reasoning","id":"rs_` + r.ID() + `","summary":[{"type":"summary_text","text":"` + r.Text() + `"}],"encrypted_content":"` + r.Blob() + `"},`
		if s == Tool {
			return b + `{"type":"function_call","id":"fc_` + r.ID() + `","call_id":"call_01","name":"get_weather","arguments":"{\"city\":\"Bern\"}","status":"completed"}`
		}
		return b + `{"type":"message","id":"msg_` + r.ID() + `","role":"assistant","status":"completed","content":[{"type":"output_text","text":"` + done + `","annotations":[]}]}`
	}
	head := `{"model":"gpt-5","store":false,"include":["reasoning.encrypted_content"],"reasoning":{"effort":"medium"},` +
		`"instructions":"You are a weather agent.","tools":[{"type":"function","name":"get_weather","parameters":{"type":"object"}}],"input":[`
	user := func(conv string) string { return `{"role":"user","content":"` + Prompt(conv) + `"}` }
	reasoning := typed("reasoning")
	follower := func(b gjson.Result) bool {
		return b.Get("type").Str == "function_call" || b.Get("type").Str == "message"
	}
	return &API{
		Name: "openai-responses", Codec: "openai-responses", Upstream: "openai", Provider: "openai", Model: "gpt-5",
		Path: "/v1/responses", Auth: bearer,
		First: func(conv string) string { return head + user(conv) + `]}` },
		Respond: func(r Reasoning, s Shape) (string, string) {
			return `{"id":"resp_` + r.ID() + `","object":"response","status":"completed","model":"gpt-5","output":[` + items(r, s) +
				`],"usage":{"input_tokens":10,"output_tokens":20}}`, "application/json"
		},
		Echo: func(r Reasoning, s Shape) string { return `[` + items(r, s) + `]` },
		Next: func(conv, echo string, s Shape) string {
			after := `{"type":"function_call_output","call_id":"call_01","output":"18°C"}`
			if s == Text {
				after = `{"role":"user","content":"Thanks."}`
			}
			return head + user(conv) + `,` + inner(echo) + `,` + after + `]}`
		},
		Secrets: func(r Reasoning) []string { return []string{r.Text(), r.Blob(), "rs_" + r.ID()} },
		Mangles: []Mangle{
			Edit("edited summary text", "", reasoning, "summary.0.text"),
			Truncate("truncated encrypted_content", "", reasoning, "encrypted_content"),
			Delete("deleted encrypted_content", "", reasoning, "encrypted_content"),
			Drop("dropped reasoning item", "", reasoning),
			MoveLast("reasoning item moved after its follower", "", reasoning),
			DeleteAll("lost follower id", "", follower, "id"),
			Dup("duplicated reasoning item", "", reasoning),
		},
	}
}

func gemini() *API {
	parts := func(r Reasoning, s Shape) string {
		b := `{"text":"` + r.Text() + `","thought":true},`
		if s == Tool {
			return b + `{"functionCall":{"name":"get_weather","args":` + weatherArgs + `},"thoughtSignature":"` + r.Sig() + `"},` +
				`{"functionCall":{"name":"get_weather","args":{"city":"Zürich"}}}`
		}
		return b + `{"text":"` + done + `","thoughtSignature":"` + r.Sig() + `"}`
	}
	tail := `],"systemInstruction":{"parts":[{"text":"You are a weather agent."}]},"tools":[{"functionDeclarations":[{"name":"get_weather"}]}],` +
		`"generationConfig":{"thinkingConfig":{"includeThoughts":true}}}`
	user := func(conv string) string { return `{"role":"user","parts":[{"text":"` + Prompt(conv) + `"}]}` }
	thought := func(p gjson.Result) bool { return p.Get("thought").Bool() }
	signed := func(p gjson.Result) bool { return p.Get("thoughtSignature").Exists() }
	return &API{
		Name: "gemini", Codec: "gemini", Upstream: "gemini", Provider: "gemini", Model: "gemini-3-pro-preview",
		Path:  "/v1beta/models/gemini-3-pro-preview:generateContent",
		Auth:  func(h http.Header, key string) { h.Set("X-Goog-Api-Key", key) },
		First: func(conv string) string { return `{"contents":[` + user(conv) + tail },
		Respond: func(r Reasoning, s Shape) (string, string) {
			return `{"candidates":[{"content":{"role":"model","parts":[` + parts(r, s) + `]},"finishReason":"STOP","index":0}],` +
				`"modelVersion":"gemini-3-pro-preview","responseId":"` + r.ID() + `","usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":8}}`, "application/json"
		},
		Echo: func(r Reasoning, s Shape) string { return `{"role":"model","parts":[` + parts(r, s) + `]}` },
		Next: func(conv, echo string, s Shape) string {
			after := `{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"t":18}}},{"functionResponse":{"name":"get_weather","response":{"t":16}}}]}`
			if s == Text {
				after = `{"role":"user","parts":[{"text":"Thanks."}]}`
			}
			return `{"contents":[` + user(conv) + `,` + echo + `,` + after + tail
		},
		Secrets: func(r Reasoning) []string { return []string{r.Text(), r.Sig()} },
		Mangles: []Mangle{
			Edit("edited thought text", "parts", thought, "text"),
			Truncate("truncated signature", "parts", signed, "thoughtSignature"),
			Delete("deleted signature", "parts", signed, "thoughtSignature"),
			Drop("dropped thought part", "parts", thought),
			{Name: "signature moved to another part", Apply: moveSignature},
			Dup("duplicated thought part", "parts", thought),
		},
		Bare: func(echo string) string {
			return DeleteAll("", "parts", signed, "thoughtSignature").Apply(DropAll("", "parts", thought).Apply(echo))
		},
		// Thought summaries (includeThoughts) are unsigned: Gemini binds
		// its signatures to parts and does not check the summaries.
		ClientOwned: func(it replay.ReasoningItem) bool {
			x, ok := it.(*replay.ReasoningText)
			return ok && !x.Signature.IsPresent()
		},
	}
}

// moveSignature moves the thought signature of a Gemini content to its
// last part, or, when it is there, to its first.
func moveSignature(echo string) string {
	ps := elements(echo, "parts")
	from := -1
	for i, p := range ps {
		if gjson.Get(p, "thoughtSignature").Exists() {
			from = i
			break
		}
	}
	if from < 0 || len(ps) < 2 {
		return echo
	}
	to := len(ps) - 1
	if from == to {
		to = 0
	}
	sig := gjson.Get(ps[from], "thoughtSignature").Raw
	ps[from] = deleteMember(ps[from], "thoughtSignature")
	ps[to] = setRaw(ps[to], "thoughtSignature", sig)
	return withElements(echo, "parts", ps)
}

func openrouter() *API {
	message := func(r Reasoning, s Shape) string {
		m := `{"role":"assistant","content":"` + done + `","reasoning":"` + r.Text() + `","reasoning_details":[` +
			`{"type":"reasoning.text","text":"` + r.Text() + `","signature":"` + r.Sig() + `","format":"anthropic-claude-v1","index":0},` +
			`{"type":"reasoning.encrypted","data":"` + r.Blob() + `","format":"anthropic-claude-v1","index":1}]`
		if s == Tool {
			m += `,"tool_calls":[{"id":"toolu_01","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Bern\"}"}}]`
		}
		return m + `}`
	}
	head := `{"model":"anthropic/claude-sonnet-4.5","reasoning":{"max_tokens":1024},"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}}],` +
		`"messages":[{"role":"system","content":"You are a weather agent."},`
	user := func(conv string) string { return `{"role":"user","content":"` + Prompt(conv) + `"}` }
	text := typed("reasoning.text")
	enc := typed("reasoning.encrypted")
	return &API{
		Name: "openrouter", Codec: "openrouter", Upstream: "openrouter", Provider: "openrouter", Model: "anthropic/claude-sonnet-4.5",
		Path: "/api/v1/chat/completions", Auth: bearer,
		First: func(conv string) string { return head + user(conv) + `]}` },
		Respond: func(r Reasoning, s Shape) (string, string) {
			return chatCompletion("gen-"+r.ID(), "anthropic/claude-sonnet-4.5", `"provider":"Anthropic",`, message(r, s), s), "application/json"
		},
		Echo: message,
		Next: func(conv, echo string, s Shape) string {
			return head + user(conv) + `,` + echo + `,` + chatAfter(s, "toolu_01") + `]}`
		},
		Secrets: func(r Reasoning) []string { return []string{r.Text(), r.Sig(), r.Blob()} },
		Mangles: append(signedMangles("reasoning_details", text, enc, "text", "signature", "data"),
			Mangle{Name: "reasoning_details deleted", Apply: func(e string) string { return deleteMember(deleteMember(e, "reasoning_details"), "reasoning") }}),
	}
}

// signedMangles are the ways a client damages a turn that holds, in the
// array in, a block of signed reasoning text (sel text: its text and
// signature at the paths textAt and sigAt) and a block of encrypted
// reasoning (sel enc: its data at dataAt).
func signedMangles(in string, text, enc func(gjson.Result) bool, textAt, sigAt, dataAt string) []Mangle {
	return []Mangle{
		Edit("edited reasoning text", in, text, textAt),
		Truncate("truncated signature", in, text, sigAt),
		Delete("deleted signature", in, text, sigAt),
		Truncate("truncated encrypted data", in, enc, dataAt),
		Delete("deleted encrypted data", in, enc, dataAt),
		Drop("dropped text block", in, text),
		Drop("dropped encrypted block", in, enc),
		MoveLast("text block moved last", in, text),
		Dup("duplicated text block", in, text),
		Dup("duplicated encrypted block", in, enc),
	}
}

// chatCompletion is a chat completions body answering with message, a
// turn of shape s; members (each followed by a comma) go after the model.
func chatCompletion(id, model, members, message string, s Shape) string {
	finish := "stop"
	if s == Tool {
		finish = "tool_calls"
	}
	return `{"id":"` + id + `","object":"chat.completion","created":1790000200,"model":"` + model + `",` + members +
		`"choices":[{"index":0,"finish_reason":"` + finish + `","message":` + message + `}],"usage":{"prompt_tokens":60,"completion_tokens":35,"total_tokens":95}}`
}

// chatAfter is the message after a chat turn: the tool's result, or the
// user's next message.
func chatAfter(s Shape, callID string) string {
	if s == Text {
		return `{"role":"user","content":"Thanks."}`
	}
	return `{"role":"tool","tool_call_id":"` + callID + `","content":"18°C"}`
}

// reasoningContent is a chat-completions host that sends its reasoning as
// reasoning_content, with the tool-call ids it names predictably.
func reasoningContent(name, codec, upstream, provider, model, path, callID string) *API {
	message := func(r Reasoning, s Shape) string {
		m := `{"role":"assistant","content":"` + done + `","reasoning_content":"` + r.Text() + `"`
		if s == Tool {
			m += `,"tool_calls":[{"id":"` + callID + `","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Bern\"}"}}]`
		}
		return m + `}`
	}
	head := `{"model":"` + model + `","tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}}],` +
		`"messages":[{"role":"system","content":"You are a weather agent."},`
	user := func(conv string) string { return `{"role":"user","content":"` + Prompt(conv) + `"}` }
	return &API{
		Name: name, Codec: codec, Upstream: upstream, Provider: provider, Model: model, Path: path, Auth: bearer,
		First: func(conv string) string { return head + user(conv) + `]}` },
		Respond: func(r Reasoning, s Shape) (string, string) {
			return chatCompletion("chatcmpl-"+r.ID(), model, "", message(r, s), s), "application/json"
		},
		Echo: message,
		Next: func(conv, echo string, s Shape) string {
			return head + user(conv) + `,` + echo + `,` + chatAfter(s, callID) + `]}`
		},
		Secrets: func(r Reasoning) []string { return []string{r.Text()} },
		Mangles: []Mangle{
			Edit("edited reasoning_content", "", nil, "reasoning_content"),
			Truncate("truncated reasoning_content", "", nil, "reasoning_content"),
			Delete("deleted reasoning_content", "", nil, "reasoning_content"),
			{Name: "reasoning_content null", Apply: func(e string) string {
				if !gjson.Get(e, "reasoning_content").Exists() {
					return e
				}
				return setRaw(e, "reasoning_content", "null")
			}},
		},
	}
}

func deepseek() *API {
	return reasoningContent("deepseek", "deepseek", "deepseek", "deepseek", "deepseek-chat", "/chat/completions", "call_00_guess")
}

func kimi() *API {
	return reasoningContent("kimi", "openai-compatible", "kimi", "moonshot", "kimi-k2-thinking", "/v1/chat/completions", "functions.get_weather:0")
}

func converse() *API {
	const model = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
	blocks := func(r Reasoning, s Shape) string {
		b := `{"reasoningContent":{"reasoningText":{"text":"` + r.Text() + `","signature":"` + r.Sig() + `"}}},` +
			`{"reasoningContent":{"redactedContent":"` + r.Blob() + `"}},{"text":"` + done + `"}`
		if s == Tool {
			b += `,{"toolUse":{"toolUseId":"tooluse_01","name":"get_weather","input":` + weatherArgs + `}}`
		}
		return b
	}
	head := `{"system":[{"text":"You are a weather agent."}],"toolConfig":{"tools":[{"toolSpec":{"name":"get_weather","inputSchema":{"json":{"type":"object"}}}}]},` +
		`"additionalModelRequestFields":{"thinking":{"type":"enabled","budget_tokens":1024}},"messages":[`
	user := func(conv string) string { return `{"role":"user","content":[{"text":"` + Prompt(conv) + `"}]}` }
	text := func(b gjson.Result) bool { return b.Get("reasoningContent.reasoningText").Exists() }
	redacted := func(b gjson.Result) bool { return b.Get("reasoningContent.redactedContent").Exists() }
	return &API{
		Name: "bedrock-converse", Codec: "bedrock-converse", Upstream: "bedrock", Provider: "bedrock", Model: model,
		Path: "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse",
		Auth: func(h http.Header, key string) {
			// Signature Version 4: the signature changes with every
			// request, the access key id names the caller.
			h.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+key+"/20260101/us-east-1/bedrock/aws4_request, "+
				"SignedHeaders=content-type;host;x-amz-date, Signature="+hex.EncodeToString(Reasoning{Tenant: key, Conv: h.Get("X-Test-Call")}.sum("sigv4")))
			h.Set("X-Amz-Date", "20260101T000000Z")
		},
		First: func(conv string) string { return head + user(conv) + `]}` },
		Respond: func(r Reasoning, s Shape) (string, string) {
			stop := "end_turn"
			if s == Tool {
				stop = "tool_use"
			}
			return `{"output":{"message":{"role":"assistant","content":[` + blocks(r, s) + `]}},"stopReason":"` + stop + `",` +
				`"usage":{"inputTokens":21,"outputTokens":40,"totalTokens":61},"metrics":{"latencyMs":900}}`, "application/json"
		},
		Echo: func(r Reasoning, s Shape) string { return `{"role":"assistant","content":[` + blocks(r, s) + `]}` },
		Next: func(conv, echo string, s Shape) string {
			after := `{"role":"user","content":[{"toolResult":{"toolUseId":"tooluse_01","content":[{"text":"18°C"}]}}]}`
			if s == Text {
				after = `{"role":"user","content":[{"text":"Thanks."}]}`
			}
			return head + user(conv) + `,` + echo + `,` + after + `]}`
		},
		Secrets: func(r Reasoning) []string { return []string{r.Text(), r.Sig(), r.Blob()} },
		Mangles: signedMangles("content", text, redacted,
			"reasoningContent.reasoningText.text", "reasoningContent.reasoningText.signature", "reasoningContent.redactedContent"),
	}
}

func cohere() *API {
	message := func(r Reasoning, s Shape) string {
		if s == Tool {
			return `{"role":"assistant","content":[{"type":"thinking","thinking":"` + r.Text() + `"}],"tool_plan":"I will look up the weather.",` +
				`"tool_calls":[{"id":"get_weather_01","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Bern\"}"}}]}`
		}
		return `{"role":"assistant","content":[{"type":"thinking","thinking":"` + r.Text() + `"},{"type":"text","text":"` + done + `"}]}`
	}
	head := `{"model":"command-a-reasoning-08-2025","thinking":{"type":"enabled"},"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}}],` +
		`"messages":[{"role":"system","content":"You are a weather agent."},`
	user := func(conv string) string { return `{"role":"user","content":"` + Prompt(conv) + `"}` }
	thinking := typed("thinking")
	return &API{
		Name: "cohere", Codec: "cohere", Upstream: "cohere", Provider: "cohere", Model: "command-a-reasoning-08-2025",
		Path: "/v2/chat", Auth: bearer,
		First: func(conv string) string { return head + user(conv) + `]}` },
		Respond: func(r Reasoning, s Shape) (string, string) {
			finish := "COMPLETE"
			if s == Tool {
				finish = "TOOL_CALL"
			}
			return `{"id":"` + r.ID() + `","message":` + message(r, s) + `,"finish_reason":"` + finish + `",` +
				`"usage":{"billed_units":{"input_tokens":12,"output_tokens":30},"tokens":{"input_tokens":700,"output_tokens":34}}}`, "application/json"
		},
		Echo: message,
		Next: func(conv, echo string, s Shape) string {
			return head + user(conv) + `,` + echo + `,` + chatAfter(s, "get_weather_01") + `]}`
		},
		Secrets: func(r Reasoning) []string { return []string{r.Text()} },
		Mangles: []Mangle{
			Edit("edited thinking text", "content", thinking, "thinking"),
			Drop("dropped thinking block", "content", thinking),
			MoveLast("thinking block moved last", "content", thinking),
			Dup("duplicated thinking block", "content", thinking),
		},
	}
}

func mistral() *API {
	message := func(r Reasoning, s Shape) string {
		m := `{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":"` + r.Text() + `"}]},{"type":"text","text":"` + done + `"}]`
		if s == Tool {
			m += `,"tool_calls":[{"id":"abcDEF123","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Bern\"}"}}]`
		}
		return m + `}`
	}
	head := `{"model":"magistral-medium-2509","prompt_mode":"reasoning","tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}}],` +
		`"messages":[{"role":"system","content":"You are a weather agent."},`
	user := func(conv string) string { return `{"role":"user","content":"` + Prompt(conv) + `"}` }
	thinking := typed("thinking")
	return &API{
		Name: "mistral", Codec: "mistral", Upstream: "mistral", Provider: "mistral", Model: "magistral-medium-2509",
		Path: "/v1/chat/completions", Auth: bearer,
		First: func(conv string) string { return head + user(conv) + `]}` },
		Respond: func(r Reasoning, s Shape) (string, string) {
			return chatCompletion(r.ID(), "magistral-medium-2509", "", message(r, s), s), "application/json"
		},
		Echo: message,
		Next: func(conv, echo string, s Shape) string {
			return head + user(conv) + `,` + echo + `,` + chatAfter(s, "abcDEF123") + `]}`
		},
		Secrets: func(r Reasoning) []string { return []string{r.Text()} },
		Mangles: []Mangle{
			Edit("edited thinking text", "content", thinking, "thinking.0.text"),
			Drop("dropped thinking block", "content", thinking),
			MoveLast("thinking block moved last", "content", thinking),
			Dup("duplicated thinking block", "content", thinking),
		},
	}
}

// inner returns the inside of a JSON array text.
func inner(arr string) string {
	s := strings.TrimSpace(arr)
	return strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
}
