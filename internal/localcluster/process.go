package localcluster

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

// proc is one running JVM. done closes once the process has been reaped;
// err is its exit status, valid after done.
type proc struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// startProc launches the JVM of node n. Setpgid puts it in its own process
// group so that signals reach anything it spawns. Pdeathsig kills it when the
// OS thread that forked it dies; Go only ends a thread when a goroutine exits
// while locked to it, and a locked thread runs nothing else, so the forking
// thread lives as long as the Go process and a crashed test binary takes its
// JVMs with it.
//
// gid, when positive, is the JVM's group ID (Config.OwnGroups; root only).
func startProc(java string, args []string, n nodeSpec, gid int) (*proc, error) {
	out, err := os.OpenFile(n.outputLog(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("localcluster: %s: open output log: %w", n.name(), err)
	}
	cmd := exec.Command(java, args...)
	cmd.Dir = n.dir
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if gid > 0 {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(os.Geteuid()), Gid: uint32(gid), NoSetGroups: true}
	}
	if err := cmd.Start(); err != nil {
		out.Close()
		return nil, fmt.Errorf("localcluster: %s: start java: %w", n.name(), err)
	}
	p := &proc{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		out.Close()
		close(p.done)
	}()
	return p, nil
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// signal sends sig to the whole process group, unless the leader is already
// reaped (its pid, and so the group id, may then belong to someone else).
func (p *proc) signal(sig syscall.Signal) {
	if !p.exited() {
		_ = syscall.Kill(-p.pid(), sig) // ESRCH only means it is already gone
	}
}

// stop asks the JVM to shut down cleanly and kills it after grace. SIGCONT
// follows SIGTERM so that a frozen JVM (Cluster.Freeze) handles it at once.
func (p *proc) stop(grace time.Duration) {
	p.signal(syscall.SIGTERM)
	p.signal(syscall.SIGCONT)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		p.kill()
	}
}

// kill sends SIGKILL and waits until the process is reaped.
func (p *proc) kill() {
	p.signal(syscall.SIGKILL)
	<-p.done
}

// checkPorts fails when something already listens where node n must; else a
// readiness probe could be answered by a stranger's Cassandra.
func checkPorts(n nodeSpec) error {
	addrs := []string{
		net.JoinHostPort(n.host, strconv.Itoa(CQLPort)),
		net.JoinHostPort(n.host, strconv.Itoa(StoragePort)),
		net.JoinHostPort("127.0.0.1", strconv.Itoa(n.jmxPort)),
	}
	for _, a := range addrs {
		l, err := net.Listen("tcp", a)
		if err != nil {
			return fmt.Errorf("%w: %s needs %s: %v", ErrPortBusy, n.name(), a, err)
		}
		l.Close()
	}
	return nil
}
