package anthropic

import (
	"context"
	"errors"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"talaria/providers"
)

// requestError converts an error from sending the request (an HTTP error
// status, a network failure) into a *providers.APIError, using what the
// capture middleware saw of the response.
func (t *transport) requestError(ctx context.Context, st *callState, err error) *providers.APIError {
	if st.status == 0 {
		var se *sdk.Error
		if errors.As(err, &se) && se.StatusCode != 0 {
			return &providers.APIError{Provider: t.ep.Provider, Status: se.StatusCode, Message: se.Error(), Err: providers.WithContext(ctx, err)}
		}
		return providers.SendError(ctx, t.ep.Provider, t.baseURL, err, "check that the server is running and base_url is right")
	}
	e := &providers.APIError{Provider: t.ep.Provider, Status: st.status, Headers: st.headers, Body: string(st.errBody), Err: providers.WithContext(ctx, err)}
	if we, ok := parseErrorBody(st.errBody); ok {
		e.Message, e.Type, e.Code = we.Message, we.Type, we.code()
	} else {
		e.Message = providers.SummarizePage(st.status, st.errBody)
	}
	return e
}

// eventError converts an "error" event inside a started stream, such as
// {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}.
// Its Status is 0: the HTTP status was 200.
func (t *transport) eventError(st *callState, raw []byte, we *wireError) *providers.APIError {
	e := &providers.APIError{Provider: t.ep.Provider, Headers: st.headers, MidStream: true, Body: string(raw)}
	if we == nil {
		if p, ok := parseErrorBody(raw); ok {
			we = &p
		}
	}
	if we != nil {
		e.Message, e.Type, e.Code = we.Message, we.Type, we.code()
	}
	if e.Message == "" {
		e.Message = "the server sent an error inside the stream; retry the request"
	}
	return e
}
