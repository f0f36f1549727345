//go:build race

package gemini

// raceEnabled: the race detector slows decoding about tenfold.
const raceEnabled = true
