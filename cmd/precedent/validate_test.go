package main

import (
	"bytes"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func run(args ...string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	cmd := newRootCmd()
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	cmd.SetArgs(args)
	err := cmd.Execute()
	var ee *exitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.Code
	default:
		code = 2
	}
	return out.String(), errb.String(), code
}

// TestValidateSamplesPass: each sample passes on its own (together they are not one cluster: the
// Envoy Gateway and kgateway samples both define HTTPRoute shop/cart).
func TestValidateSamplesPass(t *testing.T) {
	for _, dir := range sampleDirs(t, "../../config/samples") {
		if out, _, code := run("validate", "-f", dir); code != 0 {
			t.Errorf("validate %s: exit %d\n%s", dir, code, out)
		}
	}
}

func TestValidateInvalid(t *testing.T) {
	// shop/mixed breaks a rule of the RateLimitPolicy CRD (built in): the API server rejects it
	// before the webhook sees it, so its other error (the override's when) is not reached.
	out, _, code := run("validate", "-f", "testdata/invalid")
	want := `PRC-E043 RateLimitPolicy shop/mixed: spec.limits: Forbidden: bare limits cannot be combined with spec.defaults or spec.overrides: move them into spec.defaults
AuthPolicy shop/route-policy: spec.unset[0]: Forbidden: PRC-E023 rule authorization.b is set by the overrides of AuthPolicy gateway-system/gw-policy and cannot be unset: remove it from spec.unset
Warning: PRC-W005 AuthPolicy gateway-system/gw-policy: the override of authorization.b makes the unset in AuthPolicy shop/route-policy ineffective on route shop/cart
Note: PRC-N003 AuthPolicy gateway-system/gw-policy: this write changes the effective AuthPolicy of 1 route
2 errors, 1 warning, 1 note in 5 objects
`
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

func TestValidateUnreadable(t *testing.T) {
	_, _, code := run("validate", "-f", "testdata/broken")
	if code != 2 {
		t.Errorf("malformed file: exit %d, want 2", code)
	}
	_, _, code = run("validate", "-f", "testdata/does-not-exist")
	if code != 2 {
		t.Errorf("missing file: exit %d, want 2", code)
	}
}

func TestEffectiveJSON(t *testing.T) {
	out, _, code := run("effective", "-f", "../../config/samples/rfc/b2", "--kind", "AuthPolicy", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	want := `{
  "items": [
    {
      "kind": "AuthPolicy",
      "group": "policy.precedent.dev",
      "gateway": "b2/gw",
      "listener": "",
      "route": "b2/route",
      "rule": "",
      "spec": {
        "rules": {
          "authentication": {
            "a": {
              "apiKey": {
                "selector": {
                  "matchLabels": {
                    "app": "gw"
                  }
                }
              }
            }
          },
          "authorization": {
            "b": {
              "opa": {
                "rego": "allow = input.user == \"shop\""
              }
            },
            "c": {
              "patternMatching": {
                "patterns": [
                  {
                    "operator": "eq",
                    "selector": "request.path",
                    "value": "/cart"
                  }
                ]
              }
            }
          }
        }
      },
      "sources": {
        "authentication.a": "b2/gw-policy",
        "authorization.b": "b2/route-policy",
        "authorization.c": "b2/route-policy"
      }
    }
  ]
}
`
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	out, _, _ = run("effective", "-f", "../../config/samples/rfc", "--kind", "AuthPolicy", "--target", "httproute/c1/route", "-o", "json")
	if !bytes.Contains([]byte(out), []byte(`"route": "c1/route"`)) || bytes.Contains([]byte(out), []byte(`"b2/route"`)) {
		t.Errorf("--target did not select c1/route only:\n%s", out)
	}
}

// TestConfiguredKind manages a Kuadrant-shaped CRD by configuration (a PrecedentConfig in the input):
// its defaults block has no strategy (defaulted to atomic, as the API server would not) and its
// `when` is not a D/O condition.
func TestConfiguredKind(t *testing.T) {
	out, _, code := run("effective", "-f", "testdata/configured", "--kind", "RateLimitPolicy.kuadrant.io", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	want := `{
  "items": [
    {
      "kind": "RateLimitPolicy",
      "group": "kuadrant.io",
      "gateway": "kuadrant/gw",
      "listener": "",
      "route": "kuadrant/toystore",
      "rule": "",
      "spec": {
        "limits": {
          "per-user": {
            "rates": [
              {
                "limit": 5,
                "window": "1m"
              }
            ]
          }
        }
      },
      "sources": {
        "per-user": "kuadrant/toystore-rlp"
      }
    }
  ]
}
`
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("atomic defaults of the Gateway policy must be replaced whole (-want +got):\n%s", diff)
	}
	out, _, code = run("validate", "-f", "testdata/configured")
	if code != 0 || out != "Note: PRC-N001 RateLimitPolicy kuadrant/gw-rlp: spec.defaults of this policy are replaced by RateLimitPolicy kuadrant/toystore-rlp on route kuadrant/toystore\n"+
		"Note: PRC-N005 RateLimitPolicy kuadrant/toystore-rlp: replaces kuadrant/gw-rlp's `global` and `per-user` on route kuadrant/toystore (defaults-overrides: a more specific policy's rules replace defaults)\n"+
		"0 errors, 0 warnings, 2 notes in 5 objects\n" {
		t.Errorf("validate: exit %d, output:\n%s", code, out)
	}
}

// The mesh profile's warnings keep to the settings' warningLimit, as every profile's do.
func TestValidateMeshWarningLimit(t *testing.T) {
	out, _, code := run("validate", "-f", "testdata/mesh-warning-limit")
	const p = "Warning: PRC-W014 MeshTimeout mesh-1/crowded: "
	want := p + "spec.to[1] never takes effect on any Dataplane: every field it sets is decided by spec.to[0] of mesh-1/crowded\n" +
		p + "spec.to[2] never takes effect on any Dataplane: every field it sets is decided by spec.to[0] of mesh-1/crowded\n" +
		"Warning: PRC-W040 MeshTimeout mesh-1/crowded: and 3 more warnings\n" +
		"0 errors, 3 warnings in 3 objects\n"
	if code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}
