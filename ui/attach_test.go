package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"

	"talaria/loop"
	pt "talaria/providers/providertest"
)

// imageAgent is a fake agent that also takes images.
type imageAgent struct {
	fakeAgent
	mu     sync.Mutex
	inputs []loop.Input
}

func (a *imageAgent) StartInput(_ context.Context, in loop.Input) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.inputs = append(a.inputs, in)
	return nil
}

func (a *imageAgent) sent() []loop.Input {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]loop.Input(nil), a.inputs...)
}

func imageHarness(t *testing.T, dir string) (*harness, *imageAgent) {
	ia := &imageAgent{}
	h := newHarness(t, func(o *Options) { fake(o).Agent, fake(o).OnStartInput, o.Cwd = ia, ia.StartInput, dir })
	h.m.ses.cwd = dir
	return h, ia
}

// A pasted path of an image file (as a terminal pastes a dragged file:
// quoted or with escaped spaces) becomes an image chip; Enter sends the
// image with the text, and the transcript shows the image's line.
func TestPastedImagePathAttaches(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "my shot.png"), pt.PNG, 0o644); err != nil {
		t.Fatal(err)
	}
	h, ia := imageHarness(t, dir)
	h.typeText("what is this? ")
	h.settle(tea.PasteMsg{Content: `'` + filepath.Join(dir, "my shot.png") + `'`})
	contains(t, h.screen(), "[▣ my shot.png 69 bytes]")
	if v := h.m.comp.value(); v != "what is this? " {
		t.Fatalf("the path was typed into the input: %q", v)
	}
	h.settle(keyMsg("enter"))
	in := ia.sent()
	if len(in) != 1 || strings.TrimSpace(in[0].Text) != "what is this?" || len(in[0].Images) != 1 || string(in[0].Images[0].Data) != string(pt.PNG) {
		t.Fatalf("sent %+v", in)
	}
	contains(t, h.screen(), "what is this?", "[▣ my shot.png 69 bytes]")
	if strings.Contains(h.m.composerView, "▣") {
		t.Fatal("the chip stayed in the composer after sending")
	}
	// An escaped-space relative path works too; a missing one is text.
	h.endTurn(1, "")
	h.settle(tea.PasteMsg{Content: `my\ shot.png`})
	if len(h.m.comp.images) != 1 {
		t.Fatal("a relative, escaped path was not attached")
	}
	h.settle(keyMsg("backspace"))
	if len(h.m.comp.images) != 0 {
		t.Fatal("backspace on an empty input did not drop the image")
	}
	h.settle(tea.PasteMsg{Content: "nothere.png"})
	if v := h.m.comp.value(); v != "nothere.png" || len(h.m.comp.images) != 0 {
		t.Fatalf("a missing image path: input %q, %d images", v, len(h.m.comp.images))
	}
}

// A pasted .png path whose file is no image is pasted as text, with a
// notice saying why it was not attached.
func TestPastedImagePathNotAnImage(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "fake.png"), []byte("just text"), 0o644); err != nil {
		t.Fatal(err)
	}
	h, _ := imageHarness(t, dir)
	h.settle(tea.PasteMsg{Content: "fake.png"})
	if h.m.comp.value() != "fake.png" || len(h.m.comp.images) != 0 {
		t.Fatalf("input %q, %d images", h.m.comp.value(), len(h.m.comp.images))
	}
	if s := strings.Join(strings.Fields(h.screen()), " "); !strings.Contains(s, "The image is not attached: fake.png is not a PNG, JPEG, GIF or WebP image") {
		t.Fatalf("screen: %s", s)
	}
}

// Ctrl+V reads the clipboard's image with wl-paste (on Wayland) and
// attaches it; a clipboard without an image says so.
func TestCtrlVAttachesClipboardImage(t *testing.T) {
	dir := t.TempDir()
	png := filepath.Join(dir, "clip.png")
	if err := os.WriteFile(png, pt.PNG, 0o644); err != nil {
		t.Fatal(err)
	}
	paster := filepath.Join(dir, "wl-paste")
	script := "#!/bin/sh\n[ \"$3\" = image/png ] || exit 3\ncat '" + png + "'\n"
	if err := os.WriteFile(paster, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	h, ia := imageHarness(t, dir)
	h.m.term = termEnv{wayland: true, lookPath: func(name string) (string, error) {
		if name == "wl-paste" {
			return paster, nil
		}
		return "", os.ErrNotExist
	}}
	h.typeText("and this?")
	h.settle(keyMsg("ctrl+v"))
	contains(t, h.screen(), "[▣ clipboard 69 bytes]")
	h.settle(keyMsg("enter"))
	if in := ia.sent(); len(in) != 1 || len(in[0].Images) != 1 || in[0].Images[0].MIME != "image/png" {
		t.Fatalf("sent %+v", in)
	}
	h.endTurn(1, "")
	// No image on the clipboard: wl-paste's own complaint becomes a hint.
	if err := os.WriteFile(paster, []byte("#!/bin/sh\necho 'No suitable type of content copied' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.settle(keyMsg("ctrl+v"))
	contains(t, h.screen(), "the clipboard holds no image")
	// No program at all.
	h.m.term = termEnv{lookPath: noProgram}
	h.settle(keyMsg("ctrl+v"))
	contains(t, h.screen(), "no wl-paste/xclip found")
}

// imagePathOf takes what terminals paste for a dragged file and nothing
// else.
func TestImagePathOf(t *testing.T) {
	for paste, want := range map[string]string{
		"/a/b.png":              "/a/b.png",
		" '/a/my b.JPG' ":       "/a/my b.JPG",
		`"/a/b.webp"`:           "/a/b.webp",
		`/a/my\ b.gif`:          "/a/my b.gif",
		"file:///a/my%20b.jpeg": "/a/my b.jpeg",
		"rel/c.png":             "/cwd/rel/c.png",
		"/a/b.txt":              "",
		"look at /a/b.png\nplz": "",
		"/a/b.png\n/a/c.png":    "",
		"file:///a/%zz.png":     "",
		"":                      "",
	} {
		got, ok := imagePathOf(paste, "/cwd")
		if (want == "") == ok || got != want {
			t.Errorf("%q: %q %v, want %q", paste, got, ok, want)
		}
	}
}

// osascript's «data PNGf…» form decodes to the image bytes.
func TestDecodeAppleScriptData(t *testing.T) {
	got, err := decodeAppleScriptData([]byte("«data PNGf89504E47»\n"))
	if err != nil || string(got) != "\x89PNG" {
		t.Fatalf("%q %v", got, err)
	}
	if _, err := decodeAppleScriptData([]byte("missing value")); err != errNoClipboardImage {
		t.Fatalf("text: %v", err)
	}
}
