package main

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/v1/empty"
)

func TestIsLoopback(t *testing.T) {
	tests := []struct {
		host string
		want bool
	}{
		{"localhost:5000", true},
		{"LOCALHOST", true},
		{"127.0.0.1:5000", true},
		{"127.8.9.10", true},
		{"[::1]:5000", true},
		{"::1", true},
		{"10.0.0.5:5000", false},
		{"192.168.1.2", false},
		{"registry.local:5000", false},
		{"localhost.example.com", false},
		{"ghcr.io", false},
	}
	for _, tt := range tests {
		if got := isLoopback(tt.host); got != tt.want {
			t.Errorf("isLoopback(%q) = %v, want %v", tt.host, got, tt.want)
		}
	}
}

// recorder answers every request without sending it, remembering its URL.
type recorder struct{ urls []string }

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.urls = append(r.urls, req.URL.String())
	return &http.Response{StatusCode: http.StatusTeapot, Body: http.NoBody, Request: req}, nil
}

// Requests to a loopback registry keep their scheme; every other plain HTTP request goes over HTTPS,
// including the private addresses and *.local names go-containerregistry would reach over HTTP.
func TestHTTPSOffLoopback(t *testing.T) {
	in := []string{
		"http://127.0.0.1:5000/v2/",
		"http://[::1]:5000/v2/",
		"http://localhost:5000/v2/",
		"http://10.0.0.5:5000/v2/",
		"http://registry.local/v2/p/blobs/uploads/",
		"https://ghcr.io/v2/",
	}
	want := []string{
		"http://127.0.0.1:5000/v2/",
		"http://[::1]:5000/v2/",
		"http://localhost:5000/v2/",
		"https://10.0.0.5:5000/v2/",
		"https://registry.local/v2/p/blobs/uploads/",
		"https://ghcr.io/v2/",
	}
	rec := &recorder{}
	rt := httpsOffLoopback{rec}
	for _, u := range in {
		req, err := http.NewRequest(http.MethodGet, u, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rt.RoundTrip(req); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(want, rec.urls); diff != "" {
		t.Errorf("URLs sent (-want +got):\n%s", diff)
	}
}

// --insecure names a non-loopback registry: refused before any request is made.
func TestPushRefusesInsecureOffLoopback(t *testing.T) {
	for _, ref := range []string{"10.0.0.5:5000/precedent:v1", "registry.local/precedent:v1", "ghcr.io/precedent-dev/precedent:v1"} {
		rec := &recorder{}
		_, err := push(context.Background(), empty.Index, ref, true, rec)
		if want := "--insecure (plain HTTP) is allowed only for a loopback registry"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("push %s --insecure: error %v, want one saying %q", ref, err, want)
		}
		if len(rec.urls) != 0 {
			t.Errorf("push %s --insecure sent %v", ref, rec.urls)
		}
	}
}
