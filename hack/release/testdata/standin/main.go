// Command standin stands in for the manager and the plugin in the tests that must not
// cross-compile them (make test): it prints "standin" and its arguments.
package main

import (
	"os"
	"strings"
)

func main() {
	_, _ = os.Stdout.WriteString(strings.Join(append([]string{"standin"}, os.Args[1:]...), " ") + "\n")
}
