package loop

import (
	"context"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"talaria/providers"
	pt "talaria/providers/providertest"
)

func pngInput(text string) Input {
	return Input{Text: text, Images: []providers.Image{{MIME: "image/png", Data: pt.PNG}}}
}

// The user's image goes with the user message, in the message itself, and
// again in the next turn's request (the history keeps it).
func TestInputImageReachesTheWireAndStaysInHistory(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Push(pt.Text("A red dot."), pt.Text("Still a red dot."))
	res, err := f.agent.RunInput(context.Background(), pngInput("what is this?"))
	if err != nil || !res.Completed {
		t.Fatalf("run: %v %+v", err, res)
	}
	if _, err := f.agent.Run(context.Background(), "and now?"); err != nil {
		t.Fatal(err)
	}
	url := "data:image/png;base64," + base64.StdEncoding.EncodeToString(pt.PNG)
	ph := providers.Image{MIME: "image/png", Data: pt.PNG}.Placeholder()
	raw := f.srv.RawRequests()
	for i, r := range raw {
		if !strings.Contains(r, `{"role":"user","content":[{"type":"text","text":"what is this?\n`+ph+`"},{"type":"image_url","image_url":{"url":"`+url+`"}}]}`) {
			t.Fatalf("request %d lacks the user's image in its message:\n%.600s", i, r)
		}
	}
	h := f.agent.History()
	if len(h[0].Images) != 1 || string(h[0].Images[0].Data) != string(pt.PNG) {
		t.Fatalf("history's user message: %+v", h[0])
	}
}

// A model known to take text only gets the placeholder and a note saying
// the image was not sent, never the image.
func TestInputImageTextOnlyModelGetsANote(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.Model = "gpt-3.5-turbo" })
	f.srv.Push(pt.Text("I cannot see images."))
	if _, err := f.agent.RunInput(context.Background(), pngInput("look")); err != nil {
		t.Fatal(err)
	}
	raw := f.srv.RawRequests()[0]
	if strings.Contains(raw, "image_url") || !strings.Contains(raw, imagesNotSent) || !strings.Contains(raw, "[image image/png, ") {
		t.Fatalf("request:\n%.600s", raw)
	}
}

// A model that refuses the image part (llama.cpp without its projector)
// gets the turn again at once without it, with the note, and the agent
// says so.
func TestInputImageRefusedIsRetriedWithANote(t *testing.T) {
	f := newFixture(t, nil)
	refusal := `{"error":{"code":500,"message":"image input is not supported - hint: if this is unexpected, you may need to provide the mmproj","type":"server_error"}}`
	f.srv.Push(pt.Error(500, refusal, nil), pt.Text("No image came through."))
	res, err := f.agent.RunInput(context.Background(), pngInput("look"))
	if err != nil || !res.Completed {
		t.Fatalf("run: %v %+v", err, res)
	}
	raw := f.srv.RawRequests()
	if len(raw) != 2 || !strings.Contains(raw[0], "image_url") || strings.Contains(raw[1], "image_url") || !strings.Contains(raw[1], imagesNotSent) {
		t.Fatalf("%d requests; the second:\n%.600s", len(raw), raw[len(raw)-1])
	}
	if !f.agent.ImagesRefused() {
		t.Fatal("the agent does not report the refusal")
	}
}

// Images that cannot be sent are refused before the turn starts.
func TestInputImageChecks(t *testing.T) {
	f := newFixture(t, nil)
	big := make([]byte, providers.MaxImageBytes+1)
	for _, in := range []Input{
		{Text: "x", Images: []providers.Image{{MIME: "image/svg+xml", Data: []byte("<svg/>")}}},
		{Text: "x", Images: []providers.Image{{MIME: "image/png", Data: big}}},
		{Text: "x", Images: []providers.Image{{MIME: "image/png"}}},
		{Text: "x", Images: make([]providers.Image, MaxInputImages+1)},
	} {
		_, err := f.agent.RunInput(context.Background(), in)
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), "nothing was sent") {
			t.Errorf("%d images: error %v", len(in.Images), err)
		}
	}
	if n := len(f.srv.RawRequests()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}

// Images are known by their content, whatever their name; other content
// and big files are refused with a message that says why.
func TestImageFromFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for name, c := range map[string]struct {
		data []byte
		mime string
	}{
		"a.png":      {pt.PNG, "image/png"},
		"b.jpg":      {[]byte{0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10, 'J', 'F', 'I', 'F'}, "image/jpeg"},
		"c.gif":      {[]byte("GIF89a\x01\x00\x01\x00"), "image/gif"},
		"d.webp":     {[]byte("RIFF\x1a\x00\x00\x00WEBPVP8 "), "image/webp"},
		"png-as.txt": {pt.PNG, "image/png"},
	} {
		im, err := ImageFromFile(write(name, c.data))
		if err != nil || im.MIME != c.mime || string(im.Data) != string(c.data) {
			t.Errorf("%s: %v %q", name, err, im.MIME)
		}
	}
	for name, c := range map[string]struct {
		data []byte
		want string
	}{
		"text.png":  {[]byte("hello, world"), "not a PNG, JPEG, GIF or WebP image (its content looks like text/plain)"},
		"empty.png": {nil, "is empty"},
		"big.png":   {append(append([]byte(nil), pt.PNG...), make([]byte, providers.MaxImageBytes)...), "over the 5 MiB limit for one image"},
	} {
		_, err := ImageFromFile(write(name, c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", name, err, c.want)
		}
	}
	if _, err := ImageFromFile(dir); err == nil {
		t.Error("a directory was read as an image")
	}
}
