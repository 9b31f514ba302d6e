package main

import "github.com/precedent-dev/precedent/internal/warning"

// codeUnchecked is the code of the line that lists policies of kinds no profile checks (unchecked.go).
var codeUnchecked = warning.Register(warning.Code{ID: "PRC-W024", Severity: warning.SeverityWarning,
	Title:   "policies not checked",
	Meaning: "the input holds policy-like objects of a kind Precedent does not manage: they are not checked, and their effect is not predicted",
	Fix:     "add the kind under spec.kinds of the PrecedentConfig (in the input or --config), or leave it out of the input"})

// The codes of the input itself: what -f reads (input.go).
var (
	codeUnreadable = warning.Register(warning.Code{ID: "PRC-E040", Severity: warning.SeverityError,
		Title:   "input not readable",
		Meaning: "a path does not exist or holds no object, a document is not valid YAML or JSON (the line of the error is given), a document named by path is not a Kubernetes object, or a kustomization does not build; nothing is reviewed and the exit status is 2",
		Fix:     "fix the file at the line given, or leave the path out (--exclude, .precedentignore)"})
	codeDuplicate = warning.Register(warning.Code{ID: "PRC-E041", Severity: warning.SeverityError,
		Title:   "object defined twice",
		Meaning: "two documents of the input define the same object (group, kind, namespace, name); the first is reviewed, the later left out, as applying both would leave only one",
		Fix:     "remove one of the two, or give them different names or namespaces"})
	codeMetadata = warning.Register(warning.Code{ID: "PRC-E042", Severity: warning.SeverityError,
		Title:   "name or namespace missing",
		Meaning: "the object has no metadata.name, or is of a namespaced kind and has no metadata.namespace while no -n gives one: the API server would reject it; it is left out",
		Fix:     "set metadata.name; set metadata.namespace, or give the namespace with -n as kubectl apply -n does"})
	codeSchema = warning.Register(warning.Code{ID: "PRC-E043", Severity: warning.SeverityError,
		Title:   "rejected by the CRD's schema",
		Meaning: "the object breaks the OpenAPI schema or an x-kubernetes-validations rule of its CustomResourceDefinition (built in, in the input or given with --crd): the API server would reject it; it is left out of the other checks",
		Fix:     "fix the field the error names, as the CRD's schema says"})
	codeRulesSkipped = warning.Register(warning.Code{ID: "PRC-N041", Severity: warning.SeverityNote,
		Title:   "CRD rules not checked",
		Meaning: "the object broke its CRD's schema, so the API server (and Precedent) did not run its x-kubernetes-validations rules; they are checked once the schema errors are fixed",
		Fix:     "fix the schema errors listed before it"})
	codeSkipped = warning.Register(warning.Code{ID: "PRC-N040", Severity: warning.SeverityNote,
		Title:   "file skipped",
		Meaning: "a file found in a folder holds no Kubernetes object (a Helm template, a values file, a CI workflow, a kustomization read with --no-kustomize) and is left out",
		Fix:     "nothing, or leave the path out (--exclude, .precedentignore) to silence the note; render templates first (helm template) to review their output"})
	codeLeftOut = warning.Register(warning.Code{ID: "PRC-N042", Severity: warning.SeverityNote,
		Title:   "object left out",
		Meaning: "effective, explain and diff leave out an object the API server would reject (the error validate gives it): the views show the cluster as it would be without it",
		Fix:     "run precedent validate on the input and fix the error"})
	codeUnnamedRule = warning.Register(warning.Code{ID: "PRC-N043", Severity: warning.SeverityNote,
		Title:   "unnamed route rule",
		Meaning: "a route rule has no name: the views name it by its index (rule-0, …), which changes when rules are reordered",
		Fix:     "give the rule a name (spec.rules[].name)"})
)

// The codes of reading the cluster (cluster.go).
var (
	codeListForbidden = warning.Register(warning.Code{ID: "PRC-E044", Severity: warning.SeverityError,
		Title:   "not allowed to list",
		Meaning: "the identity the command runs as (the kubeconfig's user, or --as) may not list a kind the command needs (Gateways, HTTPRoutes, the policies of --kind, or every managed kind without it), in every namespace nor in the namespace asked about: its answer would be wrong, so there is none (exit 2)",
		Fix:     "grant the identity the list verb on the resource and group the error names (a Role in the namespace, or a ClusterRole), or run the command as an identity that has it"})
	codeSettingsForbidden = warning.Register(warning.Code{ID: "PRC-N044", Severity: warning.SeverityNote,
		Title:   "cluster settings not readable",
		Meaning: "the identity may not read the cluster's PrecedentConfig named cluster: the command uses the default settings, which can differ from the cluster's",
		Fix:     "give the settings with --config FILE, or grant get on precedentconfigs.policy.precedent.dev"})
)

// codeExportDefaults is the note of export without a kubeconfig (export.go).
var codeExportDefaults = warning.Register(warning.Code{ID: "PRC-N045", Severity: warning.SeverityNote,
	Title:   "export of the shipped kinds",
	Meaning: "export found no kubeconfig and no --config: it exports for the kinds Precedent ships, not for kinds a cluster's PrecedentConfig configures",
	Fix:     "give --config FILE (or a kubeconfig) to export for the configured kinds"})
