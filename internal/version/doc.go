// Package version holds what `make` stamps into the binaries (cmd/manager and
// cmd/machinestatus) with -ldflags -X: the release version, the git revision and the build
// date. Both binaries print it (`manager version`, `machinestatus version`); the manager also
// exports it as the machinestatus_build_info metric.
package version
