package loop

import "reflect"

// eventNames is the one table from an event's Go type to its contract name,
// the "type" of its JSON Lines object. The emitter stamps every event from
// it, and the tests check it against CONTRACT.md. It is never written.
var eventNames = map[reflect.Type]string{
	reflect.TypeFor[*SessionStarted]():    TypeSessionStarted,
	reflect.TypeFor[*TurnStarted]():       TypeTurnStarted,
	reflect.TypeFor[*IterationStarted]():  TypeIterationStarted,
	reflect.TypeFor[*MessageDelta]():      TypeMessageDelta,
	reflect.TypeFor[*ReasoningDelta]():    TypeReasoningDelta,
	reflect.TypeFor[*MessageCompleted]():  TypeMessageCompleted,
	reflect.TypeFor[*ToolsPlanned]():      TypeToolsPlanned,
	reflect.TypeFor[*ToolStarted]():       TypeToolStarted,
	reflect.TypeFor[*ToolCompleted]():     TypeToolCompleted,
	reflect.TypeFor[*ToolOutput]():        TypeToolOutput,
	reflect.TypeFor[*CheckpointCreated](): TypeCheckpointCreated,
	reflect.TypeFor[*RetryScheduled]():    TypeRetryScheduled,
	reflect.TypeFor[*CredentialRotated](): TypeCredentialRotated,
	reflect.TypeFor[*FallbackActivated](): TypeFallbackActivated,
	reflect.TypeFor[*Guardrail]():         TypeGuardrail,
	reflect.TypeFor[*SteerQueued]():       TypeSteerQueued,
	reflect.TypeFor[*SteerDelivered]():    TypeSteerDelivered,
	reflect.TypeFor[*SteerRefused]():      TypeSteerRefused,
	reflect.TypeFor[*BudgetRefunded]():    TypeBudgetRefunded,
	reflect.TypeFor[*Compression]():       TypeCompression,
	reflect.TypeFor[*TurnFinished]():      TypeTurnFinished,
	reflect.TypeFor[*HookCompleted]():     TypeHookCompleted,
	reflect.TypeFor[*APIAttempt]():        TypeAPIAttempt,
	reflect.TypeFor[*ApprovalWaited]():    TypeApprovalWaited,
}

// EventType returns the contract name of e's type (its "type" field);
// for a type the table does not hold, the type its header already has.
func EventType(e Event) string {
	if n, ok := eventNames[reflect.TypeOf(e)]; ok {
		return n
	}
	return e.Meta().Type
}
