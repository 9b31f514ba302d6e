package cel

import (
	"errors"
	"strings"
	"testing"
)

func TestCompile(t *testing.T) {
	ev, err := New(0)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		expr    string
		wantErr string
	}{
		{"boolean comparison", "self.limits.x.rates[0].limit > 100", ""},
		{"kubernetes library function", "self.limits.all(k, k.matches('^[a-z]+$'))", ""},
		{"syntax error", "self.limits.x >", "compilation failed"},
		{"not boolean", "'abc'", "must evaluate to a boolean, not string"},
		{"undeclared variable", "other.x == 1", "compilation failed"},
		{"too expensive", "self.limits.all(a, self.limits.all(b, self.limits.all(c, self.limits.all(d, a+b+c+d != ''))))", "exceeds the limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ev.Compile(tt.expr)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Compile(%q) = %v, want nil", tt.expr, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !isCompileError(err) {
				t.Fatalf("Compile(%q) = %v, want compile error containing %q", tt.expr, err, tt.wantErr)
			}
		})
	}
}

func TestEval(t *testing.T) {
	ev, err := New(0)
	if err != nil {
		t.Fatal(err)
	}
	self := map[string]interface{}{"limits": map[string]interface{}{
		"x": map[string]interface{}{"rates": []interface{}{map[string]interface{}{"limit": int64(150), "window": "1m"}}},
	}}
	tests := []struct {
		name    string
		expr    string
		want    bool
		wantErr bool
	}{
		{"true", "self.limits.x.rates[0].limit > 100", true, false},
		{"false", "self.limits.x.rates[0].limit > 200", false, false},
		{"missing key is a runtime error", "self.limits.y.rates[0].limit > 100", false, true},
		{"has on missing key", "has(self.limits.y)", false, false},
		{"dyn result not boolean", "self.limits.x.rates[0].limit", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ev.Eval(tt.expr, self)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Fatalf("Eval(%q) = %v, %v; want %v, err=%v", tt.expr, got, err, tt.want, tt.wantErr)
			}
			if err != nil && isCompileError(err) {
				t.Fatalf("runtime problem reported as compile error: %v", err)
			}
		})
	}
}

// BenchmarkEval evaluates a typical when condition on a bare form of three rules, with the cost limit
// in force.
func BenchmarkEval(b *testing.B) {
	e, err := New(0)
	if err != nil {
		b.Fatal(err)
	}
	rate := func(n int64) map[string]interface{} {
		return map[string]interface{}{"rates": []interface{}{map[string]interface{}{"limit": n, "window": "1m"}}}
	}
	self := map[string]interface{}{"limits": map[string]interface{}{"global": rate(1000), "per-user": rate(20), "expensive": rate(50)}}
	const expr = "has(self.limits.expensive) && self.limits.expensive.rates[0].limit > 10"
	if ok, err := e.Eval(expr, self); !ok || err != nil {
		b.Fatalf("Eval = %v, %v", ok, err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, _ = e.Eval(expr, self)
	}
}

// isCompileError reports whether err is a compile-time problem.
func isCompileError(err error) bool {
	var ce *CompileError
	return errors.As(err, &ce)
}
