package deploy

import (
	"context"
	"errors"
	"fmt"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/precedent-dev/precedent/test/harness"
)

// BypassLabel marks objects that Precedent's webhooks skip while BypassWebhooks is in force.
const BypassLabel = "deploy.precedent.dev/bypass-webhooks"

// BypassWebhooks has every webhook of Precedent's two configurations skip the objects labelled
// BypassLabel (an objectSelector), so that a write stream can be timed at the API server's own
// cost beside the same stream through the webhooks. It returns once the API server skips them, with
// the function that puts the configurations back and returns once the webhooks see every object again.
func (c *Cluster) BypassWebhooks(ctx context.Context) (func() error, error) {
	sel := map[string]interface{}{"matchExpressions": []interface{}{
		map[string]interface{}{"key": BypassLabel, "operator": "DoesNotExist"},
	}}
	// The API server stores an absent objectSelector as the empty one (every object): that is what
	// restoring puts back.
	set := func(on bool) error {
		for _, kind := range []string{"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"} {
			o := c.Manifests.Find(kind, "precedent")
			if o == nil {
				return fmt.Errorf("no %s precedent in %s", kind, c.Manifests.Source)
			}
			cur := o.DeepCopy()
			if err := c.Admin.Get(ctx, client.ObjectKeyFromObject(o), cur); err != nil {
				return err
			}
			hooks, _, _ := unstructuredSlice(cur.Object, "webhooks")
			for _, h := range hooks {
				h := h.(map[string]interface{})
				if s, _ := h["objectSelector"].(map[string]interface{}); len(s) > 0 && on {
					return fmt.Errorf("%s precedent has an objectSelector already: not bypassing it", kind)
				}
				if on {
					h["objectSelector"] = sel
				} else {
					h["objectSelector"] = map[string]interface{}{}
				}
			}
			cur.Object["webhooks"] = hooks
			if err := c.Admin.Update(ctx, cur); err != nil {
				return fmt.Errorf("setting the objectSelector of %s: %w", kind, err)
			}
		}
		return nil
	}
	// A labelled probe is denied by the validating webhook until the API server skips it.
	probe := harness.Object(harness.Probe)
	probe.SetLabels(map[string]string{BypassLabel: "true"})
	skipped := func() bool { return c.Admin.Create(ctx, probe.DeepCopy(), client.DryRunAll) == nil }
	wait := func(want bool) error {
		for deadline := time.Now().Add(30 * time.Second); skipped() != want; <-time.After(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				return fmt.Errorf("the API server did not follow the webhooks' objectSelector within 30 s (skipped: %t)", !want)
			}
		}
		return nil
	}
	if err := set(true); err != nil {
		return nil, err
	}
	restore := func() error {
		if err := set(false); err != nil {
			return err
		}
		return wait(false)
	}
	if err := wait(true); err != nil {
		return nil, errors.Join(err, restore())
	}
	return restore, nil
}
