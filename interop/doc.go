// Package interop drives the official Go SDKs (anthropic-sdk-go, openai-go,
// google.golang.org/genai, github.com/sashabaranov/go-openai) through
// package replayhttp against loopback servers, in its tests. It is a module
// of its own so that no SDK becomes a dependency of the library.
package interop
