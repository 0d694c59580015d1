package tools

import (
	"context"
	"strings"
)

// checkEdits appends to res what env.Edits reports about the files an edit
// just wrote (absolute paths): the language servers' diagnostics, or why
// there are none. It never turns a successful edit into a failure.
func checkEdits(ctx context.Context, env *Env, res Result, paths ...string) Result {
	if env == nil || env.Edits == nil || len(paths) == 0 || ctx.Err() != nil {
		return res
	}
	r := env.Edits.Check(ctx, paths...)
	if text := r.Text(); text != "" {
		res.Output = strings.TrimRight(res.Output, "\n") + "\n\n" + text
	}
	res.Diagnostics = r.Diagnostics
	return res
}
