package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/precedent-dev/precedent/internal/buildinfo"
	"github.com/precedent-dev/precedent/internal/finding"
)

// ciFlags are the CI contract's flags of validate and diff: -o and --fail-on.
type ciFlags struct {
	output string
	failOn string
}

func (c *ciFlags) add(cmd *cobra.Command, formats string) {
	cmd.Flags().StringVarP(&c.output, "output", "o", c.output, "output format: "+formats)
	cmd.Flags().StringVar(&c.failOn, "fail-on", "error", finding.FailOnHelp)
}

// check reads -o (one of formats) and --fail-on; a format, word or code it does not know is an
// exit-2 error.
func (c *ciFlags) check(formats ...string) (gate, error) {
	if !slices.Contains(formats, c.output) {
		return gate{}, &exitError{Code: 2, Err: fmt.Errorf("-o %q: want %s", c.output, strings.Join(formats, ", "))}
	}
	g, err := finding.ParseGate(c.failOn)
	if err != nil {
		return gate{}, &exitError{Code: 2, Err: err}
	}
	return gate{g}, nil
}

// gate is --fail-on, read.
type gate struct{ *finding.Gate }

// Exit is the exit error (with status code) when the gate fails fs: errors (a format of the
// number and its plural "s", e.g. "%d error%s") when only errors fail it, else how many findings
// --fail-on selects.
func (g gate) Exit(fs []finding.Finding, code int, errors string) error {
	n := g.Failing(fs)
	if n == 0 {
		return nil
	}
	if e := finding.Count(fs, 0).Errors; e == n {
		return &exitError{Code: code, Err: fmt.Errorf(errors, n, plural(n))}
	}
	return &exitError{Code: code, Err: fmt.Errorf("%d finding%s selected by --fail-on %s", n, plural(n), g.Gate)}
}

// write prints the findings in the -o format, through render when the command has its own form
// (render nil: validate's): sarif is always the findings' log; json and sarif are alone on stdout
// (the summary line goes to stderr); the other formats end with the summary line on stdout.
func (c *ciFlags) write(cmd *cobra.Command, fs []finding.Finding, objects int, render func() error) error {
	out, summary := cmd.OutOrStdout(), cmd.ErrOrStderr()
	var err error
	switch {
	case c.output == "sarif":
		err = finding.WriteSARIF(out, fs, buildinfo.Get().Version)
	case render != nil:
		err = render()
	case c.output == "json":
		err = finding.WriteJSON(out, fs, objects)
	default:
		finding.WriteText(out, fs)
	}
	if c.output != "json" && c.output != "sarif" {
		summary = out
		if c.output == "markdown" && err == nil { // a paragraph of its own, not part of a list
			_, err = fmt.Fprintln(out)
		}
	}
	if err == nil {
		_, err = fmt.Fprintln(summary, finding.Count(fs, objects))
	}
	return err
}

// unreadable writes the findings of an input that cannot be read (u; shown, those printed) as
// write does, through render when the command has its own form, and is the exit-2 error: -o json
// and -o sarif stay complete documents naming the file and line of each problem.
func (c *ciFlags) unreadable(cmd *cobra.Command, u *unreadable, shown []finding.Finding, render func() error) error {
	if err := c.write(cmd, shown, 0, render); err != nil {
		return err
	}
	return &exitError{Code: 2, Err: u.summary()}
}
