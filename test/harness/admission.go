package harness

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/precedent-dev/precedent/internal/settings"
)

// Cause is one field error of an Invalid status, as the API server returns it.
type Cause struct {
	Type  metav1.CauseType
	Field string
}

// SchemaStopped is the cause the API server adds when schema errors keep it from running the CEL
// rules.
var SchemaStopped = Cause{metav1.CauseTypeFieldValueInvalid, "<nil>"}

// Causes reads the status of an Invalid error: its causes and whole message.
func Causes(err error) ([]Cause, string, bool) {
	var se *apierrors.StatusError
	if !errors.As(err, &se) || se.ErrStatus.Reason != metav1.StatusReasonInvalid || se.ErrStatus.Details == nil {
		return nil, "", false
	}
	var out []Cause
	for _, c := range se.ErrStatus.Details.Causes {
		out = append(out, Cause{Type: c.Type, Field: c.Field})
	}
	return out, se.ErrStatus.Message, true
}

// ErrString renders the outcome of a write: its error, or "admitted".
func ErrString(err error) string {
	if err == nil {
		return "admitted"
	}
	return err.Error()
}

// Rejection is what a rejected write must come back with: the Invalid status, one cause per field,
// a message that says what is wrong, and who rejected it: the webhook, or the CRD schema before it.
type Rejection struct {
	Causes  []Cause
	Message string
	Webhook bool
}

// deniedByWebhook starts the message of a rejection by Precedent's validating webhook.
const deniedByWebhook = `admission webhook "policies.precedent.dev" denied the request`

// AssertRejected creates obj with a server-side dry-run and for real, asserts the same rejection
// both times, and that nothing was persisted. It polls the dry-run until the rejection appears,
// since the webhook's cache and settings follow the test's writes.
func AssertRejected(t testing.TB, c client.Client, obj *unstructured.Unstructured, want Rejection) {
	t.Helper()
	ctx := context.Background()
	write := func(dry bool) error {
		var opts []client.CreateOption
		if dry {
			opts = append(opts, client.DryRunAll)
		}
		return c.Create(ctx, obj.DeepCopy(), opts...)
	}
	check := func(err error) (bool, string) {
		got, msg, ok := Causes(err)
		if !ok {
			return false, "not an Invalid status: " + ErrString(err)
		}
		if diff := cmp.Diff(want.Causes, got); diff != "" {
			return false, "causes (-want +got):\n" + diff + "\nmessage: " + msg
		}
		if !strings.Contains(msg, want.Message) {
			return false, "message " + msg + " lacks " + want.Message
		}
		if strings.Contains(msg, deniedByWebhook) != want.Webhook {
			return false, fmt.Sprintf("message %s: rejected by the webhook = %t, want %t", msg, !want.Webhook, want.Webhook)
		}
		return true, ""
	}
	EventuallyWithin(t, 10*time.Second, "the dry-run is rejected", func() (bool, string) { return check(write(true)) })
	if ok, state := check(write(false)); !ok {
		t.Fatalf("real write: %s", state)
	}
	AssertAbsent(t, c, obj)
}

// AssertAbsent fails the test if obj exists.
func AssertAbsent(t testing.TB, c client.Client, obj *unstructured.Unstructured) {
	t.Helper()
	cur := &unstructured.Unstructured{}
	cur.SetGroupVersionKind(obj.GroupVersionKind())
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(obj), cur); !apierrors.IsNotFound(err) {
		t.Fatalf("%s %s/%s persisted (get: %v)", obj.GetKind(), obj.GetNamespace(), obj.GetName(), err)
	}
}

// DryRunWarnings asserts the warnings of a server-side dry-run create of obj, polling until they
// equal want (the webhook's cache follows the test's objects), and that nothing was persisted.
func DryRunWarnings(t testing.TB, c client.Client, rec *Recorder, obj *unstructured.Unstructured, want []string) {
	t.Helper()
	rec.Take()
	EventuallyWithin(t, 10*time.Second, "the dry-run warns as expected", func() (bool, string) {
		err := c.Create(context.Background(), obj.DeepCopy(), client.DryRunAll)
		got := rec.Take()
		if err != nil {
			return false, "dry-run rejected: " + err.Error()
		}
		if diff := cmp.Diff(want, got); diff != "" {
			return false, "dry-run warnings (-want +got):\n" + diff
		}
		return true, ""
	})
	AssertAbsent(t, c, obj)
}

// WarningsOf asserts the warnings of a server-side dry-run create of obj as DryRunWarnings does,
// then creates it for real and asserts the same warnings.
func WarningsOf(t testing.TB, c client.Client, rec *Recorder, obj *unstructured.Unstructured, want []string) {
	t.Helper()
	DryRunWarnings(t, c, rec, obj, want)
	if err := c.Create(context.Background(), obj.DeepCopy()); err != nil {
		t.Fatalf("create rejected: %v", err)
	}
	if diff := cmp.Diff(want, rec.Take()); diff != "" {
		t.Fatalf("warnings (-want +got):\n%s", diff)
	}
}

// SetConfig creates or replaces the PrecedentConfig cluster with spec and waits until the manager's
// settings come from that very write, so the next admission obeys it.
func (h *Harness) SetConfig(t testing.TB, c client.Client, spec map[string]interface{}) {
	t.Helper()
	ctx := context.Background()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(settings.GVK)
	u.SetName(settings.Name)
	u.Object["spec"] = spec
	cur := &unstructured.Unstructured{}
	cur.SetGroupVersionKind(settings.GVK)
	err := c.Get(ctx, client.ObjectKey{Name: settings.Name}, cur)
	switch {
	case apierrors.IsNotFound(err):
		err = c.Create(ctx, u)
	case err == nil:
		u.SetResourceVersion(cur.GetResourceVersion())
		err = c.Update(ctx, u)
	}
	if err != nil {
		t.Fatalf("writing PrecedentConfig: %v", err)
	}
	EventuallyWithin(t, 10*time.Second, "the settings follow the PrecedentConfig", func() (bool, string) {
		return h.Live.ResourceVersion() == u.GetResourceVersion(), fmt.Sprintf("settings from resourceVersion %q, want %q", h.Live.ResourceVersion(), u.GetResourceVersion())
	})
}
