package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// push writes idx to the registry as ref (a tag or digest reference) and returns the pushed
// digest reference. Plain HTTP is used only for a loopback registry: insecure is refused for any
// other, and every request to a non-loopback host goes over HTTPS even where go-containerregistry
// would pick HTTP (private addresses, *.local names).
func push(ctx context.Context, idx v1.ImageIndex, ref string, insecure bool, base http.RoundTripper) (string, error) {
	var opts []name.Option
	if insecure {
		opts = append(opts, name.Insecure)
	}
	r, err := name.ParseReference(ref, opts...)
	if err != nil {
		return "", fmt.Errorf("image %q: %w", ref, err)
	}
	if insecure && !isLoopback(r.Context().RegistryStr()) {
		return "", fmt.Errorf("--insecure (plain HTTP) is allowed only for a loopback registry (localhost, 127.0.0.0/8, ::1), not %s", r.Context().RegistryStr())
	}
	err = remote.WriteIndex(r, idx,
		remote.WithContext(ctx),
		remote.WithAuthFromKeychain(authn.DefaultKeychain),
		remote.WithTransport(httpsOffLoopback{base}))
	if err != nil {
		return "", fmt.Errorf("pushing %s: %w", r, err)
	}
	d, err := idx.Digest()
	if err != nil {
		return "", err
	}
	return r.Context().Digest(d.String()).String(), nil
}

// httpsOffLoopback upgrades a plain HTTP request to HTTPS unless it goes to a loopback host.
type httpsOffLoopback struct{ next http.RoundTripper }

func (t httpsOffLoopback) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme == "http" && !isLoopback(req.URL.Host) {
		req = req.Clone(req.Context())
		req.URL.Scheme = "https"
	}
	return t.next.RoundTrip(req)
}

// isLoopback reports whether host (with or without a port) is localhost or a loopback address.
func isLoopback(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
