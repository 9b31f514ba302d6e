package checks

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/precedent-dev/precedent/internal/policy"
)

// The target checks read spec.targetRef and spec.targetRefs alike: Policy.Targets holds both, the
// targetRef first. Their CEL has one rule for each field.

const (
	targetRef  = "object.spec.targetRef"
	targetRefs = "object.spec.targetRefs"
)

func targetRequired(in Input) field.ErrorList {
	if len(in.Policy.Targets) > 0 {
		return nil
	}
	return field.ErrorList{field.Required(field.NewPath("spec", "targetRef"), "a policy must target a Gateway, HTTPRoute or GRPCRoute")}
}

func targetRequiredCEL(policy.Kind) []Rule {
	return []Rule{{
		Expression: fmt.Sprintf("has(%s) || (has(%[2]s) && size(%[2]s) > 0)", targetRef, targetRefs),
		Reason:     ReasonInvalid,
		Message:    "spec.targetRef: Required value: a policy must target a Gateway, HTTPRoute or GRPCRoute",
	}}
}

func targetNoNamespace(in Input) field.ErrorList {
	t := in.Policy.Targets[in.Index]
	if !t.HasNamespace {
		return nil
	}
	return field.ErrorList{field.Forbidden(t.Path.Child("namespace"), noNamespace)}
}

const noNamespace = "a local target reference has no namespace: the target is in the policy's namespace"

func targetNoNamespaceCEL(policy.Kind) []Rule {
	msg := ".namespace: Forbidden: " + noNamespace
	return eachTarget(func(t string) string { return "!has(" + t + ".namespace)" },
		ReasonForbidden, msg, func(string) string { return quote(msg) })
}

func targetNameRequired(in Input) field.ErrorList {
	t := in.Policy.Targets[in.Index]
	if t.Name != "" {
		return nil
	}
	return field.ErrorList{field.Required(t.Path.Child("name"), "the name of the target")}
}

func targetNameRequiredCEL(policy.Kind) []Rule {
	msg := ".name: Required value: the name of the target"
	return eachTarget(func(t string) string { return str(t, "name") + " != ''" },
		ReasonInvalid, msg, func(string) string { return quote(msg) })
}

func targetGroupSupported(in Input) field.ErrorList {
	t := in.Policy.Targets[in.Index]
	k := in.Policy.Kind
	if groupAllowed(k, t.Group) {
		return nil
	}
	return field.ErrorList{field.NotSupported(t.Path.Child("group"), t.Group, groupNames(k))}
}

func targetGroupSupportedCEL(k policy.Kind) []Rule {
	supported := ": supported values: " + doubleQuoted(groupNames(k))
	return eachTarget(func(t string) string { return str(t, "group") + " in " + quoted(groupNames(k)) },
		ReasonInvalid, ".group: Unsupported value"+supported,
		func(t string) string {
			return quote(".group: Unsupported value: ") + " + " + quotedValue(str(t, "group")) + " + " + quote(supported)
		})
}

func targetKindSupported(in Input) field.ErrorList {
	t := in.Policy.Targets[in.Index]
	k := in.Policy.Kind
	if k.AllowsTarget(t.Group, t.Kind) || !groupAllowed(k, t.Group) {
		return nil
	}
	return field.ErrorList{field.NotSupported(t.Path.Child("kind"), t.Kind, kindNames(k))}
}

func targetKindSupportedCEL(k policy.Kind) []Rule {
	var pairs []string
	for _, gk := range k.TargetKinds {
		pairs = append(pairs, gk.Group+"/"+gk.Kind)
	}
	supported := ": supported values: " + doubleQuoted(kindNames(k))
	return eachTarget(func(t string) string {
		return fmt.Sprintf("!(%s in %s) || %s + '/' + %s in %s", str(t, "group"), quoted(groupNames(k)), str(t, "group"), str(t, "kind"), quoted(pairs))
	}, ReasonInvalid, ".kind: Unsupported value"+supported,
		func(t string) string {
			return quote(".kind: Unsupported value: ") + " + " + quotedValue(str(t, "kind")) + " + " + quote(supported)
		})
}

func targetSameKind(in Input) field.ErrorList {
	ts := in.Policy.Targets
	t := ts[in.Index]
	if in.Index == 0 || (t.Kind == ts[0].Kind && t.Group == ts[0].Group) {
		return nil
	}
	return field.ErrorList{field.Invalid(t.Path.Child("kind"), t.Kind, fmt.Sprintf("all targetRefs must have the same kind (%s)", ts[0].Kind))}
}

func targetSameKindCEL(policy.Kind) []Rule {
	first := func(f string) string {
		return fmt.Sprintf("(has(%s) ? %s : %s)", targetRef, str(targetRef, f), str(targetRefs+"[0]", f))
	}
	same := func(t string) string {
		return fmt.Sprintf("%s == %s && %s == %s", str(t, "group"), first("group"), str(t, "kind"), first("kind"))
	}
	i := firstIndex(targetRefs, func(e string) string { return "!(" + same(e) + ")" })
	return []Rule{{
		Expression: fmt.Sprintf("!has(%[1]s) || size(%[1]s) == 0 || %[1]s.all(t, %s)", targetRefs, same("t")),
		Reason:     ReasonInvalid,
		Message:    "spec.targetRefs[*].kind: Invalid value: all targetRefs must have the same kind",
		MessageExpression: "'spec.targetRefs[' + string(" + i + ") + '].kind: Invalid value: ' + " +
			quotedValue(str(targetRefs+"["+i+"]", "kind")) + " + ': all targetRefs must have the same kind (' + " + first("kind") + " + ')'",
	}}
}

func targetUnique(in Input) field.ErrorList {
	ts := in.Policy.Targets
	key := func(t policy.TargetRef) string { return t.Group + "/" + t.Kind + "/" + t.Name + "#" + t.SectionName }
	t := ts[in.Index]
	for j := in.Index - 1; j >= 0; j-- {
		if key(ts[j]) == key(t) {
			return field.ErrorList{field.Duplicate(t.Path, fmt.Sprintf("%s %s (same as spec.targetRefs[%d])", t.Kind, t.Name, j))}
		}
	}
	return nil
}

func targetUniqueCEL(policy.Kind) []Rule {
	key := func(t string) string {
		return fmt.Sprintf("%s + '/' + %s + '/' + %s + '#' + %s", str(t, "group"), str(t, "kind"), str(t, "name"), str(t, "sectionName"))
	}
	// No messageExpression: naming the index of the earlier equal reference, as the Go check does,
	// would take an expression of kilobytes.
	msg := "spec.targetRefs[*]: Duplicate value: each target may be named once"
	return []Rule{{
		Expression: fmt.Sprintf("!has(%[2]s) || (%[2]s.all(t, %[2]s.exists_one(u, %[3]s == %[4]s)) && (!has(%[1]s) || !%[2]s.exists(u, %[3]s == %[5]s)))",
			targetRef, targetRefs, key("u"), key("t"), key(targetRef)),
		Reason: ReasonInvalid, Message: msg,
	}}
}

// eachTarget is one rule for spec.targetRef and every entry of spec.targetRefs: cond(t) is true for
// a good reference t; render(t) is the CEL string that follows the field path of a bad one in the
// message (the targetRef first, as the Go check reports it first), static its fallback.
func eachTarget(cond func(t string) string, reason, static string, render func(t string) string) []Rule {
	i := firstIndex(targetRefs, func(e string) string { return "!(" + cond(e) + ")" })
	return []Rule{{
		Expression: fmt.Sprintf("(!has(%[1]s) || %[2]s) && (!has(%[3]s) || %[3]s.all(t, %[4]s))", targetRef, cond(targetRef), targetRefs, cond("t")),
		Reason:     reason,
		Message:    "spec.targetRefs[*]" + static,
		MessageExpression: fmt.Sprintf("has(%s) && !(%s) ? 'spec.targetRef' + %s : 'spec.targetRefs[' + string(%s) + ']' + %s",
			targetRef, cond(targetRef), render(targetRef), i, render(targetRefs+"["+i+"]")),
	}}
}

// firstIndex is the CEL index of the first element e of list l for which bad(e) holds.
func firstIndex(l string, bad func(e string) string) string {
	return fmt.Sprintf("lists.range(size(%s)).filter(i, %s)[0]", l, bad(l+"[i]"))
}

// quotedValue is the CEL string v in double quotes, as field errors print a value.
func quotedValue(v string) string {
	return `'"' + ` + v + ` + '"'`
}

func kindNames(k policy.Kind) []string {
	var out []string
	for _, gk := range k.TargetKinds {
		out = append(out, gk.Kind)
	}
	return out
}

func groupNames(k policy.Kind) []string {
	seen := map[string]bool{}
	var out []string
	for _, gk := range k.TargetKinds {
		if !seen[gk.Group] {
			seen[gk.Group] = true
			out = append(out, gk.Group)
		}
	}
	return out
}

func groupAllowed(k policy.Kind, g string) bool {
	for _, gk := range k.TargetKinds {
		if gk.Group == g {
			return true
		}
	}
	return false
}

// str is the string field f of the object x in CEL, the empty string when absent.
func str(x, f string) string {
	return fmt.Sprintf("(has(%[1]s.%[2]s) ? %[1]s.%[2]s : '')", x, f)
}

// quote is s as a CEL string literal.
// Quote is s as a CEL string literal.
func Quote(s string) string { return quote(s) }

func quote(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}

// quoted is ss as a CEL list of string literals.
func quoted(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// doubleQuoted lists ss as field.NotSupported does: "a", "b".
func doubleQuoted(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
