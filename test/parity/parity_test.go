package parity_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/internal/finding"
	"github.com/precedent-dev/precedent/internal/manifest"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/state"
	"github.com/precedent-dev/precedent/internal/warning"
	"github.com/precedent-dev/precedent/profiles"
	"github.com/precedent-dev/precedent/test/harness"
)

const samples = "../../config/samples"

// fixtures are write fixtures of the CLI's tests with policies the webhook rejects: their
// rejections are compared too. (The CLI's many-errors fixture is left out: the API server's schema
// rejects its objects before the webhook, which offline validation checks only with --crd.)
var fixtures = []string{"../../cmd/precedent/testdata/invalid"}

// scheme types the Gateway API kinds as the state holds them.
var scheme, _ = state.NewScheme()

// TestWebhookAndValidateAgree: for every sample folder, each policy's create is answered the same
// by the webhook (server-side dry-run, the other objects of the folder in the cluster) and by
// `precedent validate -f` (the same objects as files, the reviewed one the newest).
func TestWebhookAndValidateAgree(t *testing.T) {
	folders := sampleFolders(t)
	registerKinds(t, folders)
	for _, dir := range append(folders, fixtures...) {
		rel, _ := filepath.Rel(samples, dir)
		if strings.HasPrefix(rel, "..") {
			rel = filepath.Base(dir)
		}
		t.Run(rel, func(t *testing.T) { agree(t, dir) })
	}
}

// registerKinds registers the webhooks for the kinds the samples' PrecedentConfigs manage, which
// reach the webhook whatever the settings in force: it answers for those the settings manage and
// admits the others; and installs the CRDs of the samples' kinds Precedent does not ship.
func registerKinds(t *testing.T, folders []string) {
	var kinds []policy.Kind
	for _, dir := range folders {
		if cfg, _ := read(t, dir); cfg != nil {
			s, errs := settings.Decode(cfg)
			if len(errs) > 0 {
				t.Fatalf("%s: %v", dir, errs.ToAggregate())
			}
			kinds = append(kinds, s.Registry().Kinds()...)
		}
	}
	kinds = append(kinds, settings.Defaults().Registry().Kinds()...)
	if err := h.Env.RegisterWebhooks(context.Background(), c, kinds); err != nil {
		t.Fatal(err)
	}
	schemaless(t, "kuma.io", "v1alpha1", "Dataplane", "dataplanes")
	schemaless(t, "agentic.prototype.x-k8s.io", "v0alpha0", "XBackend", "xbackends")
}

// sampleFolders lists the folders of config/samples that hold manifests, those with a
// PrecedentConfig of their own last (the webhook configuration for their kinds settles meanwhile).
func sampleFolders(t *testing.T) []string {
	var plain, configured []string
	err := filepath.WalkDir(samples, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		yamls, _ := filepath.Glob(filepath.Join(path, "*.yaml"))
		if len(yamls) == 0 {
			return nil
		}
		if _, err := os.Stat(filepath.Join(path, "precedentconfig.yaml")); err == nil || componentConfig(t, path) != nil {
			configured = append(configured, path)
		} else {
			plain = append(plain, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return append(plain, configured...)
}

// componentConfig is the PrecedentConfig of the kustomize component named as the sample folder dir
// (config/<name>/precedentconfig.yaml: the kind lines of Kuadrant's, Envoy Gateway's, … kinds), nil
// when there is none.
func componentConfig(t *testing.T, dir string) *unstructured.Unstructured {
	t.Helper()
	path := filepath.Join(samples, "..", filepath.Base(dir), "precedentconfig.yaml")
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	objs, err := manifest.Read(path)
	if err != nil || len(objs) != 1 {
		t.Fatalf("%s: %v", path, err)
	}
	return objs[0].Unstructured
}

// read returns the PrecedentConfig of dir (nil for none) and its other objects, in file order.
func read(t *testing.T, dir string) (*unstructured.Unstructured, []*unstructured.Unstructured) {
	t.Helper()
	objs, err := manifest.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	var cfg *unstructured.Unstructured
	if u := componentConfig(t, dir); u != nil {
		cfg = u // the kind lines of the ecosystem's component, which the samples no longer carry
	}
	var out []*unstructured.Unstructured
	for _, o := range objs {
		if o.GroupVersionKind().GroupKind() == settings.GVK.GroupKind() {
			cfg = o.Unstructured
			continue
		}
		if o.GetNamespace() == "" && o.GetKind() != "Namespace" && o.GetKind() != "GatewayClass" {
			o.SetNamespace("default")
		}
		out = append(out, o.Unstructured)
	}
	return cfg, out
}

func agree(t *testing.T, dir string) {
	ctx := context.Background()
	cfg, objs := read(t, dir)
	s := settings.Defaults()
	spec := map[string]interface{}{}
	if cfg != nil {
		var errs field.ErrorList
		if s, errs = settings.Decode(cfg); len(errs) > 0 {
			t.Fatal(errs.ToAggregate())
		}
		spec, _, _ = unstructured.NestedMap(cfg.Object, "spec")
	}
	spec["notes"] = true // validate prints notes always: the webhook sends them when asked
	h.SetConfig(t, c, spec)
	reg := s.Registry()
	isPolicy := func(u *unstructured.Unstructured) bool {
		return profiles.For(u.GroupVersionKind().GroupKind(), reg) != nil
	}

	// The folder in the cluster: namespaces, then the topology, then the policies, in file order.
	sort.SliceStable(objs, func(i, j int) bool { return rank(objs[i], isPolicy) < rank(objs[j], isPolicy) })
	var created, policies, denied []*unstructured.Unstructured
	for _, u := range objs {
		u = u.DeepCopy()
		if u.GetKind() != "Namespace" {
			ensureNamespace(t, u.GetNamespace())
		}
		err := create(t, u)
		switch {
		case apierrors.IsAlreadyExists(err) && u.GetKind() == "Namespace":
			continue
		case err != nil && isPolicy(u) && strings.Contains(err.Error(), deniedByWebhook):
			denied = append(denied, u) // compared below, against the objects admitted
			continue
		case err != nil:
			t.Logf("%s %s/%s not created (left out of both answers): %v", u.GetKind(), u.GetNamespace(), u.GetName(), err)
			continue
		}
		created = append(created, u)
		if isPolicy(u) {
			policies = append(policies, u)
		}
	}
	t.Cleanup(func() {
		for i := len(created) - 1; i >= 0; i-- {
			if created[i].GetKind() != "Namespace" {
				_ = c.Delete(ctx, created[i])
				await(created[i], true)
			}
		}
	})
	for _, u := range created {
		await(u, false)
	}
	if len(policies)+len(denied) == 0 {
		t.Fatalf("no policy of %s reached the webhook", dir)
	}
	for _, p := range denied {
		t.Run(key(p)+" (denied)", func(t *testing.T) {
			webhook, at := dryRunCreate(t, p)
			if len(webhook.Errors) == 0 {
				t.Fatalf("the create of %s was denied, and its dry-run admitted", key(p))
			}
			offline := validate(t, cfg, created, p, at)
			if diff := cmp.Diff(webhook, offline); diff != "" {
				t.Errorf("the create of %s: webhook (-) and validate -f (+) disagree:\n%s", key(p), diff)
			}
		})
	}
	sort.Slice(policies, func(i, j int) bool { return key(policies[i]) < key(policies[j]) })
	for _, p := range policies {
		t.Run(key(p), func(t *testing.T) {
			cur := fetch(t, p)
			if err := c.Delete(ctx, cur); err != nil {
				t.Fatal(err)
			}
			await(cur, true)
			webhook, at := dryRunCreate(t, cur)
			offline := validate(t, cfg, created, cur, at)
			re := fresh(cur)
			if err := create(t, re); err != nil {
				t.Fatalf("creating %s again: %v", key(cur), err)
			}
			await(re, false)
			if diff := cmp.Diff(webhook, offline); diff != "" {
				t.Errorf("the create of %s: webhook (-) and validate -f (+) disagree:\n%s", key(cur), diff)
			}
		})
	}
	agreeOnChanges(t, cfg, created, policies)
}

// agreeOnChanges compares, for each policy of policies (all in the cluster with the other objects
// of created), the webhook's answer to its updates and its delete with `precedent diff`'s.
func agreeOnChanges(t *testing.T, cfg *unstructured.Unstructured, created, policies []*unstructured.Unstructured) {
	for _, p := range policies {
		for _, w := range updates(p, policies) {
			t.Run(key(p)+" ("+w.name+")", func(t *testing.T) {
				cur := fetch(t, p)
				x := w.change(clean(cur))
				webhook := dryRunUpdate(t, x)
				offline := diffAnswer(t, cfg, created, cur, x)
				if diff := cmp.Diff(webhook, offline); diff != "" {
					t.Errorf("the update of %s (%s): webhook (-) and diff --base --head (+) disagree:\n%s", key(cur), w.name, diff)
				}
			})
		}
		t.Run(key(p)+" (delete)", func(t *testing.T) {
			cur := fetch(t, p)
			webhook := dryRunDelete(t, cur)
			offline := diffAnswer(t, cfg, created, cur, nil)
			if diff := cmp.Diff(webhook, offline); diff != "" {
				t.Errorf("the delete of %s: webhook (-) and diff --base --head (+) disagree:\n%s", key(cur), diff)
			}
		})
	}
}

// update is one change of a stored object that the suite sends as an update.
type update struct {
	name   string
	change func(*unstructured.Unstructured) *unstructured.Unstructured
}

// updates are the updates sent of u: a label added (its annotations kept), its annotations changed
// (those a profile reads removed, else one added), and, when the folder holds another object of its
// kind in its namespace, that object's spec written to u.
func updates(u *unstructured.Unstructured, objs []*unstructured.Unstructured) []update {
	out := []update{
		{"label added, annotations kept", func(x *unstructured.Unstructured) *unstructured.Unstructured {
			l := x.GetLabels()
			if l == nil {
				l = map[string]string{}
			}
			l["parity.precedent.dev/touched"] = "true"
			x.SetLabels(l)
			return x
		}},
		{"annotations changed", func(x *unstructured.Unstructured) *unstructured.Unstructured {
			a, read := x.GetAnnotations(), false
			for k := range a {
				if profiles.Annotations()[k] {
					delete(a, k)
					read = true
				}
			}
			if !read {
				if a == nil {
					a = map[string]string{}
				}
				a["parity.precedent.dev/touched"] = "true"
			}
			x.SetAnnotations(a)
			return x
		}},
	}
	for _, o := range objs {
		if o.GroupVersionKind() != u.GroupVersionKind() || o.GetNamespace() != u.GetNamespace() || o.GetName() == u.GetName() {
			continue
		}
		spec := o.Object["spec"]
		out = append(out, update{"spec of " + o.GetName(), func(x *unstructured.Unstructured) *unstructured.Unstructured {
			x.Object["spec"] = runtime.DeepCopyJSONValue(spec)
			return x
		}})
		break
	}
	return out
}

// deniedByWebhook starts the message of a write Precedent's validating webhook denies (not the
// CRD's own schema or rules, which offline validation checks only with --crd).
const deniedByWebhook = `admission webhook "policies.precedent.dev" denied the request`

// rank orders namespaces, then the topology and other objects, then policies.
func rank(u *unstructured.Unstructured, isPolicy func(*unstructured.Unstructured) bool) int {
	switch {
	case u.GetKind() == "Namespace":
		return 0
	case isPolicy(u):
		return 2
	}
	return 1
}

func key(u *unstructured.Unstructured) string {
	return u.GetKind() + " " + u.GetNamespace() + "/" + u.GetName()
}

// answer is an admission's answer as validate lines: errors, then warnings.
type answer struct {
	Errors   []string
	Warnings []string
}

// dryRunCreate sends the create of u as a server-side dry-run and returns the webhook's answer as
// validate prints it, and the creationTimestamp the API server gave the object (now, when it
// rejected it).
func dryRunCreate(t *testing.T, u *unstructured.Unstructured) (answer, metav1.Time) {
	t.Helper()
	rec.Take()
	at := metav1.Now().Rfc3339Copy()
	x := fresh(u)
	err := c.Create(context.Background(), x, client.DryRunAll)
	if err == nil {
		at = x.GetCreationTimestamp()
	}
	return answerOf(t, "create", u, err), at
}

// dryRunUpdate sends u, a stored object changed, as a server-side dry-run update.
func dryRunUpdate(t *testing.T, u *unstructured.Unstructured) answer {
	t.Helper()
	rec.Take()
	x := u.DeepCopy()
	x.SetResourceVersion(fetch(t, u).GetResourceVersion())
	return answerOf(t, "update", u, c.Update(context.Background(), x, client.DryRunAll))
}

// dryRunDelete sends the delete of u as a server-side dry-run.
func dryRunDelete(t *testing.T, u *unstructured.Unstructured) answer {
	t.Helper()
	rec.Take()
	return answerOf(t, "delete", u, c.Delete(context.Background(), u.DeepCopy(), client.DryRunAll))
}

// answerOf is the webhook's answer to the write (op) of u that returned err, as validate prints it:
// the causes of a denial as errors, the warnings the write got, then its notes.
func answerOf(t *testing.T, op string, u *unstructured.Unstructured, err error) answer {
	t.Helper()
	var a answer
	subject := u.GetKind() + " " + u.GetNamespace() + "/" + u.GetName() + ": "
	if err != nil {
		var se *apierrors.StatusError
		if !errors.As(err, &se) || se.ErrStatus.Details == nil {
			t.Fatalf("dry-run %s of %s: %v", op, key(u), err)
		}
		for _, cause := range se.ErrStatus.Details.Causes {
			a.Errors = append(a.Errors, subject+cause.Field+": "+cause.Message)
		}
	}
	var lines []string
	for _, w := range rec.Take() { // as validate prints it: the code, then the subject once
		lines = append(lines, finding.Warning(finding.ObjectOf(u), w).Text())
	}
	warns, notes := warning.Notes(lines) // validate prints the warnings, then the notes
	a.Warnings = append(warns, notes...)
	return a
}

// validate runs `precedent validate -f` over the objects in the cluster and u, created at, and
// returns its answer on u.
func validate(t *testing.T, cfg *unstructured.Unstructured, objs []*unstructured.Unstructured, u *unstructured.Unstructured, at metav1.Time) answer {
	t.Helper()
	var docs [][]byte
	for _, o := range objs {
		if o.GetKind() == u.GetKind() && o.GetNamespace() == u.GetNamespace() && o.GetName() == u.GetName() {
			continue
		}
		cur := fetch(t, o)
		docs = append(docs, document(t, clean(cur)))
	}
	x := clean(u)
	x.SetCreationTimestamp(at) // as the API server set it on the dry-run
	docs = append(docs, document(t, x))
	if cfg != nil {
		docs = append(docs, document(t, cfg))
	}
	file := filepath.Join(t.TempDir(), "input.yaml")
	if err := os.WriteFile(file, bytes.Join(docs, []byte("---\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	return answerIn(runCLI(t, "validate", "-f", file), u)
}

// answerIn is what the CLI's output out says of u: the errors and the warnings and notes about it.
func answerIn(out string, u *unstructured.Unstructured) answer {
	subject := u.GetKind() + " " + u.GetNamespace() + "/" + u.GetName() + ": "
	var a answer
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		finding, isFinding := strings.CutPrefix(line, "Warning: ")
		if !isFinding {
			finding, isFinding = strings.CutPrefix(line, "Note: ")
		}
		_, text := warning.Split(finding)
		switch {
		case isFinding && (strings.HasPrefix(text, subject) || strings.HasPrefix(text, strings.TrimSuffix(subject, ": ")+" ")):
			// A warning that starts with its subject names it once, without the colon.
			a.Warnings = append(a.Warnings, finding)
		case strings.HasPrefix(line, subject):
			a.Errors = append(a.Errors, line)
		case !isFinding && strings.HasPrefix(text, subject):
			// An error in the API server's own words (a CRD's schema) has its code first.
			a.Errors = append(a.Errors, text)
		}
	}
	return a
}

// diffAnswer runs `precedent diff --base --head` from the objects in the cluster (objs, read
// again, and cfg) to the same with u replaced by x (x nil: u deleted), and returns its answer on u.
func diffAnswer(t *testing.T, cfg *unstructured.Unstructured, objs []*unstructured.Unstructured, u, x *unstructured.Unstructured) answer {
	t.Helper()
	var base, head [][]byte
	for _, o := range objs {
		cur := document(t, clean(fetch(t, o)))
		base = append(base, cur)
		if o.GetKind() == u.GetKind() && o.GetNamespace() == u.GetNamespace() && o.GetName() == u.GetName() {
			if x != nil {
				head = append(head, document(t, clean(x)))
			}
			continue
		}
		head = append(head, cur)
	}
	if cfg != nil {
		base, head = append(base, document(t, cfg)), append(head, document(t, cfg))
	}
	dir := t.TempDir()
	write := func(name string, docs [][]byte) string {
		path := filepath.Join(dir, name, "input.yaml")
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, bytes.Join(docs, []byte("---\n")), 0o600); err != nil {
			t.Fatal(err)
		}
		return filepath.Dir(path)
	}
	out := runCLI(t, "diff", "--base", write("base", base), "--head", write("head", head))
	return answerIn(out, u)
}

// runCLI runs the precedent binary, which exits 0 (nothing to say), 1 (findings or changes) or 2
// (diff: errors the webhook would reject), and returns its standard output.
func runCLI(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() > 2 || (ee.ExitCode() == 2 && !strings.Contains(errb.String(), "the webhook would reject")) {
			t.Fatalf("precedent %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errb.String())
		}
	}
	return out.String()
}

func document(t *testing.T, u *unstructured.Unstructured) []byte {
	raw, err := yaml.Marshal(u.Object)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// clean is u as a manifest that keeps what the cluster decided (uid, creationTimestamp,
// generation) and drops what no reader of policies uses.
func clean(u *unstructured.Unstructured) *unstructured.Unstructured {
	x := u.DeepCopy()
	x.SetManagedFields(nil)
	x.SetResourceVersion("")
	delete(x.Object, "status")
	return x
}

// fresh is u as a new object to create.
func fresh(u *unstructured.Unstructured) *unstructured.Unstructured {
	x := clean(u)
	x.SetUID("")
	x.SetGeneration(0)
	x.SetCreationTimestamp(metav1.Time{})
	return x
}

func fetch(t *testing.T, u *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	cur := &unstructured.Unstructured{}
	cur.SetGroupVersionKind(u.GroupVersionKind())
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(u), cur); err != nil {
		t.Fatalf("reading %s: %v", key(u), err)
	}
	return cur
}

// create creates u, again while the webhook answers that the cache of a kind the settings have
// just started to manage is not synced yet (the API server's client would retry it too).
func create(t *testing.T, u *unstructured.Unstructured) error {
	t.Helper()
	var err error
	harness.EventuallyWithin(t, 30*time.Second, "the webhook's caches of "+key(u)+"'s kinds are synced", func() (bool, string) {
		err = c.Create(context.Background(), u)
		return err == nil || !strings.HasSuffix(err.Error(), "not synced yet: retry"), harness.ErrString(err)
	})
	return err
}

// await waits until the webhooks' state has seen u (or its delete), in the form the state holds it:
// typed for the Gateway API kinds, metadata for Namespaces, unstructured for the rest.
func await(u *unstructured.Unstructured, deleted bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	h.State.AwaitCaught(ctx, stored(u), deleted)
}

func stored(u *unstructured.Unstructured) client.Object {
	gvk := u.GroupVersionKind()
	if gvk.Group == "" && gvk.Kind == "Namespace" {
		m := &metav1.PartialObjectMetadata{}
		m.SetGroupVersionKind(gvk)
		m.ObjectMeta = metav1.ObjectMeta{Name: u.GetName(), ResourceVersion: u.GetResourceVersion()}
		return m
	}
	if gvk.Group != "gateway.networking.k8s.io" || !scheme.Recognizes(gvk) {
		return u
	}
	obj, err := scheme.New(gvk)
	if err != nil {
		return u
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj); err != nil {
		return u
	}
	return obj.(client.Object)
}

func ensureNamespace(t *testing.T, ns string) {
	if ns == "" {
		return
	}
	n := &unstructured.Unstructured{}
	n.SetAPIVersion("v1")
	n.SetKind("Namespace")
	n.SetName(ns)
	if err := c.Create(context.Background(), n); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

// schemaless installs, unless it is installed, a CRD for group/version kind whose objects may hold any field, as the samples
// need for kinds whose CRDs Precedent does not ship (Kuma's Dataplane, the agentic XBackend).
func schemaless(t *testing.T, group, version, kind, plural string) {
	t.Helper()
	crd := harness.Object(`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: ` + plural + `.` + group + `}
spec:
  group: ` + group + `
  names: {kind: ` + kind + `, listKind: ` + kind + `List, plural: ` + plural + `, singular: ` + strings.ToLower(kind) + `}
  scope: Namespaced
  versions:
  - name: ` + version + `
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}`)
	switch err := c.Create(context.Background(), crd); {
	case apierrors.IsAlreadyExists(err): // installed with Precedent's CRDs
	case err != nil:
		t.Fatal(err)
	default:
		t.Cleanup(func() { _ = c.Delete(context.Background(), crd) })
	}
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(schema.GroupVersionKind{Group: group, Version: version, Kind: kind + "List"})
	harness.EventuallyWithin(t, time.Minute, "the CRD of "+kind+" is served", func() (bool, string) {
		err := c.List(context.Background(), l, client.Limit(1))
		return err == nil, harness.ErrString(err)
	})
}
