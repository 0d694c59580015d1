package loop

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"talaria/providers"
	"talaria/tools"
)

// retryMessage is the retry.scheduled message: the classifier's wording
// where it says more than the raw error (a refused connection names the
// base URL), else the error's first line.
func retryMessage(class providers.Classified, err error) string {
	if class.Reason == providers.ReasonConnectionRefused {
		return class.Message
	}
	return firstLine(err.Error())
}

// providerFailure explains a turn whose model call failed for good. It
// leads with what the user can do: a rejected key names the variable it
// came from, a refused connection names the base URL, and only a call
// that was retried says it kept failing.
func (t *turn) providerFailure() string {
	var ce *callError
	if !errors.As(t.lastErr, &ce) {
		return "The provider call failed: " + errText(t.lastErr)
	}
	b := t.a.route.backend()
	switch ce.class.Reason {
	case providers.ReasonAuth, providers.ReasonAuthPermanent:
		return authFailure(b, ce.class)
	case providers.ReasonConnectionRefused:
		return fmt.Sprintf("%s%s. Start the server, or point model.base_url (or --base-url) at the right address.",
			strings.ToUpper(ce.class.Message[:1]), ce.class.Message[1:])
	}
	if ce.attempts <= 1 {
		return "The provider call failed: " + errText(t.lastErr)
	}
	return fmt.Sprintf("The provider kept failing (%d attempts): %s", ce.attempts, errText(t.lastErr))
}

// authFailure says which key the provider rejected and how to fix it.
func authFailure(b providers.Backend, c providers.Classified) string {
	status := ""
	if c.Status != 0 {
		status = fmt.Sprintf(" (HTTP %d)", c.Status)
	}
	where := "the configured API key"
	if len(b.KeyEnvs) > 0 {
		where = "the API key in " + strings.Join(b.KeyEnvs, ", ")
	}
	what := "rejected"
	if c.Status == http.StatusForbidden {
		what = "refused access with"
	}
	fix := "Check the key, or set model.api_key_env in config.yaml to the variable that holds a valid one."
	if len(b.KeyEnvs) > 0 {
		fix = fmt.Sprintf("Check that %s holds a valid %s key, or set model.api_key_env in config.yaml to the variable that does.", b.KeyEnvs[0], or(b.Provider, "provider"))
	}
	return fmt.Sprintf("The provider %s %s%s. %s", what, where, status, fix)
}

// or returns a unless it is empty.
func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// guardrailHaltExplanation explains a turn the tool-loop guardrail
// stopped; final is the halt response naming the tool and the rule.
func guardrailHaltExplanation(final string) string {
	s := "The tool-loop guardrail stopped the turn: the model kept repeating a tool call that failed or made no progress."
	if final != "" {
		s += " " + firstLine(final)
	}
	return s + " Rephrase the request or give the missing information; tool_loop_guardrails.hard_stop_enabled: false lets such turns run on with warnings only."
}

// unknownExitExplanation explains the exit no path of the loop sets: a
// bug in talaria, not in the request.
const unknownExitExplanation = "The turn ended on a path talaria does not recognise (a bug worth reporting); the session is saved. Try the request again."

// interruptedMark ends a partial answer the user interrupted, in the
// history the next turn sends: the model sees where it was cut.
const interruptedMark = "\n\n[interrupted by the user]"

// keepInterrupted keeps the text streamed before an interrupt as the
// assistant message, marked interrupted, as the screen shows it: the
// next turn then does not send two user messages in a row, and the model
// knows what it had said.
func (t *turn) keepInterrupted(resp *providers.Response) {
	text := t.streamed.String()
	if resp != nil && len(resp.Content) > len(text) {
		text = resp.Content
	}
	if strings.TrimSpace(text) == "" {
		return
	}
	t.append(providers.Message{Role: providers.RoleAssistant, Content: strings.TrimRight(text, " \n") + interruptedMark, FinishReason: "interrupted"})
}

// callStatus is how a finished call ended, for its saved tool message.
func callStatus(r tools.CallResult, denied bool) string {
	switch {
	case r.Cancelled:
		return providers.ToolStatusCancelled
	case denied:
		return providers.ToolStatusDenied
	case r.Result.IsError:
		return providers.ToolStatusFailed
	}
	return providers.ToolStatusOK
}
