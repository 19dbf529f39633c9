// Package host tells the tests about the machine they run on: a free TCP port for a process to
// listen on, and the CPU model recorded next to measured figures.
package host

import (
	"net"
	"os"
	"strings"
)

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago, or the error of listening.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// CPUModel returns the "model name" of /proc/cpuinfo, or "unknown CPU" where there is none.
func CPUModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}
