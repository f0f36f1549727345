package redisstore_test

import (
	_ "github.com/reasonreplay/replay/codecs/all"
)

// The fixtures are written for these tests from the documented Anthropic
// Messages shapes; the signature and the tool id differ per call.

func sseEvent(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }

func anthropicSSE(sig, toolID string) string {
	half := len(sig) / 2
	return sseEvent("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"usage":{"input_tokens":12,"output_tokens":1}}}`) +
		sseEvent("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`) +
		sseEvent("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Call the tool."}}`) +
		sseEvent("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"`+sig[:half]+`"}}`) +
		sseEvent("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"`+sig[half:]+`"}}`) +
		sseEvent("content_block_stop", `{"type":"content_block_stop","index":0}`) +
		sseEvent("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"`+toolID+`","name":"get_weather","input":{}}}`) +
		sseEvent("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"city\": \"Bern\"}"}}`) +
		sseEvent("content_block_stop", `{"type":"content_block_stop","index":1}`) +
		sseEvent("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":40}}`) +
		sseEvent("message_stop", `{"type":"message_stop"}`)
}

func sigFor(id string) string { return "EqQBCkgIAhABGAIiQ" + id + "Sig+/=" }
