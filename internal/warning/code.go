package warning

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Severity says what a finding is: an error denies the write, a warning admits it but says what
// is wrong or risky, a note says what the write does.
type Severity string

// The severities, as `-o json` and the code table spell them.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityNote    Severity = "note"
)

// Code is a stable identity of one kind of finding: PRC-E### for errors, PRC-W### for warnings,
// PRC-N### for notes. Codes are never renumbered or reused; a retired code stays registered with
// Retired set, so the reference table keeps its meaning.
type Code struct {
	ID       string
	Severity Severity
	// Title is a short name (the reference table's first column after the code).
	Title string
	// Meaning says what the finding means; Fix what the user can do about it.
	Meaning, Fix string
	Retired      bool
}

var (
	codesMu sync.RWMutex
	codes   = map[string]*Code{}
	idForm  = regexp.MustCompile(`^PRC-[EWN][0-9]{3}$`)
)

// Register adds c to the table of codes and returns it. It is called from package-level variables;
// a malformed or repeated ID, or an ID whose letter disagrees with its severity, is a programming
// error and panics at start-up, where every test sees it.
func Register(c Code) *Code {
	if !idForm.MatchString(c.ID) {
		panic(fmt.Sprintf("warning: malformed code %q", c.ID))
	}
	want := map[Severity]byte{SeverityError: 'E', SeverityWarning: 'W', SeverityNote: 'N'}[c.Severity]
	if c.ID[4] != want {
		panic(fmt.Sprintf("warning: code %s has severity %q", c.ID, c.Severity))
	}
	codesMu.Lock()
	defer codesMu.Unlock()
	if _, dup := codes[c.ID]; dup {
		panic(fmt.Sprintf("warning: code %s registered twice", c.ID))
	}
	p := &c
	codes[c.ID] = p
	return p
}

// Codes lists every registered code, sorted by ID.
func Codes() []Code {
	codesMu.RLock()
	defer codesMu.RUnlock()
	out := make([]Code, 0, len(codes))
	for _, c := range codes {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Lookup returns the registered code id, or nil.
func Lookup(id string) *Code {
	codesMu.RLock()
	defer codesMu.RUnlock()
	return codes[id]
}

// Line renders one finding of code c as the webhook sends it and the CLI prints it:
// "PRC-W001 <text>". The text names its subject once and says what is wrong and what to do.
func (c *Code) Line(text string) string { return c.ID + " " + text }

// Linef is Line with a format.
func (c *Code) Linef(format string, args ...any) string { return c.Line(fmt.Sprintf(format, args...)) }

// Split parses a line rendered by Line into its code and text; code is nil (and text the whole
// line) for a line that does not start with a registered code.
func Split(line string) (code *Code, text string) {
	id, rest, ok := strings.Cut(line, " ")
	if !ok || !idForm.MatchString(id) {
		return nil, line
	}
	c := Lookup(id)
	if c == nil {
		return nil, line
	}
	return c, rest
}

var checkCodes = map[string]*Code{}

// RegisterCheck gives the errors of the check checkID (the checks table's ID, or a stateful check's
// id in a profile.Decision's CheckIDs) the code c.
func RegisterCheck(checkID string, c *Code) {
	codesMu.Lock()
	defer codesMu.Unlock()
	if old, dup := checkCodes[checkID]; dup && old != c {
		panic(fmt.Sprintf("warning: check %s has codes %s and %s", checkID, old.ID, c.ID))
	}
	checkCodes[checkID] = c
}

// ForCheck returns the code of the errors of check checkID, or nil when it has none.
func ForCheck(checkID string) *Code {
	codesMu.RLock()
	defer codesMu.RUnlock()
	return checkCodes[checkID]
}

// Subject puts subject ("AuthPolicy shop/x") before the text of line, after its code: the CLI names
// the object each line is about, and the code stays first where Split finds it.
func Subject(subject, line string) string {
	c, text := Split(line)
	if c == nil {
		return subject + ": " + line
	}
	return c.Line(subject + ": " + text)
}

// IsNote reports whether line is a note (its code's severity is note): what a write does, not what
// is wrong with it.
func IsNote(line string) bool {
	c, _ := Split(line)
	return c != nil && c.Severity == SeverityNote
}

// Notes splits lines into warnings and notes, each in its order.
func Notes(lines []string) (warnings, notes []string) {
	for _, l := range lines {
		if IsNote(l) {
			notes = append(notes, l)
		} else {
			warnings = append(warnings, l)
		}
	}
	return warnings, notes
}

// Coded returns errs with the code of each error's check (ids[i], as in profile.Decision.CheckIDs)
// at the start of its detail, as the API server then shows it:
// `spec.unset[0]: Forbidden: PRC-E016 rule …`. errs is left unchanged; an error whose check has no
// code, or is already coded, is copied as it is.
func Coded(errs field.ErrorList, ids []string) field.ErrorList {
	if len(errs) == 0 {
		return errs
	}
	out := make(field.ErrorList, len(errs))
	for i, e := range errs {
		x := *e
		if i < len(ids) {
			if c := ForCheck(ids[i]); c != nil && !strings.HasPrefix(x.Detail, c.ID+" ") {
				x.Detail = c.Line(x.Detail)
			}
		}
		out[i] = &x
	}
	return out
}

// RegisterError registers c, an error's code, and gives it to the errors of the check checkID.
func RegisterError(checkID string, c Code) *Code {
	p := Register(c)
	RegisterCheck(checkID, p)
	return p
}
