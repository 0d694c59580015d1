package bedrock

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"talaria/providers"
)

// Stream sends req and assembles the answer. With New it calls converse and
// reports the whole reasoning and the whole text as one delta each (then
// one DeltaToolCall per call) once the JSON has arrived; with NewStreaming
// it calls converse-stream and reports fragments as they arrive. Every
// error is a *providers.APIError: HTTP errors carry status, headers, raw
// body, message and the exception name as Type; a body cut short, an
// exception frame or an event stream that ends before messageStop is
// MidStream and comes with the partial Response. A cancelled ctx stays
// visible through errors.Is.
func (t *converseTransport) Stream(ctx context.Context, req providers.Request, onDelta func(providers.Delta)) (*providers.Response, error) {
	model, err := t.model(req)
	if err != nil {
		return nil, providers.LocalError(t.ep.Provider, err)
	}
	body, err := buildRequest(req, model)
	if err != nil {
		return nil, providers.LocalError(t.ep.Provider, err)
	}
	accept := "application/json"
	if t.stream {
		accept = "application/vnd.amazon.eventstream"
	}
	resp, e := providers.PostJSON(ctx, t.client, t.ep.Provider, t.callURL(model), t.baseURL, "check the network and base_url", body,
		"Accept", accept, "Authorization", providers.Bearer(t.apiKey))
	if e := providers.Answered(ctx, t.ep.Provider, resp, e, fillHTTPError); e != nil {
		return nil, e
	}
	defer resp.Body.Close()
	if t.stream {
		return t.readEvents(ctx, resp, model, onDelta)
	}
	return t.readConverse(ctx, resp, model, onDelta)
}

// readConverse reads a whole converse answer.
func (t *converseTransport) readConverse(ctx context.Context, resp *http.Response, model string, onDelta func(providers.Delta)) (*providers.Response, error) {
	body, err := io.ReadAll(io.LimitReader(resp.Body, providers.MaxPlainBody))
	if err != nil {
		return &providers.Response{Model: model}, t.readError(ctx, resp.Header, err, "while reading the body")
	}
	var cr converseResponse
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(&cr); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return &providers.Response{Model: model}, t.readError(ctx, resp.Header, err, "before the end of its JSON")
		}
		return nil, &providers.APIError{
			Provider: t.ep.Provider, Status: resp.StatusCode, Headers: resp.Header.Clone(),
			Body:    providers.TruncateBody(body, providers.MaxQuotedBody),
			Message: fmt.Sprintf("the answer is not a Converse response (%v); check that base_url is a Bedrock runtime endpoint", err),
			Err:     err,
		}
	}
	a := newAssembler(onDelta)
	if cr.Output.Message != nil {
		a.addMessage(cr.Output.Message)
	}
	a.stopReason, a.usage = cr.StopReason, cr.Usage
	return a.response(model), nil
}

// readEvents reads a converse-stream body frame by frame.
func (t *converseTransport) readEvents(ctx context.Context, resp *http.Response, model string, onDelta func(providers.Delta)) (*providers.Response, error) {
	a := newAssembler(onDelta)
	er := newEventReader(resp.Body)
	for {
		f, err := er.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return a.response(model), t.readError(ctx, resp.Header, err, "inside an event")
		}
		switch f.messageType {
		case "exception", "error":
			return a.response(model), t.exceptionError(resp.Header, &f)
		case "", "event":
			a.sawEvent = true
			if err := applyEvent(a, &f); err != nil {
				return a.response(model), &providers.APIError{
					Provider: t.ep.Provider, Headers: resp.Header, MidStream: true,
					Body:    providers.TruncateBody(f.payload, providers.MaxQuotedBody),
					Message: fmt.Sprintf("cannot decode the %s event (%v); the response is incomplete, retry the request", f.eventType, err),
					Err:     providers.WithContext(ctx, err),
				}
			}
		}
	}
	if !a.sawStop {
		what := "before messageStop"
		if !a.sawEvent {
			what = "before any event (is base_url a Bedrock runtime endpoint?)"
		}
		return a.response(model), t.readError(ctx, resp.Header, io.ErrUnexpectedEOF, what)
	}
	return a.response(model), nil
}

// applyEvent folds one converse-stream event into a. Unknown events are
// ignored.
func applyEvent(a *assembler, f *frame) error {
	switch f.eventType {
	case "messageStart":
		// Nothing to keep: the role is always assistant.
	case "contentBlockStart":
		var ev blockStartEvent
		if err := json.Unmarshal(f.payload, &ev); err != nil {
			return err
		}
		a.blockStart(&ev)
	case "contentBlockDelta":
		var ev blockDeltaEvent
		if err := json.Unmarshal(f.payload, &ev); err != nil {
			return err
		}
		a.blockDelta(&ev)
	case "messageStop":
		var ev messageStopEvent
		if err := json.Unmarshal(f.payload, &ev); err != nil {
			return err
		}
		a.stopReason, a.sawStop = ev.StopReason, true
	case "metadata":
		var ev metadataEvent
		if err := json.Unmarshal(f.payload, &ev); err != nil {
			return err
		}
		if ev.Usage != nil {
			a.usage = ev.Usage
		}
	}
	return nil
}

// exceptionError converts an exception (or error) frame inside a 200
// stream: modelStreamErrorException, throttlingException,
// validationException, internalServerException, serviceUnavailableException.
func (t *converseTransport) exceptionError(h http.Header, f *frame) *providers.APIError {
	e := &providers.APIError{
		Provider: t.ep.Provider, Headers: h, MidStream: true,
		Type: exceptionName(firstNonEmpty(f.exceptionType, f.errorCode)),
	}
	if eb, ok := e.ParseBody(f.payload); ok {
		e.Message = eb.Message
	}
	e.Message = firstNonEmpty(e.Message, f.errorMessage, "the stream reported "+e.Type+"; retry the request")
	e.Code = overflowCode(e.Type, e.Message)
	return e
}
