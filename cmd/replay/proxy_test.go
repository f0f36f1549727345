package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Mistakes in the proxy's settings are usage mistakes (exit 2), said
// before anything listens.
func TestProxyUsageMistakes(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"proxy", "anthropic"}, "replay proxy: takes no operands (got \"anthropic\"); name upstreams with --upstream NAME=URL\n"},
		{[]string{"proxy", "--mode", "loud"}, "replay proxy: --mode loud: want off, report or enforce\n"},
		{[]string{"proxy", "--store", "redis://127.0.0.1:6379"}, "replay proxy: --store redis://127.0.0.1:6379: unknown store (want memory, file:PATH); the Redis store is in the module github.com/reasonreplay/replay/redisstore, whose replay-proxy command takes it\n"},
	} {
		code, out, errOut := runCLI("", c.args...)
		assert.Equal(t, 2, code, c.args)
		assert.Empty(t, out)
		assert.Equal(t, c.want, errOut, c.args)
	}
	code, _, errOut := runCLI("", "proxy", "--upstream", "nope")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "invalid value \"nope\" for flag -upstream: --upstream nope: want NAME=URL")
}
