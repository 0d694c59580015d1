package app_test

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"talaria/providers"
	pt "talaria/providers/providertest"
)

// writePNG writes the test PNG under dir as name.
func writePNG(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, pt.PNG, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// userContent is the content of the first user message of an OpenAI chat
// request body.
func userContent(t *testing.T, raw string) any {
	t.Helper()
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(raw), &body); err != nil {
		t.Fatal(err)
	}
	for _, m := range body.Messages {
		if m.Role == "user" {
			return m.Content
		}
	}
	t.Fatalf("no user message in %.300s", raw)
	return nil
}

// -p … --image FILE sends the image in the user message on the OpenAI
// chat wire (a text part, then an image_url part with the base64 data:
// URL), and -c sends it again from the stored history.
func TestHeadlessImageOpenAIChatWire(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	img := writePNG(t, cwd, "shot.png")
	srv := pt.New(t)
	srv.Push(pt.Text("A single pixel."), pt.Text("Still one pixel."))
	r := talaria(t, home, cwd, srv, "", "-p", "what is in this picture?", "--image", img)
	if r.code != 0 || !strings.Contains(r.stdout, "A single pixel.") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	r = talaria(t, home, cwd, srv, "", "-c", "-p", "and now?")
	if r.code != 0 {
		t.Fatalf("-c: exit %d: %s", r.code, r.stderr)
	}
	want := "data:image/png;base64," + base64.StdEncoding.EncodeToString(pt.PNG)
	placeholder := providers.Image{MIME: "image/png", Data: pt.PNG}.Placeholder()
	raw := srv.RawRequests()
	if len(raw) != 2 {
		t.Fatalf("%d requests", len(raw))
	}
	for i, body := range raw {
		parts, ok := userContent(t, body).([]any)
		if !ok || len(parts) != 2 {
			t.Fatalf("request %d: user content %v, want a text and an image part", i, userContent(t, body))
		}
		text, _ := parts[0].(map[string]any)
		image, _ := parts[1].(map[string]any)
		if text["type"] != "text" || text["text"] != "what is in this picture?\n"+placeholder {
			t.Errorf("request %d: text part %v", i, text)
		}
		url, _ := image["image_url"].(map[string]any)
		if image["type"] != "image_url" || url["url"] != want {
			t.Errorf("request %d: image part %v", i, image)
		}
	}
}

// On the Anthropic wire the image is an image block with base64 data
// after the text of the user message.
func TestHeadlessImageAnthropicWire(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	img := writePNG(t, cwd, "shot.png")
	fixture, err := os.ReadFile(filepath.Join("..", "..", "providers", "anthropic", "testdata", "text.sse"))
	if err != nil {
		t.Fatal(err)
	}
	srv := pt.StartWire(t, pt.WireReply{Body: fixture})
	cmd := []string{"--provider", "anthropic", "-p", "describe it", "--image", img}
	e := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TALARIA_HOME=" + filepath.Join(home, ".talaria"),
		"ANTHROPIC_API_KEY=ak-test", "ANTHROPIC_BASE_URL=" + srv.URL}
	r := runEnv(t, e, cwd, cmd...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr %s", r.code, r.stderr)
	}
	req := srv.TakeRequest(t)
	msgs := pt.Objects(req.Body["messages"])
	if len(msgs) != 1 || msgs[0]["role"] != "user" {
		t.Fatalf("messages %v", msgs)
	}
	blocks := pt.Objects(msgs[0]["content"])
	if len(blocks) != 2 || blocks[0]["type"] != "text" || !strings.HasPrefix(blocks[0]["text"].(string), "describe it\n[image image/png, ") {
		t.Fatalf("user content %v", blocks)
	}
	src, _ := blocks[1]["source"].(map[string]any)
	if blocks[1]["type"] != "image" || src["type"] != "base64" || src["media_type"] != "image/png" || src["data"] != base64.StdEncoding.EncodeToString(pt.PNG) {
		t.Fatalf("image block %v", blocks[1])
	}
}

// A model known to take text only gets the placeholder and the note, and
// the person running it is told on stderr.
func TestHeadlessImageTextOnlyModel(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	img := writePNG(t, cwd, "shot.png")
	srv := pt.New(t)
	srv.Push(pt.Text("I see no image."))
	r := talaria(t, home, cwd, srv, "", "--model", "gpt-3.5-turbo", "-p", "look", "--image", img)
	if r.code != 0 || !strings.Contains(r.stderr, "the model gpt-3.5-turbo does not take image input: the image was not sent") {
		t.Fatalf("exit %d\nstderr %s", r.code, r.stderr)
	}
	raw := srv.RawRequests()[0]
	if strings.Contains(raw, "image_url") || !strings.Contains(raw, "were not sent: the model in use does not take image input") {
		t.Fatalf("request %.800s", raw)
	}
}

// --image that cannot be sent is a usage error before anything is sent.
func TestHeadlessImageBadInput(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	txt := filepath.Join(cwd, "notes.png")
	if err := os.WriteFile(txt, []byte("just text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(cwd, "big.png")
	if err := os.WriteFile(big, append(append([]byte(nil), pt.PNG...), make([]byte, providers.MaxImageBytes)...), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := pt.New(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-p", "x", "--image", txt}, "is not a PNG, JPEG, GIF or WebP image (its content looks like text/plain)"},
		{[]string{"-p", "x", "--image", big}, "over the 5 MiB limit for one image"},
		{[]string{"-p", "x", "--image", filepath.Join(cwd, "missing.png")}, "no such file"},
		{[]string{"--image", big}, "--image needs -p PROMPT"},
	} {
		r := talaria(t, home, cwd, srv, "", c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, r.code, r.stderr, c.want)
		}
	}
	if n := len(srv.RawRequests()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}

// runEnv runs the binary in cwd with exactly the environment e.
func runEnv(t *testing.T, e []string, cwd string, args ...string) run {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env, cmd.Dir = e, cwd
	return runCmd(t, cmd)
}
