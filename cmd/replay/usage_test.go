package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The package documentation's and the README's usage blocks are the
// generated synopsis.
func TestSynopsisInPackageDoc(t *testing.T) {
	src, err := os.ReadFile("main.go")
	require.NoError(t, err)
	var want strings.Builder
	for _, c := range commands {
		want.WriteString("//\t" + c.synopsis() + "\n")
	}
	want.WriteString("//\t" + versionSynopsis + "\n")
	assert.Contains(t, string(src), want.String(), "update the Usage block of main.go's package comment")
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	assert.Contains(t, string(readme), "```\n"+strings.ReplaceAll(want.String(), "//\t", "")+"```\n", "update the README's Command line synopsis")
	// The exit status table, the API names and the help's words agree too.
	_, top, _ := runCLI("", "--help")
	for _, r := range exitTable {
		assert.Contains(t, string(src), fmt.Sprintf("//\t%d  %s\n", r.code, r.meaning), "update the exit status table of main.go's package comment")
		assert.Contains(t, string(readme), fmt.Sprintf("| %d | %s |\n", r.code, r.meaning), "update the README's exit status table")
		assert.Contains(t, top, fmt.Sprintf("  %d  %s\n", r.code, r.meaning))
	}
	apis := "APIs: `" + strings.Join(apiNames(), "`, `") + "`, or `auto`"
	assert.Contains(t, string(readme), apis, "update the README's list of APIs")
	assert.Contains(t, top, "APIs: "+strings.Join(apiNames(), ", ")+", or auto")
	assert.Contains(t, string(readme), "`replay COMMAND --help`")
	assert.Contains(t, top, "Run 'replay COMMAND --help'")
}

// Every flag of every command is in the top-level help, in the command's
// synopsis, and in its --help; --api is marked required only where it is.
func TestHelpListsEveryFlag(t *testing.T) {
	code, top, _ := runCLI("", "--help")
	require.Equal(t, 0, code)
	for _, c := range commands {
		fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
		c.define(fs)
		syn := c.synopsis()
		assert.Contains(t, top, "  "+syn+"\n")
		_, _, help := runCLI("", c.name, "--help")
		assert.True(t, strings.HasPrefix(help, "Usage: "+syn+"\n"), help)
		aliases := strings.Join(c.aliases, " ")
		fs.VisitAll(func(f *flag.Flag) {
			dash := "--"
			if len(f.Name) == 1 {
				dash = "-"
			}
			if !strings.Contains(aliases, f.Name) {
				assert.Contains(t, syn, dash+f.Name, c.name)
			}
			assert.Contains(t, help, "  "+dash+f.Name, c.name)
		})
	}
	assert.Contains(t, top, "replay decode [--api API]", "--api defaults to auto: optional")
	assert.Contains(t, top, "replay audit --api API ", "audit needs its target API")
	assert.Contains(t, top, "replay convert --to API ")
	assert.Contains(t, top, "[--kind KIND]")
	assert.Contains(t, top, "[--prefix-hash H]")
	assert.Contains(t, top, "[--to-account A]")
	for _, r := range exitTable {
		assert.Contains(t, top, fmt.Sprintf("\n  %d  %s\n", r.code, r.meaning))
	}
}

func TestMessageStripsRepeatedPrefixes(t *testing.T) {
	for in, want := range map[string]string{
		"replay: anthropic: event 4: x":                         "anthropic: event 4: x",
		"/messages/1: replay: openrouter: bad":                  "/messages/1: openrouter: bad",
		"schema: not a valid item document\n  /: x":             "not a valid item document\n  /: x",
		"standard input: turn 0: replay: malformed input: json": "standard input: turn 0: malformed input: json",
	} {
		assert.Equal(t, want, message(errString(in)))
	}
	assert.Equal(t, "1 violation", plural(1, "violation", "violations"))
	assert.Equal(t, "0 violations", plural(0, "violation", "violations"))
	assert.Equal(t, "an", article("item"))
	assert.Equal(t, "a", article("turn"))
}

type errString string

func (e errString) Error() string { return string(e) }

// An unknown --api is refused before standard input is read: a stream
// that never ends does not delay it.
func TestUnknownAPIBeforeInput(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	done := make(chan int, 1)
	var errb strings.Builder
	go func() {
		done <- run(&env{stdin: r, stdout: io.Discard, stderr: &errb}, []string{"decode", "--api", "nope", "-"})
	}()
	select {
	case code := <-done:
		assert.Equal(t, 2, code)
		assert.True(t, strings.HasPrefix(errb.String(), `replay decode: unknown --api "nope"`), errb.String())
	case <-time.After(5 * time.Second):
		t.Fatal("decode --api nope waited for standard input")
	}
}

// A stream is decoded as its bytes arrive: events written to a pipe are
// decoded before the writer closes it.
func TestDecodeStreamsFromAPipe(t *testing.T) {
	data, err := os.ReadFile("../../testdata/anthropic/thinking.sse")
	require.NoError(t, err)
	r, w := io.Pipe()
	seen := make(chan struct{})
	go func() {
		w.Write(data)
		// The decoder has read everything written; the turn is complete
		// before EOF, which comes only after a pause.
		close(seen)
		time.Sleep(50 * time.Millisecond)
		w.Close()
	}()
	var out, errb strings.Builder
	code := run(&env{stdin: r, stdout: &out, stderr: &errb}, []string{"decode", "--compact", "-"})
	<-seen
	assert.Equal(t, 0, code, errb.String())
	_, want, _ := runCLI("", "decode", "--compact", "../../testdata/anthropic/thinking.sse")
	assert.Equal(t, want, out.String())
}

func TestValidateLikeliestAlternative(t *testing.T) {
	_, turn, _ := runCLI("", "decode", "--compact", "../../testdata/anthropic/message.json")
	code, _, errOut := runCLI(turn, "validate", "--kind", "item", "-")
	assert.Equal(t, 1, code)
	assert.Equal(t, "standard input: a turn document, not an item (give --kind turn, or leave --kind out)\nreplay validate: 1 of 1 document is not valid\n", errOut)

	code, _, errOut = runCLI(`{"text":"x","signature":"s","format":"anthropic-claude-v1"}`, "validate", "--kind", "item", "-")
	assert.Equal(t, 1, code)
	assert.Equal(t, "standard input: not a valid item document\n  /: missing member \"type\" (its members make it likeliest a \"reasoning.text\")\nreplay validate: 1 of 1 document is not valid\n", errOut)

	doc := `{"version":1,"complete":true,"blocks":[{"type":"reasoning.encrypted"},{"text":"x"},{"id":"c","name":"f","arguments":"{}"}]}`
	code, _, errOut = runCLI(doc, "validate", "-")
	assert.Equal(t, 1, code)
	assert.Equal(t, "standard input: not a valid turn document\n"+
		"  /blocks/0: missing properties: 'data'\n"+
		"  /blocks/1: missing member \"type\" (its members make it likeliest a \"text\")\n"+
		"  /blocks/2: missing member \"type\" (its members make it likeliest a \"tool_call\")\n"+
		"replay validate: 1 of 1 document is not valid\n", errOut)

	code, _, errOut = runCLI("", "validate", "--kind", "nope", "-")
	assert.Equal(t, 2, code)
	assert.Equal(t, "replay validate: unknown --kind \"nope\" (want turn, item or report)\n", errOut)
}
