package engine

import (
	"strings"

	"github.com/precedent-dev/precedent/internal/effective"
)

// Reach is what p would set on each (Gateway, route) path were it the only policy of its kind and
// accepted: the paths it reaches (a Gateway's routes, its routes, the routes sending to its
// Services), each item's sources naming the fields it sets there as `effective` names them.
func (w *World) Reach(p *Policy) []effective.Item {
	solo := w.routesOnly()
	solo.Policies = []*Policy{p}
	return solo.Items(p.Kind, map[key]*Status{{p.Kind, p.Ref}: {Reason: ReasonAccepted, Target: -1}})
}

// Matches reports whether the field id of an item's sources (`body.maxSize`; for an
// UpstreamSettingsPolicy `<service>.keepAlive.connections`) is the rule rule or beneath it, the
// rule naming a field of the kind (`keepAlive`, `keepAlive.connections`) or, for an
// UpstreamSettingsPolicy, one of a Service (`cart.zoneSize`).
func Matches(kind, id, rule string) bool {
	within := func(id string) bool { return id == rule || strings.HasPrefix(id, rule+".") }
	if within(id) {
		return true
	}
	if kind != UpstreamSettingsPolicy {
		return false
	}
	_, field, _ := strings.Cut(id, ".")
	return within(field)
}

// Level names the level of a policy's target in explanations: gateway, route or service.
func Level(p *Policy) string {
	switch {
	case p.Kind == UpstreamSettingsPolicy:
		return "service"
	case targetsGateway(p):
		return "gateway"
	}
	return "route"
}
