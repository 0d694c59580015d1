package port

// SetupOffer is what the first-run setup dialog offers: the providers, in
// order, and where a key typed in the dialog is stored.
type SetupOffer struct {
	Providers []SetupProvider
	// KeyFile is where a typed key is stored, for the dialog's text.
	KeyFile string
}

// SetupProvider is one provider the setup dialog offers.
type SetupProvider struct {
	Name        string
	Description string
	// KeyEnv is the variable its key is read from by default ("": it
	// takes no key); KeySet says that variable is set now.
	KeyEnv string
	KeySet bool
	// KeyOptional: it works without a key (local servers).
	KeyOptional bool
	// AskBaseURL: the dialog asks for the server's URL (BaseURL is the
	// suggestion).
	AskBaseURL bool
	BaseURL    string
	// DefaultModel is offered first in the model step.
	DefaultModel string
}

// SetupRequest is what the setup dialog collected.
type SetupRequest struct {
	Provider string
	BaseURL  string
	// KeyEnv is the variable to read the key from; Key, when set, is a key
	// typed in the dialog, to be stored (under KeyEnv's name).
	KeyEnv string
	Key    string
	Model  string
}

// SetupResult is what applying the setup did.
type SetupResult struct {
	// Session is the session opened with the new configuration.
	Session Session
	// Notice says what was written where (never the key itself).
	Notice string
}
