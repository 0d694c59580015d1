package providers

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// evidence is what the classifier reads from one APIError: the lowercase
// text to match phrases against, the structured codes and a few fields of
// the body.
type evidence struct {
	// text is the lowercase concatenation of the message, the body, the
	// parsed error message, OpenRouter's metadata.raw inner message, the
	// codes and the underlying error.
	text string
	// message is the provider's own message (parsed, else APIError.Message).
	message string
	// codes are the lowercase error.code / error.type / error.status /
	// error_code values; numeric codes and the generic "error" are dropped.
	codes []string
	// upstream is OpenRouter's metadata.provider_name.
	upstream string
	// wrapped is true for OpenRouter's "Provider returned error" envelope.
	wrapped bool
	// resetHeader is true when a header says when a limit resets.
	resetHeader bool
}

// wireError is the union of the error objects providers send.
type wireError struct {
	Message   json.RawMessage `json:"message"`
	Code      json.RawMessage `json:"code"`
	Type      json.RawMessage `json:"type"`
	Status    json.RawMessage `json:"status"`
	ErrorCode json.RawMessage `json:"error_code"`
	CamelCode json.RawMessage `json:"errorCode"`
	Details   json.RawMessage `json:"details"`
	Metadata  *struct {
		Raw          json.RawMessage `json:"raw"`
		ProviderName string          `json:"provider_name"`
	} `json:"metadata"`
}

// wireBody is an error body: {"error":{…}} or {"error":"…"} with optional
// top-level fields, or a flat {"message","code"} object (old vLLM, AWS
// with its "__type").
type wireBody struct {
	wireError
	Error   json.RawMessage `json:"error"`
	AWSType string          `json:"__type"`
	// Response is the response object of the Responses API's
	// response.failed event, whose error is response.error.
	Response *struct {
		Error json.RawMessage `json:"error"`
	} `json:"response"`
}

// ErrorBody is what the one parse of a provider's JSON error body finds.
// Every wire fills its APIError from it (APIError.ParseBody) and Classify
// reads the same parse instead of decoding the body again.
type ErrorBody struct {
	// Message is error.message (a string, or a list of strings joined with
	// ", "), or error itself when it is a string (Ollama), or the flat
	// message of a body without an error member.
	Message string
	// Type is error.type, else the flat type or AWS "__type".
	Type string
	// Code is error.code as text (a string or a number), else error_code,
	// errorCode or details.error_code.
	Code string
	// Status is error.status (Gemini: RESOURCE_EXHAUSTED, ...).
	Status string
	// Details is error.details when it is a list (Gemini's RetryInfo,
	// ErrorInfo, ...), each entry raw.
	Details []json.RawMessage
	// Upstream is OpenRouter's metadata.provider_name; Raw its metadata.raw
	// (the upstream provider's own error, as text).
	Upstream, Raw string

	// What the classifier reads: the innermost human message (nested JSON
	// documents unwrapped, OpenRouter's raw appended), the lowercase codes,
	// and whether the body is OpenRouter's "Provider returned error"
	// envelope.
	human   string
	codes   []string
	wrapped bool
}

// ParseErrorBody parses a provider error body: an object with an "error"
// member (object or string; OpenAI and every compatible server, Anthropic,
// Gemini, OpenRouter, Ollama), Gemini's one-element array of those, or a
// flat object with a message (old vLLM, AWS). ok is false when body is none
// of these (an HTML page, a complete answer, garbage).
func ParseErrorBody(body []byte) (eb *ErrorBody, ok bool) {
	raw := bytes.TrimSpace(body)
	if len(raw) > 0 && raw[0] == '[' {
		var arr []json.RawMessage
		if json.Unmarshal(raw, &arr) != nil || len(arr) == 0 {
			return nil, false
		}
		raw = bytes.TrimSpace(arr[0])
	}
	if len(raw) == 0 || raw[0] != '{' {
		return nil, false
	}
	var b wireBody
	if json.Unmarshal(raw, &b) != nil {
		return nil, false
	}
	ev := &evidence{}
	eb = &ErrorBody{}
	obj := &b.wireError
	eb.human = ev.readError(obj)
	inner := bytes.TrimSpace(b.Error)
	if (len(inner) == 0 || string(inner) == "null") && b.Response != nil {
		inner = bytes.TrimSpace(b.Response.Error)
	}
	switch {
	case len(inner) > 0 && inner[0] == '{':
		var we wireError
		if json.Unmarshal(inner, &we) == nil {
			if m := ev.readError(&we); m != "" {
				eb.human = m
			}
			obj = &we
			ok = true
		}
	case len(inner) > 0 && inner[0] == '"':
		if s := jsonString(inner); s != "" {
			eb.human, eb.Message = s, s // Ollama native {"error":"…"}
			ok = true
		}
	}
	if eb.Message == "" {
		eb.Message = jsonMessage(obj.Message)
	}
	eb.Type = jsonScalar(obj.Type)
	if obj == &b.wireError && (eb.Type == "error" || strings.HasPrefix(eb.Type, "response.") || eb.Type == "") {
		// A flat body whose "type" names the envelope (an "error" or
		// "response.failed" event), not the error; AWS says it in __type.
		eb.Type = b.AWSType
	}
	eb.Status = jsonScalar(obj.Status)
	eb.Code = firstText(jsonScalar(obj.Code), jsonScalar(obj.ErrorCode), jsonScalar(obj.CamelCode), detailsCode(obj.Details))
	if d := bytes.TrimSpace(obj.Details); len(d) > 0 && d[0] == '[' {
		_ = json.Unmarshal(d, &eb.Details)
	}
	if md := obj.Metadata; md != nil {
		eb.Upstream, eb.Raw = md.ProviderName, jsonScalar(md.Raw)
	}
	if eb.Upstream == "" {
		eb.Upstream = ev.upstream
	}
	eb.codes, eb.wrapped = ev.codes, ev.wrapped
	ok = ok || eb.Message != ""
	return eb, ok
}

// detailsCode is details.error_code when details is an object.
func detailsCode(raw json.RawMessage) string {
	d := bytes.TrimSpace(raw)
	if len(d) == 0 || d[0] != '{' {
		return ""
	}
	var det struct {
		ErrorCode json.RawMessage `json:"error_code"`
	}
	if json.Unmarshal(d, &det) != nil {
		return ""
	}
	return jsonScalar(det.ErrorCode)
}

func firstText(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// gather collects the evidence of e, from the parse the wire already made
// of its body when there is one (APIError.ParseBody).
func gather(e *APIError) *evidence {
	ev := &evidence{message: e.Message}
	if e.Headers != nil {
		for _, k := range [...]string{"Retry-After", "Retry-After-Ms", "X-Ratelimit-Reset",
			"X-Ratelimit-Reset-Requests", "X-Ratelimit-Reset-Tokens"} {
			if e.Headers.Get(k) != "" {
				ev.resetHeader = true
				break
			}
		}
	}
	ev.addCode(e.Code)
	ev.addCode(e.Type)
	var parsed string
	if e.Body != "" {
		eb := e.parsed
		if !e.hasParse || e.parsedFrom != e.Body {
			eb, _ = ParseErrorBody([]byte(e.Body))
		}
		if eb != nil {
			for _, c := range eb.codes {
				ev.addCode(c)
			}
			ev.upstream, ev.wrapped, parsed = eb.Upstream, eb.wrapped, eb.human
		}
		if parsed != "" && (ev.message == "" || ev.wrapped) {
			ev.message = parsed
		}
	}
	var sb strings.Builder
	sb.Grow(len(e.Body) + len(e.Message) + len(parsed) + 64)
	sb.WriteString(e.Body)
	sb.WriteByte('\n')
	// Parts the body already holds verbatim add nothing but scanning time.
	add := func(s string) {
		if s != "" && !strings.Contains(e.Body, s) {
			sb.WriteString(s)
			sb.WriteByte('\n')
		}
	}
	add(e.Message)
	add(parsed)
	if e.Err != nil {
		add(e.Err.Error())
	}
	for _, c := range ev.codes {
		add(c)
	}
	ev.text = strings.ToLower(sb.String())
	return ev
}

// readError records the codes of we and returns its message, preferring
// OpenRouter's metadata.raw (the upstream's own words) and a JSON document
// nested inside the message.
func (ev *evidence) readError(we *wireError) string {
	for _, c := range []json.RawMessage{we.Code, we.Type, we.Status, we.ErrorCode, we.CamelCode} {
		ev.addCode(jsonScalar(c))
	}
	ev.addCode(detailsCode(we.Details))
	msg := jsonMessage(we.Message)
	if nested := nestedMessage(msg, ev); nested != "" {
		msg = nested
	}
	if we.Metadata != nil {
		if we.Metadata.ProviderName != "" {
			ev.upstream = we.Metadata.ProviderName
		}
		if raw := jsonScalar(we.Metadata.Raw); raw != "" {
			ev.wrapped = true
			if nested := nestedMessage(raw, ev); nested != "" {
				raw = nested
			}
			if msg != "" {
				msg += ": " + raw
			} else {
				msg = raw
			}
		}
	}
	return msg
}

// nestedMessage parses s as a JSON error document and returns its message,
// recording its codes; "" when s is not one.
func nestedMessage(s string, ev *evidence) string {
	t := strings.TrimSpace(s)
	if len(t) < 2 || (t[0] != '{' && t[0] != '[') {
		return ""
	}
	sub, ok := ParseErrorBody([]byte(t))
	if !ok && sub == nil {
		return ""
	}
	for _, c := range sub.codes {
		ev.addCode(c)
	}
	return sub.human
}

// addCode records a code, lowercase, ignoring numbers (HTTP statuses
// echoed by OpenRouter and llama.cpp) and the generic "error".
func (ev *evidence) addCode(c string) {
	c = strings.ToLower(strings.TrimSpace(c))
	if c == "" || c == "error" || c == "null" {
		return
	}
	if _, err := strconv.Atoi(c); err == nil {
		return
	}
	for _, have := range ev.codes {
		if have == c {
			return
		}
	}
	ev.codes = append(ev.codes, c)
}

// hasCode reports whether any of the codes was recorded.
func (ev *evidence) hasCode(codes ...string) bool {
	for _, have := range ev.codes {
		for _, c := range codes {
			if have == c {
				return true
			}
		}
	}
	return false
}

// jsonString decodes a JSON string, or returns "".
func jsonString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// jsonScalar renders a JSON string or number as text; other kinds give "".
func jsonScalar(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '"':
		return jsonString(raw)
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return string(raw)
	}
	return ""
}

// jsonMessage decodes a message that is a string or an array of strings
// (joined with ", ", as some OpenAI-compatible servers send).
func jsonMessage(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	if raw[0] == '[' {
		var parts []string
		if json.Unmarshal(raw, &parts) == nil {
			return strings.Join(parts, ", ")
		}
		return ""
	}
	return jsonString(raw)
}
