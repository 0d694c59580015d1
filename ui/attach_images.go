package ui

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"talaria/loop"
	"talaria/providers"
)

// attachedImage is an image attached to the input: what names it on its
// chip (the file's base name, or "clipboard") and the image.
type attachedImage struct {
	name string
	im   providers.Image
}

// chip is the image's chip text: "▣ shot.png 12.3 KiB".
func (a attachedImage) chip() string { return "▣ " + a.name + " " + fmtSize(len(a.im.Data)) }

// imagePathOf reports whether a paste is the path of an image file, as a
// terminal pastes a file dragged onto it: one line, maybe quoted, maybe a
// file:// URL, spaces maybe escaped with backslashes, ending in an image
// extension. The path is made absolute against cwd (and ~ expanded); its
// file is not looked at here.
func imagePathOf(paste, cwd string) (string, bool) {
	p := strings.TrimSpace(paste)
	if p == "" || strings.ContainsAny(p, "\n\r") || len(p) > 4096 {
		return "", false
	}
	if len(p) >= 2 && (p[0] == '\'' || p[0] == '"') && p[len(p)-1] == p[0] {
		p = p[1 : len(p)-1]
	} else if strings.Contains(p, `\ `) {
		p = strings.ReplaceAll(p, `\ `, " ")
	}
	if rest, ok := strings.CutPrefix(p, "file://"); ok {
		u, err := url.PathUnescape(rest)
		if err != nil {
			return "", false
		}
		p = u
	}
	if !loop.HasImageExtension(p) {
		return "", false
	}
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", false
		}
		p = filepath.Join(home, rest)
	}
	if !filepath.IsAbs(p) {
		if cwd == "" {
			return "", false
		}
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p), true
}

// pasteImagePath attaches the image file a paste names, read in the
// background. A path that names no file is pasted as the text it was; a
// file that cannot be sent (not an image, too big) is pasted as text too,
// with a notice saying why it was not attached.
func (c *composer) pasteImagePath(path, paste string) tea.Cmd {
	return func() tea.Msg {
		im, err := loop.ImageFromFile(path)
		return composerMsg{apply: func(c *composer, env *composerEnv) composerIntent {
			if err == nil {
				return c.addImage(env, filepath.Base(path), im)
			}
			var in composerIntent
			if !errors.Is(err, fs.ErrNotExist) {
				in = warn("The image is not attached: " + strings.ReplaceAll(err.Error(), path, filepath.Base(path)))
			}
			return in.also(c.edit(tea.PasteMsg{Content: paste}))
		}}
	}
}

// addImage attaches an image to the input, up to loop.MaxInputImages,
// and says when the model in use takes text only.
func (c *composer) addImage(env *composerEnv, name string, im providers.Image) composerIntent {
	if len(c.images) >= loop.MaxInputImages {
		return warn(fmt.Sprintf("%s is not attached: a message takes at most %d images", name, loop.MaxInputImages))
	}
	c.images = append(c.images, attachedImage{name: name, im: im})
	in := composerIntent{dirty: dirtyChrome | dirtyInput, hint: "image attached · backspace on an empty input removes it", hintFor: 3 * time.Second}
	if providers.TextOnlyModel(env.model) {
		in.notes = append(in.notes, composerNote{kind: noticeWarn, text: fmt.Sprintf("%s takes no images: it will get a placeholder for %s, not the image.", env.model, name)})
	}
	return in
}

// takeInput is what the agent gets for text, sent from this composer:
// the text with the attachments of the input just sent (withAttachments)
// and its images, both taken, so a later turn does not send them again.
func (c *composer) takeInput(text string) loop.Input {
	in := loop.Input{Text: c.withAttachments(text)}
	for _, a := range c.sentImages {
		in.Images = append(in.Images, a.im)
	}
	c.sentImages = nil
	return in
}

// shownText is how the transcript shows text sent with the images of the
// input just sent.
func (c *composer) shownText(text string) string { return userText(text, c.sentImages) }

// userText is how the transcript shows a message sent with images: the
// text, then a line per image.
func userText(text string, images []attachedImage) string {
	for _, a := range images {
		text += "\n[" + a.chip() + "]"
	}
	return text
}
