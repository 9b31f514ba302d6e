package webhook_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllertest"

	"github.com/precedent-dev/precedent/internal/liveconfig"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/state"
	"github.com/precedent-dev/precedent/internal/state/statetest"
	"github.com/precedent-dev/precedent/webhook"
)

// TestKindManagedLaterWaitsForItsPolicies: a write of a kind that became managed after the state
// started watching is answered 503 (retry) until the kind's informer has listed its policies, then
// reviewed; the state stays ready meanwhile, and writes of the other kinds are reviewed as before.
func TestKindManagedLaterWaitsForItsPolicies(t *testing.T) {
	inf := statetest.New(t)
	later := policy.Builtin()[1] // RateLimitPolicy's shape, in another group
	later.GVK.Group = "limits.example.com"
	slow := controllertest.NewFakeInformer() // not synced until told
	inf.Set(later.GVK, slow)

	st := state.New(logr.Discard())
	if err := st.Watch(context.Background(), inf, settings.Defaults().Registry().Kinds()); err != nil {
		t.Fatal(err)
	}
	s := settings.Defaults()
	s.Kinds = []policy.Kind{later}
	v := &webhook.Validator{Settings: liveconfig.NewLive(s, logr.Discard()), State: st, Log: logr.Discard()}

	p := &policy.Policy{Kind: later, Ref: policy.Ref{Namespace: "shop", Name: "p"},
		Targets: []policy.TargetRef{{Group: policy.GatewayGroup, Kind: "HTTPRoute", Name: "cart"}},
		Bare:    &policy.Block{Strategy: policy.StrategyAtomic, Rules: map[string]interface{}{"x": map[string]interface{}{}}}}
	req := request(t, p)
	resp := v.Handle(context.Background(), req)
	if resp.Allowed || resp.Result == nil || resp.Result.Code != http.StatusServiceUnavailable {
		t.Fatalf("write of the kind before its informer synced: allowed=%t result=%+v, want a 503", resp.Allowed, resp.Result)
	}
	if !st.Synced() {
		t.Error("the state is not ready while a later kind lists: every admission would wait")
	}
	shipped := *p
	shipped.Kind = policy.Builtin()[1]
	if r := v.Handle(context.Background(), request(t, &shipped)); !r.Allowed {
		t.Errorf("a write of a shipped kind waits for the later kind: %+v", r.Result)
	}

	slow.Synced()
	if resp := v.Handle(context.Background(), req); !resp.Allowed {
		t.Errorf("write of the kind after its informer synced: %+v", resp.Result)
	}
}
