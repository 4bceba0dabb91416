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

// readOnlyWays are the ways this system can make a path of the pact
// read-only for pactify, with the sentence pactify must then say; those it
// cannot are listed in why.
func readOnlyWays(t *testing.T) (ways []readOnlyWay, why []string) {
	t.Helper()
	probe := t.TempDir()
	if os.Geteuid() != 0 {
		ways = append(ways, readOnlyWay{"chmod a-w", "permission denied", func(t *testing.T, p *project, target string, args []string) result {
			fi, err := os.Stat(target)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(target, fi.Mode().Perm()&^0o222); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = os.Chmod(target, fi.Mode().Perm()) }()
			return p.run("orch", args...)
		}})
	} else {
		why = append(why, "chmod a-w: root writes through permission bits")
	}
	if exec.Command("unshare", "-rm", "sh", "-c", `mount --bind "$0" "$0" && mount -o remount,bind,ro "$0"`, probe).Run() == nil {
		ways = append(ways, readOnlyWay{"read-only bind mount", "the file system is read-only", func(t *testing.T, p *project, target string, args []string) result {
			quoted := make([]string, len(args))
			for i, a := range args {
				quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
			}
			script := fmt.Sprintf(`mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec '%s' %s`, binPath, strings.Join(quoted, " "))
			r, err := runCmd(exec.Command("unshare", "-rm", "sh", "-c", script, target), p.dir, p.env("orch"))
			if err != nil {
				t.Fatal(err)
			}
			r.args = args
			return r
		}})
	} else {
		why = append(why, "read-only bind mount: unshare -rm cannot mount here (no user namespaces, or not Linux)")
	}
	if f := probe + "/f"; os.WriteFile(f, nil, 0o644) == nil && exec.Command("chattr", "+i", f).Run() == nil {
		_ = exec.Command("chattr", "-i", f).Run()
		ways = append(ways, readOnlyWay{"chattr +i", "the operation is not permitted", func(t *testing.T, p *project, target string, args []string) result {
			if out, err := exec.Command("chattr", "+i", target).CombinedOutput(); err != nil {
				t.Fatalf("chattr +i %s: %v\n%s", target, err, out)
			}
			defer func() { _ = exec.Command("chattr", "-i", target).Run() }()
			return p.run("orch", args...)
		}})
	} else {
		why = append(why, "chattr +i: no chattr, or the file system or the user cannot set the immutable flag")
	}
	return ways, why
}

type readOnlyWay struct {
	name, says string
	run        func(t *testing.T, p *project, target string, args []string) result
}

// TestFaultReadOnly: a pact directory, its tasks/ or STATE.yml made
// read-only (by permission bits, a read-only mount or the immutable flag,
// whichever this system allows) fails the assign that must write there
// with that condition's own sentence, never "not a regular file", and
// leaves every file byte for byte as it was.
func TestFaultReadOnly(t *testing.T) {
	t.Parallel()
	ways, why := readOnlyWays(t)
	for _, w := range why {
		t.Logf("not tried: %s", w)
	}
	if len(ways) == 0 {
		t.Skip("no way to make a path read-only here: " + strings.Join(why, "; "))
	}
	tmpl := faultProject(t)
	args := []string{"assign", "T1", "--feature", "F", "--branch", "b", "--owner", "w", "--reviewer", "rev"}
	for _, w := range ways {
		for _, target := range []string{".pact", ".pact/tasks", ".pact/STATE.yml"} {
			t.Run(w.name+"/"+target, func(t *testing.T) {
				t.Parallel()
				if w.name == "chmod a-w" && target == ".pact/STATE.yml" {
					t.Skip("a file's permission bits do not keep a rename from replacing it, as for git")
				}
				p := tmpl.clone(t)
				before := snapshot(t, p.dir)
				r := w.run(t, p, p.path(target), args)
				if r.code != 2 || !strings.Contains(r.stderr, w.says) || strings.Contains(r.stderr, "regular file") ||
					!strings.Contains(r.stderr, "nothing was recorded") {
					t.Errorf("assign with %s read-only (%s):\n%s", target, w.name, r)
				}
				sameTree(t, before, snapshot(t, p.dir))
			})
		}
	}
}
