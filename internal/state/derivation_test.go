package state_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/state"
	"github.com/precedent-dev/precedent/internal/state/statetest"
)

// The kind the derivation tests watch (as a managed policy kind: any watched kind would do).
var widgetKind = schema.GroupVersionKind{Group: "policy.precedent.dev", Version: "v1alpha1", Kind: "AuthPolicy"}

func widget(name, rv string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(widgetKind)
	u.SetNamespace("ns")
	u.SetName(name)
	u.SetResourceVersion(rv)
	return u
}

// watchedState is a State fed through fake informers, watching the topology and widgetKind.
func watchedState(t *testing.T) (*state.State, *statetest.Informers) {
	inf := statetest.New(t)
	st := state.New(logr.Discard())
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := st.Watch(ctx, inf, []policy.Kind{{GVK: widgetKind}}); err != nil {
		t.Fatal(err)
	}
	return st, inf
}

// names is a derived value: the sorted names of the widgets, kept by counters of its builds and
// steps. refuse names a widget whose events Next cannot bring the value forward with.
type names struct {
	mu            sync.Mutex
	builds, steps int
	events        []state.Event
	refuse        string
}

func (n *names) derivation(st *state.State, topo bool) state.Derivation {
	gk := widgetKind.GroupKind()
	return state.Derivation{Key: "names", Kinds: []schema.GroupKind{gk}, Topology: topo,
		Build: func() any {
			n.mu.Lock()
			n.builds++
			n.mu.Unlock()
			var out []string
			for _, u := range st.Objects(gk) {
				out = append(out, u.GetName())
			}
			slices.Sort(out)
			return out
		},
		Next: func(prev any, e state.Event) any {
			n.mu.Lock()
			n.steps++
			n.events = append(n.events, e)
			refuse := n.refuse
			n.mu.Unlock()
			if e.Topology {
				return prev // the names read no topology object
			}
			name := e.Object.GetName()
			if name == refuse {
				return nil
			}
			out := slices.DeleteFunc(slices.Clone(prev.([]string)), func(s string) bool { return s == name })
			if !e.Deleted {
				out = append(out, name)
				slices.Sort(out)
			}
			return out
		},
	}
}

func (n *names) refuses(name string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.refuse = name
}

func (n *names) counts() (builds, steps int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.builds, n.steps
}

// TestDeriveNext: a value once built follows the events it reads through Next, published with each
// event, without a build; Next returning nil makes the next read build it whole, and a stale value
// is not stepped until it is built again; events it does not read leave it alone.
func TestDeriveNext(t *testing.T) {
	st, inf := watchedState(t)
	n := &names{}
	get := func() []string { return st.Derive(n.derivation(st, false)).([]string) }
	a1, a2, b1 := widget("a", "1"), widget("a", "2"), widget("b", "3")
	a1.SetLabels(map[string]string{"v": "1"})
	a2.SetLabels(map[string]string{"v": "2"})
	a2.SetGeneration(2)
	type want struct {
		names         []string
		builds, steps int
	}
	for _, step := range []struct {
		name   string
		change func()
		want   want
	}{
		{"first read builds", func() {}, want{nil, 1, 0}},
		{"an add is stepped", func() { inf.Add(t, a1) }, want{[]string{"a"}, 1, 1}},
		{"an update is stepped", func() { inf.Update(t, a1, a2) }, want{[]string{"a"}, 1, 2}},
		{"a second add is stepped", func() { inf.Add(t, b1) }, want{[]string{"a", "b"}, 1, 3}},
		{"a delete is stepped", func() { inf.Delete(t, a2) }, want{[]string{"b"}, 1, 4}},
		{"a topology event it does not read: left alone", func() {
			inf.Add(t, &gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "gw"}})
		}, want{[]string{"b"}, 1, 4}},
		{"Next refuses: the read builds", func() { n.refuses("c"); inf.Add(t, widget("c", "5")) }, want{[]string{"b", "c"}, 2, 5}},
		{"stepped again once built", func() { inf.Add(t, widget("d", "6")) }, want{[]string{"b", "c", "d"}, 2, 6}},
		{"a stale value is not stepped", func() {
			inf.Add(t, widget("c", "7")) // refused: stale from here
			inf.Add(t, widget("e", "8"))
		}, want{[]string{"b", "c", "d", "e"}, 3, 7}},
	} {
		step.change()
		got := want{names: get()}
		got.builds, got.steps = n.counts()
		if diff := cmp.Diff(step.want, got, cmp.AllowUnexported(want{})); diff != "" {
			t.Fatalf("%s (-want +got):\n%s", step.name, diff)
		}
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if e := n.events[1]; e.Old == nil || e.Old.GetLabels()["v"] != "1" || e.Deleted || e.Topology {
		t.Errorf("the update's event: %+v, want the old object (v=1), not deleted, not topology", e)
	}
	if e := n.events[3]; !e.Deleted || e.Object.GetName() != "a" {
		t.Errorf("the delete's event: %+v, want a deleted", e)
	}
}

// TestDeriveNextTopology: a value that reads the topology is stepped with topology events, which
// say so; one with other Params is built anew.
func TestDeriveNextTopology(t *testing.T) {
	st, inf := watchedState(t)
	n := &names{}
	st.Derive(n.derivation(st, true))
	inf.Add(t, &gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "gw"}})
	st.Derive(n.derivation(st, true))
	if builds, steps := n.counts(); builds != 1 || steps != 1 {
		t.Fatalf("after a Gateway event: %d builds, %d steps; want 1 and 1", builds, steps)
	}
	if e := n.events[0]; !e.Topology || e.GroupKind != (schema.GroupKind{Group: gwv1.GroupName, Kind: "Gateway"}) || e.Object.GetName() != "gw" {
		t.Errorf("the Gateway's event: %+v", e)
	}
	d := n.derivation(st, true)
	d.Params = "other"
	st.Derive(d)
	if builds, _ := n.counts(); builds != 2 {
		t.Errorf("other Params: %d builds, want 2", builds)
	}
}

// TestDeriveNextPublishedWithEvent: readers racing with a stream of events never see an event
// without the value it brings, nor a value ahead of the events applied, and never build: every value
// they read was brought forward by Next.
func TestDeriveNextPublishedWithEvent(t *testing.T) {
	st, inf := watchedState(t)
	n := &names{}
	st.Derive(n.derivation(st, false))
	const events = 300
	objs := make([]*unstructured.Unstructured, events)
	for i := range objs {
		objs[i] = widget(fmt.Sprintf("w-%03d", i), fmt.Sprint(i+1))
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for r := 0; r < 4; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i = (i + 7) % events {
				select {
				case <-done:
					return
				default:
				}
				caught := st.Caught(objs[i], false)
				v := st.Derive(n.derivation(st, false)).([]string)
				if _, found := slices.BinarySearch(v, objs[i].GetName()); caught && !found {
					errs <- fmt.Sprintf("event on %s applied, value without it", objs[i].GetName())
					return
				}
				for _, name := range v {
					var k int
					fmt.Sscanf(name, "w-%d", &k)
					if !st.Caught(objs[k], false) {
						errs <- fmt.Sprintf("value holds %s, whose event is not applied", name)
						return
					}
				}
			}
		}()
	}
	for _, o := range objs {
		inf.Add(t, o)
	}
	close(done)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if builds, steps := n.counts(); builds != 1 || steps != events {
		t.Errorf("%d builds, %d steps; want 1 build and %d steps", builds, steps, events)
	}
}

// TestDeriveReadsDuringNext: while Next computes a value's next version, a reader gets the current
// one at once, without waiting for it.
func TestDeriveReadsDuringNext(t *testing.T) {
	st, inf := watchedState(t)
	inf.Add(t, widget("a", "1"))
	inNext, read := make(chan struct{}), make(chan []string)
	var during []string
	d := state.Derivation{Key: "slow", Kinds: []schema.GroupKind{widgetKind.GroupKind()},
		Build: func() any { return []string{"a"} },
		Next: func(prev any, e state.Event) any {
			close(inNext)
			select {
			case during = <-read: // the reader answered while this step was under way
			case <-time.After(time.Minute): // a guard, not a timing: fail rather than hang
			}
			return append(slices.Clone(prev.([]string)), e.Object.GetName())
		},
	}
	st.Derive(d)
	go func() {
		<-inNext
		read <- st.Derive(d).([]string)
	}()
	inf.Add(t, widget("b", "2"))
	if diff := cmp.Diff([]string{"a"}, during); diff != "" {
		t.Errorf("read during Next (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"a", "b"}, st.Derive(d).([]string)); diff != "" {
		t.Errorf("read after the event (-want +got):\n%s", diff)
	}
}
