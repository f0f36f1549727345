package main

import (
	"bytes"
	"encoding/json"

	"github.com/tidwall/gjson"
)

// indent pretty-prints JSON, keeping every string's bytes.
func indent(b []byte) []byte {
	var buf bytes.Buffer
	if err := json.Indent(&buf, b, "", "  "); err != nil {
		return append(b, '\n')
	}
	buf.WriteByte('\n')
	return buf.Bytes()
}

// isTurnDocument reports whether data is a turn document.
func isTurnDocument(data []byte) bool {
	if !gjson.ValidBytes(data) {
		return false
	}
	r := gjson.ParseBytes(data)
	return r.Get("version").Exists() && r.Get("blocks").IsArray()
}

// sniff guesses the API of a response body or stream from its shape, or
// returns "".
func sniff(data []byte, stream bool) string {
	sample := data
	if stream {
		sample = firstPayload(data)
	}
	if !gjson.ValidBytes(sample) {
		return ""
	}
	r := gjson.ParseBytes(sample)
	switch {
	case r.Get("chunk.bytes").Exists():
		return "anthropic"
	case r.Get("type").Str == "message" || r.Get("type").Str == "message_start" || r.Get("type").Str == "ping":
		return "anthropic"
	case r.Get("object").Str == "response" || r.Get("response.object").Str == "response" ||
		(stream && len(r.Get("type").Str) > 9 && r.Get("type").Str[:9] == "response."):
		return "openai-responses"
	case r.Get("candidates").Exists() || r.Get("promptFeedback").Exists():
		return "gemini"
	case r.Get("output.message").Exists() || r.Get("messageStart").Exists() || r.Get("contentBlockDelta").Exists():
		return "bedrock-converse"
	case r.Get("choices").Exists():
		model := r.Get("model").Str
		switch {
		case r.Get("provider").Exists() || r.Get("choices.0.message.reasoning_details").Exists() ||
			r.Get("choices.0.delta.reasoning_details").Exists():
			return "openrouter"
		case bytes.Contains([]byte(model), []byte("deepseek")):
			return "deepseek"
		case bytes.Contains([]byte(model), []byte("grok")):
			return "xai"
		case bytes.Contains([]byte(model), []byte("magistral")) || bytes.Contains([]byte(model), []byte("mistral")):
			return "mistral"
		}
		return "openai-compatible"
	case r.Get("error").Exists():
		return "openrouter"
	}
	return ""
}

// firstPayload returns the first JSON payload of an SSE or JSONL stream.
func firstPayload(data []byte) []byte {
	for _, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if bytes.HasPrefix(line, []byte("data:")) {
			line = bytes.TrimSpace(line[5:])
		}
		if len(line) > 0 && line[0] == '{' && gjson.ValidBytes(line) {
			return line
		}
	}
	return nil
}
