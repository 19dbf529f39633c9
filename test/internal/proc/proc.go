package proc

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Process is a started helper process.
type Process struct {
	// Name names the process in messages, e.g. "kwok".
	Name string
	// LogPath is the file that receives the process's stdout and stderr.
	LogPath string

	cmd  *exec.Cmd
	log  *os.File
	done chan struct{}
	err  error // the result of Wait, valid once done is closed
}

// Options configure Start.
type Options struct {
	// Name names the process in messages.
	Name string
	// Args is the command line; Args[0] is the binary.
	Args []string
	// LogPath receives stdout and stderr (created or truncated).
	LogPath string
	// Stdin, when set, is the process's standard input.
	Stdin io.Reader
	// Dir is the working directory; empty means the current one.
	Dir string
}

// Start starts the process in a new process group.
func Start(opts Options) (*Process, error) {
	if len(opts.Args) == 0 {
		return nil, errors.New("cannot start a process without a command line")
	}
	if _, err := os.Stat(opts.Args[0]); err != nil {
		return nil, fmt.Errorf("cannot start %s: %w", opts.Name, err)
	}
	log, err := os.Create(opts.LogPath)
	if err != nil {
		return nil, fmt.Errorf("cannot create the log file of %s: %w", opts.Name, err)
	}
	cmd := exec.Command(opts.Args[0], opts.Args[1:]...)
	cmd.Stdout, cmd.Stderr, cmd.Stdin, cmd.Dir = log, log, opts.Stdin, opts.Dir
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		_ = log.Close()
		return nil, fmt.Errorf("cannot start %s: %w", opts.Name, err)
	}
	p := &Process{Name: opts.Name, LogPath: opts.LogPath, cmd: cmd, log: log, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		_ = log.Close()
		close(p.done)
	}()
	return p, nil
}

// Args returns the process's command line.
func (p *Process) Args() []string { return p.cmd.Args }

// Pid returns the process id (also the process group id).
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Done is closed when the process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// ExitError returns why the process exited, once Done is closed.
func (p *Process) ExitError() error {
	select {
	case <-p.done:
		if p.err == nil {
			return fmt.Errorf("%s exited (see %s)", p.Name, p.LogPath)
		}
		return fmt.Errorf("%s exited: %w (see %s)", p.Name, p.err, p.LogPath)
	default:
		return nil
	}
}

// Stop sends SIGTERM to the process group, waits up to grace, then sends SIGKILL and waits for
// the process to be reaped. It is safe to call more than once and on an exited process.
func (p *Process) Stop(grace time.Duration) {
	if p == nil {
		return
	}
	select {
	case <-p.done:
		return
	default:
	}
	_ = syscall.Kill(-p.Pid(), syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = syscall.Kill(-p.Pid(), syscall.SIGKILL)
		<-p.done
	}
	// Whatever the leader left behind in its group goes too.
	_ = syscall.Kill(-p.Pid(), syscall.SIGKILL)
}

// Log returns the process's whole log so far.
func (p *Process) Log() string {
	b, err := os.ReadFile(p.LogPath)
	if err != nil {
		return ""
	}
	return string(b)
}

// Tail returns the last n lines of the process's log, for error messages.
func (p *Process) Tail(n int) string {
	b, err := os.ReadFile(p.LogPath)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
