// Command image builds Precedent's container image without a container engine: one static binary
// per platform on an empty base, as an OCI image index written to an OCI image layout (`make image`),
// and pushes that index to a registry (`make image-push IMAGE=…`). It uses go-containerregistry.
//
//	go run ./hack/image build --out bin/image --tag TAG --binary linux/amd64=PATH [--binary …] \
//	    --version V --revision SHA --created UNIX-SECONDS [--source URL] [--licenses SPDX]
//	go run ./hack/image push --layout bin/image --image REGISTRY/REPO:TAG [--insecure]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:])
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return errors.New("want a subcommand: build or push")
	}
	switch args[0] {
	case "build":
		return runBuild(args[1:])
	case "push":
		return runPush(ctx, args[1:])
	default:
		return fmt.Errorf("unknown subcommand %q: want build or push", args[0])
	}
}

func runBuild(args []string) error {
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	o := buildOptions{binaries: map[string]string{}}
	out := fs.String("out", "bin/image", "folder of the OCI image layout (replaced)")
	tag := fs.String("tag", "", "name of the index in the layout (org.opencontainers.image.ref.name); default: --version")
	created := fs.Int64("created", 0, "creation time, seconds since the epoch (the commit time, like SOURCE_DATE_EPOCH)")
	fs.StringVar(&o.version, "version", "", "version label (git describe --tags --always --dirty)")
	fs.StringVar(&o.revision, "revision", "", "revision label (the commit)")
	fs.StringVar(&o.source, "source", "https://github.com/precedent-dev/precedent", "source label")
	fs.StringVar(&o.licenses, "licenses", "", "licenses label, an SPDX expression (none when empty)")
	fs.Func("binary", "OS/ARCH=PATH of a static precedent binary (repeat per platform)", func(s string) error {
		platform, path, ok := strings.Cut(s, "=")
		if !ok || platform == "" || path == "" {
			return fmt.Errorf("want OS/ARCH=PATH, got %q", s)
		}
		if _, dup := o.binaries[platform]; dup {
			return fmt.Errorf("platform %s given twice", platform)
		}
		o.binaries[platform] = path
		return nil
	})
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.version == "" || o.revision == "" {
		return errors.New("--version and --revision are required")
	}
	if *tag == "" {
		*tag = o.version
	}
	o.created = time.Unix(*created, 0).UTC()
	idx, err := buildIndex(o)
	if err != nil {
		return err
	}
	if err := writeLayout(*out, idx, *tag); err != nil {
		return err
	}
	d, err := idx.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("image %s (%d platforms) in OCI layout %s: %s\n", *tag, len(o.binaries), *out, d)
	return nil
}

func runPush(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("push", flag.ContinueOnError)
	dir := fs.String("layout", "bin/image", "folder of the OCI image layout written by build")
	ref := fs.String("image", "", "where to push, REGISTRY/REPO:TAG")
	insecure := fs.Bool("insecure", false, "plain HTTP; allowed only for a loopback registry")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *ref == "" {
		return errors.New("--image is required, e.g. --image ghcr.io/precedent-dev/precedent:v0.1.0")
	}
	idx, err := readLayout(*dir)
	if err != nil {
		return err
	}
	pushed, err := push(ctx, idx, *ref, *insecure, http.DefaultTransport)
	if err != nil {
		return err
	}
	fmt.Println("pushed", pushed)
	return nil
}
