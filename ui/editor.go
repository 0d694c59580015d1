package ui

import (
	"strings"
	"unicode"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/mattn/go-runewidth"
)

// editor is the composer's multi-line text editor: logical lines of runes,
// a cursor, soft wrapping at the box width and a window of at most maxRows
// visual rows that follows the cursor. It does no I/O (no clipboard
// access): pastes arrive as tea.PasteMsg.
type editor struct {
	lines       [][]rune
	row, col    int // cursor: logical line and rune index
	width       int // cells per visual row
	maxRows     int
	scroll      int // first visible visual row
	placeholder string
	text        lipgloss.Style
	hint        lipgloss.Style
}

func newEditor(maxRows int) editor {
	return editor{lines: [][]rune{nil}, width: 40, maxRows: maxRows}
}

// value returns the text.
func (e *editor) value() string {
	parts := make([]string, len(e.lines))
	for i, l := range e.lines {
		parts[i] = string(l)
	}
	return strings.Join(parts, "\n")
}

// setValue replaces the text and puts the cursor at its end.
func (e *editor) setValue(s string) {
	e.lines = [][]rune{nil}
	e.row, e.col, e.scroll = 0, 0, 0
	e.insert(s)
}

// setWidth sets the wrap width in cells.
func (e *editor) setWidth(w int) {
	e.width = max(2, w)
	e.follow()
}

// insert inserts text at the cursor.
func (e *editor) insert(s string) {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\t", "    ")
	s = strings.ReplaceAll(s, "\r", "\n")
	for i, part := range strings.Split(s, "\n") {
		if i > 0 {
			e.newline()
		}
		rs := []rune(part)
		line := e.lines[e.row]
		nl := make([]rune, 0, len(line)+len(rs))
		nl = append(append(append(nl, line[:e.col]...), rs...), line[e.col:]...)
		e.lines[e.row] = nl
		e.col += len(rs)
	}
	e.follow()
}

// newline splits the line at the cursor.
func (e *editor) newline() {
	line := e.lines[e.row]
	head, tail := append([]rune(nil), line[:e.col]...), append([]rune(nil), line[e.col:]...)
	e.lines[e.row] = head
	e.lines = append(e.lines[:e.row+1], append([][]rune{tail}, e.lines[e.row+1:]...)...)
	e.row, e.col = e.row+1, 0
}

// continueLine turns a backslash just before the cursor, at the end of
// its line, into a line break (Enter after a trailing backslash is a newline,
// as in Claude Code and Codex). It reports whether it did.
func (e *editor) continueLine() bool {
	line := e.lines[e.row]
	if e.col == 0 || e.col != len(line) || line[e.col-1] != '\\' {
		return false
	}
	e.lines[e.row] = line[:e.col-1]
	e.col--
	e.newline()
	e.follow()
	return true
}

// update applies an editing key. It reports whether the key was used.
func (e *editor) update(msg tea.KeyPressMsg) bool {
	if e.edit(msg.String()) || e.move(msg.String()) {
		e.follow()
		return true
	}
	if msg.Text != "" && msg.Mod&(tea.ModCtrl|tea.ModAlt) == 0 {
		e.insert(msg.Text)
		return true
	}
	return false
}

// edit handles keys that change the text.
func (e *editor) edit(k string) bool {
	line := e.lines[e.row]
	switch k {
	case "shift+enter", "ctrl+j", "alt+enter":
		e.newline()
	case "backspace", "ctrl+h", "shift+backspace":
		if e.col > 0 {
			e.lines[e.row] = append(line[:e.col-1:e.col-1], line[e.col:]...)
			e.col--
		} else if e.row > 0 {
			e.col = len(e.lines[e.row-1])
			e.lines[e.row-1] = append(e.lines[e.row-1], line...)
			e.lines = append(e.lines[:e.row], e.lines[e.row+1:]...)
			e.row--
		}
	case "delete", "ctrl+d":
		if e.col < len(line) {
			e.lines[e.row] = append(line[:e.col:e.col], line[e.col+1:]...)
		} else if e.row < len(e.lines)-1 {
			e.lines[e.row] = append(line, e.lines[e.row+1]...)
			e.lines = append(e.lines[:e.row+1], e.lines[e.row+2:]...)
		}
	case "ctrl+u":
		e.lines[e.row], e.col = append([]rune(nil), line[e.col:]...), 0
	case "ctrl+k":
		if e.col == len(line) {
			return e.edit("delete")
		}
		e.lines[e.row] = line[:e.col:e.col]
	case "ctrl+w", "alt+backspace", "ctrl+backspace":
		start := wordStart(line, e.col)
		e.lines[e.row], e.col = append(line[:start:start], line[e.col:]...), start
	case "alt+d", "alt+delete", "ctrl+delete":
		end := wordEnd(line, e.col)
		e.lines[e.row] = append(line[:e.col:e.col], line[end:]...)
	default:
		return false
	}
	return true
}

// move handles cursor keys.
func (e *editor) move(k string) bool {
	switch k {
	case "left", "ctrl+b":
		if e.col > 0 {
			e.col--
		} else if e.row > 0 {
			e.row, e.col = e.row-1, len(e.lines[e.row-1])
		}
	case "right", "ctrl+f":
		if e.col < len(e.lines[e.row]) {
			e.col++
		} else if e.row < len(e.lines)-1 {
			e.row, e.col = e.row+1, 0
		}
	case "alt+left", "ctrl+left", "alt+b":
		e.col = wordStart(e.lines[e.row], e.col)
	case "alt+right", "ctrl+right", "alt+f":
		e.col = wordEnd(e.lines[e.row], e.col)
	case "home", "ctrl+a":
		e.col = 0
	case "end", "ctrl+e":
		e.col = len(e.lines[e.row])
	case "up", "ctrl+p":
		e.vertical(-1)
	case "down", "ctrl+n":
		e.vertical(1)
	case "ctrl+home", "alt+<":
		e.row, e.col = 0, 0
	case "ctrl+end", "alt+>":
		e.row = len(e.lines) - 1
		e.col = len(e.lines[e.row])
	default:
		return false
	}
	return true
}

// vertical moves the cursor one visual row up (-1) or down (+1), keeping
// its column as well as the row allows.
func (e *editor) vertical(d int) {
	rows := e.visualRows()
	cur, x := e.cursorRow(rows)
	t := cur + d
	if t < 0 || t >= len(rows) {
		return
	}
	r := rows[t]
	col := r.start
	for cells := 0; col < r.end; col++ {
		w := runewidth.RuneWidth(e.lines[r.line][col])
		if cells+w > x {
			break
		}
		cells += w
	}
	e.row, e.col = r.line, col
}

// visualRow is one wrapped row: runes [start, end) of a logical line.
type visualRow struct{ line, start, end int }

// visualRows wraps every line to the width, leaving one cell for the
// cursor at the end of a full row.
func (e *editor) visualRows() []visualRow {
	wrap := max(1, e.width-1)
	var rows []visualRow
	for i, l := range e.lines {
		start, cells := 0, 0
		for j, r := range l {
			w := runewidth.RuneWidth(r)
			if cells+w > wrap && j > start {
				rows = append(rows, visualRow{i, start, j})
				start, cells = j, 0
			}
			cells += w
		}
		rows = append(rows, visualRow{i, start, len(l)})
	}
	return rows
}

// cursorRow returns the visual row of the cursor and its x in cells.
func (e *editor) cursorRow(rows []visualRow) (int, int) {
	for i, r := range rows {
		last := i == len(rows)-1 || rows[i+1].line != r.line
		if r.line == e.row && e.col >= r.start && (e.col < r.end || last) {
			return i, runewidth.StringWidth(string(e.lines[r.line][r.start:e.col]))
		}
	}
	return 0, 0
}

// follow scrolls the window so the cursor row is visible.
func (e *editor) follow() {
	rows := e.visualRows()
	cur, _ := e.cursorRow(rows)
	h := e.height()
	e.scroll = min(e.scroll, cur)
	if cur >= e.scroll+h {
		e.scroll = cur - h + 1
	}
	e.scroll = max(0, min(e.scroll, len(rows)-h))
}

// height is the number of visible rows: the content's, up to maxRows.
func (e *editor) height() int { return max(1, min(e.maxRows, len(e.visualRows()))) }

// onFirstRow and onLastRow tell whether Up and Down would leave the text.
func (e *editor) onFirstRow() bool {
	cur, _ := e.cursorRow(e.visualRows())
	return cur == 0
}

func (e *editor) onLastRow() bool {
	rows := e.visualRows()
	cur, _ := e.cursorRow(rows)
	return cur == len(rows)-1
}

// cursor returns the cursor's position within the view.
func (e *editor) cursor() (x, y int) {
	cur, x := e.cursorRow(e.visualRows())
	return x, cur - e.scroll
}

// view renders the visible rows, or the placeholder when empty.
func (e *editor) view() string {
	if len(e.lines) == 1 && len(e.lines[0]) == 0 {
		return e.hint.Render(runewidth.Truncate(e.placeholder, e.width, "…"))
	}
	rows := e.visualRows()
	h := e.height()
	out := make([]string, 0, h)
	for _, r := range rows[e.scroll:min(len(rows), e.scroll+h)] {
		out = append(out, e.text.Render(string(e.lines[r.line][r.start:r.end])))
	}
	return strings.Join(out, "\n")
}

// wordStart returns the start of the word before col.
func wordStart(l []rune, col int) int {
	i := col
	for i > 0 && unicode.IsSpace(l[i-1]) {
		i--
	}
	for i > 0 && !unicode.IsSpace(l[i-1]) {
		i--
	}
	return i
}

// wordEnd returns the end of the word after col.
func wordEnd(l []rune, col int) int {
	i := col
	for i < len(l) && unicode.IsSpace(l[i]) {
		i++
	}
	for i < len(l) && !unicode.IsSpace(l[i]) {
		i++
	}
	return i
}
