package docs

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/precedent-dev/precedent/test/harness"

	"github.com/precedent-dev/precedent/test/egcrds"
)

var update = flag.Bool("update", false, "rewrite the expected outputs of the command blocks of README.md and docs/ in place")

// commandTimeout bounds one command of a block.
const commandTimeout = 60 * time.Second

// TestDocs runs every command block of README.md and docs/ from the repository root and compares
// what each command prints (stdout and stderr, as a terminal shows them) with the lines written
// after it. bin/precedent and precedent are the binary built here, on PATH also as
// kubectl-precedent; `echo $?` prints the exit status of the command before it. Blocks marked
// <!-- doc-test: cluster --> run against the cluster `make run` starts (precedent dev with the same
// CRD folders and samples; bin/dev.kubeconfig is its kubeconfig), in the order of the files; blocks
// marked <!-- doc-test: skip REASON --> are listed with the reason. With -update, the outputs that
// differ are rewritten in place.
func TestDocs(t *testing.T) {
	files := markdownFiles(t)
	var blocks []block
	for _, f := range files {
		raw, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		bs, err := parse(f, strings.Split(string(raw), "\n"))
		if err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks, bs...)
	}
	if len(blocks) == 0 {
		t.Fatal("no command blocks in README.md and docs/")
	}

	binDir := t.TempDir()
	bin := filepath.Join(binDir, "precedent")
	build := exec.Command("go", "build", "-tags", harness.BuildTags, "-o", bin, "./cmd/precedent")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building precedent: %v\n%s", err, out)
	}
	if err := os.Symlink("precedent", filepath.Join(binDir, "kubectl-precedent")); err != nil {
		t.Fatal(err)
	}
	r := &runner{env: append(os.Environ(), "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))}

	// The cluster starts beside the offline blocks, when some block needs it.
	var dev *devCluster
	for _, b := range blocks {
		if b.mode == cluster {
			dev = startDev(t, bin)
			defer dev.stop(t)
			break
		}
	}

	results := map[string][]result{}
	var skipped []string
	counts := map[string]int{}
	for _, b := range blocks {
		counts[b.mode]++
		switch b.mode {
		case skip:
			skipped = append(skipped, fmt.Sprintf("%s:%d (%s)", b.file, b.line, b.reason))
			continue
		case cluster:
			if err := dev.await(); err != nil {
				t.Errorf("%s:%d needs the cluster of `make run`, which did not start: %v", b.file, b.line, err)
				continue
			}
			r.kubeconfig = dev.kubeconfig
		default:
			r.kubeconfig = ""
		}
		results[b.file] = append(results[b.file], r.runBlock(t, b)...)
	}
	t.Logf("command blocks: %d offline, %d against the cluster, %d not run", counts[offline], counts[cluster], counts[skip])
	for _, s := range skipped {
		t.Logf("not run: %s", s)
	}

	for _, f := range files {
		rs := results[f]
		changed := false
		for _, res := range rs {
			if res.ok {
				continue
			}
			if *update {
				changed = true
				continue
			}
			t.Errorf("%s:%d: `%s` printed other than written (exit status %d); go test ./test/docs -update rewrites it:\n%s",
				f, res.cmd.line, firstLine(res.cmd.text), res.code, unified(f, res.cmd.from+1, res.cmd.want, res.got))
		}
		if changed {
			if err := rewrite(f, rs); err != nil {
				t.Fatal(err)
			}
			t.Logf("rewrote the outputs that differed in %s", f)
		}
	}
}

// markdownFiles are README.md and the markdown files under docs/, relative to the root.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md"}
	var docs []string
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			docs = append(docs, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(docs)
	return append(files, docs...)
}

type result struct {
	cmd  command
	got  []string
	code int
	ok   bool
}

type runner struct {
	env        []string
	kubeconfig string // the cluster's, for cluster blocks
}

// runBlock runs the commands of b in order.
func (r *runner) runBlock(t *testing.T, b block) []result {
	t.Helper()
	var out []result
	status := 0
	for _, c := range b.cmds {
		var got []string
		if strings.TrimSpace(c.text) == "echo $?" {
			got = []string{fmt.Sprint(status)}
		} else {
			got, status = r.run(t, b, c)
		}
		ok := r.compare(b, c.want, got)
		// A read of the cluster may come before the status reconciler has written what it shows:
		// it is asked again, for a while, until it matches.
		for deadline := time.Now().Add(readRetry); !ok && b.mode == cluster && isRead(c.text) && time.Now().Before(deadline); {
			time.Sleep(time.Second)
			got, status = r.run(t, b, c)
			ok = r.compare(b, c.want, got)
		}
		out = append(out, result{cmd: c, got: got, code: status, ok: ok})
	}
	return out
}

// readRetry bounds how long a read of the cluster is asked again until it matches.
const readRetry = 30 * time.Second

// isRead reports whether a command only reads the cluster (so it may be run again).
func isRead(text string) bool {
	return strings.HasPrefix(text, "kubectl precedent ") || strings.Contains(text, " get ")
}

// compare reports whether got is what want says; in a cluster block, ages are not compared.
func (r *runner) compare(b block, want, got []string) bool {
	if b.mode == cluster {
		return matches(masked(trimmed(want)), masked(got))
	}
	return matches(trimmed(want), got)
}

// run runs one command with bash from the root, and removes the files it wrote at the root (such
// as `> precedent.sarif`).
func (r *runner) run(t *testing.T, b block, c command) ([]string, int) {
	t.Helper()
	text := strings.ReplaceAll(c.text, "bin/precedent ", "precedent ")
	if r.kubeconfig != "" {
		text = strings.ReplaceAll(text, "bin/dev.kubeconfig", r.kubeconfig)
	}
	before := rootEntries(t)
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", text)
	cmd.Dir = root
	cmd.Env = r.env
	raw, err := cmd.CombinedOutput()
	code := 0
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Errorf("%s:%d: `%s` did not end within %s", b.file, c.line, firstLine(c.text), commandTimeout)
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Errorf("%s:%d: running `%s`: %v", b.file, c.line, firstLine(c.text), err)
	}
	for name, dir := range rootEntries(t) {
		if _, ok := before[name]; !ok && !dir {
			if err := os.RemoveAll(filepath.Join(root, name)); err != nil {
				t.Errorf("removing %s, which %s:%d wrote: %v", name, b.file, c.line, err)
			}
		}
	}
	got := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
	if len(raw) == 0 {
		got = nil
	}
	if r.kubeconfig != "" {
		for i := range got {
			got[i] = strings.ReplaceAll(got[i], r.kubeconfig, "bin/dev.kubeconfig")
		}
	}
	return trimmed(got), code
}

// rootEntries are the names at the root, each with whether it is a folder (only files a command
// wrote there are removed).
func rootEntries(t *testing.T) map[string]bool {
	t.Helper()
	es, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, e := range es {
		out[e.Name()] = e.IsDir()
	}
	return out
}

// trimmed are lines without trailing blanks (which editors strip) and without trailing empty lines.
func trimmed(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimRight(l, " \t")
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// age is the AGE column of kubectl's tables, which no two runs print alike.
var age = regexp.MustCompile(`\s+(\d+[smhd])+$`)

func masked(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = age.ReplaceAllString(strings.TrimRight(l, " \t"), "  <age>")
	}
	return out
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// rewrite writes the printed output of each result that differs in place of the written one.
func rewrite(file string, rs []result) error {
	path := filepath.Join(root, file)
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	lines := strings.Split(string(raw), "\n")
	// From the last to the first, so earlier line numbers stay valid.
	sort.Slice(rs, func(i, j int) bool { return rs[i].cmd.from > rs[j].cmd.from })
	for _, res := range rs {
		if res.ok {
			continue
		}
		indent := lines[res.cmd.line-1][:len(lines[res.cmd.line-1])-len(strings.TrimLeft(lines[res.cmd.line-1], " "))]
		var with []string
		for _, l := range rewritten(trimmed(res.cmd.want), res.got) {
			if l == "" {
				with = append(with, "")
			} else {
				with = append(with, indent+l)
			}
		}
		lines = append(lines[:res.cmd.from], append(with, lines[res.cmd.to:]...)...)
	}
	return os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644)
}

// devCluster is `precedent dev` as `make run` starts it, with its kubeconfig in a temporary folder.
type devCluster struct {
	cmd        *exec.Cmd
	kubeconfig string
	ready      chan error
	log        *strings.Builder
}

// startDev starts precedent dev with the CRD folders of the Makefile's run target (RUN_CRD_DIRS)
// and every sample set; await waits for its ready line.
func startDev(t *testing.T, bin string) *devCluster {
	t.Helper()
	dirs, err := egcrds.RunCRDDirs()
	if err != nil {
		t.Fatalf("the CRD folders make run installs: %v", err)
	}
	d := &devCluster{kubeconfig: filepath.Join(t.TempDir(), "dev.kubeconfig"), ready: make(chan error, 1), log: &strings.Builder{}}
	args := []string{"dev", "--kubeconfig-out", d.kubeconfig}
	for _, dir := range dirs {
		args = append(args, "--crd-dir", dir)
	}
	d.cmd = exec.Command(bin, args...)
	d.cmd.Dir = root
	d.cmd.Stderr = d.log
	out, err := d.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		said := false
		for sc.Scan() {
			if !said && strings.HasPrefix(sc.Text(), "ready: kubeconfig=") {
				d.ready <- nil
				said = true
			}
		}
		if !said {
			d.ready <- fmt.Errorf("precedent dev ended before its ready line:\n%s", d.log)
		}
	}()
	return d
}

// await waits (3 minutes at most) for the ready line; later calls return the first answer.
func (d *devCluster) await() error {
	select {
	case err := <-d.ready:
		d.ready <- err // for the next block
		return err
	case <-time.After(3 * time.Minute):
		err := fmt.Errorf("no ready line from precedent dev within 3 minutes:\n%s", d.log)
		d.ready <- err
		return err
	}
}

// stop interrupts precedent dev (Ctrl-C) and waits for it to stop everything it started.
func (d *devCluster) stop(t *testing.T) {
	_ = d.cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- d.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("precedent dev did not stop cleanly: %v\n%s", err, d.log)
		}
	case <-time.After(time.Minute):
		_ = d.cmd.Process.Kill()
		t.Errorf("precedent dev did not stop within a minute of Ctrl-C:\n%s", d.log)
	}
}
