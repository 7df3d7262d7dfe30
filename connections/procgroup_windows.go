package connections

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// procGroup is a server and everything it spawned: on Windows, a Job
// Object with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE holding the server from
// its first instruction. Children join their parent's job, so killing the
// job ends them all; and since only dispatch holds the job's handle, the
// whole tree also dies when dispatch does, however it ends — what the
// process group and its SIGKILL do on Unix.
type procGroup struct {
	mu  sync.Mutex
	job windows.Handle // 0 once released
	pid int            // the server's, and its console process group's id
}

// startInOwnGroup starts the server suspended, so that joinGroup can put
// it in its job before it can spawn anything, and in a new console process
// group, so that a Ctrl-C meant for dispatch does not reach it: dispatch
// stops its servers itself, in order. A batch file gets the command line
// cmd.exe needs (useBatchCommandLine).
func startInOwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{
		CreationFlags: windows.CREATE_SUSPENDED | windows.CREATE_NEW_PROCESS_GROUP,
	}
	useBatchCommandLine(cmd)
}

// joinGroup puts the suspended process p in a new kill-on-close job, then
// lets it run. On failure p is killed: a server outside a job could
// outlive dispatch.
func joinGroup(p *os.Process) (*procGroup, error) {
	job, err := newKillOnCloseJob()
	if err == nil {
		err = assignAndResume(job, p.Pid)
		if err != nil {
			windows.CloseHandle(job) //nolint:errcheck // failing already
		}
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("put server in a job object: %w", err), p.Kill())
	}
	return &procGroup{job: job, pid: p.Pid}, nil
}

func newKillOnCloseJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("create job object: %w", err)
	}
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job) //nolint:errcheck // failing already
		return 0, fmt.Errorf("set kill-on-close: %w", err)
	}
	return job, nil
}

// assignAndResume assigns process pid to job and resumes its (only,
// suspended) thread.
func assignAndResume(job windows.Handle, pid int) error {
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return fmt.Errorf("open server process: %w", err)
	}
	defer windows.CloseHandle(h) //nolint:errcheck // a handle we opened
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		return fmt.Errorf("assign server to job: %w", err)
	}
	return resumeThreads(pid)
}

// resumeThreads resumes the threads of pid: exec keeps no handle to the
// main thread of a process it created suspended, so it is found by a
// snapshot of the system's threads.
func resumeThreads(pid int) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("list threads: %w", err)
	}
	defer windows.CloseHandle(snap) //nolint:errcheck // a handle we opened
	entry := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &entry); err == nil; err = windows.Thread32Next(snap, &entry) {
		if entry.OwnerProcessID != uint32(pid) {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, entry.ThreadID)
		if err != nil {
			return fmt.Errorf("open server thread: %w", err)
		}
		_, rerr := windows.ResumeThread(th)
		windows.CloseHandle(th) //nolint:errcheck // a handle we opened
		if rerr != nil {
			return fmt.Errorf("resume server thread: %w", rerr)
		}
		resumed++
	}
	if !errors.Is(err, windows.ERROR_NO_MORE_FILES) {
		return fmt.Errorf("list threads: %w", err)
	}
	if resumed == 0 {
		return errors.New("resume server: no thread found")
	}
	return nil
}

// releaseGroup closes the job's handle, which kills whatever is still in
// it (kill-on-close).
func releaseGroup(g *procGroup) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.job != 0 {
		windows.CloseHandle(g.job) //nolint:errcheck // nothing left to do about it
		g.job = 0
	}
}

// termGroup sends CTRL_BREAK_EVENT to the server's console process group
// (it was started in one of its own): Windows's SIGTERM for console
// programs — Node sees SIGBREAK, Python's default handler exits. It is
// best effort: it reaches the server only when dispatch and the server
// share a console, which a host that starts dispatch without one does not
// give; killGroup follows termGrace later in any case, so a failure is
// not an error.
func termGroup(g *procGroup) error {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.job == 0 {
		return nil
	}
	windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(g.pid)) //nolint:errcheck // best effort, see above
	return nil
}

// killGroup ends every process in the job at once.
func killGroup(g *procGroup) error {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.job == 0 {
		return nil
	}
	if err := windows.TerminateJobObject(g.job, 1); err != nil {
		return fmt.Errorf("terminate server job: %w", err)
	}
	return nil
}

// jobAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION.
type jobAccounting struct {
	TotalUserTime, TotalKernelTime                     int64
	ThisPeriodTotalUserTime, ThisPeriodTotalKernelTime int64
	TotalPageFaultCount                                uint32
	TotalProcesses, ActiveProcesses                    uint32
	TotalTerminatedProcesses                           uint32
}

// groupAlive reports whether any process of the job still runs.
func groupAlive(g *procGroup) bool {
	if g == nil {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.job == 0 {
		return false
	}
	var info jobAccounting
	err := windows.QueryInformationJobObject(g.job, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil)
	return err == nil && info.ActiveProcesses > 0
}
