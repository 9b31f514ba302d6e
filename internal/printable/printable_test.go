package printable

import "testing"

func TestString(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain ascii is unchanged", "authorization.b", "authorization.b"},
		{"unicode letters are unchanged", "límite-ü", "límite-ü"},
		{"backslash in a safe string is unchanged", `a\b`, `a\b`},
		{"newline is escaped", "a\nb", `a\nb`},
		{"nul and escape are escaped", "a\x00\x1b[31m", `a\x00\x1b[31m`},
		{"bidi override is escaped", "abc\u202edef", `abc\u202edef`},
		{"zero-width joiner is escaped", "a\u200db", `a\u200db`},
		{"invalid utf-8 is escaped by byte", "a\xffb", `a\xffb`},
		{"backslash is escaped when others are", "a\\\n", `a\\\n`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := String(tc.in); got != tc.want {
				t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if got := String(tc.in); !Safe(got) {
				t.Errorf("String(%q) = %q is not safe", tc.in, got)
			}
		})
	}
}

func FuzzString(f *testing.F) {
	for _, s := range []string{"a", "\u202e", "\xff\xfe", "a\\b\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got := String(s); !Safe(got) {
			t.Fatalf("String(%q) = %q is not safe", s, got)
		}
	})
}
