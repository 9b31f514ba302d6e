package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/precedent-dev/precedent/internal/buildinfo"
)

func TestPrintVersion(t *testing.T) {
	info := buildinfo.Info{Version: "v1.2.3", Commit: "0123abcd", Go: "go1.26.8", Platform: "linux/arm64"}
	tests := []struct {
		name, output string
		want         string
		wantErr      string
	}{
		{name: "text", want: "precedent v1.2.3 (commit 0123abcd, go1.26.8, linux/arm64)\n"},
		{name: "json", output: "json", want: `{
  "version": "v1.2.3",
  "commit": "0123abcd",
  "go": "go1.26.8",
  "platform": "linux/arm64"
}
`},
		{name: "yaml", output: "yaml", want: "commit: 0123abcd\ngo: go1.26.8\nplatform: linux/arm64\nversion: v1.2.3\n"},
		{name: "unknown format", output: "xml", wantErr: `output format "xml" is not supported: use -o json or -o yaml, or no -o for text`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := printVersion(&out, tt.output, info)
			if gotErr := fmt.Sprint(err); (err != nil || tt.wantErr != "") && gotErr != tt.wantErr {
				t.Fatalf("error = %v, want %q", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, out.String()); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}
}

// The command prints this binary's own identity, and its JSON carries exactly the contract's fields.
func TestVersionCommand(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}, {"version", "-o", "json"}} {
		var out bytes.Buffer
		root := newRootCmd()
		root.SetOut(&out)
		root.SetArgs(args)
		if err := root.Execute(); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		want := buildinfo.Get().String() + "\n"
		if len(args) == 3 {
			var fields map[string]string
			if err := json.Unmarshal(out.Bytes(), &fields); err != nil {
				t.Fatalf("%v: %v\n%s", args, err, out.String())
			}
			i := buildinfo.Get()
			if diff := cmp.Diff(map[string]string{"version": i.Version, "commit": i.Commit, "go": i.Go, "platform": i.Platform}, fields); diff != "" {
				t.Errorf("%v (-want +got):\n%s", args, diff)
			}
			continue
		}
		if got := out.String(); got != want {
			t.Errorf("%v = %q, want %q", args, got, want)
		}
	}
}
