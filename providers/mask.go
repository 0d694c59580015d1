package providers

import (
	"reflect"
	"regexp"
	"strings"
)

// minSecretLen is the shortest key value a Masker replaces: shorter
// strings would mask ordinary words.
const minSecretLen = 6

// Key-shaped tokens masked even when no Masker knows them: OpenAI-style
// (sk-, sk-proj-, sk-ant-), Google (AIza), Hugging Face (hf_), GitHub
// (ghp_, github_pat_), AWS access key ids, and bearer tokens.
var (
	keyShapeRe = regexp.MustCompile(`\b(?:sk-[A-Za-z0-9_\-]{12,}|AIza[A-Za-z0-9_\-]{20,}|hf_[A-Za-z0-9]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|AKIA[A-Z0-9]{16})`)
	bearerRe   = regexp.MustCompile(`(?i)\b(bearer\s+)([A-Za-z0-9._~+/\-]{12,}=*)`)
	userinfoRe = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.\-]*://)([^/?#@\s]+)@`)
	keyParamRe = regexp.MustCompile(`(?i)([?&](?:key|api_key|apikey|access_token|token)=)([^&#\s"']+)`)
)

// maskedShape stands for the hidden part of a secret.
const maskedShape = "…"

// Masker hides secrets in text: the key values it was given, URL
// userinfo (https://user:pass@host), key query parameters (?key=…) and
// key-shaped tokens. A masked value keeps enough to recognise it
// (sk-…abcd). The zero Masker (or nil) masks only the generic shapes. It
// is safe for concurrent use.
type Masker struct {
	secrets []string
}

// NewMasker returns a Masker for the given key values; blank and very
// short ones are ignored.
func NewMasker(secrets ...string) *Masker {
	m := &Masker{}
	for _, s := range secrets {
		if s = strings.TrimSpace(s); len(s) >= minSecretLen {
			m.secrets = append(m.secrets, s)
		}
	}
	return m
}

// MaskSecret shows a secret as its first three and last four characters
// around an ellipsis (sk-…abcd); a short one as "…" and its last two.
func MaskSecret(s string) string {
	if len(s) < 12 {
		if len(s) <= 4 {
			return maskedShape
		}
		return maskedShape + s[len(s)-2:]
	}
	return s[:3] + maskedShape + s[len(s)-4:]
}

// Mask returns s with every secret masked.
func (m *Masker) Mask(s string) string {
	if s == "" {
		return s
	}
	if m != nil {
		for _, k := range m.secrets {
			if strings.Contains(s, k) {
				s = strings.ReplaceAll(s, k, MaskSecret(k))
			}
		}
	}
	return MaskText(s)
}

// MaskText masks what needs no known key: URL userinfo, key query
// parameters, bearer tokens and key-shaped tokens.
func MaskText(s string) string {
	if strings.Contains(s, "://") && strings.Contains(s, "@") {
		s = userinfoRe.ReplaceAllStringFunc(s, func(m string) string {
			sub := userinfoRe.FindStringSubmatch(m)
			if strings.Contains(sub[2], maskedShape) {
				return m // masked already: masking twice changes nothing
			}
			return sub[1] + MaskSecret(sub[2]) + "@"
		})
	}
	if strings.Contains(s, "=") {
		s = keyParamRe.ReplaceAllStringFunc(s, func(m string) string {
			sub := keyParamRe.FindStringSubmatch(m)
			if strings.Contains(sub[2], maskedShape) {
				return m
			}
			return sub[1] + MaskSecret(sub[2])
		})
	}
	if strings.Contains(s, "earer") || strings.Contains(s, "EARER") {
		s = bearerRe.ReplaceAllStringFunc(s, func(m string) string {
			sub := bearerRe.FindStringSubmatch(m)
			return sub[1] + MaskSecret(sub[2])
		})
	}
	return keyShapeRe.ReplaceAllStringFunc(s, MaskSecret)
}

// MaskStrings masks, in place, every string reachable from v (a pointer):
// struct fields, slice and array elements, map values and what pointers
// and interfaces hold. A string is written only when masking changes it.
func (m *Masker) MaskStrings(v any) {
	m.maskValue(reflect.ValueOf(v), 0)
}

// maxMaskDepth bounds MaskStrings on cyclic or very deep values.
const maxMaskDepth = 12

func (m *Masker) maskValue(v reflect.Value, depth int) {
	if depth > maxMaskDepth || !v.IsValid() {
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			m.maskValue(v.Elem(), depth+1)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Field(i); f.CanSet() || f.Kind() != reflect.String {
				m.maskValue(f, depth+1)
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return // raw bytes (json.RawMessage): left as they are
		}
		for i := range v.Len() {
			m.maskValue(v.Index(i), depth+1)
		}
	case reflect.Map:
		if v.Type().Elem().Kind() != reflect.String {
			return
		}
		for _, k := range v.MapKeys() {
			s := v.MapIndex(k).String()
			if masked := m.Mask(s); masked != s {
				v.SetMapIndex(k, reflect.ValueOf(masked).Convert(v.Type().Elem()))
			}
		}
	case reflect.String:
		if !v.CanSet() {
			return
		}
		if s := v.String(); s != "" {
			if masked := m.Mask(s); masked != s {
				v.SetString(masked)
			}
		}
	}
}
