package trace

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"talaria/loop"
)

// The recorder masks what it writes with the session's masking rules, at
// its one write point (write): every JSON string value of a line, those of
// the raw provider traffic in it included. A streamed response carries its text
// in many small JSON strings (a delta per event, tool arguments a few bytes
// at a time), so a secret may be split across them: the values at one
// JSON path (with the "index" fields of their objects, which tell parallel
// tool calls apart) are read as one stream, and where masking that stream
// whole hides more than masking each value alone, the stream's masked text
// is laid back over its values by loop.MaskStream (a value may come out
// shorter or empty, the next one carries the rest). Bytes outside JSON
// strings are kept, so every body stays valid JSON and a replay reads what
// the model sent, masked.

// maskRecordLine masks the string values of one marshalled line, the
// chunks of a response excepted (maskChunks did them, as one body).
func maskRecordLine(m *loop.Masking, line []byte) []byte {
	res := maskTraffic(m, string(line), nil, func(path string) bool { return strings.HasPrefix(path, ".chunks[") })
	return []byte(res.text)
}

// maskChunks masks a response body read in chunks: the chunks are joined,
// masked as one body and cut again where they were cut (a cut that falls
// inside a changed string moves to that string's start, so no byte comes
// earlier than it was read).
func maskChunks(m *loop.Masking, chunks []Chunk) []Chunk {
	var b strings.Builder
	cuts := make([]int, 0, len(chunks))
	for _, c := range chunks {
		b.WriteString(c.Data)
		cuts = append(cuts, b.Len())
	}
	res := maskTraffic(m, b.String(), cuts, nil)
	if res.text == b.String() {
		return chunks
	}
	out := make([]Chunk, len(chunks))
	from := 0
	for i, c := range chunks {
		to := res.cuts[i]
		out[i] = Chunk{TMS: c.TMS, Data: res.text[from:to]}
		from = to
	}
	return out
}

// jsonValue is one JSON string value in a body: its bytes' span, its path
// and its text.
type jsonValue struct {
	start, end int
	path       string
	text       string
}

// edit replaces body[start:end].
type edit struct {
	start, end int
	repl       string
}

type masked struct {
	text string
	cuts []int
}

// maskTraffic masks the JSON string values of body (the body itself, or
// each "data:" payload of an event stream), but those whose path skip
// accepts, and maps cuts (offsets into body, ascending) onto the result.
func maskTraffic(m *loop.Masking, body string, cuts []int, skip func(path string) bool) masked {
	groups := map[string][]jsonValue{}
	var order []string
	for _, v := range jsonValues(body) {
		if skip != nil && skip(v.path) {
			continue
		}
		if _, ok := groups[v.path]; !ok {
			order = append(order, v.path)
		}
		groups[v.path] = append(groups[v.path], v)
	}
	var edits []edit
	for _, path := range order {
		edits = append(edits, maskGroup(m, groups[path])...)
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	return applyEdits(body, edits, cuts)
}

// maskGroup masks the values of one path: each alone, unless the stream
// of them hides a secret that spans values.
func maskGroup(m *loop.Masking, vs []jsonValue) []edit {
	alone := make([]string, len(vs))
	var joined, each strings.Builder
	for i, v := range vs {
		alone[i] = m.Mask(v.text)
		joined.WriteString(v.text)
		each.WriteString(alone[i])
	}
	out := alone
	if len(vs) > 1 && m.Mask(joined.String()) != each.String() {
		s := m.Stream()
		out = make([]string, len(vs))
		for i, v := range vs {
			out[i] = s.Write(v.text)
		}
		out[len(vs)-1] += s.Flush()
	}
	var edits []edit
	for i, v := range vs {
		if out[i] != v.text {
			edits = append(edits, edit{v.start, v.end, quoteJSON(out[i])})
		}
	}
	return edits
}

// quoteJSON encodes s as a JSON string, without HTML escaping.
func quoteJSON(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// applyEdits applies sorted, disjoint edits and maps cuts.
func applyEdits(body string, edits []edit, cuts []int) masked {
	if len(edits) == 0 {
		return masked{text: body, cuts: cuts}
	}
	var b strings.Builder
	at := 0
	newPos := func(off int) int { // body offset → result offset, edits so far
		return b.Len() + (off - at)
	}
	out := make([]int, len(cuts))
	ci := 0
	mapCuts := func(upTo int) { // cuts before upTo, in the unedited text from at
		for ; ci < len(cuts) && cuts[ci] <= upTo; ci++ {
			out[ci] = newPos(cuts[ci])
		}
	}
	for _, e := range edits {
		mapCuts(e.start)
		b.WriteString(body[at:e.start])
		at = e.start
		start := b.Len()
		for ; ci < len(cuts) && cuts[ci] < e.end; ci++ {
			out[ci] = start // inside the edited string: at its start
		}
		b.WriteString(e.repl)
		at = e.end
	}
	mapCuts(len(body))
	b.WriteString(body[at:])
	for ; ci < len(cuts); ci++ {
		out[ci] = b.Len()
	}
	return masked{text: b.String(), cuts: out}
}

// jsonValues lists the string values of body's JSON documents: each
// "data:" line of an event stream, else the whole body.
func jsonValues(body string) []jsonValue {
	if !strings.HasPrefix(body, "data:") && !strings.Contains(body, "\ndata:") {
		return docValues(body, 0)
	}
	var out []jsonValue
	for off := 0; off < len(body); {
		end := strings.IndexByte(body[off:], '\n')
		if end < 0 {
			end = len(body)
		} else {
			end += off
		}
		if line := body[off:end]; strings.HasPrefix(line, "data:") {
			out = append(out, docValues(line[len("data:"):], off+len("data:"))...)
		}
		off = end + 1
	}
	return out
}

// frame is one open object or array while a document is read.
type frame struct {
	obj       bool
	key       string // the object's current key
	expectKey bool
	n         int    // the array's elements so far
	tag       string // the object's index fields
}

// docValues reads one JSON document (doc starts at base in the body); a
// document that is not JSON, or stops being JSON, yields what was read
// before.
func docValues(doc string, base int) []jsonValue {
	dec := json.NewDecoder(strings.NewReader(doc))
	dec.UseNumber()
	var stack []frame
	var out []jsonValue
	path := func() string {
		var b strings.Builder
		for _, f := range stack {
			if f.obj {
				b.WriteString(f.tag + "." + f.key)
			} else {
				b.WriteString("[" + strconv.Itoa(f.n-1) + "]")
			}
		}
		return b.String()
	}
	top := func() *frame {
		if len(stack) == 0 {
			return nil
		}
		return &stack[len(stack)-1]
	}
	valueStart := func() {
		if f := top(); f != nil && !f.obj {
			f.n++
		}
	}
	valueDone := func() {
		if f := top(); f != nil && f.obj {
			f.expectKey = true
		}
	}
	for {
		prev := int(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return out
		}
		f := top()
		isKey := f != nil && f.obj && f.expectKey
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				valueStart()
				stack = append(stack, frame{obj: v == '{', expectKey: v == '{'})
			default:
				stack = stack[:len(stack)-1]
				valueDone()
			}
		case string:
			if isKey {
				f.key, f.expectKey = v, false
				continue
			}
			valueStart()
			end := int(dec.InputOffset())
			start := prev + strings.IndexByte(doc[prev:end], '"')
			out = append(out, jsonValue{start: base + start, end: base + end, path: path(), text: v})
			valueDone()
		default:
			valueStart()
			if n, ok := v.(json.Number); ok && f != nil && f.obj && (f.key == "index" || strings.HasSuffix(f.key, "_index")) {
				f.tag += "#" + f.key + "=" + string(n)
			}
			valueDone()
		}
		if len(stack) == 0 {
			return out
		}
	}
}
