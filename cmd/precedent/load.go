package main

import (
	"errors"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/config"
	"github.com/precedent-dev/precedent/effective"
	"github.com/precedent-dev/precedent/inventory"
	"github.com/precedent-dev/precedent/manifest"
	"github.com/precedent-dev/precedent/mutate"
	"github.com/precedent-dev/precedent/policy"
	"github.com/precedent-dev/precedent/topology"
)

// input is what a command works on: the objects of the files or of the cluster, sorted.
type input struct {
	settings config.Settings
	registry *policy.Registry
	inv      *inventory.Inventory
	objects  []*unstructured.Unstructured
	graph    *topology.Graph
	cond     *cel.Evaluator
}

// loadFiles reads the files, applies the static defaults the API server would apply, and builds the
// topology. Any unreadable input is an exit-2 error.
func loadFiles(paths []string, s config.Settings) (*input, error) {
	if len(paths) == 0 {
		return nil, &exitError{code: 2, err: errors.New("no input: give one or more -f FILE|DIR")}
	}
	objs, err := manifest.Read(paths...)
	if err != nil {
		return nil, &exitError{code: 2, err: err}
	}
	us := make([]*unstructured.Unstructured, 0, len(objs))
	srcs := make([]string, 0, len(objs))
	for _, o := range objs {
		if o.GroupVersionKind().GroupKind() == config.GVK.GroupKind() {
			// The cluster's settings travel with the manifests: managed kinds, unset switch, ...
			unsetOff := !s.UnsetEnabled
			cs, errs := config.Decode(o.Unstructured)
			if len(errs) > 0 {
				return nil, &exitError{code: 2, err: fmt.Errorf("%s: document %d: PrecedentConfig %s: %w", o.File, o.Index, o.GetName(), errs.ToAggregate())}
			}
			s = cs
			if unsetOff {
				s.UnsetEnabled = false
			}
			continue
		}
		us = append(us, o.Unstructured)
		srcs = append(srcs, fmt.Sprintf("%s: document %d", o.File, o.Index))
	}
	return newInput(s, us, srcs)
}

// newInput applies the static defaults the API server would apply (for configured kinds whose
// schema lacks them), sorts the objects and builds the topology. Unconvertible Gateway API objects
// are an exit-2 error.
func newInput(s config.Settings, objs []*unstructured.Unstructured, srcs []string) (*input, error) {
	reg := s.Registry()
	for _, u := range objs {
		if k, ok := reg.Lookup(u.GroupVersionKind().GroupKind()); ok {
			mutate.Apply(k, u)
		}
	}
	inv := inventory.Build(reg, objs, srcs)
	if len(inv.Problems) > 0 {
		return nil, &exitError{code: 2, err: errors.Join(inv.Problems...)}
	}
	cond, err := cel.New(s.CELCostLimit)
	if err != nil {
		return nil, err
	}
	return &input{settings: s, registry: reg, inv: inv, objects: objs, graph: topology.Build(inv.Topology), cond: cond}, nil
}

// snapshot returns the snapshot of one kind over every policy of that kind that could be read.
func (o *input) snapshot(k policy.Kind) *effective.Snapshot {
	return effective.NewSnapshot(k, o.graph, o.inv.Views(k), o.cond)
}

// noteUnnamed says which route rules got generated names.
func (o *input) noteUnnamed(w io.Writer) {
	for _, t := range sortedRouteTargets(o.graph) {
		r := o.graph.Routes[t]
		for _, n := range r.Unnamed {
			fmt.Fprintf(w, "note: %s %s has an unnamed rule, shown as %q\n", r.Kind, r.Key, n)
		}
	}
}
