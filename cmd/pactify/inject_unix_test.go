//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// fsizeEnv makes this test binary run pactify under a file-size limit of
// exactly so many bytes (RLIMIT_FSIZE, which `ulimit -f` sets only in
// 512- or 1024-byte blocks): "<bytes>:<pactify binary>".
const fsizeEnv = "PACTIFY_TEST_FSIZE"

func init() {
	v := os.Getenv(fsizeEnv)
	if v == "" {
		return
	}
	n, bin, _ := strings.Cut(v, ":")
	limit, err := strconv.ParseUint(n, 10, 64)
	if err == nil {
		err = unix.Setrlimit(unix.RLIMIT_FSIZE, &unix.Rlimit{Cur: limit, Max: limit})
	}
	if err == nil {
		env := slices.DeleteFunc(os.Environ(), func(e string) bool { return strings.HasPrefix(e, fsizeEnv+"=") })
		err = unix.Exec(bin, append([]string{bin}, os.Args[1:]...), env)
	}
	fmt.Fprintln(os.Stderr, "run pactify under a file-size limit:", err)
	os.Exit(127)
}

func init() {
	bytesLimitedRun = func(t *testing.T, p *project, agent string, limit int64, args ...string) result {
		t.Helper()
		cmd := exec.Command(os.Args[0], args...)
		env := append(p.env(agent), fmt.Sprintf("%s=%d:%s", fsizeEnv, limit, binPath))
		r, err := runCmd(cmd, p.dir, env)
		if err != nil {
			t.Fatal(err)
		}
		r.args = args
		return r
	}
}
