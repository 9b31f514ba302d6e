package nginxgatewayfabric

import (
	"fmt"
	"slices"
	"strings"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/profiles/nginxgatewayfabric/engine"
)

var (
	_ profile.PolicyExplainer = Profile{}
	_ profile.RuleExplainer   = Profile{}
)

// ExplainPolicy is `precedent explain --policy` for NGINX Gateway Fabric's kinds, in the CLI
// contract's shape: the Accepted condition NGINX Gateway Fabric writes (Accepted, TargetNotFound,
// TargetConflict, Conflicted, as its graph builder decides), and per field the policy sets, its fate
// on the (Gateway, route) paths it reaches: in effect, or replaced by the policy whose value holds
// there (a route's ClientSettingsPolicy over a Gateway's; for a Conflicted policy, the older one).
func (Profile) ExplainPolicy(in *profile.Offline, k policy.Kind, ref policy.Ref) (*profile.PolicyExplanation, error) {
	w := offlineWorld(in)
	p, invalid := find(in, w, k, ref)
	switch {
	case invalid != nil:
		return invalid, nil
	case p == nil:
		return nil, fmt.Errorf("%s.%s %s not found", k.GVK.Kind, k.GVK.Group, ref)
	}
	st := engine.StatusOf(w.Decide(), p)
	out := &profile.PolicyExplanation{Kind: k.GVK.Kind, Policy: ref.String(), Accepted: accepted(st), Rules: []profile.RuleFate{}}
	tallies, paths := fates(w, p, st)
	for _, f := range p.SetFields() {
		t := tallies[f]
		rf := profile.RuleFate{ID: f, State: "in-effect", Paths: t.inEffect + t.replaced()}
		switch {
		case t.replaced() == 0:
		case t.inEffect == 0:
			rf.State, rf.By = "replaced", most(t.by)
		default:
			rf.State, rf.By = "partly", most(t.by)
		}
		out.Rules = append(out.Rules, rf)
	}
	out.Enforced = enforced(st, paths, out.Rules)
	return out, nil
}

// find returns the policy ref of kind k in the world, or the explanation of one that does not read.
func find(in *profile.Offline, w *engine.World, k policy.Kind, ref policy.Ref) (*engine.Policy, *profile.PolicyExplanation) {
	for _, p := range w.Policies {
		if p.Kind == k.GVK.Kind && p.Ref.Namespace == ref.Namespace && p.Ref.Name == ref.Name {
			return p, nil
		}
	}
	for _, u := range in.Objects {
		if u.GroupVersionKind().GroupKind() != k.GVK.GroupKind() || u.GetNamespace() != ref.Namespace || u.GetName() != ref.Name {
			continue
		}
		if _, errs := engine.Read(u); len(errs) > 0 {
			return nil, &profile.PolicyExplanation{Kind: k.GVK.Kind, Policy: ref.String(),
				Accepted: profile.Condition{Status: "False", Reason: "Invalid", Message: errs.ToAggregate().Error()},
				Enforced: profile.Condition{Status: "False", Reason: "Invalid", Message: "the policy is not accepted"},
				Rules:    []profile.RuleFate{}}
		}
	}
	return nil, nil
}

// accepted is the Accepted condition NGINX Gateway Fabric writes for a policy of status st.
func accepted(st *engine.Status) profile.Condition {
	if st.Accepted() {
		return profile.Condition{Status: "True", Reason: engine.ReasonAccepted, Message: "The Policy is accepted"}
	}
	msg := st.Message
	if st.Reason == engine.ReasonConflicted {
		msg = fmt.Sprintf("%s: %s %s, older, sets %s on the same target", msg, st.By.Kind, st.By.Ref, strings.Join(st.Fields, ", "))
	}
	return profile.Condition{Status: "False", Reason: st.Reason, Message: msg}
}

// enforced words the fates of a policy's fields on the paths it reaches.
func enforced(st *engine.Status, paths int, rules []profile.RuleFate) profile.Condition {
	var winners []string
	replaced, partly := 0, 0
	for _, r := range rules {
		switch r.State {
		case "replaced":
			replaced++
			winners = append(winners, r.By)
		case "partly":
			partly++
		}
	}
	switch {
	case !st.Accepted():
		return profile.Condition{Status: "False", Reason: st.Reason, Message: "the policy is not accepted: NGINX Gateway Fabric applies none of it"}
	case paths == 0:
		return profile.Condition{Status: "False", Reason: "NoPaths", Message: "no HTTPRoute or GRPCRoute of the input is reached"}
	case replaced+partly == 0:
		return profile.Condition{Status: "True", Reason: "Enforced", Message: "every field is in effect"}
	case replaced == len(rules):
		slices.Sort(winners)
		return profile.Condition{Status: "False", Reason: "Overridden", Message: "replaced by " + strings.Join(slices.Compact(winners), ", ")}
	}
	return profile.Condition{Status: "True", Reason: "PartiallyEnforced", Message: fmt.Sprintf("%d of %d fields replaced on some or all paths", replaced+partly, len(rules))}
}

// tally is one field's fate: on how many paths it is in effect, and by whom it is replaced on the
// others.
type tally struct {
	inEffect int
	by       map[string]int
}

func (t *tally) replaced() int {
	n := 0
	for _, c := range t.by {
		n += c
	}
	return n
}

// fates tallies, per field of p, its fate on each path p reaches, and counts those paths.
func fates(w *engine.World, p *engine.Policy, st *engine.Status) (map[string]*tally, int) {
	actual := map[[2]string]effective.Item{}
	for _, it := range w.Items(p.Kind, w.Decide()) {
		actual[[2]string{it.Gateway, it.Route}] = it
	}
	out := map[string]*tally{}
	for _, f := range p.SetFields() {
		out[f] = &tally{by: map[string]int{}}
	}
	me := p.Ref.String()
	reach := w.Reach(p)
	for _, it := range reach {
		holds := actual[[2]string{it.Gateway, it.Route}].Sources
		for id := range it.Sources {
			t := out[fieldOf(p, id)]
			if t == nil {
				continue
			}
			switch from := holds[id]; {
			case engine.Holds(from, me):
				t.inEffect++
			case from != "":
				t.by[from]++
			case st.By != nil:
				t.by[st.By.Ref.String()]++
			default:
				t.by[""]++
			}
		}
	}
	return out, len(reach)
}

// fieldOf is the field of p a source id names: the id, less the Service for an
// UpstreamSettingsPolicy.
func fieldOf(p *engine.Policy, id string) string {
	if p.Kind == engine.UpstreamSettingsPolicy {
		_, f, _ := strings.Cut(id, ".")
		return f
	}
	return id
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
