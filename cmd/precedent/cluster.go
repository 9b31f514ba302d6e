package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/precedent-dev/precedent/internal/manifest"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/profiles"
)

// clusterFlags are kubectl's connection flags (k8s.io/cli-runtime's ConfigFlags: --kubeconfig,
// --context, --cluster, --user, --as, --as-group, --as-uid, --request-timeout, --server, --token,
// -n, …), so `kubectl precedent …` reads the cluster as kubectl does, plus kubectl's -A.
type clusterFlags struct {
	config        *genericclioptions.ConfigFlags
	allNamespaces bool
	// files are the -f of a simulator (addFiles).
	files []string
	// kind is the --kind of the command ("" for every managed kind): the policy kinds the command
	// needs to list, besides Gateways and HTTPRoutes.
	kind string
}

// add registers the connection flags on cmd; all adds -A/--all-namespaces.
func (f *clusterFlags) add(cmd *cobra.Command, all bool) {
	f.flags().AddFlags(cmd.Flags())
	if all {
		cmd.Flags().BoolVarP(&f.allNamespaces, "all-namespaces", "A", false, "paths in every namespace")
	}
}

// addFiles registers a simulator's -f/--filename, which read reads.
func (f *clusterFlags) addFiles(cmd *cobra.Command) {
	cmd.Flags().StringArrayVarP(&f.files, "filename", "f", nil, "file or folder of manifests (repeatable; default: the cluster in the kubeconfig)")
}

func (f *clusterFlags) flags() *genericclioptions.ConfigFlags {
	if f.config == nil {
		f.config = genericclioptions.NewConfigFlags(true)
		// kubectl waits forever by default; a CI job should not. The help shows this default, and
		// --request-timeout 0 still waits forever, as kubectl's does.
		timeout := defaultRequestTimeout
		f.config.Timeout = &timeout
	}
	return f.config
}

// defaultRequestTimeout is --request-timeout when not given.
const defaultRequestTimeout = "30s"

// namespaceFilter returns the namespace whose paths to show ("" for all).
func (f *clusterFlags) namespaceFilter(cfg clientcmd.ClientConfig) (string, error) {
	if f.allNamespaces {
		return "", nil
	}
	ns, _, err := cfg.Namespace() // -n, else the context's namespace, else "default"
	return ns, err
}

// namespaceFlag is the namespace -n names, "" when not given.
func (f *clusterFlags) namespaceFlag() string {
	if n := f.flags().Namespace; n != nil {
		return *n
	}
	return ""
}

// empty reports whether there is no kubeconfig to read a cluster from: no file with a context and
// no --server (kubectl would then try localhost:8080).
func (f *clusterFlags) empty() bool {
	if s := f.flags().APIServer; s != nil && *s != "" {
		return false
	}
	raw, err := f.clientConfig().RawConfig()
	return err == nil && len(raw.Contexts) == 0
}

func (f *clusterFlags) clientConfig() clientcmd.ClientConfig {
	return f.flags().ToRawKubeConfigLoader()
}

// client connects to the cluster of the kubeconfig with the caller's own credentials (and the
// identity --as/--as-group name, as kubectl impersonates).
func (f *clusterFlags) client() (client.Client, clientcmd.ClientConfig, error) {
	cc := f.clientConfig()
	rest, err := f.flags().ToRESTConfig()
	if err != nil {
		return nil, nil, &exitError{Code: 2, Err: fmt.Errorf("loading kubeconfig: %w", err)}
	}
	c, err := client.New(rest, client.Options{})
	if err != nil {
		return nil, nil, &exitError{Code: 2, Err: fmt.Errorf("connecting to the cluster: %w", err)}
	}
	return c, cc, nil
}

// unreachable is the exit-2 error for an API server that gave no answer.
func unreachable(err error) error {
	return &exitError{Code: 2, Err: fmt.Errorf("cannot reach the cluster's API server (check --kubeconfig, --context and the server's address): %w", err)}
}

// isAPIStatus reports whether err is an answer of the API server (a status), not a failure to reach it.
func isAPIStatus(err error) bool {
	var st apierrors.APIStatus
	return errors.As(err, &st)
}

// read is the profile.Read of the simulators: the objects of the -f files, else those of the cluster.
func (f *clusterFlags) read(ctx context.Context, notes io.Writer) ([]*unstructured.Unstructured, error) {
	if len(f.files) > 0 {
		objs, _, err := read(f.files, manifest.Options{Stdin: os.Stdin})
		if u := (*unreadable)(nil); errors.As(err, &u) {
			return nil, &exitError{Code: 2, Err: u.summary()}
		}
		if err != nil {
			return nil, err
		}
		out := make([]*unstructured.Unstructured, len(objs))
		ns := f.namespaceFlag()
		for i, o := range objs {
			// -n gives its namespace to the objects without one, as kubectl apply -n does.
			if gk := o.GroupVersionKind().GroupKind(); ns != "" && o.GetNamespace() == "" && !clusterScoped[gk] && gk != settings.GVK.GroupKind() {
				o.SetNamespace(ns)
			}
			out[i] = o.Unstructured
		}
		return out, nil
	}
	in, _, err := loadCluster(ctx, f, nil, "", notes)
	if err != nil {
		return nil, err
	}
	return in.objects, nil
}

// needed reports whether a command that asks for kind ("" for every managed kind) cannot do
// without listing gvk: Gateways, HTTPRoutes and the policies of that kind.
func needed(gvk schema.GroupVersionKind, reg *policy.Registry, kind string) bool {
	if gvk.Group == topology.Group && (gvk.Kind == "Gateway" || gvk.Kind == "HTTPRoute") {
		return true
	}
	k, managed := reg.Lookup(gvk.GroupKind())
	if !managed {
		return false
	}
	if kind == "" {
		return true
	}
	if want, err := reg.Resolve(kind); err == nil {
		return want.GVK.GroupKind() == k.GVK.GroupKind()
	}
	return strings.EqualFold(k.GVK.Kind, kind) // a name of several groups: the objects decide which

}

// notAllowed is the exit-2 error for a list the identity may not make, naming the permission it
// lacks (verb, resource, API group) as RBAC grants it; the API server's answer follows.
func notAllowed(c client.Client, gvk schema.GroupVersionKind, err error) error {
	resource := strings.ToLower(gvk.Kind) + "s"
	if m, merr := c.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version); merr == nil {
		resource = m.Resource.Resource
	}
	group := gvk.Group
	if group == "" {
		group = `"" (core)`
	}
	return &exitError{Code: 2, Err: errors.New(codeListForbidden.Linef("not allowed to list %s: the identity needs verb list on resource %s in API group %s (a Role in the namespace, or a ClusterRole for every namespace): %v", gvk.Kind, resource, group, err))}
}

// clusterSettings reads the cluster's PrecedentConfig named cluster: the defaults when there is
// none (or its CRD is not installed), or when the caller may not read it (a note on w says so); an
// exit-2 error when it cannot be read otherwise or is invalid.
func clusterSettings(ctx context.Context, c client.Client, w io.Writer) (settings.Settings, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(settings.GVK)
	err := c.Get(ctx, client.ObjectKey{Name: settings.Name}, u)
	switch {
	case meta.IsNoMatchError(err) || apierrors.IsNotFound(err):
		return settings.Defaults(), nil
	case apierrors.IsForbidden(err):
		fmt.Fprintln(w, "Note: "+codeSettingsForbidden.Linef("not allowed to read the cluster's %s %s: using the defaults (give the settings with --config FILE)", settings.GVK.Kind, settings.Name))
		return settings.Defaults(), nil
	case err != nil && !isAPIStatus(err):
		// No answer from the API server at all: --config would not help, every list would fail too.
		return settings.Settings{}, unreachable(err)
	case err != nil:
		return settings.Settings{}, &exitError{Code: 2, Err: fmt.Errorf("reading the cluster's %s %s (give the settings with --config FILE instead): %w", settings.GVK.Kind, settings.Name, err)}
	}
	s, errs := settings.Decode(u)
	if len(errs) > 0 {
		return settings.Settings{}, &exitError{Code: 2, Err: fmt.Errorf("the cluster's %s %s is invalid: %w", settings.GVK.Kind, settings.Name, errs.ToAggregate())}
	}
	return s, nil
}

// loadCluster reads the settings, the topology and the managed policies from the cluster with the
// caller's own credentials (so RBAC decides what they can see). The settings are override when
// given, else the cluster's PrecedentConfig. Kinds whose CRD is not installed are skipped. Policies
// in namespaces the caller cannot list are left out, and a note says so on w; when listing every
// namespace is forbidden, the namespace of the --target (scope) or the namespace filter is listed.
func loadCluster(ctx context.Context, f *clusterFlags, override *settings.Settings, scope string, w io.Writer) (*input, string, error) {
	c, cc, err := f.client()
	if err != nil {
		return nil, "", err
	}
	ns, err := f.namespaceFilter(cc)
	if err != nil {
		return nil, "", &exitError{Code: 2, Err: err}
	}
	var s settings.Settings
	if override != nil {
		s = *override
	} else if s, err = clusterSettings(ctx, c, w); err != nil {
		return nil, "", err
	}
	only := ns
	if scope != "" {
		only, ns = scope, "" // a target is looked up in its own namespace, whatever the context's
	}
	reg := s.Registry()
	gvks := []schema.GroupVersionKind{
		{Group: topology.Group, Version: "v1", Kind: "GatewayClass"},
		{Group: topology.Group, Version: "v1", Kind: "Gateway"},
		{Group: topology.Group, Version: "v1", Kind: "HTTPRoute"},
		{Group: topology.Group, Version: "v1", Kind: "GRPCRoute"},
		// Optional topology kinds (Gateway API v1.6 standard): left out when not installed.
		{Group: topology.Group, Version: "v1", Kind: "ListenerSet"},
		{Group: topology.Group, Version: "v1", Kind: "TLSRoute"},
		{Group: topology.Group, Version: "v1", Kind: "TCPRoute"},
		{Group: topology.Group, Version: "v1", Kind: "UDPRoute"},
		{Version: "v1", Kind: "Namespace"},
	}
	for _, k := range reg.Kinds() {
		gvks = append(gvks, k.GVK)
	}
	// What the profiles' views read besides (AccessPolicies and Backends, mesh policies and
	// Dataplanes, ListenerSets and ReferenceGrants), in the version the cluster serves.
	for _, gk := range profiles.Sources(s) {
		if slices.ContainsFunc(gvks, func(g schema.GroupVersionKind) bool { return g.GroupKind() == gk }) {
			continue // listed already (a topology kind)
		}
		m, err := c.RESTMapper().RESTMapping(gk)
		if err != nil {
			continue // CRD not installed
		}
		gvks = append(gvks, m.GroupVersionKind)
	}
	var objs []*unstructured.Unstructured
	for _, gvk := range gvks {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		err := c.List(ctx, list)
		switch {
		case meta.IsNoMatchError(err) || apierrors.IsNotFound(err):
			continue // CRD not installed
		case apierrors.IsForbidden(err) && only != "":
			// Fall back to the one namespace the caller asked about, as kubectl -n reads it.
			err = c.List(ctx, list, client.InNamespace(only))
		}
		if apierrors.IsForbidden(err) {
			if needed(gvk, reg, f.kind) {
				return nil, "", notAllowed(c, gvk, err)
			}
			continue // a kind the command can do without: left out, not worth a line
		}
		if err != nil && !isAPIStatus(err) && !meta.IsNoMatchError(err) {
			return nil, "", unreachable(err)
		}
		if err != nil {
			return nil, "", fmt.Errorf("listing %s: %w", gvk.Kind, err)
		}
		for i := range list.Items {
			objs = append(objs, &list.Items[i])
		}
	}
	in, err := newInput(s, objs, nil)
	return in, ns, err
}
