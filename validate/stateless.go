package validate

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/internal/checks"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/settings"
)

// Stateless checks one policy on its own (the errors found reading it come from policy.View): the
// Go functions of the checks of its kind's profile, from the table in package checks.
func Stateless(p *policy.Policy, s settings.Settings, cond *cel.Evaluator) field.ErrorList {
	return checks.Run(checks.Input{Policy: p, Settings: s, Cond: cond})
}
