module github.com/reasonreplay/replay/bench

go 1.26.8

require github.com/reasonreplay/replay v0.0.0

replace github.com/reasonreplay/replay => ../
