// Package e2e holds the end-to-end test of the TUI: the built binary runs
// in tmux against a scripted OpenAI-compatible server, driven by keys.
package e2e
