package certs_test

import (
	"io"
	"net"
	"sync/atomic"
	"testing"
)

// proxy stands for the webhook Service: it hands each new TCP connection to the next replica in
// turn (as kube-proxy balances connections, not requests). TLS passes through untouched, so the API
// server checks each replica's own certificate.
type proxy struct {
	l        net.Listener
	backends []string
	next     atomic.Uint64
	// conns counts the connections handed to each backend.
	conns []atomic.Int64
}

func newProxy(t *testing.T, backends ...string) *proxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{l: l, backends: backends, conns: make([]atomic.Int64, len(backends))}
	go p.serve()
	t.Cleanup(func() { _ = l.Close() })
	return p
}

func (p *proxy) port() int { return p.l.Addr().(*net.TCPAddr).Port }

func (p *proxy) serve() {
	for {
		in, err := p.l.Accept()
		if err != nil {
			return
		}
		i := int(p.next.Add(1)-1) % len(p.backends)
		p.conns[i].Add(1)
		go func() {
			defer in.Close()
			out, err := net.Dial("tcp", p.backends[i])
			if err != nil {
				return
			}
			defer out.Close()
			done := make(chan struct{}, 2)
			pipe := func(dst, src net.Conn) {
				_, _ = io.Copy(dst, src)
				if tc, ok := dst.(*net.TCPConn); ok {
					_ = tc.CloseWrite()
				}
				done <- struct{}{}
			}
			go pipe(out, in)
			go pipe(in, out)
			<-done
			<-done
		}()
	}
}

// counts reads the connections handed to each backend so far.
func (p *proxy) counts() []int64 {
	out := make([]int64, len(p.conns))
	for i := range p.conns {
		out[i] = p.conns[i].Load()
	}
	return out
}
