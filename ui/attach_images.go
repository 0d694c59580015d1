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
func (m *Model) pasteImagePath(path, paste string) tea.Cmd {
	return func() tea.Msg {
		im, err := loop.ImageFromFile(path)
		return commandResultMsg{apply: func(m *Model) tea.Cmd {
			if err == nil {
				return m.addImage(filepath.Base(path), im)
			}
			if !errors.Is(err, fs.ErrNotExist) {
				m.notice(noticeWarn, "The image is not attached: "+strings.ReplaceAll(err.Error(), path, filepath.Base(path)))
			}
			return m.editInput(tea.PasteMsg{Content: paste})
		}}
	}
}

// addImage attaches an image to the input, up to loop.MaxInputImages,
// and says when the model in use takes text only.
func (m *Model) addImage(name string, im providers.Image) tea.Cmd {
	if len(m.comp.images) >= loop.MaxInputImages {
		m.notice(noticeWarn, fmt.Sprintf("%s is not attached: a message takes at most %d images", name, loop.MaxInputImages))
		return nil
	}
	m.comp.images = append(m.comp.images, attachedImage{name: name, im: im})
	m.chromeDirty, m.inputDirty = true, true
	if providers.TextOnlyModel(m.ses.model) {
		m.notice(noticeWarn, fmt.Sprintf("%s takes no images: it will get a placeholder for %s, not the image.", m.ses.model, name))
	}
	return m.setHint("image attached · backspace on an empty input removes it", 3*time.Second)
}

// startInput starts a turn for text with the images of the input just
// sent (taken, so a later turn does not send them again).
func (m *Model) startInput(text string) tea.Cmd {
	images := m.comp.sentImages
	m.comp.sentImages = nil
	if len(images) == 0 {
		return startTurn(m.ctx, m.agent, text)
	}
	in := loop.Input{Text: text}
	for _, a := range images {
		in.Images = append(in.Images, a.im)
	}
	ctx, agent, ok := m.ctx, m.agent, m.can.Images
	return func() tea.Msg {
		if !ok {
			return turnFailedMsg{err: errors.New("this agent takes no images")}
		}
		if err := agent.StartInput(ctx, in); err != nil {
			return turnFailedMsg{err: err}
		}
		return nil
	}
}

// userText is how the transcript shows a message sent with images: the
// text, then a line per image.
func userText(text string, images []attachedImage) string {
	for _, a := range images {
		text += "\n[" + a.chip() + "]"
	}
	return text
}
