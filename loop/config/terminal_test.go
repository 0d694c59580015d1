package config

import (
	"strings"
	"testing"
)

// TestTerminalKeys checks the keys of the terminal around the TUI:
// display.print_on_exit, display.mouse and notifications.
func TestTerminalKeys(t *testing.T) {
	cfg, err := parse(t, "")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Display.PrintOnExit != "last" || cfg.Display.Mouse != nil || cfg.Notifications.Mode != "unfocused" || cfg.Notifications.MinSeconds != 10 {
		t.Errorf("defaults: %+v %+v", cfg.Display, cfg.Notifications)
	}
	cfg, err = parse(t, "display:\n  print_on_exit: all\n  mouse: false\nnotifications:\n  when: [turn_end, approval]\n  mode: always\n  min_seconds: 3\n  command: [notify-send, talaria]\n")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Display.PrintOnExit != "all" || cfg.Display.Mouse == nil || *cfg.Display.Mouse ||
		strings.Join(cfg.Notifications.When, ",") != "turn_end,approval" || cfg.Notifications.Mode != "always" ||
		cfg.Notifications.MinSeconds != 3 || strings.Join(cfg.Notifications.Command, " ") != "notify-send talaria" {
		t.Errorf("parsed: %+v %+v", cfg.Display, cfg.Notifications)
	}
	for _, c := range []struct{ yaml, want string }{
		{"display:\n  print_on_exit: some\n", "display.print_on_exit"},
		{"notifications:\n  when: [lunch]\n", "notifications.when"},
		{"notifications:\n  mode: loud\n", "notifications.mode"},
		{"notifications:\n  min_seconds: -1\n", "notifications.min_seconds"},
		{"notifications:\n  command: ['']\n", "notifications.command"},
		{"notifications:\n  sound: true\n", "notifications.sound: unknown key"},
	} {
		if _, err := parse(t, c.yaml); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v does not name %q", c.yaml, err, c.want)
		}
	}
}
