//go:build !race

package chatstream_test

const raceEnabled = false
