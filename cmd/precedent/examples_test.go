package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Every example in every command's --help runs as written from the repository root: offline ones
// exit 0 (nothing to report) or 1 (findings, a denial, a change), never 2 (a wrong flag or a path
// that does not exist); those that read the cluster of the kubeconfig get as far as connecting.
func TestHelpExamplesRun(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none")) // no cluster: cluster examples must say so
	n := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, line := range examples(c.Example) {
			n++
			args := strings.Fields(line)
			if args[0] != "precedent" {
				t.Errorf("%s: example %q does not start with precedent", c.CommandPath(), line)
				continue
			}
			t.Run(strings.Join(args[1:], " "), func(t *testing.T) {
				cmd := newRootCmd()
				var out, errb bytes.Buffer
				cmd.SetOut(&out)
				cmd.SetErr(&errb)
				cmd.SetArgs(args[1:])
				err := cmd.Execute()
				code := 0
				if err != nil {
					code = 2
					var ee *exitError
					if errors.As(err, &ee) {
						code = ee.Code
					}
				}
				switch {
				case readsCluster(args) && err != nil && strings.Contains(err.Error(), "connect"):
					// reads the cluster: got as far as connecting to it
				case code == 2:
					t.Errorf("exit 2: %v\nstderr:\n%s", err, errb.String())
				case out.Len() == 0:
					t.Errorf("printed nothing (exit %d, stderr %q)", code, errb.String())
				}
			})
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd())
	if n == 0 {
		t.Fatal("no examples found")
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal(err)
	}
}

// examples splits a cobra Example into command lines: comments dropped, "\" continuations joined.
func examples(s string) []string {
	var out []string
	cur := ""
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if strings.HasSuffix(l, "\\") {
			cur += strings.TrimSuffix(l, "\\") + " "
			continue
		}
		out = append(out, cur+l)
		cur = ""
	}
	return out
}

// readsCluster reports whether a command line reads the cluster of the kubeconfig: diff with -f, and
// effective or explain without -f.
func readsCluster(args []string) bool {
	files := slices.Contains(args, "-f")
	switch args[1] {
	case "diff":
		return files && !slices.Contains(args, "--base")
	case "effective", "explain":
		return !files
	}
	return false
}
