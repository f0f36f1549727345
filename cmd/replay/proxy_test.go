package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The proxy is the replay-proxy command of its own module: `replay proxy`
// says so, and how to install it (a usage mistake, exit 2).
func TestProxyMoved(t *testing.T) {
	code, out, errOut := runCLI("", "proxy", "--listen", "127.0.0.1:0")
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Equal(t, proxyMoved+"\n", errOut)
	assert.Contains(t, errOut, "go install github.com/reasonreplay/replay/replayproxy/cmd/replay-proxy@latest")
}
