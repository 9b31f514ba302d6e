// Command release writes the release files of one version into a folder, all naming one tag: the
// packaged Helm chart (precedent-X.Y.Z.tgz, its Chart.yaml at that version) with its index.yaml, and
// install.yaml (the rendered config/default with that version's image; with --install-builtin,
// install-builtin-certs.yaml from config/builtin-certs, which needs no cert-manager; both without a
// PrecedentConfig that sets nothing, so one `kubectl apply` installs them); with --plugin, the kubectl
// plugin's archives (kubectl-precedent_<version>_<os>_<arch>.tar.gz) and krew's plugin manifest
// precedent.yaml pointing at them. `make release` runs it after building the image layout (bin/image,
// tagged with the same version) and the plugin's binaries.
//
//	go run ./hack/release --version vX.Y.Z --out DIR --install RENDERED.yaml [--install-builtin RENDERED.yaml] [--chart charts/precedent]
//	    [--image-repo ghcr.io/precedent-dev/precedent] [--url https://.../releases/download/vX.Y.Z]
//	    [--created UNIX-SECONDS] [--plugin OS/ARCH=BINARY …] [--license LICENSE]
package main

import (
	"flag"
	"fmt"
	"os"
	"time"
)

func main() {
	var o options
	fs := flag.NewFlagSet("release", flag.ContinueOnError)
	fs.StringVar(&o.version, "version", "", "release version vX.Y.Z")
	fs.StringVar(&o.out, "out", "", "folder to write the release files into")
	fs.StringVar(&o.install, "install", "", "the rendered config/default (kubectl kustomize config/default)")
	fs.StringVar(&o.installBuiltin, "install-builtin", "", "the rendered config/builtin-certs (kubectl kustomize config/builtin-certs), written as install-builtin-certs.yaml")
	fs.StringVar(&o.chart, "chart", "charts/precedent", "the chart's folder")
	fs.StringVar(&o.imageRepo, "image-repo", "ghcr.io/precedent-dev/precedent", "the image repository")
	fs.StringVar(&o.url, "url", "", "where the packaged chart is downloaded from (default: the GitHub release of the version)")
	fs.StringVar(&o.license, "license", "LICENSE", "the license file packed beside the plugin's binary")
	fs.Func("plugin", "OS/ARCH=PATH: a build of the binary to pack as the kubectl plugin's archive for that platform (repeat)", func(s string) error {
		b, err := parsePluginBuild(s)
		o.plugins = append(o.plugins, b)
		return err
	})
	created := fs.Int64("created", 0, "the time stamped into the chart archive and index (UNIX seconds; default: 0)")
	if err := fs.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	o.created = time.Unix(*created, 0).UTC()
	files, err := o.run()
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
	for _, f := range files {
		fmt.Println(f)
	}
}
