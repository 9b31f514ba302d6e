package envoygateway

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	engine "github.com/precedent-dev/precedent/profiles/envoygateway/engine"
)

// ExplainPolicy is `precedent explain --policy` for Envoy Gateway's kinds, in the CLI contract's
// shape: whether Envoy Gateway accepts the policy (its targets exist; it is not Conflicted) and, per
// top-level field, its fate on the paths it reaches as `effective` shows it: in effect where any of
// its value is, alone or merged; else replaced, by the policy whose value is in effect where it set
// one (or, the field gone, the policy that holds the path). Envoy Gateway's own status says the
// same with its conditions; this shows it before the write and per field.
func (Profile) ExplainPolicy(in *profile.Offline, k policy.Kind, ref policy.Ref) (*profile.PolicyExplanation, error) {
	for _, u := range in.Objects {
		if u.GroupVersionKind().GroupKind() != k.GVK.GroupKind() || u.GetNamespace() != ref.Namespace || u.GetName() != ref.Name {
			continue
		}
		p, errs := engine.Read(u)
		if len(errs) > 0 {
			return &profile.PolicyExplanation{Kind: k.GVK.Kind, Policy: ref.String(),
				Accepted: profile.Condition{Status: "False", Reason: "Invalid", Message: errs.ToAggregate().Error()},
				Enforced: profile.Condition{Status: "False", Reason: "Invalid", Message: "the policy is not accepted"},
				Rules:    []profile.RuleFate{}}, nil
		}
		if errs := invalid(p, in.Graph); len(errs) > 0 {
			msg := errs.ToAggregate().Error()
			if p.Kind == engine.BackendTrafficPolicy {
				msg += "; the routes it targets get a 500 direct response"
			}
			return &profile.PolicyExplanation{Kind: k.GVK.Kind, Policy: ref.String(),
				Accepted: profile.Condition{Status: "False", Reason: "Invalid", Message: msg},
				Enforced: profile.Condition{Status: "False", Reason: "Invalid", Message: "the policy is not accepted: nothing of it is in effect"},
				Rules:    []profile.RuleFate{}}, nil
		}
		pr := offlineWorld(in, u).snap.Project(engine.Write{New: p})
		return explain(k, p, pr), nil
	}
	return nil, fmt.Errorf("%s.%s %s not found", k.GVK.Kind, k.GVK.Group, ref)
}

// explain words the projection of the policy's write on a world without it.
func explain(k policy.Kind, p *engine.Policy, pr engine.Projection) *profile.PolicyExplanation {
	me := p.Ref.String()
	out := &profile.PolicyExplanation{Kind: k.GVK.Kind, Policy: me, Rules: []profile.RuleFate{}}
	switch {
	case len(pr.Resolution.Scopes) == 0 && len(pr.Resolution.NoSection) > 0:
		out.Accepted = profile.Condition{Status: "False", Reason: "TargetNotFound", Message: engine.MissingTarget(p.Ref.Namespace, pr.Resolution.NoSection[0], true)}
	case len(pr.Resolution.Scopes) == 0:
		out.Accepted = profile.Condition{Status: "False", Reason: "TargetNotFound", Message: "no target exists: Envoy Gateway writes no status for it"}
	case len(pr.Conflicts) == len(pr.Resolution.Scopes):
		out.Accepted = profile.Condition{Status: "False", Reason: "Conflicted", Message: fmt.Sprintf("%s holds %s", pr.Conflicts[0].Policy.Ref, pr.Conflicts[0].Scope)}
	default:
		out.Accepted = profile.Condition{Status: "True", Reason: "Accepted", Message: "Policy has been accepted"}
	}
	ids := make([]string, 0, len(p.Fields))
	for id := range p.Fields {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	type tally struct {
		inEffect, replaced int
		by                 map[string]int
	}
	fates := map[string]*tally{}
	for _, id := range ids {
		fates[id] = &tally{by: map[string]int{}}
	}
	for _, r := range pr.After {
		if r.Holder == nil || !reaches(r, me) {
			continue
		}
		for _, id := range ids {
			if by := decider(r, p, id); by == me {
				fates[id].inEffect++
			} else {
				fates[id].replaced++
				fates[id].by[by]++
			}
		}
	}
	inEffect, overridden := 0, 0
	var winners []string
	for _, id := range ids {
		f := fates[id]
		rf := profile.RuleFate{ID: id, Paths: f.inEffect + f.replaced, State: "in-effect"}
		switch {
		case f.replaced == 0:
			inEffect++
		case f.inEffect == 0:
			rf.State, rf.By = "replaced", most(f.by)
			winners = append(winners, rf.By)
			overridden++
		default: // in effect on some paths, replaced on others
			rf.State, rf.By = "partly", most(f.by)
			overridden++
			inEffect++
		}
		out.Rules = append(out.Rules, rf)
	}
	switch {
	case out.Accepted.Status != "True":
		out.Enforced = profile.Condition{Status: "False", Reason: out.Accepted.Reason, Message: "the policy is not accepted"}
	case overridden == 0:
		out.Enforced = profile.Condition{Status: "True", Reason: "Enforced", Message: "every field is in effect"}
	case inEffect == 0 && len(winners) > 0:
		slices.Sort(winners)
		out.Enforced = profile.Condition{Status: "False", Reason: "Overridden", Message: "replaced by " + strings.Join(slices.Compact(winners), ", ")}
	default:
		out.Enforced = profile.Condition{Status: "True", Reason: "PartiallyEnforced", Message: fmt.Sprintf("%d of %d fields replaced on some or all paths", overridden, len(ids))}
	}
	return out
}

// reaches reports whether the policy me takes part in the result: it holds the path, is the parent
// merged into, or is replaced or skipped there.
func reaches(r engine.Result, me string) bool {
	if r.Holder.Ref.String() == me || (r.Parent != nil && r.Parent.Ref.String() == me) || (r.Skipped != nil && r.Skipped.Policy.Ref.String() == me) {
		return true
	}
	for _, pl := range r.Replaced {
		if pl.Policy.Ref.String() == me {
			return true
		}
	}
	return false
}

// decider is who decided the field id of policy p on a result, as `effective` shows it (the
// result's sources, deeper ids of a merged field included): p when any of its value is in effect
// there, alone or merged; else the policy whose value is in effect where p set one (see inEffect);
// else, the field being absent, the policy holding the path.
func decider(r engine.Result, p *engine.Policy, id string) string {
	mine := map[string]string{}
	for s, from := range r.Sources {
		if setsPath(p.Fields, s) {
			mine[s] = from
		}
	}
	from := contributors(mine, id)
	if me := ref(p); slices.Contains(from, me) {
		return me.String()
	}
	if f := inEffect(from, ref(r.Holder)); f != nil {
		return f.String()
	}
	return r.Holder.Ref.String()
}

// setsPath reports whether fields set the field a source id names (`cors.allowOrigins`); an id
// into a list (`compression[type=Gzip]`, `rateLimit.global.rules[1]`) counts where the list is set.
func setsPath(fields map[string]interface{}, id string) bool {
	var v interface{} = fields
	for {
		m, ok := v.(map[string]interface{})
		if !ok {
			return false
		}
		name, rest := id, ""
		if i := strings.IndexAny(id, ".["); i >= 0 {
			name, rest = id[:i], id[i:]
		}
		if v, ok = m[name]; !ok {
			return false
		}
		if rest == "" || rest[0] == '[' {
			return true
		}
		id = rest[1:]
	}
}

// most is the key with the highest count (the smallest key on ties).
func most(m map[string]int) string {
	best, n := "", -1
	for k, c := range m {
		if c > n || (c == n && k < best) {
			best, n = k, c
		}
	}
	return best
}
