// Command hello prints one line: the floor of a Go process's start on this
// machine, built as the replay command is (go build, the module's
// toolchain and settings). TestWholeProcess gives the start of `replay
// --version` as a multiple of it.
package main

import "fmt"

func main() { fmt.Println("hello") }
