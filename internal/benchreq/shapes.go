package benchreq

import (
	"bytes"
	"fmt"
	"strings"
)

// Shape is the coding agent's conversation in one API's request shape:
// the same system prompt, 20 tools and tool loop (turn k is [Turn](k)),
// each turn's reasoning as the API carries it.
type Shape struct {
	// API is the codec's API name.
	API string
	// Base is the number of the conversation's first turn: shapes with
	// other bases are other conversations (every turn's text, ids and
	// signatures differ).
	Base int
	// Path is the request path of a generation request (the model in it
	// where the API names it there).
	Path string
	// head is the body up to the first element of the conversation (the
	// user's first message included); tail is what follows the last.
	head, tail string
	// assistant and results are turn k's elements.
	assistant func(t ClaudeTurn, k int) string
	results   func(t ClaudeTurn, k int, last bool) string
}

// Request returns the request that carries turns 0 to n-1 (each with its
// tool results) and asks for turn n.
func (s *Shape) Request(n int) []byte {
	var b bytes.Buffer
	b.WriteString(s.head)
	for k := s.Base; k < s.Base+n; k++ {
		t := Turn(k)
		b.WriteByte(',')
		b.WriteString(s.assistant(t, k))
		b.WriteByte(',')
		b.WriteString(s.results(t, k, k == s.Base+n-1))
	}
	b.WriteString(s.tail)
	return b.Bytes()
}

// ModelLast returns the shape with its top-level "model" member written
// right after the conversation's array instead of first, as
// anthropic-sdk-go and openai-go write a request (their parameter structs
// put the messages first); nil for a shape whose body names no model.
func (s *Shape) ModelLast() *Shape {
	const open = `{"model":`
	rest, ok := strings.CutPrefix(s.head, open)
	if !ok || !strings.HasPrefix(s.tail, "]") {
		return nil
	}
	end := strings.Index(rest, `",`)
	if end < 0 {
		return nil
	}
	member := `"model":` + rest[:end+1]
	c := *s
	c.head = "{" + rest[end+2:]
	c.tail = "]," + member + s.tail[1:]
	return &c
}

// AssistantOf returns turn k's element(s) as the shape's requests carry
// it.
func (s *Shape) AssistantOf(k int) string { return s.assistant(Turn(s.Base+k), s.Base+k) }

// Turns returns the number of turns of the first request to reach size
// bytes.
func (s *Shape) Turns(size int) int {
	n := len(s.head) + len(s.tail)
	k := 0
	for ; n < size; k++ {
		t := Turn(s.Base + k)
		n += 2 + len(s.assistant(t, s.Base+k)) + len(s.results(t, s.Base+k, false))
	}
	return k
}

// Sized returns the request of the first turn count to reach size bytes,
// and that count.
func (s *Shape) Sized(size int) ([]byte, int) {
	n := s.Turns(size)
	return s.Request(n), n
}

// system is the agent's system prompt.
var system = "You are a coding agent. " + prose(1000, 14000)

// firstUser is the user's first message text.
var firstUser = "<system-reminder>\n" + prose(999, 2500) + "\n</system-reminder>\nFix the failing tests in src/pkg and explain the cause."

// schema is every tool's input schema.
func schema(i int) string {
	return `{"type":"object","properties":{"file_path":{"type":"string","description":` + quote(prose(3000+i, 80)) +
		`},"command":{"type":"string","description":"The command to run"},"limit":{"type":"number","description":"The number of lines to read"},` +
		`"options":{"type":"array","items":{"type":"string"}}},"required":["file_path"],"additionalProperties":false}`
}

// tools writes the 20 tools, each with each(name, description, schema).
func tools(each func(name, desc, schema string) string) string {
	var b strings.Builder
	for i, name := range claudeTools {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(each(name, quote(prose(2000+i, 400+(i*97)%1200)), schema(i)))
	}
	return b.String()
}

// chatTools are the tools in the chat completions shape.
func chatTools() string {
	return `[` + tools(func(name, desc, schema string) string {
		return `{"type":"function","function":{"name":` + quote(name) + `,"description":` + desc + `,"parameters":` + schema + `}}`
	}) + `]`
}

// chatCall is the turn's tool call in the chat completions shape.
func chatCall(t ClaudeTurn) string {
	return `[{"id":` + quote(t.ToolID) + `,"type":"function","function":{"name":` + quote(t.Tool) + `,"arguments":` + quote(t.Input) + `}}]`
}

// chatResult is the tool message that answers the turn's call.
func chatResult(t ClaudeTurn, _ int, _ bool) string {
	return `{"role":"tool","tool_call_id":` + quote(t.ToolID) + `,"content":` + quote(t.Result) + `}`
}

// Shapes returns the conversation in the request shape of every codec of
// the module: the agent's Anthropic Messages requests (as [ClaudeCode]
// writes them) and the same conversation for the other APIs.
func Shapes() []*Shape {
	chatHead := func(model, extra string) string {
		return `{"model":` + quote(model) + `,` + extra + `"messages":[{"role":"system","content":` + quote(system) +
			`},{"role":"user","content":` + quote(firstUser) + `}`
	}
	chatTail := `],"tools":` + chatTools() + `,"stream":true}`
	return []*Shape{
		Anthropic(),
		{
			API: "openai-responses", Path: "/v1/responses",
			head: `{"model":"gpt-5.5","instructions":` + quote(system) + `,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":` + quote(firstUser) + `}]}`,
			tail: `],"tools":[` + tools(func(name, desc, schema string) string {
				return `{"type":"function","name":` + quote(name) + `,"description":` + desc + `,"parameters":` + schema + `,"strict":false}`
			}) + `],"reasoning":{"effort":"high","summary":"auto"},"include":["reasoning.encrypted_content"],"store":false,"stream":true}`,
			assistant: func(t ClaudeTurn, k int) string {
				return `{"type":"reasoning","id":"rs_` + fmt.Sprintf("%040d", k) + `","summary":[{"type":"summary_text","text":` + quote(t.Thinking) +
					`}],"encrypted_content":` + quote("gAAAAA"+t.Signature+t.Signature) + `},` +
					`{"type":"message","role":"assistant","id":"msg_` + fmt.Sprintf("%040d", k) + `","status":"completed","content":[{"type":"output_text","text":` + quote(t.Text) + `,"annotations":[]}]},` +
					`{"type":"function_call","id":"fc_` + fmt.Sprintf("%040d", k) + `","call_id":"call_` + fmt.Sprintf("%024d", k) + `","name":` + quote(t.Tool) +
					`,"arguments":` + quote(t.Input) + `,"status":"completed"}`
			},
			results: func(t ClaudeTurn, k int, _ bool) string {
				return `{"type":"function_call_output","call_id":"call_` + fmt.Sprintf("%024d", k) + `","output":` + quote(t.Result) + `}`
			},
		},
		{
			API: "gemini", Path: "/v1beta/models/gemini-3.5-pro:streamGenerateContent",
			head: `{"contents":[{"role":"user","parts":[{"text":` + quote(firstUser) + `}]}`,
			tail: `],"systemInstruction":{"parts":[{"text":` + quote(system) + `}]},"tools":[{"functionDeclarations":[` +
				tools(func(name, desc, schema string) string {
					return `{"name":` + quote(name) + `,"description":` + desc + `,"parameters":` + schema + `}`
				}) + `]}],"generationConfig":{"maxOutputTokens":32000,"thinkingConfig":{"includeThoughts":true,"thinkingBudget":-1}}}`,
			assistant: func(t ClaudeTurn, _ int) string {
				thought := ""
				if t.Thinking != "" {
					thought = `{"text":` + quote(t.Thinking) + `,"thought":true},`
				}
				return `{"role":"model","parts":[` + thought + `{"text":` + quote(t.Text) + `},{"functionCall":{"name":` + quote(t.Tool) +
					`,"args":` + t.Input + `},"thoughtSignature":` + quote(t.Signature) + `}]}`
			},
			results: func(t ClaudeTurn, _ int, _ bool) string {
				return `{"role":"user","parts":[{"functionResponse":{"name":` + quote(t.Tool) + `,"response":{"content":` + quote(t.Result) + `}}}]}`
			},
		},
		{
			API: "bedrock-converse", Path: "/model/us.anthropic.claude-opus-5-5-v1:0/converse-stream",
			head: `{"messages":[{"role":"user","content":[{"text":` + quote(firstUser) + `}]}`,
			tail: `],"system":[{"text":` + quote(system) + `},{"cachePoint":{"type":"default"}}],"toolConfig":{"tools":[` +
				tools(func(name, desc, schema string) string {
					return `{"toolSpec":{"name":` + quote(name) + `,"description":` + desc + `,"inputSchema":{"json":` + schema + `}}}`
				}) + `]},"inferenceConfig":{"maxTokens":32000},"additionalModelRequestFields":{"thinking":{"type":"adaptive"}}}`,
			assistant: func(t ClaudeTurn, _ int) string {
				return `{"role":"assistant","content":[{"reasoningContent":{"reasoningText":{"text":` + quote(t.Thinking) + `,"signature":` + quote(t.Signature) +
					`}}},{"text":` + quote(t.Text) + `},{"toolUse":{"toolUseId":` + quote(t.ToolID) + `,"name":` + quote(t.Tool) + `,"input":` + t.Input + `}}]}`
			},
			results: func(t ClaudeTurn, _ int, last bool) string {
				cp := ""
				if last {
					cp = `,{"cachePoint":{"type":"default"}}`
				}
				return `{"role":"user","content":[{"toolResult":{"toolUseId":` + quote(t.ToolID) + `,"content":[{"text":` + quote(t.Result) + `}],"status":"success"}}` + cp + `]}`
			},
		},
		{
			API: "cohere", Path: "/v2/chat",
			head: chatHead("command-a-reasoning-08-2025", `"thinking":{"type":"enabled"},`),
			tail: chatTail,
			assistant: func(t ClaudeTurn, _ int) string {
				return `{"role":"assistant","content":[{"type":"thinking","thinking":` + quote(t.Thinking+" ") + `}],"tool_plan":` + quote(t.Text) +
					`,"tool_calls":` + chatCall(t) + `}`
			},
			results: chatResult,
		},
		{
			API: "mistral", Path: "/v1/chat/completions",
			head: chatHead("magistral-medium-2509", `"prompt_mode":"reasoning",`),
			tail: chatTail,
			assistant: func(t ClaudeTurn, _ int) string {
				return `{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":` + quote(t.Thinking+" ") +
					`}],"closed":true},{"type":"text","text":` + quote(t.Text) + `}],"tool_calls":` + chatCall(t) + `}`
			},
			results: chatResult,
		},
		{
			API: "deepseek", Path: "/v1/chat/completions",
			head: chatHead("deepseek-v4-pro", `"thinking":{"type":"enabled"},`),
			tail: chatTail,
			assistant: func(t ClaudeTurn, _ int) string {
				return `{"role":"assistant","content":` + quote(t.Text) + `,"reasoning_content":` + quote(t.Thinking+" ") + `,"tool_calls":` + chatCall(t) + `}`
			},
			results: chatResult,
		},
		{
			API: "openrouter", Path: "/api/v1/chat/completions",
			head: chatHead("anthropic/claude-opus-5.5", `"reasoning":{"enabled":true},`),
			tail: chatTail,
			assistant: func(t ClaudeTurn, _ int) string {
				return `{"role":"assistant","content":` + quote(t.Text) + `,"reasoning_details":[{"type":"reasoning.text","text":` + quote(t.Thinking) +
					`,"signature":` + quote(t.Signature) + `,"format":"anthropic-claude-v1","index":0}],"tool_calls":` + chatCall(t) + `}`
			},
			results: chatResult,
		},
	}
}
