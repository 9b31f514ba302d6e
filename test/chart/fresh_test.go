package chart

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// releaseURL is where the README's install commands download the release's files from.
const releaseURL = "https://github.com/precedent-dev/precedent/releases/download/v0.1.0/"

// TestFreshMachine follows the README's "Quick start for cluster admins" on a bare API server: the
// release files of `make release` (hack/release; the image itself is not pulled, there is no
// kubelet), the Gateway API CRDs, then the kubectl lines of the README's install block as written
// there (URLs replaced by the files they download): install-builtin-certs.yaml in one pass with only
// the Gateway API CRDs installed, install.yaml in one pass once cert-manager's CRDs are, then the
// kustomize passes; and the packaged chart rendered as `helm install` renders it and applied
// (server-side dry-run past the CRDs and namespaces).
func TestFreshMachine(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Fatalf("kubectl is needed: %v", err)
	}
	dir := t.TempDir()
	writeRelease(t, kubectl, dir)
	k := newFreshKubectl(t, kubectl, dir)
	lines := readmeInstallLines(t)
	gatewayCRDs, err := filepath.Abs(filepath.Join(root, "config", "crd", "gateway-api"))
	if err != nil {
		t.Fatal(err)
	}
	// The prerequisite, from the README: the Gateway API standard channel (config/crd/gateway-api).
	k.pass(readmeLine(t, "https://github.com/kubernetes-sigs/gateway-api/releases/download/", gatewayCRDs))
	for _, l := range lines {
		if strings.Contains(l, "install-builtin-certs.yaml") {
			k.pass(l)
		}
	}
	// cert-manager (a prerequisite of install.yaml): its CRDs, same-shape (testdata/absent-crds.yaml).
	k.pass("apply --server-side -f " + filepath.Join(k.wd, "testdata", "absent-crds.yaml"))
	for _, l := range lines {
		switch {
		case strings.Contains(l, "install-builtin-certs.yaml"):
		case strings.Contains(l, "rollout status"):
			t.Logf("skipped (no kubelet runs the pods here): kubectl %s", l)
		case strings.Contains(l, " -k "):
			k.kustomizePass(l)
		default:
			k.pass(l)
		}
	}
	got := k.pass("get deployments.apps,validatingwebhookconfigurations,crd -A")
	for _, want := range []string{"precedentconfigs.policy.precedent.dev", "precedent-system", "deployment.apps/precedent"} {
		if !strings.Contains(got, want) {
			t.Errorf("after the install, kubectl get says:\n%s\nwant it to list %q", got, want)
		}
	}
	checkPackagedChart(t, dir)
}

// writeRelease writes the release files of v0.1.0 into dir, as `make release` does.
func writeRelease(t *testing.T, kubectl, dir string) {
	t.Helper()
	args := []string{"run", "./hack/release", "--version", "v0.1.0", "--out", dir}
	for flag, kustomization := range map[string]string{"--install": "default", "--install-builtin": "builtin-certs"} {
		out, err := exec.Command(kubectl, "kustomize", filepath.Join(root, "config", kustomization)).Output()
		if err != nil {
			t.Fatalf("kubectl kustomize config/%s: %v", kustomization, err)
		}
		rendered := filepath.Join(t.TempDir(), "kustomize.yaml")
		if err := os.WriteFile(rendered, out, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, flag, rendered)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hack/release: %v\n%s", err, out)
	}
	builtin, err := os.ReadFile(filepath.Join(dir, "install-builtin-certs.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(builtin), "cert-manager.io") {
		t.Errorf("install-builtin-certs.yaml names cert-manager.io, which it must not need")
	}
}

// readmeInstallLines are the kubectl lines of the README's "Install, one of" block, without the
// word kubectl and trailing comments, the release's URLs replaced by the files in the release
// folder (the kubectl's working directory) and -k folders made absolute.
func readmeInstallLines(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, _ := strings.Cut(string(raw), "**Install, one of:**\n\n```sh\n")
	block, _, _ = strings.Cut(block, "```")
	var out []string
	for _, l := range strings.Split(block, "\n") {
		if !strings.HasPrefix(l, "kubectl ") {
			continue
		}
		l, _, _ = strings.Cut(strings.TrimPrefix(l, "kubectl "), " #")
		l = strings.ReplaceAll(l, releaseURL, "")
		l = strings.ReplaceAll(l, " -k config/", " -k "+filepath.Join(root, "config")+"/")
		out = append(out, strings.TrimSpace(l))
	}
	if len(out) < 4 {
		t.Fatalf("README's install block has %d kubectl lines: %q", len(out), out)
	}
	return out
}

// readmeLine is the README's kubectl line holding url, without the word kubectl, url replaced by with.
func readmeLine(t *testing.T, url, with string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(raw), "\n") {
		if i := strings.Index(l, "kubectl "); i >= 0 && strings.Contains(l, url) {
			l = strings.Trim(l[i+len("kubectl "):], "` ")
			rest := l[strings.Index(l, url):]
			return strings.Replace(l, rest, with, 1)
		}
	}
	t.Fatalf("README has no kubectl line with %s", url)
	return ""
}

// freshKubectl runs kubectl as a new admin of the test's API server, in dir.
type freshKubectl struct {
	t                        *testing.T
	kubectl, kubeconfig, dir string
	wd                       string // the test's working directory
}

func newFreshKubectl(t *testing.T, kubectl, dir string) *freshKubectl {
	kc, _, err := env.AddAdmin("fresh")
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, kc, 0o600); err != nil {
		t.Fatal(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return &freshKubectl{t: t, kubectl: kubectl, kubeconfig: kubeconfig, dir: dir, wd: wd}
}

func (k *freshKubectl) try(line string) (string, error) {
	args := append([]string{"--kubeconfig", k.kubeconfig}, strings.Fields(line)...)
	cmd := exec.Command(k.kubectl, args...)
	cmd.Dir = k.dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// pass runs kubectl line, which must succeed, and returns its output.
func (k *freshKubectl) pass(line string) string {
	k.t.Helper()
	out, err := k.try(line)
	if err != nil {
		k.t.Fatalf("kubectl %s: %v\n%s", line, err, out)
	}
	return out
}

// kustomizePass runs one of the README's two kustomize passes: the first may fail only to map the
// PrecedentConfig whose CRD it creates ("ensure CRDs are installed first"); the second, here where
// no replica answers (no kubelet), only on the PrecedentConfig's fail-closed webhook.
func (k *freshKubectl) kustomizePass(line string) {
	k.t.Helper()
	out, err := k.try(line)
	if err == nil {
		return
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		mapping := strings.Contains(l, "resource mapping not found") && strings.Contains(l, `kind "PrecedentConfig"`)
		webhook := strings.Contains(l, `failed calling webhook "precedentconfigs.precedent.dev"`)
		if strings.HasPrefix(l, "Error") || strings.Contains(l, "resource mapping not found") {
			if !mapping && !webhook {
				k.t.Errorf("kubectl %s: %s", line, l)
			}
		}
	}
}

// checkPackagedChart renders the release's packaged chart as helm install does and dry-runs it.
func checkPackagedChart(t *testing.T, dir string) {
	t.Helper()
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
