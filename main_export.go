package main

import (
	"errors"
	"fmt"
	"strings"
)

// The formats of `talaria export`: JSON Lines (every message as stored,
// the default) and Markdown (for people).
const (
	formatJSONL    = "jsonl"
	formatMarkdown = "markdown"
)

// exportArgs reads `talaria export ID [--format FORMAT]`: the flag may
// come before or after the id, as --format F or --format=F; "md" is
// markdown and "json" is jsonl.
func exportArgs(args []string) (ref, format string, err error) {
	format = formatJSONL
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case strings.HasPrefix(a, "-") && name == "format":
			if !hasVal {
				if i+1 >= len(args) {
					return "", "", errors.New("--format needs a value: jsonl or markdown")
				}
				i++
				val = args[i]
			}
			switch strings.ToLower(val) {
			case formatJSONL, "json":
				format = formatJSONL
			case formatMarkdown, "md":
				format = formatMarkdown
			default:
				return "", "", fmt.Errorf("--format %q: not jsonl or markdown", val)
			}
		case strings.HasPrefix(a, "-") && a != "-":
			return "", "", fmt.Errorf("unknown flag %s", a)
		case ref != "":
			return "", "", fmt.Errorf("one session at a time (got %q and %q)", ref, a)
		default:
			ref = a
		}
	}
	if ref == "" {
		return "", "", errors.New("which session? give its id (a unique prefix or its title)")
	}
	return ref, format, nil
}
