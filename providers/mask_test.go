package providers

import (
	"errors"
	"strings"
	"testing"
)

func TestMaskerHidesSecrets(t *testing.T) {
	m := NewMasker("custom-token-42abcd", "", "short")
	for in, want := range map[string]string{
		"key custom-token-42abcd here":                                             "key cus…abcd here",
		"Incorrect API key provided: sk-proj-abcdefghijklmnopWXYZ.":                "Incorrect API key provided: sk-…WXYZ.",
		"Post \"https://bob:pa55word-long@api.example.com/v1\": EOF":               "Post \"https://bob…long@api.example.com/v1\": EOF",
		"GET https://x.googleapis.com/v1?key=AIzaSyA1234567890abcdefghijk&alt=sse": "GET https://x.googleapis.com/v1?key=AIz…hijk&alt=sse",
		"Authorization: Bearer abcdefghijklmnop1234":                               "Authorization: Bearer abc…1234",
		"a short word stays": "a short word stays",
	} {
		if got := m.Mask(in); got != want {
			t.Errorf("Mask(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMaskStringsAndAPIError(t *testing.T) {
	type inner struct{ Text string }
	v := struct {
		Msg   string
		List  []inner
		Ptr   *inner
		Extra map[string]string
		raw   string
	}{Msg: "x sk-abcdefghijklmnopqrst", List: []inner{{"sk-abcdefghijklmnopqrst"}}, Ptr: &inner{"sk-abcdefghijklmnopqrst"}, Extra: map[string]string{"a": "sk-abcdefghijklmnopqrst"}, raw: "sk-abcdefghijklmnopqrst"}
	NewMasker().MaskStrings(&v)
	if strings.Contains(v.Msg+v.List[0].Text+v.Ptr.Text+v.Extra["a"], "ghijklmnop") || v.raw == "" {
		t.Errorf("not masked: %+v", v)
	}
	e := &APIError{Provider: "openai", Status: 401, Body: `{"error":{"message":"bad key sk-abcdefghijklmnopqrst"}}`, Err: errors.New("x")}
	if strings.Contains(e.Error(), "ghijklmnop") {
		t.Errorf("APIError: %s", e.Error())
	}
}
