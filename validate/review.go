package validate

import (
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/internal/checks"
	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/warning"
)

// Outcome is the decision on one write: errors reject it; warnings are returned either way.
type Outcome struct {
	Policy *policy.Policy
	Errs   field.ErrorList
	// CheckIDs holds, for each error of Errs, the ID of the check that found it: a stateless check
	// (package checks), a stateful one (settings.CheckUnsetOverride, ...), or CheckSpec for an error
	// found reading the policy.
	CheckIDs []string
	Warnings []string
	// Affected are the paths a warning is about (PathName), by the warning's line as Warnings holds
	// it; a warning absent names no path.
	Affected map[string][]string
}

// Review runs the whole check of a create or update of obj against before, the snapshot of the
// other policies of its kind and the topology (obj's own earlier version may be in it; it is
// replaced). This is the webhook's flow and the offline validate command's.
func Review(before *effective.Snapshot, obj *unstructured.Unstructured, s settings.Settings, cond *cel.Evaluator) Outcome {
	return review(before, obj, s, cond, false)
}

// ReviewPaths is Review with Outcome.Affected: the paths each warning is about (the CLI's findings;
// the webhook sends the lines alone).
func ReviewPaths(before *effective.Snapshot, obj *unstructured.Unstructured, s settings.Settings, cond *cel.Evaluator) Outcome {
	return review(before, obj, s, cond, true)
}

// review is Review, with the affected paths when paths is set.
func review(before *effective.Snapshot, obj *unstructured.Unstructured, s settings.Settings, cond *cel.Evaluator, paths bool) Outcome {
	p, errs := policy.View(before.Kind, obj)
	out := Outcome{Policy: p}
	if _, ok := obj.Object["spec"].(map[string]interface{}); !ok {
		out.Errs, out.CheckIDs = errs, slices.Repeat([]string{CheckSpec}, len(errs)) // nothing else can be read
		return out
	}
	ids := slices.Repeat([]string{CheckSpec}, len(errs))
	for _, f := range checks.Evaluate(checks.Input{Policy: p, Settings: s, Cond: cond}) { // Stateless, with IDs
		errs, ids = append(errs, f.Err), append(ids, f.ID)
	}
	if len(errs) > 0 {
		out.Errs, out.CheckIDs = errs, ids
		return out
	}
	serrs, sids, swarns := stateful(before, p, s)
	out.Errs, out.CheckIDs = serrs, sids
	if len(serrs) > 0 {
		// A rejected write changes nothing: projecting it would only add noise to the errors.
		out.Warnings = Limit(swarns, s.WarningLimit)
		return out
	}
	lines, affected := project(before, p.Ref, p, true, paths)
	out.Warnings, out.Affected = Limit(append(swarns, lines...), s.WarningLimit), limitKeys(affected)
	return out
}

// limitKeys keys affected by the lines as Limit renders them.
func limitKeys(affected map[string][]string) map[string][]string {
	if len(affected) == 0 {
		return nil
	}
	out := make(map[string][]string, len(affected))
	for line, ps := range affected {
		out[truncate(line, maxWarningLen)] = ps
	}
	return out
}

// ReviewDelete projects the removal of a policy.
func ReviewDelete(before *effective.Snapshot, ref policy.Ref, s settings.Settings) Outcome {
	old, ok := before.Policy(ref)
	if !ok {
		return Outcome{}
	}
	lines := Project(before, ref, nil)
	// The summary note first (the limit cuts from the end), then what takes the place of the
	// deleted rules in effect, then the rest.
	at := 0
	if len(lines) > 0 && warning.IsNote(lines[0]) {
		at = 1
	}
	lines = slices.Insert(lines, at, fallbacks(before, old)...)
	return Outcome{Warnings: Limit(lines, s.WarningLimit)}
}
