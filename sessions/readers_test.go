package sessions

import (
	"os"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
)

// readerOf, a switch, gives every agent the reader the table filled when
// the program started gave it (the table is kept here as the init
// functions filled it), and nil to any other name.
func TestReaderOfAsTable(t *testing.T) {
	table := map[Agent]func(s *Session, f *os.File) error{
		ClaudeCode: readClaude, Codex: readCodex, Pi: readPi, OpenClaw: readPi,
		GeminiCLI: readGemini, Cline: readCline, RooCode: readCline, Continue: readContinue,
	}
	fn := func(f func(s *Session, f *os.File) error) uintptr { return reflect.ValueOf(f).Pointer() }
	assert.Len(t, table, len(Agents()))
	for _, a := range Agents() {
		want, ok := table[a]
		if assert.True(t, ok, a) && assert.NotNil(t, readerOf(a), a) {
			assert.Equal(t, fn(want), fn(readerOf(a)), a)
		}
	}
	for _, a := range []Agent{"", "claude", "Claude-Code", "gemini", "roo", "unknown"} {
		assert.Nil(t, readerOf(a), a)
	}
}
