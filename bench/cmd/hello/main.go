// Command hello prints one line: the floor of a Go process's start on this
// machine, built as the replay command is released (the release build of
// TestWholeProcess: CGO_ENABLED=0, -trimpath). TestWholeProcess gives the
// start of `replay --version` as a multiple of it.
package main

import "fmt"

func main() { fmt.Println("hello") }
