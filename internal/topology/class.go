package topology

import (
	"slices"
	"strings"

	"github.com/precedent-dev/precedent/internal/warning"
)

// Class is a GatewayClass as the graph keeps it: its name and its spec.controllerName.
type Class struct {
	Name, Controller string
}

// Controller returns the controllerName of GatewayClass name; false when the graph has no such
// GatewayClass (a Gateway may name one the input lacks).
func (g *Graph) Controller(class string) (string, bool) { return g.classes.get(class) }

// Serves reports whether a controller among controllers serves the Gateways of GatewayClass class.
// No controllers means any; a GatewayClass the graph does not hold is served too: whose it is cannot
// be known (offline inputs often carry Gateways without their GatewayClass), so nothing is left out
// on a guess.
func (g *Graph) Serves(class string, controllers []string) bool {
	if len(controllers) == 0 {
		return true
	}
	c, ok := g.classes.get(class)
	return !ok || slices.Contains(controllers, c)
}

// ServedPaths returns the paths of ps (indexes, as PathsFor gives them) whose GatewayClass a
// controller among controllers serves (Serves). It returns ps itself when all are served, so that
// the common case allocates nothing; the result may be the graph's own: callers must not modify it.
func (g *Graph) ServedPaths(ps []int, controllers []string) []int {
	if len(controllers) == 0 {
		return ps
	}
	k := 0
	for k < len(ps) && g.Serves(g.Paths[ps[k]].Class, controllers) {
		k++
	}
	if k == len(ps) {
		return ps
	}
	out := append(make([]int, 0, len(ps)-1), ps[:k]...)
	last, served := g.Paths[ps[k]].Class, false // paths of one Gateway are adjacent: one lookup per run of a class
	for _, j := range ps[k+1:] {
		if c := g.Paths[j].Class; c != last {
			last, served = c, g.Serves(c, controllers)
		}
		if served {
			out = append(out, j)
		}
	}
	return out
}

// ClassesOf returns the GatewayClasses of paths ps, each once, sorted by name; the controller of a
// class the graph does not hold is "".
func (g *Graph) ClassesOf(ps []int) []Class {
	var out []Class
	for _, i := range ps {
		name := g.Paths[i].Class
		if slices.ContainsFunc(out, func(c Class) bool { return c.Name == name }) {
			continue
		}
		c, _ := g.classes.get(name)
		out = append(out, Class{name, c})
	}
	slices.SortFunc(out, func(a, b Class) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// CodeOtherControllers is the warning that a policy reaches only Gateways its kind does not apply to.
var CodeOtherControllers = warning.Register(warning.Code{ID: "PRC-W170", Severity: warning.SeverityWarning,
	Title: "policy reaches only Gateways of other controllers",
	Meaning: "every Gateway the policy's targets reach (directly, or as a route's parents) is of a GatewayClass whose controller " +
		"is not one the kind applies to (the kind's controllerNames, or its profile's default): no controller enforces the policy there, " +
		"so it has no effect",
	Fix: "target a route or Gateway of a GatewayClass the kind's controller serves, or add the GatewayClass's controllerName to the " +
		"kind's controllerNames in the PrecedentConfig if that controller enforces the kind"})

// OtherControllers renders CodeOtherControllers for a policy of kind that reaches only the paths of
// classes, none of whose controllers is among controllers.
func OtherControllers(kind string, classes []Class, controllers []string) string {
	names := make([]string, len(classes))
	for i, c := range classes {
		names[i] = "GatewayClass " + c.Name + " (controller " + c.Controller + ")"
	}
	return CodeOtherControllers.Linef("the policy reaches only Gateways of %s, and %s applies to Gateways of %s: it has no effect",
		strings.Join(names, ", "), kind, strings.Join(controllers, ", "))
}
