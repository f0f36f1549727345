//go:build race

package chatstream_test

// raceEnabled: the race detector slows memory-heavy work by a factor that
// grows with the input (its shadow memory), so timings are not compared.
const raceEnabled = true
