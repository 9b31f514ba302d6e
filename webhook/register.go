package webhook

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/go-logr/logr"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/precedent-dev/precedent/internal/liveconfig"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/state"
	"github.com/precedent-dev/precedent/profiles"
	"github.com/precedent-dev/precedent/profiles/inherited"
)

// prepareQuiet is how long the profiles' caches may stay unprepared before it is logged as an error.
const prepareQuiet = 30 * time.Second

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
	deletesWebhook = "deletes.precedent.dev"
	// warningsWebhook sees the creates and updates a profile only warns about (profile.Resource's
	// WarnOnly: kgateway's HTTPRoutes and Gateways): it fails open too.
	warningsWebhook = "warnings.precedent.dev"
	// defaultsWebhook is the defaults-overrides profile's mutating webhook (its `strategy` default).
	defaultsWebhook = inherited.DefaultsWebhook
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

// Register watches the settings and the state through the manager's cache, serves the handlers on
// the manager's webhook server (with o.Handlers) and adds a readiness check that passes once the
// cache is synced. Package assembly calls it, as serve, dev and the test harness run it.
func Register(ctx context.Context, mgr manager.Manager, live *liveconfig.Live, o Options, log logr.Logger) (*state.State, error) {
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
	// is checked against its other policies (or, until they are listed, its review answers 503:
	// profile.KindListed); the snapshots of a kind removed from them are no longer rebuilt.
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
	if err := st.WatchProfiles(ctx, mgr.GetCache(), mgr.GetRESTMapper(), profiles.Own(), profiles.Backend(live.Current())); err != nil {
		return nil, err
	}
	if o.Handlers {
		srv := mgr.GetWebhookServer()
		srv.Register(ValidatePath, &admission.Webhook{Handler: &Validator{Settings: live, State: st, Log: log.WithName("validate")}})
		srv.Register(MutatePath, &admission.Webhook{Handler: &Defaulter{Settings: live, Log: log.WithName("mutate")}})
	}
	// A replica reports ready once its informers have listed and its snapshots are built and folded
	// (Prepare), so its first admissions cost what steady-state ones do.
	// A derived cache not synced yet is normal for a few seconds after start: it is logged at V(1)
	// until it lasts past prepareQuiet, then as an error every prepareQuiet.
	if err := mgr.Add(EveryReplica(func(ctx context.Context) error {
		start, logged := time.Now(), time.Time{}
		_ = wait.PollUntilContextCancel(ctx, 50*time.Millisecond, true, func(context.Context) (bool, error) {
			if !st.Synced() {
				return false, nil
			}
			if err := profiles.Prepare(st, live.Current()); err != nil {
				if time.Since(start) < prepareQuiet || time.Since(logged) < prepareQuiet {
					log.V(1).Info("preparing the profiles' caches", "err", err.Error())
					return false, nil
				}
				logged = time.Now()
				log.Error(err, "preparing the profiles' caches", "waiting", time.Since(start).Round(time.Second).String())
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

// Configurations builds the webhook configurations for kinds (the registry's) and the kinds the
// registered profiles manage by themselves, plus PrecedentConfig: admission review v1, no side
// effects, 5 s. Every rule comes from the profiles (profile.Webhooks): the registry's kinds in the
// registry's order, then the profiles' own kinds in the profiles' order. Creates and updates fail
// closed (failurePolicy Fail); deletes, which the webhook only warns about, are in an entry of
// their own that fails open (Ignore), so a delete never waits for Precedent to be up; so are the
// writes a profile only warns about (WarnOnly), in the warnings entry, present when there are any.
func Configurations(kinds []policy.Kind, cc ClientConfig) (*admissionregistrationv1.MutatingWebhookConfiguration, *admissionregistrationv1.ValidatingWebhookConfiguration) {
	cu := []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}
	var resources []profile.Resource
	var mutating []profile.Mutating
	for _, p := range profiles.All() {
		w := p.Webhooks(kinds)
		resources = append(resources, w.Validate...)
		for _, m := range w.Mutating {
			i := slices.IndexFunc(mutating, func(o profile.Mutating) bool { return o.Name == m.Name })
			if i < 0 {
				mutating = append(mutating, m)
				continue
			}
			mutating[i].Resources = append(mutating[i].Resources, m.Resources...)
		}
	}
	slices.SortStableFunc(resources, func(a, b profile.Resource) int { return rank(kinds, a) - rank(kinds, b) })
	policyRules, deleteRules, warnRules := validatingRules(resources)
	none := admissionregistrationv1.SideEffectClassNone
	fail, ignore := admissionregistrationv1.Fail, admissionregistrationv1.Ignore
	timeout := int32(timeoutSeconds)
	equivalent := admissionregistrationv1.Equivalent
	validating := func(name string, rules []admissionregistrationv1.RuleWithOperations, fp *admissionregistrationv1.FailurePolicyType) admissionregistrationv1.ValidatingWebhook {
		return validatingWebhook(name, cc, rules, *fp)
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
	if len(warnRules) > 0 {
		v.Webhooks = append(v.Webhooks, validating(warningsWebhook, warnRules, &ignore))
	}
	m := &admissionregistrationv1.MutatingWebhookConfiguration{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingWebhookConfiguration"},
		ObjectMeta: metav1.ObjectMeta{Name: ConfigurationName},
	}
	for _, mw := range mutating {
		var rules []admissionregistrationv1.RuleWithOperations
		for _, r := range mw.Resources {
			rules = append(rules, rule(r.Group, r.Version, r.Resource, cu, admissionregistrationv1.NamespacedScope))
		}
		m.Webhooks = append(m.Webhooks, admissionregistrationv1.MutatingWebhook{
			Name: mw.Name, ClientConfig: cc(MutatePath), Rules: rules,
			AdmissionReviewVersions: []string{"v1"}, SideEffects: &none, FailurePolicy: &fail,
			TimeoutSeconds: &timeout, MatchPolicy: &equivalent, MatchConditions: mw.Conditions,
		})
	}
	return m, v
}

// validatingRules are the rules of the policies entry (creates and updates), of the deletes entry
// (the PrecedentConfig's delete included: it puts the defaults in force, a warning, never a denial)
// and of the warnings entry (the creates and updates of WarnOnly resources, once each).
func validatingRules(resources []profile.Resource) (policies, deletes, warnings []admissionregistrationv1.RuleWithOperations) {
	cu := []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}
	del := []admissionregistrationv1.OperationType{admissionregistrationv1.Delete}
	seen := map[profile.Resource]bool{}
	for _, r := range resources {
		switch {
		case r.WarnOnly && !seen[r]:
			seen[r] = true
			warnings = append(warnings, rule(r.Group, r.Version, r.Resource, cu, admissionregistrationv1.NamespacedScope))
		case !r.WarnOnly:
			policies = append(policies, rule(r.Group, r.Version, r.Resource, cu, admissionregistrationv1.NamespacedScope))
		}
		if r.Deletes {
			deletes = append(deletes, rule(r.Group, r.Version, r.Resource, del, admissionregistrationv1.NamespacedScope))
		}
	}
	deletes = append(deletes, rule(settings.GVK.Group, settings.GVK.Version, "precedentconfigs", del, admissionregistrationv1.ClusterScope))
	return policies, deletes, warnings
}

// timeoutSeconds is every webhook entry's timeout.
const timeoutSeconds = 5

// validatingWebhook is one entry of the validating configuration on the /validate path: admission
// review v1, no side effects, 5 s, equivalent versions matched.
func validatingWebhook(name string, cc ClientConfig, rules []admissionregistrationv1.RuleWithOperations, fp admissionregistrationv1.FailurePolicyType) admissionregistrationv1.ValidatingWebhook {
	none := admissionregistrationv1.SideEffectClassNone
	timeout := int32(timeoutSeconds)
	equivalent := admissionregistrationv1.Equivalent
	return admissionregistrationv1.ValidatingWebhook{
		Name: name, ClientConfig: cc(ValidatePath), Rules: rules,
		AdmissionReviewVersions: []string{"v1"}, SideEffects: &none, FailurePolicy: &fp,
		TimeoutSeconds: &timeout, MatchPolicy: &equivalent,
	}
}

// rank orders a resource: a registry kind by its place in kinds, a profile's own kind after them all.
func rank(kinds []policy.Kind, r profile.Resource) int {
	for i, k := range kinds {
		if k.GVK.Group == r.Group && profile.Plural(k.GVK.Kind) == r.Resource {
			return i
		}
	}
	return len(kinds)
}

func rule(group, version, resource string, ops []admissionregistrationv1.OperationType, scope admissionregistrationv1.ScopeType) admissionregistrationv1.RuleWithOperations {
	return admissionregistrationv1.RuleWithOperations{
		Operations: ops,
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{group}, APIVersions: []string{version}, Resources: []string{resource}, Scope: &scope},
	}
}

// Plural is the resource name of a kind, by the rule CRDs follow (AuthPolicy → authpolicies).
func Plural(kind string) string { return profile.Plural(kind) }
