package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// eventMessage encodes one AWS event-stream message of type event.
func eventMessage(eventType string, payload []byte) []byte {
	var h bytes.Buffer
	for _, kv := range [][2]string{{":message-type", "event"}, {":event-type", eventType}, {":content-type", "application/json"}} {
		h.WriteByte(byte(len(kv[0])))
		h.WriteString(kv[0])
		h.WriteByte(7)
		binary.Write(&h, binary.BigEndian, uint16(len(kv[1])))
		h.WriteString(kv[1])
	}
	total := 12 + h.Len() + len(payload) + 4
	msg := make([]byte, 12, total)
	binary.BigEndian.PutUint32(msg[0:], uint32(total))
	binary.BigEndian.PutUint32(msg[4:], uint32(h.Len()))
	binary.BigEndian.PutUint32(msg[8:], crc32.ChecksumIEEE(msg[:8]))
	msg = append(msg, h.Bytes()...)
	msg = append(msg, payload...)
	return binary.BigEndian.AppendUint32(msg, crc32.ChecksumIEEE(msg))
}

// A binary ConverseStream body is detected and decoded like its JSON Lines
// form, with no flag.
func TestDecodeEventStream(t *testing.T) {
	const jsonl = "../../testdata/bedrock-converse/claude-tool-use.jsonl"
	f, err := os.Open(jsonl)
	require.NoError(t, err)
	defer f.Close()
	var bin bytes.Buffer
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := gjson.Parse(sc.Text())
		line.ForEach(func(k, v gjson.Result) bool {
			bin.Write(eventMessage(k.Str, []byte(v.Raw)))
			return false
		})
	}
	require.NoError(t, sc.Err())
	_, want, _ := runCLI("", "decode", "--compact", jsonl)
	code, got, errOut := runCLI(bin.String(), "decode", "--compact", "-v", "-")
	assert.Equal(t, 0, code, errOut)
	assert.Equal(t, want, got)
	assert.Equal(t, "replay decode: standard input: a binary AWS event stream (detected), api bedrock-converse (detected)\n", errOut)

	code, _, errOut = runCLI(bin.String(), "decode", "--framing", "sse", "-")
	assert.Equal(t, 2, code)
	assert.True(t, strings.HasPrefix(errOut, "replay decode: --framing sse: standard input is a binary AWS event stream (it starts with "), errOut)
	assert.True(t, strings.HasSuffix(errOut, "); use --framing eventstream, or leave --framing out to detect it\n"), errOut)
}

// The single-history audit prints one line per violation on stderr, the
// rule id once.
func TestAuditStderrLines(t *testing.T) {
	_, doc, _ := runCLI("", "decode", "--compact", claudeLoop)
	_, cut, _ := runCLI("", "decode", "--compact", td+"cut-before-signature.sse")
	hist := "[" + strings.TrimSpace(doc) + "," + strings.TrimSpace(cut) + "]"
	code, _, errOut := runCLI(hist, "audit", "--api", "openrouter", "--model", "anthropic/claude-sonnet-4.5", "-")
	assert.Equal(t, 1, code)
	assert.Equal(t, "[degrade] replay/incomplete-turn: the turn did not complete; its reasoning cannot be trusted for replay (turn 1)\n"+
		"[reject] replay/unfinished-item: the reasoning item is unfinished: it may lack its signature or data (turn 1, block 0)\n"+
		"replay audit: the provider would reject this request (reject: 1 of 2 violations)\n", errOut)
}
