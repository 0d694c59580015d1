package termsafe

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// checkSafe fails when out could still drive a terminal.
func checkSafe(t *testing.T, in, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("String(%q) = %q: invalid UTF-8", in, out)
	}
	for _, r := range out {
		if r == 0x1b || HiddenControl(r) {
			t.Fatalf("String(%q) = %q keeps control %U", in, out, r)
		}
	}
	if again := String(out); again != out {
		t.Fatalf("not idempotent: %q then %q", out, again)
	}
}

func TestStringRemovesTerminalControls(t *testing.T) {
	for in, want := range map[string]string{
		"plain text\n\tindented":                    "plain text\n\tindented",
		"copy \x1b]52;c;ZXZpbA==\x07 done":          "copy  done",
		"title \x1b]0;pwned\x1b\\ here":             "title  here",
		"\x1b[2J\x1b[Hcleared":                      "cleared",
		"c1 \u009b31m csi":                          "c1 31m csi",
		"raw c1 byte \x9b31m":                       "raw c1 byte \uFFFD31m",
		"bidi \u202eevil\u202c":                     "bidi evil",
		"bell\a and backspace\b and cr\r":           "bell and backspace and cr",
		"unicode é 漢字 🙂":                            "unicode é 漢字 🙂",
		"half \x1b":                                 "half ",
		"\x1bP1$r0m\x1b\\dcs and \x1b_apc\x1b\\ ok": "dcs and  ok",
	} {
		got := String(in)
		if got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
		checkSafe(t, in, got)
	}
	s := "nothing to do"
	if String(s) != s || Needed(s) {
		t.Fatal("clean text changed")
	}
}

func FuzzString(f *testing.F) {
	for _, s := range []string{"", "a\x1b]52;c;x\x07b", "\x9b\x1b[", strings.Repeat("\x1b[", 10), "\u202e\x00\x7f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		checkSafe(t, in, String(in))
	})
}
