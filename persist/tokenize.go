package persist

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"talaria/providers"
)

// maxTokenBytes bounds one index token; longer words (hashes, base64) are
// cut at a rune boundary, in the index and in queries alike.
const maxTokenBytes = 48

// tokenSpan is one token of a text: its lowercased form and where its word
// lies in the text (byte offsets).
type tokenSpan struct {
	tok        string
	start, end int
}

// tokenize splits text into search tokens, lowercased: runs of letters,
// digits and combining marks, except that Han, Hiragana and Katakana
// characters (scripts written without spaces) are one token each. Everything
// else separates tokens. fn is called for each token in order; returning
// false stops.
func tokenize(text string, fn func(tok string, start, end int) bool) {
	var buf []byte
	start := -1
	flush := func(end int) bool {
		if start < 0 {
			return true
		}
		tok := lowerToken(text[start:end], &buf)
		s := start
		start = -1
		return fn(tok, s, end)
	}
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			if isASCIIWord(c) {
				if start < 0 {
					start = i
				}
			} else if !flush(i) {
				return
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case isIdeograph(r):
			if !flush(i) {
				return
			}
			start = i
			if !flush(i + size) {
				return
			}
		case r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)):
			if start < 0 {
				start = i
			}
		default:
			if !flush(i) {
				return
			}
		}
		i += size
	}
	flush(len(text))
}

// tokenSpans returns every token of text with its position.
func tokenSpans(text string) []tokenSpan {
	var out []tokenSpan
	tokenize(text, func(tok string, start, end int) bool {
		out = append(out, tokenSpan{tok: tok, start: start, end: end})
		return true
	})
	return out
}

// isASCIIWord reports ASCII letters and digits.
func isASCIIWord(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// isIdeograph reports the scripts tokenized one character at a time.
func isIdeograph(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}

// lowerToken lowercases a word and cuts it to maxTokenBytes. An ASCII word
// already in lower case is returned without copying the bytes twice.
func lowerToken(word string, buf *[]byte) string {
	b := (*buf)[:0]
	for _, r := range word {
		r = unicode.ToLower(r)
		if len(b)+utf8.RuneLen(r) > maxTokenBytes {
			break
		}
		b = utf8.AppendRune(b, r)
	}
	*buf = b
	if string(b) == word {
		return word
	}
	return string(b)
}

// searchText is the text of a message that the index covers: its content
// and, for an assistant's tool calls, each tool's name and the string values
// of its arguments.
func searchText(m *providers.Message) string {
	if len(m.ToolCalls) == 0 {
		return m.Content
	}
	var b strings.Builder
	b.WriteString(m.Content)
	for _, tc := range m.ToolCalls {
		b.WriteString("\n")
		b.WriteString(tc.Name)
		b.WriteString(" ")
		writeArgStrings(&b, tc.Arguments)
	}
	return b.String()
}

// writeArgStrings writes the string values found in a JSON arguments object
// (so that escapes such as \n do not glue words together), or the raw text
// if it is not valid JSON.
func writeArgStrings(b *strings.Builder, args string) {
	var v any
	if err := json.Unmarshal([]byte(args), &v); err != nil {
		b.WriteString(args)
		return
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			b.WriteString(x)
			b.WriteString("\n")
		case float64, bool:
			b.WriteString(strings.TrimSpace(jsonText(x)))
			b.WriteString("\n")
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			// In key order, so that the text (and so snippets and phrase
			// positions) does not depend on map iteration.
			for _, k := range slices.Sorted(maps.Keys(x)) {
				walk(x[k])
			}
		}
	}
	walk(v)
}

// jsonText renders a JSON scalar.
func jsonText(v any) string {
	raw, _ := json.Marshal(v)
	return string(raw)
}

// distinctTokens returns the set of tokens of text.
func distinctTokens(text string) map[string]struct{} {
	set := make(map[string]struct{})
	tokenize(text, func(tok string, _, _ int) bool {
		set[tok] = struct{}{}
		return true
	})
	return set
}
