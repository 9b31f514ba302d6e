package warning

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestNotesSubjectCoded(t *testing.T) {
	w := Register(Code{ID: "PRC-W997", Severity: SeverityWarning, Title: "t", Meaning: "m", Fix: "f"})
	n := Register(Code{ID: "PRC-N997", Severity: SeverityNote, Title: "t", Meaning: "m", Fix: "f"})
	e := RegisterError("test-check", Code{ID: "PRC-E997", Severity: SeverityError, Title: "t", Meaning: "m", Fix: "f"})
	defer func() {
		codesMu.Lock()
		delete(codes, w.ID)
		delete(codes, n.ID)
		delete(codes, e.ID)
		delete(checkCodes, "test-check")
		codesMu.Unlock()
	}()
	t.Run("notes are split from warnings, each in its order", func(t *testing.T) {
		ws, ns := Notes([]string{n.Line("a"), w.Line("b"), "plain", n.Line("c")})
		if diff := cmp.Diff([][]string{{"PRC-W997 b", "plain"}, {"PRC-N997 a", "PRC-N997 c"}}, [][]string{ws, ns}); diff != "" {
			t.Errorf("Notes (-want +got):\n%s", diff)
		}
	})
	t.Run("the subject goes after the code", func(t *testing.T) {
		got := []string{Subject("AuthPolicy shop/x", w.Line("rule b")), Subject("AuthPolicy shop/x", "rule c")}
		if diff := cmp.Diff([]string{"PRC-W997 AuthPolicy shop/x: rule b", "AuthPolicy shop/x: rule c"}, got); diff != "" {
			t.Errorf("Subject (-want +got):\n%s", diff)
		}
	})
	t.Run("errors of a coded check carry the code before their detail, once", func(t *testing.T) {
		errs := field.ErrorList{field.Forbidden(field.NewPath("spec", "unset"), "no"), field.Required(field.NewPath("spec"), "yes")}
		once := Coded(errs, []string{"test-check", "unknown-check"})
		got := Coded(once, []string{"test-check", "unknown-check"}).ToAggregate().Error()
		want := "[spec.unset: Forbidden: PRC-E997 no, spec: Required value: yes]"
		if got != want || errs[0].Detail != "no" {
			t.Errorf("Coded = %q (input detail %q), want %q and the input unchanged", got, errs[0].Detail, want)
		}
	})
}
