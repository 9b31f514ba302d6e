package finding

import (
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/precedent-dev/precedent/internal/warning"
)

// Object names the object a finding is about; Kind alone (with APIVersion) when the finding is
// about every object of a kind.
type Object struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name,omitempty"`
}

// ObjectOf names u.
func ObjectOf(u *unstructured.Unstructured) Object {
	return Object{APIVersion: u.GetAPIVersion(), Kind: u.GetKind(), Namespace: u.GetNamespace(), Name: u.GetName()}
}

// Subject is how a line names the object: "<Kind> <ns>/<name>" (or "<Kind> <name>").
func (o Object) Subject() string {
	name := o.Name
	if name == "" && o.Namespace != "" {
		name = "(no name)"
	}
	if o.Namespace == "" {
		return o.Kind + " " + name
	}
	return o.Kind + " " + o.Namespace + "/" + name
}

// Finding is one error, warning or note about one object (the shape of `-o json`).
type Finding struct {
	// Code is the registered code ("PRC-W012"), "" for a finding that has none yet.
	Code     string           `json:"code"`
	Severity warning.Severity `json:"severity"`
	Object   Object           `json:"object"`
	// Field is the field path the finding is about ("spec.unset[0]"), "" when it is about the object.
	Field   string `json:"field"`
	Message string `json:"message"`
	// Affected are the Gateway/route paths the finding is about ("gateway-system/gw/http →
	// shop/cart"), where the decision knows them; an empty list otherwise (never null in JSON).
	Affected []string `json:"affected"`
	// File and Line are where the object starts in the input; empty for objects not read from files.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	// line is the finding as the text output prints it, without the "Warning: " of warnings; ""
	// for a warning whose line is its code, its subject (when subject) and its message (Warning),
	// which Text makes when asked: a large input's findings are many (115,000 in the generated
	// world at 10x), each printed once, and a warning then holds the review's text only.
	line    string
	subject bool
}

// MarshalJSON writes the finding with affected as a list, empty when it names no path.
func (f Finding) MarshalJSON() ([]byte, error) {
	type plain Finding // without this method
	p := plain(f)
	if p.Affected == nil {
		p.Affected = []string{}
	}
	return json.Marshal(p)
}

// Text is the finding as the CLI contract prints it: errors "<Kind> <ns>/<name>: <field path>:
// <reason>", warnings (the caller adds "Warning: ") and notes naming their subject once.
func (f Finding) Text() string {
	if f.line != "" {
		return f.line
	}
	line := f.Message
	if f.subject {
		line = f.Object.Subject() + ": " + line
	}
	if f.Code != "" {
		line = f.Code + " " + line
	}
	return line
}

// Errors are the findings of field errors on u; checkIDs[i] (when given) names the check that
// found errs[i], whose registered code the finding carries.
func Errors(u *unstructured.Unstructured, errs field.ErrorList, checkIDs []string) []Finding {
	obj := ObjectOf(u)
	out := make([]Finding, 0, len(errs))
	coded := warning.Coded(errs, checkIDs) // the text line shows the code as the API server does
	for i, e := range errs {
		f := Finding{Severity: warning.SeverityError, Object: obj, Field: e.Field, Message: e.ErrorBody(),
			line: fmt.Sprintf("%s: %s", obj.Subject(), coded[i].Error())}
		if i < len(checkIDs) {
			if c := warning.ForCheck(checkIDs[i]); c != nil {
				f.Code, f.Severity = c.ID, c.Severity
			}
		}
		out = append(out, f)
	}
	return out
}

// Input is a finding about the input itself rather than an object (a document that cannot be
// parsed, a file skipped): its severity is the code's, its line "<code> <file>:<line>: <message>".
func Input(code *warning.Code, file string, line int, message string) Finding {
	at := file
	if line > 0 {
		at = fmt.Sprintf("%s:%d", file, line)
	}
	return Finding{Code: code.ID, Severity: code.Severity, Message: message, File: file, Line: line, line: code.Line(at + ": " + message)}
}

// WithCode is f with the code c (and c's severity), the code first on its line, before the object:
// for errors whose words are the API server's own (a CRD's schema, object metadata), which carry no
// code of a check inside them.
func (f Finding) WithCode(c *warning.Code) Finding {
	f.line = f.Text() // made before the code changes
	f.Code, f.Severity = c.ID, c.Severity
	if !strings.HasPrefix(f.line, c.ID+" ") {
		f.line = c.Line(f.line)
	}
	return f
}

// Without returns fs without the findings of severity sev (fs itself when it holds none).
func Without(fs []Finding, sev warning.Severity) []Finding {
	var out []Finding
	for i := range fs {
		if fs[i].Severity != sev {
			out = append(out, fs[i])
		}
	}
	if len(out) == len(fs) {
		return fs
	}
	return out
}

// Error is a finding of an error on u that is not about a field (the review could not run).
func Error(u *unstructured.Unstructured, err error) Finding {
	obj := ObjectOf(u)
	return Finding{Severity: warning.SeverityError, Object: obj, Message: err.Error(), line: fmt.Sprintf("%s: %v", obj.Subject(), err)}
}

// Warning is the finding of a warning line about obj, as a profile's review gives it: optionally
// "PRC-W012 " first (warning.Split), the severity from the code (a warning when it has none). A
// text that already starts with the subject keeps it once; other texts are prefixed with it.
func Warning(obj Object, text string) Finding {
	f := Finding{Severity: warning.SeverityWarning, Object: obj}
	code, msg := warning.Split(text)
	if code != nil {
		f.Code, f.Severity = code.ID, code.Severity
	}
	if s := obj.Subject(); obj.Name != "" && !strings.HasPrefix(msg, s+" ") && !strings.HasPrefix(msg, s+":") {
		f.subject = true
	}
	f.Message = msg // the line is made from it when printed (Text)
	return f
}

// Locate sets File and Line of every finding whose object at says where it is.
func Locate(fs []Finding, at func(Object) (file string, line int, ok bool)) {
	for i := range fs {
		if fs[i].File != "" {
			continue
		}
		if file, line, ok := at(fs[i].Object); ok {
			fs[i].File, fs[i].Line = file, line
		}
	}
}
