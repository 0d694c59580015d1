package ui

import (
	"strings"
	"testing"
)

func edit(e *editor, keys ...string) {
	for _, k := range keys {
		e.update(keyMsg(k))
	}
}

func TestEditorBasicEditing(t *testing.T) {
	e := newEditor(8)
	e.setWidth(40)
	e.insert("hello world")
	edit(&e, "ctrl+w")
	if e.value() != "hello " {
		t.Errorf("ctrl+w: %q", e.value())
	}
	edit(&e, "backspace", "left", "left", "delete")
	if e.value() != "helo" {
		t.Errorf("backspace/left/delete: %q", e.value())
	}
	edit(&e, "ctrl+a")
	e.insert(">")
	edit(&e, "ctrl+e")
	e.insert("!")
	if e.value() != ">helo!" {
		t.Errorf("home/end insert: %q", e.value())
	}
	edit(&e, "ctrl+a", "ctrl+k")
	if e.value() != "" {
		t.Errorf("ctrl+k: %q", e.value())
	}
}

func TestEditorLines(t *testing.T) {
	e := newEditor(8)
	e.setWidth(40)
	e.insert("one\r\ntwo\tx")
	if e.value() != "one\ntwo    x" || e.row != 1 {
		t.Fatalf("insert normalises: %q row %d", e.value(), e.row)
	}
	edit(&e, "ctrl+a", "backspace")
	if e.value() != "onetwo    x" || e.row != 0 || e.col != 3 {
		t.Errorf("backspace at line start joins: %q (%d,%d)", e.value(), e.row, e.col)
	}
	edit(&e, "ctrl+j")
	if e.value() != "one\ntwo    x" {
		t.Errorf("ctrl+j splits: %q", e.value())
	}
	edit(&e, "up", "ctrl+e", "delete")
	if e.value() != "onetwo    x" {
		t.Errorf("delete at line end joins: %q", e.value())
	}
	edit(&e, "ctrl+u")
	if e.value() != "two    x" {
		t.Errorf("ctrl+u: %q", e.value())
	}
}

func TestEditorWrapAndVerticalMoves(t *testing.T) {
	e := newEditor(3)
	e.setWidth(6) // five cells of text per row, one for the cursor
	e.insert("abcdefghijkl")
	rows := e.visualRows()
	if len(rows) != 3 || e.view() != "abcde\nfghij\nkl" {
		t.Fatalf("wrap: %d rows, view %q", len(rows), e.view())
	}
	if x, y := e.cursor(); x != 2 || y != 2 {
		t.Errorf("cursor at end = (%d,%d), want (2,2)", x, y)
	}
	if !e.onLastRow() || e.onFirstRow() {
		t.Error("row tests at the end")
	}
	edit(&e, "up")
	if e.col != 7 || e.onLastRow() {
		t.Errorf("up keeps column: col %d", e.col)
	}
	edit(&e, "up", "up")
	if !e.onFirstRow() || e.col != 2 {
		t.Errorf("up to the first row: col %d", e.col)
	}
	e.insert("\n\n\n")
	if e.height() != 3 {
		t.Errorf("height capped at maxRows: %d", e.height())
	}
	x, y := e.cursor()
	if y < 0 || y >= 3 || x != 0 {
		t.Errorf("cursor outside the window: (%d,%d)", x, y)
	}
}

func TestEditorWideRunesAndWords(t *testing.T) {
	e := newEditor(4)
	e.setWidth(5)
	e.insert("日本語です")
	for _, r := range e.visualRows() {
		if w := len([]rune(string(e.lines[r.line][r.start:r.end]))); w > 2 {
			t.Errorf("a row holds %d wide runes in 4 cells", w)
		}
	}
	e.setValue("alpha beta gamma")
	edit(&e, "alt+left")
	if e.col != 11 {
		t.Errorf("word left: col %d", e.col)
	}
	edit(&e, "alt+left", "alt+d")
	if e.value() != "alpha  gamma" {
		t.Errorf("alt+d: %q", e.value())
	}
	edit(&e, "alt+right", "alt+right")
	if e.col != len([]rune(e.value())) {
		t.Errorf("word right: col %d", e.col)
	}
}

func TestEditorIgnoresControlKeysAndShowsPlaceholder(t *testing.T) {
	e := newEditor(4)
	e.placeholder = "type here"
	if e.update(keyMsg("ctrl+x")) || e.value() != "" {
		t.Error("ctrl+x inserted text")
	}
	if !strings.Contains(e.view(), "type here") {
		t.Errorf("placeholder: %q", e.view())
	}
	e.update(keyMsg("space"))
	if e.value() != " " {
		t.Errorf("space: %q", e.value())
	}
}
