package ui

import "talaria/tools/termsafe"

// sanitize makes text from the model, tools or the session store safe to
// draw; headless mode uses the same termsafe.String.
func sanitize(s string) string { return termsafe.String(s) }
