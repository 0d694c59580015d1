package providers

import (
	"bytes"
	"encoding/json"
)

// MarshalKeepingBytes is json.Marshal without HTML escaping: <, > and &
// stay as they are instead of becoming \u003c, \u003e and \u0026, so
// that tool arguments re-encoded by talaria (sorted keys, a command
// built for an approval) keep the bytes the model or the user wrote. The
// output is valid JSON either way; only what people read, and what goes
// back to the model, differs.
func MarshalKeepingBytes(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
