package providers

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"
)

// ConnectionRefusedRetries is how many retries a refused connection gets:
// a server that is starting may come up within a second, one that is not
// running never will, so a long backoff only delays the news.
const ConnectionRefusedRetries = 2

// ConnectionRefusedDelay is the wait before retry attempt (1-based) of a
// refused connection: 250 ms, then 500 ms.
func ConnectionRefusedDelay(attempt int) time.Duration {
	return time.Duration(max(1, min(attempt, ConnectionRefusedRetries))) * 250 * time.Millisecond
}

// refused turns a transport timeout that was in fact a refused connection
// (ECONNREFUSED, or its text once the type is lost) into
// ReasonConnectionRefused, with a message that names the base URL.
// Anything with an HTTP status was answered by something, so it stays.
func refused(c *Classified, err error, in ClassifyInput) {
	if c.Reason != ReasonTimeout || c.Status != 0 {
		return
	}
	t := strings.ToLower(err.Error())
	if !errors.Is(err, syscall.ECONNREFUSED) && !strings.Contains(t, "connection refused") && !strings.Contains(t, "econnrefused") {
		return
	}
	c.Reason, c.Retryable, c.ShouldFallback = ReasonConnectionRefused, true, true
	c.Message = RefusedMessage(in.BaseURL)
}

// RefusedMessage says that nothing listens at baseURL.
func RefusedMessage(baseURL string) string {
	if baseURL == "" {
		return "nothing is listening at the provider's address (connection refused)"
	}
	return fmt.Sprintf("nothing is listening at %s (connection refused)", baseURL)
}
