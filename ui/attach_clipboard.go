package ui

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"talaria/loop"
	"talaria/providers"
)

// clipboardImageTimeout bounds one clipboard program reading an image.
const clipboardImageTimeout = 3 * time.Second

// imagePaster is a program that prints the clipboard's image: its name,
// arguments, and whether it prints it as AppleScript's «data PNGf…» hex.
type imagePaster struct {
	name string
	args []string
	hex  bool
}

// imagePasters lists the programs that can read an image from the
// clipboard here, in order: wl-paste on Wayland, xclip on X11, osascript
// on macOS.
func (e termEnv) imagePasters(goos string) []imagePaster {
	var ps []imagePaster
	if e.wayland {
		ps = append(ps, imagePaster{name: "wl-paste", args: []string{"--no-newline", "--type", "image/png"}})
	}
	if e.display {
		ps = append(ps, imagePaster{name: "xclip", args: []string{"-selection", "clipboard", "-t", "image/png", "-o"}})
	}
	if goos == "darwin" {
		ps = append(ps, imagePaster{name: "osascript", args: []string{"-e", "get the clipboard as «class PNGf»"}, hex: true})
	}
	return ps
}

// errNoClipboardImage is a clipboard that holds no image.
var errNoClipboardImage = errors.New("the clipboard holds no image")

// pasteClipboardImage reads an image from the clipboard (Ctrl+V) in the
// background and attaches it.
func (c *composer) pasteClipboardImage(env *composerEnv) tea.Cmd {
	term := env.term
	return func() tea.Msg {
		im, err := term.readClipboardImage(context.Background(), runtime.GOOS)
		return composerMsg{apply: func(c *composer, env *composerEnv) composerIntent {
			if err != nil {
				return composerIntent{hint: "ctrl+v: " + err.Error(), hintFor: 4 * time.Second}
			}
			return c.addImage(env, "clipboard", im)
		}}
	}
}

// readClipboardImage runs the first image paster found on PATH, bounded
// in time (clipboardImageTimeout) and bytes (what an image may be, or
// twice that as hex), and returns the image it printed.
func (e termEnv) readClipboardImage(ctx context.Context, goos string) (providers.Image, error) {
	look := e.lookPath
	if look == nil {
		look = exec.LookPath
	}
	for _, p := range e.imagePasters(goos) {
		path, err := look(p.name)
		if err != nil {
			continue
		}
		limit := providers.MaxImageBytes + 1
		if p.hex {
			limit = 2*providers.MaxImageBytes + 64
		}
		out, err := runCapped(ctx, path, p.args, limit)
		if err != nil {
			return providers.Image{}, fmt.Errorf("%s: %w", p.name, err)
		}
		if p.hex {
			if out, err = decodeAppleScriptData(out); err != nil {
				return providers.Image{}, err
			}
		}
		if len(out) == 0 {
			return providers.Image{}, errNoClipboardImage
		}
		return loop.ImageFromBytes("the clipboard's image", out)
	}
	return providers.Image{}, errors.New("no wl-paste/xclip found; paste the image's path")
}

// runCapped runs a program with a time limit and returns its stdout, at
// most limit bytes (more is an error). A program that fails because the
// clipboard holds something else says so on stderr; that is
// errNoClipboardImage.
func runCapped(ctx context.Context, path string, args []string, limit int) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, clipboardImageTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	out := &cappedBuffer{limit: limit}
	var stderr cappedBuffer
	stderr.limit = 4 << 10
	cmd.Stdout, cmd.Stderr = out, &stderr
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	switch {
	case out.over:
		return nil, fmt.Errorf("the clipboard's image is over the %d MiB limit for one image", providers.MaxImageBytes>>20)
	case ctx.Err() != nil:
		return nil, fmt.Errorf("no answer within %s", clipboardImageTimeout)
	case err != nil:
		msg := strings.ToLower(stderr.String())
		if strings.Contains(msg, "no suitable type") || strings.Contains(msg, "not available") || strings.Contains(msg, "nothing is copied") ||
			strings.Contains(msg, "can’t make") || strings.Contains(msg, "can't make") {
			return nil, errNoClipboardImage
		}
		return nil, fmt.Errorf("%v %s", err, strings.TrimSpace(firstLine(stderr.String(), 200)))
	}
	return out.Bytes(), nil
}

// cappedBuffer keeps at most limit bytes and notes that more came.
type cappedBuffer struct {
	bytes.Buffer
	limit int
	over  bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := b.limit - b.Len(); len(p) > room {
		b.over = true
		if room > 0 {
			b.Buffer.Write(p[:room])
		}
		return len(p), nil // keep the program from blocking; the result is refused
	}
	return b.Buffer.Write(p)
}

// decodeAppleScriptData reads osascript's «data PNGf89504E47…» form.
func decodeAppleScriptData(out []byte) ([]byte, error) {
	s := strings.TrimSpace(string(out))
	body, ok := strings.CutPrefix(s, "«data PNGf")
	if !ok {
		return nil, errNoClipboardImage
	}
	body = strings.TrimSuffix(body, "»")
	data, err := hex.DecodeString(body)
	if err != nil {
		return nil, fmt.Errorf("osascript: the clipboard's image could not be read: %v", err)
	}
	return data, nil
}
