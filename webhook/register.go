package webhook

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-logr/logr"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/access"
	"github.com/precedent-dev/precedent/config"
	"github.com/precedent-dev/precedent/mesh"
	"github.com/precedent-dev/precedent/policy"
	"github.com/precedent-dev/precedent/settings"
	"github.com/precedent-dev/precedent/state"
)

// Paths the handlers are served on.
const (
	ValidatePath = "/validate"
	MutatePath   = "/mutate"
)

// Names of the webhook configurations and of their webhooks.
const (
	ConfigurationName = "precedent"
	policiesWebhook   = "policies.precedent.dev"
	settingsWebhook   = "precedentconfigs.precedent.dev"
	// deletesWebhook sees the deletes, which only warn: it fails open.
	deletesWebhook  = "deletes.precedent.dev"
	defaultsWebhook = "defaults.precedent.dev"
	// accessDefaultsWebhook defaults the namespace of AccessPolicy ServiceAccount sources.
	accessDefaultsWebhook = "access-defaults.precedent.dev"
)

// EveryReplica is a manager runnable that runs on every replica, leader or not, like the webhooks.
type EveryReplica func(context.Context) error

func (f EveryReplica) Start(ctx context.Context) error { return f(ctx) }
func (EveryReplica) NeedLeaderElection() bool          { return false }

// Options say what Register sets up beside the state.
type Options struct {
	// InstallRetry is how often the managed kinds whose CRD is not installed are looked for again
	// (positive).
	InstallRetry time.Duration
	// Handlers serves the admission handlers on the manager's webhook server. Without them the
	// manager has no webhook server: the state alone, for a reconciler that runs without webhooks.
	Handlers bool
}

// NewScheme knows the built-in kinds and the Gateway API kinds; policies are read unstructured.
func NewScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		return nil, err
	}
	if err := gwv1.Install(s); err != nil {
		return nil, err
	}
	return s, nil
}

// Register watches the settings and the state through the manager's cache, serves the handlers on
// the manager's webhook server (with o.Handlers) and adds a readiness check that passes once the
// cache is synced. Package assembly calls it, as serve, dev and the test harness run it.
func Register(ctx context.Context, mgr manager.Manager, live *config.Live, o Options, log logr.Logger) (*state.State, error) {
	if o.InstallRetry <= 0 {
		return nil, fmt.Errorf("install retry %s: want a positive period", o.InstallRetry)
	}
	if err := live.Watch(ctx, mgr.GetCache()); err != nil {
		if !meta.IsNoMatchError(err) {
			return nil, err
		}
		log.Info("PrecedentConfig CRD not installed: the default settings stay in force")
	}
	st := state.New(log.WithName("state"))
	if err := st.Watch(ctx, mgr.GetCache(), live.Current().Registry().Kinds()); err != nil {
		return nil, err
	}
	// A kind added to the settings is watched before the settings are in force, so its first write
	// is checked against its other policies (or waits for them: Validator.policy); the snapshots of
	// a kind removed from them are no longer rebuilt.
	st.Managed(live.Current().Registry().Kinds())
	live.OnChange(func(s settings.Settings) {
		st.Managed(s.Registry().Kinds())
		if err := st.WatchKinds(s.Registry().Kinds()); err != nil {
			log.Error(err, "watching the policies of the managed kinds")
		}
	})
	// A managed kind whose CRD is installed after the start is looked for again, so its policies are
	// watched before its first write (which would otherwise wait for them: a 503).
	if err := mgr.Add(EveryReplica(func(ctx context.Context) error {
		_ = wait.PollUntilContextCancel(ctx, o.InstallRetry, false, func(context.Context) (bool, error) {
			if err := st.WatchKinds(live.Current().Registry().Kinds()); err != nil {
				log.Error(err, "watching the policies of the managed kinds")
			}
			return false, nil // until the manager stops
		})
		return nil
	})); err != nil {
		return nil, fmt.Errorf("adding the installed-kinds check: %w", err)
	}
	a := live.Current().Access
	var own []schema.GroupKind
	for _, f := range families {
		own = append(own, f.own()...)
	}
	if err := st.WatchProfiles(ctx, mgr.GetCache(), mgr.GetRESTMapper(), own, schema.GroupKind{Group: a.BackendGroup, Kind: a.BackendKind}); err != nil {
		return nil, err
	}
	if o.Handlers {
		srv := mgr.GetWebhookServer()
		srv.Register(ValidatePath, &admission.Webhook{Handler: &Validator{Settings: live, State: st, Log: log.WithName("validate")}})
		srv.Register(MutatePath, &admission.Webhook{Handler: &Defaulter{Settings: live, Log: log.WithName("mutate")}})
	}
	// A replica reports ready once its informers have listed and its snapshots are built and folded
	// (Prepare), so its first admissions cost what steady-state ones do.
	if err := mgr.Add(EveryReplica(func(ctx context.Context) error {
		_ = wait.PollUntilContextCancel(ctx, 50*time.Millisecond, true, func(context.Context) (bool, error) {
			if !st.Synced() {
				return false, nil
			}
			s := live.Current()
			st.PrepareAccess(s.Access) // before Prepare, which marks the replica ready
			if err := st.Prepare(s.Registry().Kinds(), s.CELCostLimit); err != nil {
				log.Error(err, "preparing the snapshots")
				return false, nil
			}
			return true, nil
		})
		return nil
	})); err != nil {
		return nil, fmt.Errorf("adding the snapshot preparation: %w", err)
	}
	if err := mgr.AddReadyzCheck("policy-cache", func(*http.Request) error {
		switch {
		case !st.Synced():
			return errors.New("policy cache not synced")
		case !st.Prepared():
			return errors.New("snapshots not built yet")
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("adding the readiness check: %w", err)
	}
	return st, nil
}

// ClientConfig says how the API server reaches a path of the webhook server.
type ClientConfig func(path string) admissionregistrationv1.WebhookClientConfig

// URLClientConfig reaches the server at base (e.g. https://127.0.0.1:9443) with caBundle.
func URLClientConfig(base string, caBundle []byte) ClientConfig {
	return func(path string) admissionregistrationv1.WebhookClientConfig {
		u := strings.TrimSuffix(base, "/") + path
		return admissionregistrationv1.WebhookClientConfig{URL: &u, CABundle: caBundle}
	}
}

// mutateCondition is evaluated by the API server: only a defaults or overrides block without a
// strategy reaches the mutating webhook. It applies to configured kinds only (NeedsDefaulting): the
// shipped CRDs default strategy in their schema and are not registered for this webhook at all.
const mutateCondition = `has(object.spec) && ((has(object.spec.defaults) && !has(object.spec.defaults.strategy)) || (has(object.spec.overrides) && !has(object.spec.overrides.strategy)))`

// accessCondition: only an AccessPolicy with a ServiceAccount source lacking a namespace reaches the
// mutating webhook, which defaults it to the policy's namespace.
const accessCondition = `has(object.spec) && has(object.spec.rules) && object.spec.rules.exists(r, has(r.source) && has(r.source.serviceAccount) && !has(r.source.serviceAccount.namespace))`

// NeedsDefaulting reports whether writes of kind k may need the mutating webhook's strategy
// default: a defaults-overrides kind whose CRD is not one of Precedent's. The shipped CRDs default
// `strategy` in their schema, which the API server applies before admission, so registering the
// mutating webhook for them would only make the API server evaluate its matchConditions on every
// write (about 65 µs measured by `make bench-admission`) for a call that never happens.
func NeedsDefaulting(k policy.Kind) bool {
	return k.Profile == policy.ProfileDefaultsOverrides && k.GVK.Group != policy.Group
}

// Configurations builds the webhook configurations for kinds (plus the shipped access and mesh
// kinds, kube-agentic-networking's XAccessPolicy and PrecedentConfig): admission review v1, no side
// effects, 5 s. Creates and updates fail closed (failurePolicy Fail); deletes, which the webhook
// only warns about, are in an entry of their own that fails open (Ignore), so a delete never waits
// for Precedent to be up.
func Configurations(kinds []policy.Kind, cc ClientConfig) (*admissionregistrationv1.MutatingWebhookConfiguration, *admissionregistrationv1.ValidatingWebhookConfiguration) {
	var policyRules, deleteRules, defaultRules []admissionregistrationv1.RuleWithOperations
	cu := []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}
	del := []admissionregistrationv1.OperationType{admissionregistrationv1.Delete}
	namespaced := func(group, version, kind string, projectDelete bool) {
		policyRules = append(policyRules, rule(group, version, Plural(kind), cu, admissionregistrationv1.NamespacedScope))
		if projectDelete {
			deleteRules = append(deleteRules, rule(group, version, Plural(kind), del, admissionregistrationv1.NamespacedScope))
		}
	}
	for _, k := range kinds {
		namespaced(k.GVK.Group, k.GVK.Version, k.GVK.Kind, true)
		if NeedsDefaulting(k) {
			defaultRules = append(defaultRules, rule(k.GVK.Group, k.GVK.Version, Plural(k.GVK.Kind), cu, admissionregistrationv1.NamespacedScope))
		}
	}
	// AccessPolicy deletions are projected too (what the removal opens or revokes); mesh ones are not.
	namespaced(policy.Group, "v1alpha1", access.AccessPolicyKind.Kind, true)
	for _, kind := range []string{mesh.KindMeshTimeout, mesh.KindMeshTrafficPermission} {
		namespaced(policy.Group, "v1alpha1", kind, false)
	}
	// kube-agentic-networking's XAccessPolicy, in whatever version its CRD serves: a rule for a
	// resource that is not installed matches nothing and costs nothing, so it is always there and the
	// webhook checks XAccessPolicies from the moment their CRD appears, without re-registering.
	x := access.XAccessPolicyKind
	namespaced(x.Group, "*", x.Kind, true)
	// Deleting the PrecedentConfig puts the defaults in force: a warning, never a denial.
	deleteRules = append(deleteRules, rule(settings.GVK.Group, settings.GVK.Version, "precedentconfigs", del, admissionregistrationv1.ClusterScope))
	accessRules := []admissionregistrationv1.RuleWithOperations{
		rule(policy.Group, "v1alpha1", Plural(access.AccessPolicyKind.Kind), cu, admissionregistrationv1.NamespacedScope),
		rule(x.Group, "*", Plural(x.Kind), cu, admissionregistrationv1.NamespacedScope),
	}
	none := admissionregistrationv1.SideEffectClassNone
	fail, ignore := admissionregistrationv1.Fail, admissionregistrationv1.Ignore
	timeout := int32(5)
	equivalent := admissionregistrationv1.Equivalent
	validating := func(name string, rules []admissionregistrationv1.RuleWithOperations, fp *admissionregistrationv1.FailurePolicyType) admissionregistrationv1.ValidatingWebhook {
		return admissionregistrationv1.ValidatingWebhook{
			Name: name, ClientConfig: cc(ValidatePath), Rules: rules,
			AdmissionReviewVersions: []string{"v1"}, SideEffects: &none, FailurePolicy: fp,
			TimeoutSeconds: &timeout, MatchPolicy: &equivalent,
		}
	}
	v := &admissionregistrationv1.ValidatingWebhookConfiguration{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration"},
		ObjectMeta: metav1.ObjectMeta{Name: ConfigurationName},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{
			validating(policiesWebhook, policyRules, &fail),
			validating(settingsWebhook, []admissionregistrationv1.RuleWithOperations{rule(settings.GVK.Group, settings.GVK.Version, "precedentconfigs", cu, admissionregistrationv1.ClusterScope)}, &fail),
			validating(deletesWebhook, deleteRules, &ignore),
		},
	}
	m := &admissionregistrationv1.MutatingWebhookConfiguration{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingWebhookConfiguration"},
		ObjectMeta: metav1.ObjectMeta{Name: ConfigurationName},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name: defaultsWebhook, ClientConfig: cc(MutatePath), Rules: defaultRules,
			AdmissionReviewVersions: []string{"v1"}, SideEffects: &none, FailurePolicy: &fail,
			TimeoutSeconds: &timeout, MatchPolicy: &equivalent,
			MatchConditions: []admissionregistrationv1.MatchCondition{{Name: "block-without-strategy", Expression: mutateCondition}},
		}, {
			Name: accessDefaultsWebhook, ClientConfig: cc(MutatePath), Rules: accessRules,
			AdmissionReviewVersions: []string{"v1"}, SideEffects: &none, FailurePolicy: &fail,
			TimeoutSeconds: &timeout, MatchPolicy: &equivalent,
			MatchConditions: []admissionregistrationv1.MatchCondition{{Name: "service-account-without-namespace", Expression: accessCondition}},
		}},
	}
	return m, v
}

func rule(group, version, resource string, ops []admissionregistrationv1.OperationType, scope admissionregistrationv1.ScopeType) admissionregistrationv1.RuleWithOperations {
	return admissionregistrationv1.RuleWithOperations{
		Operations: ops,
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{group}, APIVersions: []string{version}, Resources: []string{resource}, Scope: &scope},
	}
}

// Plural is the resource name of a kind, by the rule CRDs follow (AuthPolicy → authpolicies).
func Plural(kind string) string {
	k := strings.ToLower(kind)
	switch {
	case strings.HasSuffix(k, "y") && !strings.HasSuffix(k, "ay") && !strings.HasSuffix(k, "ey") && !strings.HasSuffix(k, "oy"):
		return k[:len(k)-1] + "ies"
	case strings.HasSuffix(k, "s"), strings.HasSuffix(k, "x"), strings.HasSuffix(k, "ch"), strings.HasSuffix(k, "sh"):
		return k + "es"
	}
	return k + "s"
}
