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
	other := toolImages("u", 10)
	other.Role = RoleAssistant
	got := ImageBudget{MaxBytes: 100, MaxCount: 10, MaxEach: 100}.Select([]Message{other, big})
	if len(got[1]) != 2 || len(got[0]) != 0 {
		t.Errorf("sent %d tool and %d assistant images, want 2 and 0", len(got[1]), len(got[0]))
	}
	user := toolImages("u", 10)
	user.Role = RoleUser
	got = ImageBudget{MaxBytes: 100, MaxCount: 10, MaxEach: 100}.Select([]Message{user, big})
	if len(got[1]) != 2 || len(got[0]) != 1 {
		t.Errorf("sent %d tool and %d user images, want 2 and 1", len(got[1]), len(got[0]))
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
		"deepseek-chat": true, "deepseek/deepseek-r1": true, "gpt-3.5-turbo": true, "o3-mini": true, "openai/gpt-oss-120b": true,
		"gpt-4o": false, "o3": false, "qwen2.5-vl": false, "": false, "claude-sonnet-4": false,
	} {
		if got := TextOnlyModel(model); got != want {
			t.Errorf("TextOnlyModel(%q) = %v, want %v", model, got, want)
		}
	}
}

// FuzzImageBudgetSelect checks Select's promises on any mix of images (their
// sizes and types come from MCP servers): the images sent stay within the
// budget, each is one of its message's own in order, and none is older
// than an image that could go but was left out for the budget.
func FuzzImageBudgetSelect(f *testing.F) {
	f.Add([]byte{10, 20, 0, 30, 200, 5}, uint8(50), uint8(3), uint8(40))
	f.Add([]byte{255, 1, 1, 1}, uint8(255), uint8(10), uint8(0))
	f.Add([]byte{}, uint8(1), uint8(1), uint8(1))
	f.Fuzz(func(t *testing.T, spec []byte, maxBytes, maxCount, maxEach uint8) {
		// Each spec byte is an image of that many bytes; 0 ends a tool
		// message, 255 is an image of a type no wire takes; a user message
		// sits between tool messages.
		var msgs []Message
		cur := Message{Role: RoleTool}
		for _, c := range spec {
			switch c {
			case 0:
				msgs = append(msgs, cur, Message{Role: RoleUser})
				cur = Message{Role: RoleTool}
			case 255:
				cur.Images = append(cur.Images, Image{MIME: "image/bmp", Data: make([]byte, 1)})
			default:
				cur.Images = append(cur.Images, Image{MIME: "image/png", Data: make([]byte, int(c))})
			}
		}
		msgs = append(msgs, cur)
		b := ImageBudget{MaxBytes: int(maxBytes), MaxCount: int(maxCount), MaxEach: int(maxEach)}
		each := b.MaxEach
		if each <= 0 {
			each = MaxImageBytes
		}
		sendable := func(im *Image) bool { return len(im.Data) > 0 && len(im.Data) <= each && ImageMIMEOK(im.MIME) }
		got := b.Select(msgs)
		if got != nil && len(got) != len(msgs) {
			t.Fatalf("%d entries for %d messages", len(got), len(msgs))
		}
		total, count, skipped := 0, 0, false
		for i := len(msgs) - 1; i >= 0; i-- {
			var sent []Image
			if got != nil {
				sent = got[i]
			}
			k := len(sent) - 1
			for j := len(msgs[i].Images) - 1; j >= 0; j-- {
				im := &msgs[i].Images[j]
				if k >= 0 && len(sent[k].Data) == len(im.Data) && (len(im.Data) == 0 || &sent[k].Data[0] == &im.Data[0]) {
					if skipped {
						t.Fatalf("message %d image %d sent after an image left out for the budget", i, j)
					}
					if !sendable(im) {
						t.Fatalf("message %d image %d sent but not sendable", i, j)
					}
					total += len(im.Data)
					count++
					k--
					continue
				}
				if sendable(im) {
					skipped = true
				}
			}
			if k >= 0 {
				t.Fatalf("message %d: %d sent images are not its own, in order", i, k+1)
			}
		}
		if total > b.MaxBytes || count > b.MaxCount {
			t.Fatalf("sent %d bytes in %d images, over the budget %+v", total, count, b)
		}
	})
}
