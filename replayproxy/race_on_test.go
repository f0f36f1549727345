//go:build race

package replayproxy_test

const raceEnabled = true
