package acp

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"talaria/loop"
	"talaria/providers"
)

// promptInput turns a prompt's content blocks into the turn's input: text
// as is, resource links as references the model may read, embedded text
// resources as attached files, images (and embedded blobs that are
// images) as the user message's images. Audio is refused
// (promptCapabilities says so).
func promptInput(blocks []sdk.ContentBlock) (loop.Input, error) {
	var b strings.Builder
	var attached []string
	var images []providers.Image
	addImage := func(i int, data string) error {
		im, err := decodeImage(fmt.Sprintf("prompt[%d]", i), data)
		if err != nil {
			return err
		}
		if len(images) == loop.MaxInputImages {
			return fmt.Errorf("prompt[%d]: more than %d images in one prompt", i, loop.MaxInputImages)
		}
		images = append(images, im)
		return nil
	}
	for i, c := range blocks {
		switch {
		case c.Text != nil:
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(c.Text.Text)
		case c.ResourceLink != nil:
			l := c.ResourceLink
			attached = append(attached, fmt.Sprintf("<resource_link name=%q uri=%q/>", l.Name, l.Uri))
		case c.Resource != nil:
			r := c.Resource.Resource
			switch {
			case r.TextResourceContents != nil:
				attached = append(attached, fmt.Sprintf("<attached_file uri=%q>\n%s\n</attached_file>", r.TextResourceContents.Uri, r.TextResourceContents.Text))
			case r.BlobResourceContents != nil && isImageType(r.BlobResourceContents.MimeType):
				if err := addImage(i, r.BlobResourceContents.Blob); err != nil {
					return loop.Input{}, err
				}
				attached = append(attached, fmt.Sprintf("<attached_image uri=%q/>", r.BlobResourceContents.Uri))
			case r.BlobResourceContents != nil:
				n := base64.StdEncoding.DecodedLen(len(r.BlobResourceContents.Blob))
				attached = append(attached, fmt.Sprintf("<attached_file uri=%q binary=\"true\" bytes=\"%d\"/>", r.BlobResourceContents.Uri, n))
			}
		case c.Image != nil:
			if err := addImage(i, c.Image.Data); err != nil {
				return loop.Input{}, err
			}
		case c.Audio != nil:
			return loop.Input{}, fmt.Errorf("prompt[%d]: audio is not supported (promptCapabilities.audio is false)", i)
		}
	}
	if len(attached) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(strings.Join(attached, "\n"))
	}
	if strings.TrimSpace(b.String()) == "" && len(images) == 0 {
		return loop.Input{}, errors.New("the prompt is empty")
	}
	if b.Len() > loop.MaxPromptBytes {
		return loop.Input{}, &loop.PromptTooLargeError{}
	}
	return loop.Input{Text: b.String(), Images: images}, nil
}

// isImageType reports a blob's media type naming an image ("image/...",
// parameters ignored).
func isImageType(mime *string) bool {
	return mime != nil && strings.HasPrefix(strings.ToLower(strings.TrimSpace(*mime)), "image/")
}

// decodeImage decodes a block's base64 data; its type is told by its
// content (the block's mimeType is the client's word only), and it must
// be one the wires take, within providers.MaxImageBytes.
func decodeImage(what, data string) (providers.Image, error) {
	if base64.StdEncoding.DecodedLen(len(data)) > providers.MaxImageBytes+3 {
		return providers.Image{}, fmt.Errorf("%s: the image is over the %d MiB limit for one image", what, providers.MaxImageBytes>>20)
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return providers.Image{}, fmt.Errorf("%s: the image data is not base64: %v", what, err)
	}
	return loop.ImageFromBytes(what, raw)
}

// replay sends a loaded session's history as session/update: the user's
// messages, the answers and reasoning, each tool call with its result.
func (s *session) replay() {
	names := map[string]string{}
	for _, m := range s.app.Agent.History() {
		switch m.Role {
		case providers.RoleUser:
			if m.Content != "" {
				s.srv.update(s.id, sdk.UpdateUserMessageText(m.Content))
			}
			for _, im := range m.Images {
				s.srv.update(s.id, sdk.UpdateUserMessage(sdk.ImageBlock(im.Base64(), im.MIME)))
			}
		case providers.RoleAssistant:
			if m.Reasoning != "" {
				s.srv.update(s.id, sdk.UpdateAgentThoughtText(m.Reasoning))
			}
			if m.Content != "" {
				s.srv.update(s.id, sdk.UpdateAgentMessageText(m.Content))
			}
			for _, c := range m.ToolCalls {
				names[c.ID] = c.Name
				s.srv.update(s.id, startCall(c.ID, c.Name, c.Arguments, s.app.Cwd, sdk.ToolCallStatusPending))
			}
		case providers.RoleTool:
			status := sdk.ToolCallStatusCompleted
			if m.ToolStatus != "" && m.ToolStatus != providers.ToolStatusOK {
				status = sdk.ToolCallStatusFailed
			}
			opts := []sdk.ToolCallUpdateOpt{sdk.WithUpdateStatus(status)}
			if m.Content != "" {
				opts = append(opts, sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(m.Content))}))
			}
			if _, ok := names[m.ToolCallID]; ok {
				s.srv.update(s.id, sdk.UpdateToolCall(sdk.ToolCallId(m.ToolCallID), opts...))
			}
		}
	}
}
