package tools

import "testing"

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b  string
		bound int
		d     int
	}{
		{"", "", -1, 0}, {"a", "", -1, 1}, {"kitten", "sitting", -1, 3}, {"provder", "provider", -1, 1},
		{"é", "e", -1, 1}, // runes, not bytes
		{"kitten", "sitting", 2, 3}, {"abcdef", "a", 2, 3}, {"main.go", "mian.go", 2, 2},
	} {
		if got := EditDistance(c.a, c.b, c.bound); got != c.d {
			t.Errorf("EditDistance(%q, %q, %d) = %d, want %d", c.a, c.b, c.bound, got, c.d)
		}
	}
}
