package themes

import (
	"image/color"
	"reflect"
	"strings"
	"testing"

	"charm.land/glamour/v2"
)

const sampleMarkdown = "# Title\n\nSome **bold** and `code`.\n\n- one\n- two\n\n```go\nfunc main() { println(\"hi\") }\n```\n\n> quoted\n"

func TestBuiltinsHaveEveryToken(t *testing.T) {
	want := []string{"dark", "high-contrast", "light", "solarized"}
	if got := Names(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	colorType := reflect.TypeOf((*color.Color)(nil)).Elem()
	for _, name := range Names() {
		th, ok := Lookup(name)
		if !ok || th.Name != name {
			t.Fatalf("Lookup(%q) = %v, %v", name, th.Name, ok)
		}
		v := reflect.ValueOf(th)
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if f.Type == colorType && v.Field(i).IsNil() {
				t.Errorf("theme %s: token %s is nil", name, f.Name)
			}
		}
	}
}

func TestLookupAliasesAndResolve(t *testing.T) {
	for _, alias := range []string{"HC", "highcontrast", "High-Contrast"} {
		if th, ok := Lookup(alias); !ok || th.Name != "high-contrast" {
			t.Errorf("Lookup(%q) = %q, %v", alias, th.Name, ok)
		}
	}
	if _, ok := Lookup(Auto); ok {
		t.Error("auto must not be a palette")
	}
	if th, err := Resolve("", false); err != nil || th.Name != "light" {
		t.Errorf("Resolve(\"\", light bg) = %q, %v", th.Name, err)
	}
	if th, err := Resolve("auto", true); err != nil || th.Name != "dark" {
		t.Errorf("Resolve(auto, dark bg) = %q, %v", th.Name, err)
	}
	if _, err := Resolve("nope", true); err == nil || !strings.Contains(err.Error(), "solarized") {
		t.Errorf("Resolve(nope) error = %v, want one listing the themes", err)
	}
	if !Valid("") || !Valid("AUTO") || !Valid("light") || Valid("nope") {
		t.Error("Valid disagrees with Lookup")
	}
}

func TestHexString(t *testing.T) {
	if got := HexString(hex("#7aa2f7")); got != "#7aa2f7" {
		t.Errorf("HexString = %q", got)
	}
	if got := HexString(nil); got != "" {
		t.Errorf("HexString(nil) = %q", got)
	}
}

func TestPlainHasNoColour(t *testing.T) {
	p := Plain()
	st := p.Styles()
	for _, s := range []string{
		st.Text.Render("x"), st.Error.Render("x"), st.UserPrompt.Render("x"),
		st.Composer.Render("x"), st.PopupSelected.Render("x"), st.DiffAdd.Render("x"),
	} {
		if strings.Contains(s, "38;") || strings.Contains(s, "48;") {
			t.Errorf("plain style emitted a colour: %q", s)
		}
	}
	out := renderMarkdown(t, p)
	if strings.Contains(out, "38;") || strings.Contains(out, "48;") {
		t.Errorf("plain markdown emitted a colour: %q", out)
	}
}

func TestGlamourStylesRender(t *testing.T) {
	for _, name := range Names() {
		th, _ := Lookup(name)
		out := renderMarkdown(t, th)
		if !strings.Contains(out, "Title") || !strings.Contains(out, "println") {
			t.Errorf("theme %s: rendered markdown lost text: %q", name, out)
		}
		if !strings.Contains(out, "\x1b[") {
			t.Errorf("theme %s: rendered markdown has no styling", name)
		}
	}
}

func TestStylesUseTokens(t *testing.T) {
	th := darkTheme()
	got := th.Styles().Error.Render("x")
	if !strings.Contains(got, "247;118;142") { // #f7768e
		t.Errorf("error style does not use the Error token: %q", got)
	}
}

func renderMarkdown(t *testing.T, th Theme) string {
	t.Helper()
	r, err := glamour.NewTermRenderer(glamour.WithStyles(th.Glamour()), glamour.WithWordWrap(60))
	if err != nil {
		t.Fatal(err)
	}
	out, err := r.Render(sampleMarkdown)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
