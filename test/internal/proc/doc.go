// Package proc runs the helper processes of the demo and the e2e tests (kwok, the manager) each
// in its own process group, with output to a log file, and stops the whole group: SIGTERM, then
// SIGKILL after a grace period. On Linux a process is also killed when the process that started
// it dies, so that a crashed test leaves nothing running.
package proc
