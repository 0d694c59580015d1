package providers

import (
	"encoding/base64"
	"strings"
	"testing"
)

func toolImages(id string, sizes ...int) Message {
	m := Message{Role: RoleTool, ToolCallID: id}
	for _, n := range sizes {
		m.Images = append(m.Images, Image{MIME: "image/png", Data: make([]byte, n)})
	}
	return m
}

// TestImageBudgetSelect checks that the newest images are sent within the
// budget and that, from the first one that does not fit, every older one
// keeps only its placeholder.
func TestImageBudgetSelect(t *testing.T) {
	msgs := []Message{
		toolImages("old", 40),
		{Role: RoleUser, Content: "go on"},
		toolImages("mid", 30, 30),
		{Role: RoleAssistant, Content: "x"},
		toolImages("new", 50),
	}
	b := ImageBudget{MaxBytes: 100, MaxCount: 10}
	got := b.Select(msgs)
	if len(got) != len(msgs) {
		t.Fatalf("Select gave %d entries for %d messages", len(got), len(msgs))
	}
	if len(got[4]) != 1 || len(got[2]) != 1 || len(got[0]) != 0 {
		t.Errorf("sent %d/%d/%d images (new/mid/old), want 1/1/0: the older of mid and all of old fall back", len(got[4]), len(got[2]), len(got[0]))
	}
	if len(got[2]) == 1 && &got[2][0].Data[0] != &msgs[2].Images[1].Data[0] {
		t.Error("mid's newer image should be the one sent")
	}
	// A 10-byte old image would fit in the 20 bytes left after mid's older
	// image did not; it must still fall back, so the images sent are
	// always the latest ones.
	msgs[0] = toolImages("old", 10)
	if got := b.Select(msgs); len(got[0]) != 0 {
		t.Error("an image older than one left out was sent")
	}
	if got := (ImageBudget{MaxBytes: 1000, MaxCount: 2}).Select(msgs); len(got[4])+len(got[2])+len(got[0]) != 2 {
		t.Errorf("MaxCount 2 sent %d images", len(got[4])+len(got[2])+len(got[0]))
	}
	if got := (ImageBudget{MaxBytes: 1000, MaxCount: 10}).Select([]Message{{Role: RoleUser, Content: "hi"}}); got != nil {
		t.Errorf("no images gave %v, want nil", got)
	}
}

// TestImageBudgetSkips checks that an image too big for the wire or of a
// media type no wire takes is skipped alone, and that only tool messages'
// images count.
func TestImageBudgetSkips(t *testing.T) {
	big := toolImages("a", 10, 500, 10)
	big.Images = append(big.Images, Image{MIME: "image/svg+xml", Data: []byte("<svg/>")})
	user := toolImages("u", 10)
	user.Role = RoleUser
	got := ImageBudget{MaxBytes: 100, MaxCount: 10, MaxEach: 100}.Select([]Message{user, big})
	if len(got[1]) != 2 || len(got[0]) != 0 {
		t.Errorf("sent %d tool and %d user images, want 2 and 0", len(got[1]), len(got[0]))
	}
}

// TestImageDataURL checks the data: URL and base64 forms.
func TestImageDataURL(t *testing.T) {
	im := Image{MIME: "image/webp", Data: []byte{0, 1, 2, 250, 251}}
	want := "data:image/webp;base64," + base64.StdEncoding.EncodeToString(im.Data)
	if got := im.DataURL(); got != want {
		t.Errorf("DataURL %q, want %q", got, want)
	}
	if !strings.HasSuffix(want, im.Base64()) {
		t.Errorf("Base64 %q", im.Base64())
	}
}

// TestTextOnlyModel checks the short list of models that refuse images.
func TestTextOnlyModel(t *testing.T) {
	for model, want := range map[string]bool{
		"deepseek-chat": true, "deepseek/deepseek-r1": true, "gpt-3.5-turbo": true, "o3-mini": true,
		"gpt-4o": false, "o3": false, "qwen2.5-vl": false, "": false, "claude-sonnet-4": false,
	} {
		if got := TextOnlyModel(model); got != want {
			t.Errorf("TextOnlyModel(%q) = %v, want %v", model, got, want)
		}
	}
}
