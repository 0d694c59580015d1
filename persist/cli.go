package persist

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"
	"unicode/utf8"

	"talaria/providers"
)

// tableTitleRunes bounds the TITLE column of the sessions table.
const tableTitleRunes = 60

// WriteSessionsTable writes sessions as aligned columns ID, TITLE, CWD,
// UPDATED (local time, "2006-01-02 15:04") and MSGS, one session a line, in
// the order given. With no sessions it writes only the header.
func WriteSessionsTable(w io.Writer, sessions []Session) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTITLE\tCWD\tUPDATED\tMSGS\tBUSY")
	for i := range sessions {
		sess := &sessions[i]
		title := cell(sess.Title, tableTitleRunes)
		if title == "" {
			title = "(untitled)"
		}
		cwd := cell(sess.Cwd, 0)
		if cwd == "" {
			cwd = "-"
		}
		busy := ""
		if sess.Busy != nil {
			busy = "pid " + strconv.Itoa(sess.Busy.PID)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", cell(sess.ID, 0), title, cwd,
			sess.UpdatedAt.Local().Format("2006-01-02 15:04"), strconv.Itoa(sess.LiveMessages()), busy)
	}
	return tw.Flush()
}

// cell makes s safe for one table cell: no tabs, newlines or control
// characters, and at most maxRunes runes when maxRunes > 0.
func cell(s string, maxRunes int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		switch {
		case unicode.IsSpace(r):
			return ' '
		case unicode.IsControl(r):
			return -1
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if maxRunes > 0 && utf8.RuneCountInString(s) > maxRunes {
		s = string([]rune(s)[:maxRunes-1]) + "…"
	}
	return s
}

// WriteSessionsJSON writes sessions as one JSON array (an empty one when
// there are none) of objects with the Session fields in snake_case: id,
// title, cwd, provider, model, system_prompt_state, created_at, updated_at,
// message_count, the other counters, and parent_id, git_root, git_branch,
// ended_at, end_reason and estimated_cost_usd when set. System prompts are
// left out.
func WriteSessionsJSON(w io.Writer, sessions []Session) error {
	out := make([]Session, len(sessions))
	for i := range sessions {
		out[i] = sessions[i]
		out[i].SystemPrompt = nil
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// WriteExport writes msgs as JSON Lines, one message a line, in order.
// Internal flags are not written.
func WriteExport(w io.Writer, msgs []providers.Message) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i := range msgs {
		if err := enc.Encode(&msgs[i]); err != nil {
			return fmt.Errorf("export message %d: %w", i, err)
		}
	}
	return nil
}
