package providers

import (
	"bytes"
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// resetFields is the reset part of a usage-limit body, at the top level or
// under "error" (ChatGPT-plan Codex: {"error":{"type":"usage_limit_reached",
// "resets_in_seconds":1234,"resets_at":1757000000}}).
type resetFields struct {
	ResetsInSeconds json.RawMessage `json:"resets_in_seconds"`
	ResetsAt        json.RawMessage `json:"resets_at"`
	ResetAt         json.RawMessage `json:"reset_at"`
	RetryAfter      json.RawMessage `json:"retry_after"`
}

// bodyResetIn returns the wait until the reset a JSON error body states
// (resets_in_seconds, retry_after, or resets_at / reset_at as a Unix time
// in seconds or milliseconds or an RFC 3339 date), at the top level or under
// "error".
func bodyResetIn(body string, now time.Time) (time.Duration, bool) {
	return usageReset(body, now, true)
}

// usageReset is bodyResetIn, reading retry_after only when withRetryAfter.
func usageReset(body string, now time.Time, withRetryAfter bool) (time.Duration, bool) {
	b := bytes.TrimSpace([]byte(body))
	if len(b) == 0 || b[0] != '{' {
		return 0, false
	}
	var top struct {
		resetFields
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(b, &top) != nil {
		return 0, false
	}
	objs := []resetFields{top.resetFields}
	if e := bytes.TrimSpace(top.Error); len(e) > 0 && e[0] == '{' {
		var inner resetFields
		if json.Unmarshal(e, &inner) == nil {
			objs = append([]resetFields{inner}, objs...)
		}
	}
	for _, f := range objs {
		if d, ok := seconds(f.ResetsInSeconds); ok {
			return d, true
		}
		if d, ok := seconds(f.RetryAfter); ok && withRetryAfter {
			return d, true
		}
		for _, at := range []json.RawMessage{f.ResetsAt, f.ResetAt} {
			if d, ok := untilTime(jsonScalar(at), now); ok {
				return d, true
			}
		}
	}
	return 0, false
}

// untilTime reads a Unix time (seconds or milliseconds) or an RFC 3339
// date and returns how far in the future it is.
func untilTime(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	var at time.Time
	if n, err := strconv.ParseFloat(v, 64); err == nil {
		switch {
		case n > 1e12:
			at = time.UnixMilli(int64(n))
		case n > 1e9:
			at = time.Unix(int64(n), 0)
		default:
			return 0, false
		}
	} else if t, err := time.Parse(time.RFC3339, v); err == nil {
		at = t
	} else {
		return 0, false
	}
	d := at.Sub(now)
	return d, d > 0
}

// hasResetField reports a JSON error body that carries a usage-limit
// reset (resets_in_seconds, resets_at or reset_at, at the top level or
// under "error"), in the future or not.
func hasResetField(body string) bool {
	b := bytes.TrimSpace([]byte(body))
	if len(b) == 0 || b[0] != '{' {
		return false
	}
	var top struct {
		resetFields
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(b, &top) != nil {
		return false
	}
	objs := []resetFields{top.resetFields}
	if e := bytes.TrimSpace(top.Error); len(e) > 0 && e[0] == '{' {
		var inner resetFields
		if json.Unmarshal(e, &inner) == nil {
			objs = append(objs, inner)
		}
	}
	for _, f := range objs {
		for _, v := range []json.RawMessage{f.ResetsInSeconds, f.ResetsAt, f.ResetAt} {
			if s := jsonScalar(v); s != "" && s != "null" {
				return true
			}
		}
	}
	return false
}

// bodyReset reports a JSON body that states when its usage limit resets
// (resets_in_seconds, resets_at, reset_at; a bare retry_after is the
// ordinary Retry-After, which RetryDelay honours for any error).
func bodyReset(body string) bool {
	_, ok := usageReset(body, time.Now(), false)
	return ok
}

// headerReset reports headers that state when a limit resets: Retry-After
// (or retry-after-ms), x-ratelimit-reset, or the OpenAI-style
// x-ratelimit-reset-requests / -tokens.
func headerReset(h http.Header) bool {
	if h == nil {
		return false
	}
	now := time.Now()
	if _, ok := RetryAfter(h, "", now); ok {
		return true
	}
	_, ok := ResetHint(h, "", now)
	return ok
}

// isZAICodingOverload matches Z.AI's coding-plan overload narrowly: the
// coding endpoint (api.z.ai/api/coding/paas/v4), a GLM model and code
// 1305 in the body ("The service may be temporarily overloaded"). An
// ordinary quota 429 of the same endpoint does not match.
func isZAICodingOverload(body string, in ClassifyInput) bool {
	u := strings.ToLower(in.BaseURL)
	if !strings.Contains(u, "api.z.ai/api/coding/paas/v4") && !strings.Contains(u, "open.bigmodel.cn/api/coding/paas/v4") {
		return false
	}
	if !strings.HasPrefix(strings.ToLower(ModelBase(in.Model)), "glm") {
		return false
	}
	return bodyCode(body) == "1305"
}

// ModelBase drops a vendor or router prefix from a model id
// ("z-ai/glm-4.6" → "glm-4.6", "openai/gpt-5" → "gpt-5").
func ModelBase(m string) string {
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		return m[i+1:]
	}
	return m
}

// bodyCode returns error.code (or a top-level code) of a JSON body as
// text, numbers included.
func bodyCode(body string) string {
	var b struct {
		Code  json.RawMessage `json:"code"`
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal([]byte(strings.TrimSpace(body)), &b) != nil {
		return ""
	}
	if e := bytes.TrimSpace(b.Error); len(e) > 0 && e[0] == '{' {
		var inner struct {
			Code json.RawMessage `json:"code"`
		}
		if json.Unmarshal(e, &inner) == nil {
			if c := jsonScalar(inner.Code); c != "" {
				return c
			}
		}
	}
	return jsonScalar(b.Code)
}

// The overflow phrasings that state the window (and often the request
// size), lowercase; wire.md §4 and hermes.md §3.5.
var (
	// OpenAI, OpenRouter, vLLM, LM Studio: "maximum context length is 8192
	// tokens. however, your messages resulted in 14837 tokens".
	reMaxContext = regexp.MustCompile(`maximum context length is (\d[\d,]*) tokens`)
	reResulted   = regexp.MustCompile(`(?:resulted in|you requested(?: about)?|request has|your prompt contains at least) (\d[\d,]*) (?:input )?tokens`)
	// Anthropic: "prompt is too long: 200251 tokens > 200000 maximum".
	reAnthropic = regexp.MustCompile(`prompt is too long: (\d[\d,]*) tokens > (\d[\d,]*) maximum`)
	// Anthropic: "input length and `max_tokens` exceed context limit:
	// 199759 + 8192 > 200000".
	reAnthropicSum = regexp.MustCompile(`exceed context limit: (\d[\d,]*) \+ (\d[\d,]*) > (\d[\d,]*)`)
	// Gemini: "the input token count (1290432) exceeds the maximum number
	// of tokens allowed (1048576)".
	reGemini = regexp.MustCompile(`input token count \(?(\d[\d,]*)\)? exceeds the maximum number of tokens allowed \(?(\d[\d,]*)\)?`)
	// llama.cpp: "request (17993 tokens) exceeds the available context
	// size (16384 tokens)".
	reLlama = regexp.MustCompile(`request \((\d[\d,]*) tokens\) exceeds the available context size \((\d[\d,]*) tokens\)`)
	// Generic: "context window of 4096 tokens", "context length of 4096".
	reWindowOf = regexp.MustCompile(`context (?:window|length|size) (?:is|of) (\d[\d,]*)`)
)

// StatedContextLimit reads the context window and the request size an
// overflow message states (lowercase text). Either may be 0.
func StatedContextLimit(t string) (limit, prompt int) {
	num := func(s string) int {
		n, _ := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
		return n
	}
	// The phrasings that state both numbers, with the submatch of each.
	for _, f := range [...]struct {
		re            *regexp.Regexp
		limit, prompt int
	}{{reAnthropic, 2, 1}, {reAnthropicSum, 3, 1}, {reGemini, 2, 1}, {reLlama, 2, 1}} {
		if m := f.re.FindStringSubmatch(t); m != nil {
			return num(m[f.limit]), num(m[f.prompt])
		}
	}
	if m := reMaxContext.FindStringSubmatch(t); m != nil {
		limit = num(m[1])
		if m := reResulted.FindStringSubmatch(t); m != nil {
			prompt = num(m[1])
		}
		return limit, prompt
	}
	if m := reWindowOf.FindStringSubmatch(t); m != nil {
		return num(m[1]), 0
	}
	return 0, 0
}
