package warning

import "testing"

func TestCodeLineSplits(t *testing.T) {
	c := Register(Code{ID: "PRC-W999", Severity: SeverityWarning, Title: "test code"})
	defer func() { codesMu.Lock(); delete(codes, c.ID); codesMu.Unlock() }()
	tests := []struct {
		name, line, wantID, wantText string
	}{
		{name: "a registered code is split off", line: c.Linef("AuthPolicy %s: rule b is overridden", "shop/x"), wantID: "PRC-W999", wantText: "AuthPolicy shop/x: rule b is overridden"},
		{name: "an unregistered code stays in the text", line: "PRC-W998 something", wantText: "PRC-W998 something"},
		{name: "a line without a code", line: "plain words", wantText: "plain words"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, text := Split(tt.line)
			id := ""
			if got != nil {
				id = got.ID
			}
			if id != tt.wantID || text != tt.wantText {
				t.Errorf("Split(%q) = %q, %q; want %q, %q", tt.line, id, text, tt.wantID, tt.wantText)
			}
		})
	}
}

func TestRegisterRefusesMalformed(t *testing.T) {
	for _, c := range []Code{
		{ID: "W001", Severity: SeverityWarning},
		{ID: "PRC-E001", Severity: SeverityWarning},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%+v) did not panic", c)
				}
			}()
			Register(c)
		}()
	}
}
