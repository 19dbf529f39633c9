package version

import (
	"fmt"
	"runtime"
)

// Set at link time by the Makefile (-X github.com/machinestatus/machinestatus/internal/version.Version=…).
var (
	// Version is the release version: `git describe --tags` on a tagged history, else the
	// VERSION file's content; "v0.0.0-dev" in a build that was not stamped (go build, go test).
	Version = "v0.0.0-dev"
	// Revision is the git commit the binary was built from; "unknown" when not stamped.
	Revision = "unknown"
)

// Info is what a binary reports about its build.
type Info struct {
	Version   string `json:"version"`
	Revision  string `json:"revision"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

// Get returns the stamped version and revision with the Go toolchain and platform of this binary.
func Get() Info {
	return Info{
		Version:   Version,
		Revision:  Revision,
		GoVersion: runtime.Version(),
		Platform:  runtime.GOOS + "/" + runtime.GOARCH,
	}
}

// String is the one line `version` prints, e.g.
// "machinestatus v0.1.0 (revision 1a2b3c4, go1.26.8, linux/amd64)".
func (i Info) String(program string) string {
	return fmt.Sprintf("%s %s (revision %s, %s, %s)", program, i.Version, i.Revision, i.GoVersion, i.Platform)
}
