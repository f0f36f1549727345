package replay_test

import (
	"errors"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stub is a codec that only knows its name and what it was built for.
type stub struct{ api, provider, model string }

func (s stub) API() string                        { return s.api }
func (stub) Decode([]byte) (*replay.Turn, error)  { return nil, errors.ErrUnsupported }
func (stub) NewFrameDecoder() codecs.FrameDecoder { return nil }
func (stub) DecodeRequest([]byte) (replay.History, replay.Target, error) {
	return replay.History{}, replay.Target{}, errors.ErrUnsupported
}
func (stub) Encode(*replay.Turn) ([]byte, error)            { return nil, errors.ErrUnsupported }
func (stub) Patch(m []byte, _ *replay.Turn) ([]byte, error) { return m, nil }
func (s stub) Contract() replay.ReplayContract              { return replay.ReplayContract{API: s.api} }

func entry(api string, providers, models []string) replay.Entry {
	return replay.Entry{API: api, Providers: providers, Models: models,
		New: func(p, m string) replay.ReasoningCodec { return stub{api, p, m} }}
}

func registry(t *testing.T) *replay.Registry {
	r := &replay.Registry{}
	require.NoError(t, r.Register(entry("openrouter", []string{"openrouter"}, nil)))
	require.NoError(t, r.Register(entry("anthropic", []string{"anthropic", "bedrock", "vertex"}, []string{"claude-*"})))
	require.NoError(t, r.Register(entry("gemini", []string{"gemini", "vertex"}, []string{"gemini-*"})))
	require.NoError(t, r.Register(entry("deepseek", []string{"deepseek"}, nil)))
	// A provider with an API of its own and a compatible one listed first.
	require.NoError(t, r.Register(entry("compatible", []string{"host"}, []string{"qwen*"})))
	require.NoError(t, r.Register(entry("native", []string{"host"}, nil)))
	return r
}

func resolved(t *testing.T, r *replay.Registry, provider, model string) string {
	c, err := r.Resolve(provider, model)
	require.NoError(t, err)
	return c.API()
}

func TestRegistryResolveOrder(t *testing.T) {
	r := registry(t)
	// 1: provider with no patterns: its own API, whatever the model,
	// even when an API with patterns lists it too and matches.
	assert.Equal(t, "deepseek", resolved(t, r, "DeepSeek", "anything"))
	assert.Equal(t, "native", resolved(t, r, "host", "qwen3:8b"))
	assert.Equal(t, "native", resolved(t, r, "host", "gpt-oss:20b"))
	// 2: provider and model pattern.
	assert.Equal(t, "gemini", resolved(t, r, "vertex", "gemini-3-pro"))
	assert.Equal(t, "anthropic", resolved(t, r, "Vertex", "claude-opus-4"))
	// 3: provider listed, patterns did not match: first registered.
	assert.Equal(t, "anthropic", resolved(t, r, "vertex", "llama-4"))
	// 4: model pattern, any provider; a gateway slug's base name matches.
	assert.Equal(t, "anthropic", resolved(t, r, "somegateway", "anthropic/claude-sonnet-4.5"))
	assert.Equal(t, "gemini", resolved(t, r, "", "GEMINI-2.5-flash"))
	// 5: fallback.
	assert.Equal(t, "openrouter", resolved(t, r, "unknown", "unknown"))
	r.Fallback = "deepseek"
	assert.Equal(t, "deepseek", resolved(t, r, "", ""))
	c, err := r.Resolve("bedrock", "claude-3")
	require.NoError(t, err)
	assert.Equal(t, stub{"anthropic", "bedrock", "claude-3"}, c, "the constructor sees the provider and model")
}

func TestRegistryErrors(t *testing.T) {
	r := registry(t)
	err := r.Register(entry("Anthropic", nil, nil))
	assert.ErrorIs(t, err, replay.ErrDuplicate)
	assert.Error(t, r.Register(replay.Entry{API: "x"}))
	assert.Error(t, r.Register(entry("bad", nil, []string{"["})))
	assert.Equal(t, []string{"anthropic", "compatible", "deepseek", "gemini", "native", "openrouter"}, r.APIs())
	_, err = r.Lookup("nope", "", "")
	assert.ErrorIs(t, err, replay.ErrUnknownAPI)
	c, err := r.Lookup("GEMINI", "", "")
	require.NoError(t, err)
	assert.Equal(t, "gemini", c.API())
	empty := &replay.Registry{}
	_, err = empty.Resolve("x", "y")
	assert.ErrorIs(t, err, replay.ErrUnknownAPI)
	assert.Panics(t, func() { r.MustRegister(entry("gemini", nil, nil)) })
}
