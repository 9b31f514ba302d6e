package main

import (
	"context"
	"fmt"
	"io"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/finding"
	"github.com/precedent-dev/precedent/internal/order"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/printable"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/profiles"
)

// undatedOf says which objects of the input have no known creation time: those of files without
// creationTimestamp, unless the input says otherwise (diff -f: the objects new in the change set).
func (o *input) undatedOf() func(*unstructured.Unstructured) bool {
	if o.undated != nil {
		return o.undated
	}
	return order.Zero
}

// orderWarnings reviews again with each pair of undated policies of one target created the other
// way round, and returns the warnings (PRC-W100) of the pairs whose order changes what the review
// says: both policies, and the outcome of the other order. The review of every policy as a create
// is session's when it reviewed the input so (validate -f), else one of its own; each pair is
// swapped in a trial on its source, and only the policies whose review may read the pair are
// reviewed again (profiles.Session.SwappedWrites), and only their lines compared (order.DependsIn).
func (o *input) orderWarnings(ctx context.Context, session *profiles.Session) ([]finding.Finding, error) {
	creates := session
	if len(o.replaced) > 0 || len(o.deleted) > 0 {
		creates = nil // made when a pair needs it
		defer func() {
			if creates != nil {
				creates.Close()
			}
		}()
	}
	open := func() (*profiles.Session, error) {
		var err error
		if creates == nil {
			creates, err = profiles.NewSession(ctx, profiles.Changes{Objects: o.objects, Typed: o.typed}, o.settings)
		}
		return creates, err
	}
	// The lines of each write's review: a swapped pair changes only those of the writes reviewed
	// again, and only those are rendered and compared (order.DependsIn).
	all := func() ([][]string, error) {
		s, err := open()
		if err != nil {
			return nil, err
		}
		fs, err := s.ByWrite()
		out := make([][]string, len(fs))
		for i, f := range fs {
			out[i] = texts(f)
		}
		return out, err
	}
	deps, more, err := order.DependsIn(o.objects, o.undatedOf(), all, func(p order.Pair) (map[int][]string, error) {
		first, second := p.Dated()
		fs, err := creates.SwappedWrites(map[*unstructured.Unstructured]*unstructured.Unstructured{p.First: first, p.Second: second})
		out := make(map[int][]string, len(fs))
		for i, f := range fs {
			out[i] = texts(f)
		}
		return out, err
	})
	if err != nil {
		return nil, err
	}
	var out []finding.Finding
	for _, d := range deps {
		for i, l := range d.Lines() {
			about := d.First // the first line is about the pair, from the first policy's side
			if i > 0 {
				about = d.Second // the others: what the second policy's earlier creation gives
			}
			out = append(out, finding.Warning(finding.ObjectOf(about), l))
		}
	}
	if more {
		out = append(out, finding.Warning(finding.Object{}, order.Note()))
	}
	return out, nil
}

// texts are the findings' lines (finding.Finding.Text).
func texts(fs []finding.Finding) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Text()
	}
	return out
}

// newInChangeSet is undated for diff -f: objects new in the change set are newer than every
// object of the cluster (applyFiles dates them now) and, among themselves, of unknown order.
func newInChangeSet(created map[*unstructured.Unstructured]bool) func(*unstructured.Unstructured) bool {
	return func(u *unstructured.Unstructured) bool { return created[u] }
}

// effectiveOrderWarnings reruns effective with each pair of undated policies of one target created
// the other way round, and returns the warnings (PRC-W100) of the pairs whose order changes the
// effective policies: both policies, and the rows of the other order ("<path>: <rule id> from
// <policy>").
func (o *input) effectiveOrderWarnings(k policy.Kind, under *topology.Target, ns string) ([]string, error) {
	p := profiles.For(k.GVK.GroupKind(), o.registry)
	deps, more, err := order.Depends(o.objects, o.undatedOf(), func(pair *order.Pair) ([]string, error) {
		in := o
		if pair != nil {
			var err error
			if in, err = newInput(o.settings, order.Swapped(o.objects, *pair), nil); err != nil {
				return nil, err
			}
		}
		items, err := p.Effective(in.offline(), k, under)
		if err != nil {
			return nil, err
		}
		return effectiveRows(inNamespace(items, ns)), nil
	})
	return orderLines(deps, more, err)
}

// effectiveRows are the table's rows as lines: "<path>: <rule id> from <policy>".
func effectiveRows(items []effective.Item) []string {
	var out []string
	for _, it := range items {
		path := it.Gateway
		for _, s := range []string{it.Listener, it.Route, it.Rule} {
			if s != "" {
				path += " " + s
			}
		}
		ids := make([]string, 0, len(it.Sources))
		for id := range it.Sources {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			out = append(out, fmt.Sprintf("%s: %s from %s", path, id, it.Sources[id]))
		}
	}
	return out
}

// warnOrder prints the effective view's order warnings, as validate prints its warnings.
func warnOrder(w io.Writer, o *input, k policy.Kind, under *topology.Target, ns string) error {
	warns, err := o.effectiveOrderWarnings(k, under, ns)
	if err != nil {
		return &exitError{Code: 2, Err: err}
	}
	for _, l := range warns {
		fmt.Fprintln(w, "Warning: "+printable.String(l))
	}
	return nil
}

// orderLines are the warnings of the dependences found, and a note when pairs were left out.
func orderLines(deps []order.Dependence, more bool, err error) ([]string, error) {
	if err != nil {
		return nil, err
	}
	var out []string
	for _, d := range deps {
		out = append(out, d.Lines()...)
	}
	if more {
		out = append(out, order.Note())
	}
	return out, nil
}
