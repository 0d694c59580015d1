#!/bin/bash
# PreToolUse hook: block rm -rf in terminal commands (Claude Code's format).
input=$(cat)
if printf '%s' "$input" | grep -Eq '"command" *: *"[^"]*\brm +-[a-zA-Z]*r'; then
  echo "rm -r is blocked by the project's hook; delete files with a narrower command" >&2
  exit 2
fi
exit 0
