// Command anthropic-sdk-decode is the whole-process peer of `replay decode
// --stream` for the Messages API: it reads a stream of Server-Sent Events
// from a file as it arrives, decodes it with anthropic-sdk-go (its
// ssestream of MessageStreamEventUnion and Message.Accumulate, what a Go
// program built on the SDK runs), and prints the accumulated message as
// JSON. TestWholeProcess times it against the replay command on the same
// file.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/packages/ssestream"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: anthropic-sdk-decode FILE")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	res := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": []string{"text/event-stream"}}, Body: f}
	s := ssestream.NewStream[sdk.MessageStreamEventUnion](ssestream.NewDecoder(res), nil)
	msg := &sdk.Message{}
	for s.Next() {
		if err := msg.Accumulate(s.Current()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if err := s.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	w := bufio.NewWriterSize(os.Stdout, 64<<10)
	if err := json.NewEncoder(w).Encode(msg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
