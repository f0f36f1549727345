module github.com/reasonreplay/replay/bench

go 1.26.8

require (
	github.com/cohere-ai/cohere-go/v2 v2.15.3
	github.com/reasonreplay/replay v0.0.0
)

require (
	github.com/google/uuid v1.4.0 // indirect
	github.com/tidwall/gjson v1.20.0 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.0 // indirect
	github.com/tidwall/sjson v1.2.5 // indirect
)

replace github.com/reasonreplay/replay => ../
