package chart

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestFreshMachine follows the README's "Quick start for cluster admins" on a bare API server: the
// release files of `make release` (hack/release; the image itself is not pulled, there is no
// kubelet), the Gateway API CRDs, then the kubectl path with install.yaml, literally, and the
// packaged chart rendered as `helm install` renders it and applied (server-side dry-run past the
// CRDs and namespaces).
func TestFreshMachine(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Fatalf("kubectl is needed: %v", err)
	}
	dir := t.TempDir()
	rendered := filepath.Join(dir, "kustomize.yaml")
	out, err := exec.Command(kubectl, "kustomize", filepath.Join(root, "config", "default")).Output()
	if err != nil {
		t.Fatalf("kubectl kustomize config/default: %v", err)
	}
	if err := os.WriteFile(rendered, out, 0o644); err != nil {
		t.Fatal(err)
	}
	release := exec.Command("go", "run", "./hack/release", "--version", "v0.1.0", "--out", dir, "--install", rendered)
	release.Dir = root
	if out, err := release.CombinedOutput(); err != nil {
		t.Fatalf("hack/release: %v\n%s", err, out)
	}

	kc, _, err := env.AddAdmin("fresh")
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, kc, 0o600); err != nil {
		t.Fatal(err)
	}
	try := func(line string) (string, error) {
		args := append([]string{"--kubeconfig", kubeconfig}, strings.Fields(line)...)
		cmd := exec.Command(kubectl, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	run := func(line string) string {
		t.Helper()
		out, err := try(line)
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", line, err, out)
		}
		return out
	}
	// The README's commands, with the release's URLs replaced by the files they download (the
	// Gateway API standard channel is config/crd/gateway-api, `make gateway-crds`).
	gatewayCRDs, err := filepath.Abs(filepath.Join(root, "config", "crd", "gateway-api"))
	if err != nil {
		t.Fatal(err)
	}
	// cert-manager (a prerequisite of install.yaml): its CRDs, same-shape (testdata/absent-crds.yaml).
	certManager, err := filepath.Abs(filepath.Join("testdata", "absent-crds.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	run("apply --server-side -f " + gatewayCRDs)
	run("apply --server-side -f " + certManager)
	// The first pass installs the CRDs and all but the PrecedentConfig, whose CRD it has just
	// created (kubectl: "ensure CRDs are installed first"); the second, after the wait, the rest.
	if out, err := try("apply --server-side -f install.yaml"); err != nil {
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if strings.Contains(l, "resource mapping not found") && !strings.Contains(l, `kind "PrecedentConfig"`) {
				t.Errorf("first pass: %s", l)
			}
		}
	}
	run("wait --for=condition=Established --timeout=60s crd/precedentconfigs.policy.precedent.dev")
	// README: `kubectl -n precedent-system rollout status deployment/precedent`: no kubelet here, so
	// no webhook pod answers, and the second pass's only failure is the PrecedentConfig's webhook call
	// (fail closed); everything else is unchanged.
	if out, err := try("apply --server-side -f install.yaml"); err != nil {
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if strings.HasPrefix(l, "Error") && !strings.Contains(l, `failed calling webhook "precedentconfigs.precedent.dev"`) {
				t.Errorf("second pass: %s", l)
			}
		}
	}
	got := run("get deployments.apps,validatingwebhookconfigurations,crd -A")
	for _, want := range []string{"precedentconfigs.policy.precedent.dev", "precedent-system", "deployment.apps/precedent"} {
		if !strings.Contains(got, want) {
			t.Errorf("after the install, kubectl get says:\n%s\nwant it to list %q", got, want)
		}
	}

	manifest, err := RenderChart(filepath.Join(dir, "precedent-0.1.0.tgz"), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(manifest), "image: ghcr.io/precedent-dev/precedent:v0.1.0") {
		t.Errorf("the packaged chart does not deploy the release's image v0.1.0")
	}
	objs, err := decode(manifest)
	if err != nil {
		t.Fatal(err)
	}
	dryRun(t, objs)
}
