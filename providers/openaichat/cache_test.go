package openaichat

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"

	"talaria/providers"
	"talaria/providers/providertest"
)

// streamAnswer is a whole chat-completions stream answering "done".
const streamAnswer = "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"done\"},\"finish_reason\":null}]}\n\n" +
	"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n" +
	"data: [DONE]\n\n"

// cowList is a message list kept the way AppendOnly promises (the loop's
// requestView): a slot once handed out in a request is never written
// again, but for slot 0.
type cowList struct {
	msgs   []providers.Message
	handed int
}

// own moves the list to a new array when slot i was handed out.
func (l *cowList) own(i int) {
	if i < l.handed {
		l.msgs = append(make([]providers.Message, 0, cap(l.msgs)+1), l.msgs...)
		l.handed = 0
	}
}

func (l *cowList) push(m providers.Message) {
	l.own(len(l.msgs))
	l.msgs = append(l.msgs, m)
}

func (l *cowList) request() providers.Request {
	l.handed = max(l.handed, len(l.msgs))
	return providers.Request{Model: "test-model", Messages: l.msgs[:len(l.msgs):len(l.msgs)], AppendOnly: true}
}

// reference is the body a transport with an empty cache sends for req.
func reference(t *testing.T, req providers.Request) []byte {
	t.Helper()
	fresh := &chatTransport{ep: providers.Endpoint{Provider: "p", Model: "test-model"}, cache: &msgCache{}}
	raw, err := fresh.encodeRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestAppendOnlyBodies sends random AppendOnly histories through the real
// client to a server and checks every body is the one a transport with an
// empty cache would send: the trusted prefix, the bytes kept in the reused
// buffer and the images picked among the new messages only must never
// leave a stale byte, through growth, cuts, copy-on-write edits, tool
// batches with images coming and going out of the budget, and the system
// message rewritten in place (as a fallback does).
func TestAppendOnlyBodies(t *testing.T) {
	srv, reqs := providertest.Serve(t, providertest.WireReply{Body: []byte(streamAnswer)})
	tr := newTestTransport(t, srv, "p")
	l := &cowList{}
	l.push(providers.Message{Role: providers.RoleSystem, Content: "You are talaria."})
	r := rand.New(rand.NewPCG(5, 6))
	png := func(i int) []providers.Image {
		return []providers.Image{{MIME: "image/png", Data: []byte(fmt.Sprint("\x89PNG image ", i))}}
	}
	send := func(step string) {
		t.Helper()
		req := l.request()
		want := reference(t, req)
		if _, err := tr.Stream(context.Background(), req, nil); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if got := (<-reqs).Raw; !bytes.Equal(got, want) {
			t.Fatalf("%s: body differs from a fresh encoding\n got %s\nwant %s", step, got, want)
		}
	}
	for i := range 400 {
		switch k := r.IntN(10); {
		case k < 4:
			l.push(providers.Message{Role: providers.RoleUser, Content: fmt.Sprint("question ", i, strings.Repeat("é", r.IntN(40)))})
		case k < 6:
			id := fmt.Sprint("call", i)
			l.push(providers.Message{Role: providers.RoleAssistant, ToolCalls: []providers.ToolCall{{ID: id, Name: "read_file", Arguments: `{"path":"a"}`}}})
			m := providers.Message{Role: providers.RoleTool, ToolCallID: id, ToolName: "read_file", Content: fmt.Sprint("result ", i)}
			if r.IntN(3) == 0 {
				m.Images, m.Content = png(i), "[image 1]"
			}
			l.push(m)
		case k == 6 && len(l.msgs) > 2:
			l.msgs = l.msgs[:1+r.IntN(len(l.msgs)-1)] // cut shorter
		case k == 7 && len(l.msgs) > 2:
			j := 1 + r.IntN(len(l.msgs)-1)
			l.own(j)
			l.msgs[j].Content = fmt.Sprint("edited ", i)
		case k == 8:
			l.msgs[0].Content = fmt.Sprint("You are talaria.\nModel: fallback ", i) // in place
		default:
			l.push(providers.Message{Role: providers.RoleAssistant, Content: fmt.Sprint("answer ", i)})
		}
		send(fmt.Sprint("step ", i))
	}
}

// TestCacheComparesWithoutAppendOnly checks that a request that promises
// nothing has each message compared: an edit made in place, in the array
// of the last request, is sent; and that with AppendOnly an in-place
// rewrite of the system message is sent too.
func TestCacheComparesWithoutAppendOnly(t *testing.T) {
	srv, reqs := providertest.Serve(t, providertest.WireReply{Body: []byte(streamAnswer)})
	tr := newTestTransport(t, srv, "p")
	msgs := []providers.Message{
		{Role: providers.RoleSystem, Content: "system one"},
		{Role: providers.RoleUser, Content: "first question"},
		{Role: providers.RoleAssistant, Content: "first answer"},
		{Role: providers.RoleUser, Content: "second question"},
	}
	send := func(appendOnly bool) string {
		t.Helper()
		if _, err := tr.Stream(context.Background(), providers.Request{Messages: msgs, AppendOnly: appendOnly}, nil); err != nil {
			t.Fatal(err)
		}
		return string((<-reqs).Raw)
	}
	send(false)
	msgs[2].Content = "edited in place"
	if body := send(false); !strings.Contains(body, "edited in place") || strings.Contains(body, "first answer") {
		t.Fatalf("an in-place edit was not sent: %s", body)
	}
	send(true)
	msgs[0].Content = "system two, after a fallback"
	if body := send(true); !strings.Contains(body, "system two") {
		t.Fatalf("the system message rewritten in place was not sent: %s", body)
	}
}

// holdingTransport reads only the first bytes of a request's body before
// answering, and hands the rest of the reading to the test, as net/http
// may go on writing a body after Do returned.
type holdingTransport struct {
	held chan io.ReadCloser
}

func (h holdingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	head := make([]byte, 5)
	if _, err := io.ReadFull(r.Body, head); err != nil {
		return nil, err
	}
	h.held <- struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), r.Body), r.Body}
	return &http.Response{
		StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {"text/event-stream"}},
		Body:    io.NopCloser(strings.NewReader(streamAnswer)),
		Request: r,
	}, nil
}

// TestBodyBufferOutlivesDo checks that a body the HTTP client has not
// closed yet keeps its bytes while later calls are made (read from another
// goroutine, so -race sees a reuse too), and that once closed its buffer
// is reused.
func TestBodyBufferOutlivesDo(t *testing.T) {
	held := make(chan io.ReadCloser, 4)
	hc := &http.Client{Transport: holdingTransport{held: held}}
	tp, err := New(providers.Endpoint{Provider: "p", Model: "m", BaseURL: "http://model.invalid/v1", HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	tr := tp.(*chatTransport)
	l := &cowList{}
	l.push(providers.Message{Role: providers.RoleSystem, Content: "system"})
	call := func(text string) (providers.Request, io.ReadCloser) {
		t.Helper()
		l.push(providers.Message{Role: providers.RoleUser, Content: text})
		req := l.request()
		req.Model = ""
		if _, err := tr.Stream(context.Background(), req, nil); err != nil {
			t.Fatal(err)
		}
		return req, <-held
	}
	req1, body1 := call("first question")
	want1 := reference(t, providers.Request{Model: "m", Messages: req1.Messages, AppendOnly: true})
	got1 := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(body1)
		got1 <- b
	}()
	_, body2 := call("second question, a longer one than the first") // while body1 is being read
	if b := <-got1; !bytes.Equal(b, want1) {
		t.Fatalf("a body read after Do returned changed under a later call:\n got %s\nwant %s", b, want1)
	}
	_ = body1.Close()
	_ = body2.Close()
	gen := tr.cache.gen
	_, body3 := call("third")
	_ = body3.Close()
	if tr.cache.gen != gen {
		t.Errorf("the buffer was not reused once every reader was closed (generation %d → %d)", gen, tr.cache.gen)
	}
}
