package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/precedent-dev/precedent/internal/crdcheck"
	"github.com/precedent-dev/precedent/internal/finding"
	"github.com/precedent-dev/precedent/internal/manifest"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/printable"
	"github.com/precedent-dev/precedent/internal/warning"
)

// readFlags say how -f reads what repositories hold, on every command that reads -f.
type readFlags struct {
	exclude     []string
	noKustomize bool
	// namespace is -n of the commands without kubectl's connection flags (validate).
	namespace string
	hideNotes bool
	showNotes bool
	stdin     io.Reader
}

func (r *readFlags) add(fs *pflag.FlagSet) {
	fs.StringArrayVar(&r.exclude, "exclude", nil, "leave paths out of the folders of -f: a gitignore pattern relative to each folder, e.g. 'charts/' or '*.tpl.yaml' (repeatable; a .precedentignore in a folder adds its own)")
	fs.BoolVar(&r.noKustomize, "no-kustomize", false, "read a folder holding a kustomization.yaml as plain files instead of building it")
	fs.BoolVar(&r.showNotes, "show-notes", true, "print the notes (what the input does, files skipped); false hides them without changing the exit status")
	fs.BoolVarP(&r.hideNotes, "quiet", "q", false, "hide the notes (--show-notes=false)")
}

// notes reports whether notes are printed.
func (r *readFlags) notes() bool { return r.showNotes && !r.hideNotes }

// shown is fs without its notes when they are hidden.
func (r *readFlags) shown(fs []finding.Finding) []finding.Finding {
	if r.notes() {
		return fs
	}
	return finding.Without(fs, warning.SeverityNote)
}

// options are the manifest reader's options of the flags.
func (r *readFlags) options() manifest.Options {
	return manifest.Options{Stdin: r.stdin, Exclude: r.exclude, NoKustomize: r.noKustomize}
}

// unreadable is the exit-2 error of an input that cannot be read: each document or path that
// failed is a finding (PRC-E040) with its file and line, which validate and diff write in every
// output format, so that -o json and -o sarif stay complete documents.
type unreadable struct {
	findings []finding.Finding
}

func (u *unreadable) Error() string {
	var lines []string
	for _, f := range u.findings {
		if f.Severity == warning.SeverityError {
			lines = append(lines, printable.String(f.Text()))
		}
	}
	return strings.Join(lines, "\n")
}

// summary is the error line of an input that cannot be read: its first problem, and how many more.
func (u *unreadable) summary() error {
	var first string
	n := 0
	for _, f := range u.findings {
		if f.Severity == warning.SeverityError {
			if n == 0 {
				_, first = warning.Split(f.Text())
			}
			n++
		}
	}
	if n > 1 {
		return fmt.Errorf("the input cannot be read: %s (and %d more)", printable.String(first), n-1)
	}
	return fmt.Errorf("the input cannot be read: %s", printable.String(first))
}

// read reads paths (an exit-2 error for "-" given twice); the documents it could not read are an
// *unreadable error, and the files it skipped are notes.
func read(paths []string, opt manifest.Options) ([]manifest.Object, []finding.Finding, error) {
	in, err := manifest.Load(paths, opt)
	if err != nil {
		return nil, nil, &exitError{Code: 2, Err: err}
	}
	var fs []finding.Finding
	for _, p := range in.Problems {
		msg := p.Err.Error()
		if p.Index >= 0 {
			msg = fmt.Sprintf("document %d: %s", p.Index, msg)
		}
		fs = append(fs, finding.Input(codeUnreadable, p.File, p.Line, msg))
	}
	for _, s := range in.Skipped {
		fs = append(fs, finding.Input(codeSkipped, s.File, 0, "skipped: "+s.Reason))
	}
	if len(in.Problems) > 0 {
		return nil, fs, &unreadable{findings: fs}
	}
	return in.Objects, fs, nil
}

// emptyInput reports whether err says only that the paths hold no object or do not exist (a base
// before the first manifests were added).
func emptyInput(err error) bool {
	var u *unreadable
	if !errors.As(err, &u) {
		return false
	}
	for _, f := range u.findings {
		if f.Severity == warning.SeverityError && !strings.HasSuffix(f.Message, "no such file or directory") && !strings.Contains(f.Message, "holds no") {
			return false
		}
	}
	return true
}

// sourced is an object of the input and where it starts.
type sourced struct {
	u    *unstructured.Unstructured
	file string
	line int
}

// clusterScoped are the kinds of the API server's own groups that are not namespaced.
var clusterScoped = map[schema.GroupKind]bool{
	{Group: "gateway.networking.k8s.io", Kind: "GatewayClass"}: true,
	{Kind: "Namespace"}:        true,
	{Kind: "Node"}:             true,
	{Kind: "PersistentVolume"}: true,
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}:                         true,
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}:                  true,
	{Group: "storage.k8s.io", Kind: "StorageClass"}:                                   true,
	{Group: "networking.k8s.io", Kind: "IngressClass"}:                                true,
	{Group: "scheduling.k8s.io", Kind: "PriorityClass"}:                               true,
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingWebhookConfiguration"}:   true,
	{Group: "admissionregistration.k8s.io", Kind: "MutatingWebhookConfiguration"}:     true,
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicy"}:        true,
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicyBinding"}: true,
	{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}:                 true,
	{Group: "kuma.io", Kind: "Mesh"}:                                                  true,
	{Group: "apiregistration.k8s.io", Kind: "APIService"}:                             true,
}

// namespacedGroups are the API server's own groups (and Gateway API's), whose kinds are namespaced
// unless clusterScoped says otherwise.
var namespacedGroups = map[string]bool{"": true, "apps": true, "batch": true, "networking.k8s.io": true,
	"rbac.authorization.k8s.io": true, "policy": true, "autoscaling": true, "discovery.k8s.io": true,
	"gateway.networking.k8s.io": true}

// scope says whether objects of gk are namespaced, and whether that is known: by its CRD (of the
// input, --crd or built in), by the kinds Precedent manages (policies are namespaced), else by the
// API server's own groups.
func scope(gk schema.GroupKind, checker *crdcheck.Checker, reg *policy.Registry) (namespaced, known bool) {
	if ns, ok := checker.Namespaced(gk); ok {
		return ns, true
	}
	if clusterScoped[gk] {
		return false, true
	}
	if _, ok := reg.Lookup(gk); ok {
		return true, true
	}
	return namespacedGroups[gk.Group], namespacedGroups[gk.Group]
}

// admit does to the objects what the API server's object-meta validation and kubectl apply -n do
// before anything else: an object without a namespace of a kind that has one gets ns (-n); one
// without a name, or without a namespace where no -n gives one, is an error (PRC-E042, as the API
// server words it) and left out; the same object (group, kind, namespace, name) twice is an error
// (PRC-E041) naming both places, and the later one is left out.
func admit(objs []sourced, ns string, checker *crdcheck.Checker, reg *policy.Registry) ([]sourced, []finding.Finding) {
	var errs []finding.Finding
	first := make(map[objectKey]sourced, len(objs))
	kept := objs[:0:0]
	for _, o := range objs {
		u := o.u
		namespaced, known := scope(u.GroupVersionKind().GroupKind(), checker, reg)
		if u.GetNamespace() == "" && ns != "" && (namespaced || !known) {
			u.SetNamespace(ns)
		}
		var fe field.ErrorList
		if u.GetName() == "" && u.GetGenerateName() == "" {
			fe = append(fe, field.Required(field.NewPath("metadata", "name"), "name or generateName is required"))
		}
		if u.GetNamespace() == "" && namespaced && known {
			fe = append(fe, field.Required(field.NewPath("metadata", "namespace"), "set it, or give -n as kubectl apply -n does"))
		}
		if len(fe) > 0 {
			errs = append(errs, at(coded(finding.Errors(u, fe, nil), func(*field.Error) *warning.Code { return codeMetadata }, fe), o)...)
			continue
		}
		k := keyOf(u)
		if prev, dup := first[k]; dup {
			d := &field.Error{Type: field.ErrorTypeDuplicate, Field: "metadata.name", BadValue: u.GetName(),
				Detail: fmt.Sprintf("%s %s is defined at %s:%d and again at %s:%d; the first is reviewed, this one left out", u.GetKind(), objectName(u), prev.file, prev.line, o.file, o.line)}
			errs = append(errs, at([]finding.Finding{finding.Errors(u, field.ErrorList{d}, nil)[0].WithCode(codeDuplicate)}, o)...)
			continue
		}
		first[k] = o
		kept = append(kept, o)
	}
	return kept, errs
}

// objectName is "namespace/name", or the name of an object without a namespace.
func objectName(u *unstructured.Unstructured) string {
	if u.GetNamespace() == "" {
		return u.GetName()
	}
	return u.GetNamespace() + "/" + u.GetName()
}

// at locates fs at o.
func at(fs []finding.Finding, o sourced) []finding.Finding {
	for i := range fs {
		fs[i].File, fs[i].Line = o.file, o.line
	}
	return fs
}

// coded gives each finding of errs (fs[i] of errs[i]) the code code(errs[i]).
func coded(fs []finding.Finding, code func(*field.Error) *warning.Code, errs field.ErrorList) []finding.Finding {
	for i := range fs {
		fs[i] = fs[i].WithCode(code(errs[i]))
	}
	return fs
}

// schemaCode is the code of an error of a CRD's schema (PRC-E043); the line saying the CEL rules
// were not checked because of the others is a note (PRC-N041), so that one schema error counts once.
func schemaCode(e *field.Error) *warning.Code {
	if strings.HasPrefix(e.Detail, "some validation rules were not checked") {
		return codeRulesSkipped
	}
	return codeSchema
}
