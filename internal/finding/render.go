package finding

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/precedent-dev/precedent/internal/printable"
	"github.com/precedent-dev/precedent/internal/warning"
)

// WriteText writes one line per finding, errors first, then warnings ("Warning: "), then notes
// ("Note: "), each escaped: names, rule ids and values come from the objects, and a line must stay
// one line. Within a severity the order of fs is kept.
func WriteText(w io.Writer, fs []Finding) {
	for _, sev := range []warning.Severity{warning.SeverityError, warning.SeverityWarning, warning.SeverityNote} {
		for i := range fs {
			if fs[i].Severity != sev {
				continue
			}
			fmt.Fprintln(w, prefix[sev]+printable.String(fs[i].Text()))
		}
	}
}

var prefix = map[warning.Severity]string{warning.SeverityError: "", warning.SeverityWarning: "Warning: ", warning.SeverityNote: "Note: "}

// Report is the `-o json` of validate: every finding, then the counts.
type Report struct {
	Findings []Finding `json:"findings"`
	Summary  Summary   `json:"summary"`
}

// WriteJSON writes the findings and their summary as one indented JSON object.
func WriteJSON(w io.Writer, fs []Finding, objects int) error {
	if fs == nil {
		fs = []Finding{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(Report{Findings: fs, Summary: Count(fs, objects)})
}

// Summary counts findings by severity, and the objects of the input.
type Summary struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Notes    int `json:"notes"`
	Objects  int `json:"objects"`
}

// Count sums fs up.
func Count(fs []Finding, objects int) Summary {
	s := Summary{Objects: objects}
	for i := range fs {
		switch fs[i].Severity {
		case warning.SeverityError:
			s.Errors++
		case warning.SeverityWarning:
			s.Warnings++
		default:
			s.Notes++
		}
	}
	return s
}

// String is the summary line: "3 errors, 2 warnings in 41 objects" (", 1 note" when there are notes).
func (s Summary) String() string {
	line := fmt.Sprintf("%s, %s", count(s.Errors, "error"), count(s.Warnings, "warning"))
	if s.Notes > 0 {
		line += ", " + count(s.Notes, "note")
	}
	return line + " in " + count(s.Objects, "object")
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
