package access_test

import (
	"context"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/state"
	"github.com/precedent-dev/precedent/internal/state/statetest"
	access "github.com/precedent-dev/precedent/profiles/access/engine"
)

// watchedState is a State fed by fake informers through its own handlers, watching the Gateway
// API topology and AccessPolicies (no Backend kind), until the test ends.
func watchedState(tb testing.TB) (*state.State, *statetest.Informers) {
	tb.Helper()
	inf := statetest.New(tb)
	st := state.New(logr.Discard())
	ctx, cancel := context.WithCancel(context.Background())
	tb.Cleanup(cancel)
	if err := st.Watch(ctx, inf, nil); err != nil {
		tb.Fatal(err)
	}
	gvk := access.AccessPolicyKind.WithVersion("v1alpha1")
	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{gvk.GroupVersion()})
	mapper.Add(gvk, meta.RESTScopeNamespace)
	if err := st.WatchProfiles(ctx, inf, mapper, []schema.GroupKind{access.AccessPolicyKind}, schema.GroupKind{}); err != nil {
		tb.Fatal(err)
	}
	return st, inf
}
