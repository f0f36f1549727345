//go:build !race

package replayproxy_test

const raceEnabled = false
