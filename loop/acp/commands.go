package acp

import (
	"sort"

	sdk "github.com/coder/acp-go-sdk"

	"talaria/loop"
)

// maxAdvertised caps the commands one available_commands_update lists.
const maxAdvertised = 500

// expand runs a custom command or skill typed as "/NAME args": the model
// gets the command's expanded text, as in the TUI and headless. A note
// (the command asks for a model this turn does not switch to) goes to the
// client as a thought. Other text is sent as it is.
func (s *session) expand(in loop.Input) loop.Input {
	e, ok := s.app.ExpandCommand(in.Text)
	if !ok {
		return in
	}
	if e.Note != "" {
		s.srv.update(string(s.sessionID()), sdk.UpdateAgentThoughtText(e.Note+"\n"))
	}
	in.Text = e.Text
	return in
}

// advertiseCommands tells the client the session's custom commands and
// skills (available_commands_update), so its "/" menu offers them.
func (s *session) advertiseCommands() {
	set := s.app.Extensions()
	var cmds []sdk.AvailableCommand
	for _, c := range set.Commands {
		cmds = append(cmds, availableCommand(c.Name, c.Description, c.ArgumentHint))
	}
	for _, sk := range set.Skills {
		if _, dup := set.Commands[sk.Name]; !dup {
			cmds = append(cmds, availableCommand(sk.Name, sk.Description, ""))
		}
	}
	if len(cmds) == 0 {
		return
	}
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].Name < cmds[j].Name })
	if len(cmds) > maxAdvertised {
		cmds = cmds[:maxAdvertised]
	}
	s.srv.update(string(s.sessionID()), sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{AvailableCommands: cmds}})
}

// availableCommand is one entry of available_commands_update.
func availableCommand(name, description, hint string) sdk.AvailableCommand {
	c := sdk.AvailableCommand{Name: name, Description: description}
	if c.Description == "" {
		c.Description = "custom command /" + name
	}
	if hint != "" {
		c.Input = &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: hint}}
	}
	return c
}
