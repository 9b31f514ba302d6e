package finding

import (
	"fmt"
	"sort"
	"strings"

	"github.com/precedent-dev/precedent/internal/warning"
)

// Gate is what --fail-on selects: findings of these severities or codes fail the command. Errors
// always fail (the API server would reject the object); `warning` adds every warning, `note` every
// warning and note, a code adds the findings of that code.
type Gate struct {
	severities map[warning.Severity]bool
	codes      map[string]bool
}

// FailOnHelp documents --fail-on.
const FailOnHelp = "what fails the command (exit 1): error (the default: errors only), warning (errors and warnings), note (every finding), or codes (PRC-W012,...) whose findings fail besides errors; comma-separated"

// ParseGate reads --fail-on: a comma-separated list of error, warning, note and registered codes.
func ParseGate(spec string) (*Gate, error) {
	g := &Gate{severities: map[warning.Severity]bool{warning.SeverityError: true}, codes: map[string]bool{}}
	for _, t := range strings.Split(spec, ",") {
		t = strings.TrimSpace(t)
		switch strings.ToLower(t) {
		case "", "error":
		case "warning":
			g.severities[warning.SeverityWarning] = true
		case "note":
			g.severities[warning.SeverityWarning] = true
			g.severities[warning.SeverityNote] = true
		default:
			c := warning.Lookup(strings.ToUpper(t))
			if c == nil {
				return nil, fmt.Errorf("--fail-on %q: want error, warning, note or a registered code (PRC-W012); see the code table", t)
			}
			g.codes[c.ID] = true
		}
	}
	return g, nil
}

// Fails reports whether f fails the command.
func (g *Gate) Fails(f *Finding) bool { return g.severities[f.Severity] || g.codes[f.Code] }

// Failing counts the findings of fs that fail the command.
func (g *Gate) Failing(fs []Finding) int {
	n := 0
	for i := range fs {
		if g.Fails(&fs[i]) {
			n++
		}
	}
	return n
}

// String is the gate as --fail-on would spell it, sorted.
func (g *Gate) String() string {
	var out []string
	for s := range g.severities {
		out = append(out, string(s))
	}
	for c := range g.codes {
		out = append(out, c)
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}
