package codectest_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/anthropic"
	"github.com/reasonreplay/replay/codecs/codectest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func fixtures(t *testing.T) codectest.Fixtures {
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("../../testdata/anthropic", name))
		require.NoError(t, err)
		return b
	}
	return codectest.Fixtures{
		Bodies:  [][]byte{read("message.json")},
		Streams: [][]byte{read("thinking.sse"), read("interleaved-tools.sse")},
		Requests: [][]byte{[]byte(`{"model":"claude-sonnet-4-5","max_tokens":1024,"messages":[{"role":"user","content":"q"},` +
			`{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"c2ln"},{"type":"tool_use","id":"toolu_1","name":"f","input":{}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"r"}]}]}`)},
	}
}

// A codec of the module passes the kit.
func TestRunAnthropic(t *testing.T) {
	codectest.Run(t, anthropic.Codec{}, fixtures(t))
}

// broken is the Anthropic codec with one fault, named by KIT_BREAK.
type broken struct {
	anthropic.Codec
	fault string
}

func (b broken) Encode(tu *replay.Turn) ([]byte, error) {
	if b.fault == "untyped-error" && tu == nil {
		return nil, errors.New("no turn")
	}
	return b.Codec.Encode(tu)
}

func (b broken) Decode(body []byte) (*replay.Turn, error) {
	tu, err := b.Codec.Decode(body)
	if err == nil && b.fault == "aliasing" {
		tu.Blocks = append(tu.Blocks, &replay.Native{Kind: "kept", Raw: body})
	}
	return tu, err
}

func (b broken) Contract() replay.ReplayContract {
	rc := b.Codec.Contract()
	if b.fault == "rule-id" {
		rc.Rules = append(rc.Rules, rc.Rules[0])
	}
	return rc
}

// TestBrokenHelper runs the kit on a broken codec; it is run in a child
// process by TestRunCatchesFaults, and skipped otherwise.
func TestBrokenHelper(t *testing.T) {
	fault := os.Getenv("KIT_BREAK")
	if fault == "" {
		t.Skip("run by TestRunCatchesFaults")
	}
	codectest.Run(t, broken{fault: fault}, fixtures(t))
}

// Each fault a codec can have fails the kit, saying what is wrong.
func TestRunCatchesFaults(t *testing.T) {
	for fault, want := range map[string]string{
		"untyped-error": "Encode(nil): no turn, want a *replay.Error",
		"aliasing":      "the turn changed when the body was overwritten: it aliases the body",
		"rule-id":       "is declared twice",
	} {
		t.Run(fault, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run", "^TestBrokenHelper$", "-test.v")
			cmd.Env = append(os.Environ(), "KIT_BREAK="+fault)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit, "the kit passed a codec with the fault %s:\n%s", fault, out)
			assert.Contains(t, string(out), want)
		})
	}
}
