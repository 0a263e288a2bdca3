package runproc

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
)

// Machine describes where a benchmark ran, for the report's header.
func Machine(dir string) string {
	var parts []string
	parts = append(parts, fmt.Sprintf("%d CPUs", runtime.NumCPU()))
	if m := memTotal(); m != "" {
		parts = append(parts, m+" RAM")
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err == nil {
		parts = append(parts, fmt.Sprintf("%.0f GiB free on the benchmark disk", float64(st.Bavail)*float64(st.Bsize)/(1<<30)))
	}
	if out, err := exec.Command("uname", "-sr").Output(); err == nil {
		parts = append(parts, strings.TrimSpace(string(out)))
	}
	parts = append(parts, runtime.Version())
	return strings.Join(parts, ", ")
}

// FreeBytes is the space available to unprivileged users on dir's disk.
func FreeBytes(dir string) int64 {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return -1
	}
	return int64(st.Bavail) * st.Bsize
}

func memTotal() string {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			var kb int64
			if _, err := fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(v), " kB"), &kb); err == nil {
				return fmt.Sprintf("%.1f GiB", float64(kb)/(1<<20))
			}
		}
	}
	return ""
}

// GitHead is the repository's current commit (short), or "" outside git.
func GitHead() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// Command is how the harness was invoked: BENCH_COMMAND, which the wrapper
// script sets to its own command line, else the process's arguments.
func Command() string {
	if c := os.Getenv("BENCH_COMMAND"); c != "" {
		return c
	}
	return strings.Join(os.Args, " ")
}

// ReadJSON decodes the JSON file at path into v (a report saved earlier).
func ReadJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// DeltalakeVersion is the version of deltalake that python imports, or ""
// when it cannot be asked.
func DeltalakeVersion(python string) string { return DistVersion(python, "deltalake") }

// DistVersion is the installed version of the Python distribution dist in
// python's environment, or "" when it cannot be asked.
func DistVersion(python, dist string) string {
	v, err := Output([]string{python, "-c", "import importlib.metadata as m, sys; print(m.version(sys.argv[1]))", dist}, nil)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(v))
}
