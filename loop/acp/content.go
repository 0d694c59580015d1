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

// promptText turns a prompt's content blocks into the turn's input: text
// as is, resource links as references the model may read, embedded text
// resources as attached files. Images and audio are refused (talaria's
// turns take text input; promptCapabilities says so).
func promptText(blocks []sdk.ContentBlock) (string, error) {
	var b strings.Builder
	var attached []string
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
			case r.BlobResourceContents != nil:
				n := base64.StdEncoding.DecodedLen(len(r.BlobResourceContents.Blob))
				attached = append(attached, fmt.Sprintf("<attached_file uri=%q binary=\"true\" bytes=\"%d\"/>", r.BlobResourceContents.Uri, n))
			}
		case c.Image != nil:
			return "", fmt.Errorf("prompt[%d]: images are not supported (promptCapabilities.image is false)", i)
		case c.Audio != nil:
			return "", fmt.Errorf("prompt[%d]: audio is not supported (promptCapabilities.audio is false)", i)
		}
	}
	if len(attached) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(strings.Join(attached, "\n"))
	}
	if strings.TrimSpace(b.String()) == "" {
		return "", errors.New("the prompt is empty")
	}
	if b.Len() > loop.MaxPromptBytes {
		return "", &loop.PromptTooLargeError{}
	}
	return b.String(), nil
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
