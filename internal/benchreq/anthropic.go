// Package benchreq writes the request bodies the request-path benchmarks
// read: a coding agent's tool loop in each codec's request shape, grown to
// a size, and the streamed answer a provider gives to each request. The
// bodies are written by this package from the documented shapes (no
// capture is copied); every byte is a function of the turn's number, so a
// conversation can be replayed turn by turn and its requests carry back
// exactly what the answers streamed.
package benchreq

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// quote writes s as a JSON string (no HTML escaping, as the SDKs write).
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// words is the vocabulary the generated prose is drawn from.
var words = strings.Fields(`the file test function returns error value when handler request body
reads writes stream buffer config path module import package build check run fails passes
because "quoted" caller's type struct field method interface slice map index loop branch merge
commit diff patch line column tab	indent` + " naïve café 東京 ✓")

// prose returns n bytes or a little more of deterministic prose for seed,
// with line breaks, quotes and a few non-ASCII words.
func prose(seed, n int) string {
	var b strings.Builder
	x := uint32(seed*2654435761 + 1)
	for b.Len() < n {
		x = x*1664525 + 1013904223
		b.WriteString(words[int(x>>8)%len(words)])
		switch (x >> 20) % 13 {
		case 0:
			b.WriteString(".\n")
		case 1:
			b.WriteString(", ")
		default:
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// code returns about n bytes of a numbered source listing, as a coding
// agent's file-reading tool returns it (tabs, quotes, line breaks).
func code(seed, n int) string {
	var b strings.Builder
	for line := 1; b.Len() < n; line++ {
		fmt.Fprintf(&b, "%6d\t", line)
		switch (seed + line) % 7 {
		case 0:
			fmt.Fprintf(&b, "func handle%d(w http.ResponseWriter, r *http.Request) error {\n", seed*100+line)
		case 1:
			b.WriteString("\tif err != nil {\n\t\treturn fmt.Errorf(\"reading %q: %w\", path, err)\n")
		case 2:
			fmt.Fprintf(&b, "\tbuf := make([]byte, 0, %d) // the \\\"edge\\\" case\n", line*64)
		case 3:
			b.WriteString("\t}\n")
		case 4:
			fmt.Fprintf(&b, "\tlog.Printf(\"step %%d of %d: %%s\", i, name)\n", seed)
		case 5:
			b.WriteString("}\n\n")
		default:
			b.WriteString("\t// " + prose(seed*31+line, 40) + "\n")
		}
	}
	return b.String()
}

// signature returns a deterministic signature of n bytes or up to three
// more: standard base64 with its padding, as every provider mints them
// (Gemini refuses a thoughtSignature that does not decode).
func signature(seed, n int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	n = (n + 3) &^ 3
	b := make([]byte, n)
	x := uint32(seed*40503 + 7)
	for i := range b {
		x = x*1103515245 + 12345
		b[i] = alphabet[(x>>16)%64]
	}
	copy(b, "EqQBCkgIBxABGAIiQ")
	b[n-1] = '='
	return string(b)
}

// ClaudeTurn is one assistant turn of the Claude Code conversation: what
// the model streamed, and so what the next request sends back.
type ClaudeTurn struct {
	Thinking, Signature string // Thinking "" for an omitted display
	Text                string
	ToolID, Tool, Input string // Input is the tool_use input's JSON text
	Result              string // the tool_result content the client answers with
}

// claudeTools are the names of the 20 tools of the agent.
var claudeTools = [20]string{"Bash", "Read", "Edit", "Write", "Glob", "Grep", "LS", "MultiEdit",
	"NotebookEdit", "WebFetch", "WebSearch", "TodoWrite", "Task", "ExitPlanMode", "BashOutput",
	"KillShell", "SlashCommand", "ListMcpResources", "ReadMcpResource", "AskUserQuestion"}

// Turn returns turn k of the Claude Code conversation.
func Turn(k int) ClaudeTurn {
	t := ClaudeTurn{
		Signature: signature(k, 420+(k*37)%600),
		Text:      "Let me look at " + fmt.Sprintf("src/pkg%d/file%d.go", k%9, k) + " next: " + prose(k+7, 60+(k*13)%140),
		ToolID:    fmt.Sprintf("toolu_01%022d", k),
		Tool:      claudeTools[[]int{1, 0, 5, 2, 1, 4}[k%6]],
	}
	if k%4 != 3 { // every fourth turn has its thinking display omitted
		t.Thinking = prose(k, 300+(k*53)%900)
	}
	t.Input = `{"file_path":"/home/dev/repo/src/pkg` + fmt.Sprint(k%9) + `/file` + fmt.Sprint(k) + `.go","limit":` + fmt.Sprint(200+k%50) + `}`
	t.Result = code(k, 1500+(k*331)%6000)
	return t
}

// AssistantMessage is the turn as the client sends it back.
func (t ClaudeTurn) AssistantMessage() string {
	return `{"role":"assistant","content":[{"type":"thinking","thinking":` + quote(t.Thinking) + `,"signature":` + quote(t.Signature) +
		`},{"type":"text","text":` + quote(t.Text) + `},{"type":"tool_use","id":` + quote(t.ToolID) + `,"name":` + quote(t.Tool) +
		`,"input":` + t.Input + `}]}`
}

// ResultMessage is the user message that answers the turn's tool call;
// last marks it with the cache marker the agent moves to the newest
// message.
func (t ClaudeTurn) ResultMessage(last bool) string {
	cc := ""
	if last {
		cc = `,"cache_control":{"type":"ephemeral"}`
	}
	return `{"role":"user","content":[{"type":"tool_result","tool_use_id":` + quote(t.ToolID) + `,"content":` + quote(t.Result) + cc + `}]}`
}

// claudeTail is what follows the messages of every request: the system
// prompt, the tools and the settings.
func claudeTail() string {
	var b strings.Builder
	b.WriteString(`,"system":[{"type":"text","text":"You are Claude Code, Anthropic's official CLI for Claude.","cache_control":{"type":"ephemeral"}},{"type":"text","text":`)
	b.WriteString(quote(system))
	b.WriteString(`,"cache_control":{"type":"ephemeral"}}],"tools":[`)
	b.WriteString(tools(func(name, desc, schema string) string {
		return `{"name":` + quote(name) + `,"description":` + desc + `,"input_schema":` + schema + `}`
	}))
	b.WriteString(`],"metadata":{"user_id":"user_5f0e9d3c_account_9a8b7c6d_session_0f1e2d3c"},"thinking":{"type":"adaptive"},"stream":true}`)
	return b.String()
}

// Anthropic is the conversation in the Anthropic Messages shape, as Claude
// Code sends it: the settings and the messages, then the system prompt (a
// cache marker on each block), the 20 tools, the metadata, adaptive
// thinking and streaming.
func Anthropic() *Shape {
	return &Shape{
		API: "anthropic", Path: "/v1/messages",
		head: `{"model":"claude-opus-5-5","max_tokens":32000,"messages":[{"role":"user","content":[{"type":"text","text":` +
			quote(firstUser) + `}]}`,
		tail:      `]` + claudeTail(),
		assistant: func(t ClaudeTurn, _ int) string { return t.AssistantMessage() },
		results:   func(t ClaudeTurn, _ int, last bool) string { return t.ResultMessage(last) },
	}
}

// Stream returns the Messages stream that answers the request for turn
// n (of the conversation whose first turn is 0; Base+n for another): turn
// n, its thinking in deltas of about 80 bytes, its signature in
// one delta, its text and its tool call.
func Stream(n int) []byte {
	t := Turn(n)
	var b bytes.Buffer
	ev := func(typ, data string) { b.WriteString("event: " + typ + "\ndata: " + data + "\n\n") }
	ev("message_start", `{"type":"message_start","message":{"id":"msg_01`+fmt.Sprintf("%022d", n)+`","type":"message","role":"assistant","model":"claude-opus-5-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":12,"cache_creation_input_tokens":0,"cache_read_input_tokens":41000,"output_tokens":1}}}`)
	ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`)
	for _, piece := range pieces(t.Thinking, 80) {
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":`+quote(piece)+`}}`)
	}
	ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":`+quote(t.Signature)+`}}`)
	ev("content_block_stop", `{"type":"content_block_stop","index":0}`)
	ev("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`)
	for _, piece := range pieces(t.Text, 40) {
		ev("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":`+quote(piece)+`}}`)
	}
	ev("content_block_stop", `{"type":"content_block_stop","index":1}`)
	ev("content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":`+quote(t.ToolID)+`,"name":`+quote(t.Tool)+`,"input":{}}}`)
	for _, piece := range pieces(t.Input, 30) {
		ev("content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":`+quote(piece)+`}}`)
	}
	ev("content_block_stop", `{"type":"content_block_stop","index":2}`)
	ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":512}}`)
	ev("message_stop", `{"type":"message_stop"}`)
	return b.Bytes()
}

// StreamEvents is Stream cut into its events, each with its blank line.
func StreamEvents(n int) [][]byte {
	s := Stream(n)
	var out [][]byte
	for len(s) > 0 {
		i := bytes.Index(s, []byte("\n\n"))
		out = append(out, s[:i+2])
		s = s[i+2:]
	}
	return out
}

// pieces cuts s into pieces of about n bytes, at character boundaries.
func pieces(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		i := min(n, len(s))
		for i < len(s) && s[i]&0xC0 == 0x80 {
			i++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}
