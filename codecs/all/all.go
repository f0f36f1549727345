// Package all imports every codec in this module, so that each registers
// itself in [replay.Default]:
//
//	import _ "github.com/reasonreplay/replay/codecs/all"
//
// Import a single codec package instead to keep a binary small.
package all

import (
	_ "github.com/reasonreplay/replay/codecs/anthropic"
	_ "github.com/reasonreplay/replay/codecs/bedrock"
	_ "github.com/reasonreplay/replay/codecs/chatcompat"
	_ "github.com/reasonreplay/replay/codecs/cohere"
	_ "github.com/reasonreplay/replay/codecs/gemini"
	_ "github.com/reasonreplay/replay/codecs/mistral"
	_ "github.com/reasonreplay/replay/codecs/ollama"
	_ "github.com/reasonreplay/replay/codecs/openai"
	_ "github.com/reasonreplay/replay/codecs/openrouter"
)
