package persist

import (
	bolt "go.etcd.io/bbolt"
)

// SystemPrompt returns the session's stored system prompt and its state:
// PromptMissing (never built) or PromptNull (cleared) with a nil prompt,
// PromptEmpty with a pointer to "", PromptPresent with the text, byte for
// byte as stored. ErrNotFound (wrapped) if the session does not exist.
//
// Restoring a session, the caller replays a PromptPresent or PromptEmpty
// prompt as is (rebuilding it would break the provider's prompt cache) and
// builds one for PromptMissing and PromptNull, then stores it with
// SetSystemPrompt.
func (s *Store) SystemPrompt(id string) (prompt *string, state string, err error) {
	err = s.view(func(tx *bolt.Tx) error {
		sess, err := s.getSession(tx, id, true)
		if err != nil {
			return err
		}
		prompt, state = sess.SystemPrompt, sess.SystemPromptState
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	return prompt, state, nil
}

// SetSystemPrompt stores the session's system prompt: a non-empty prompt
// becomes PromptPresent, "" PromptEmpty, and nil clears it (PromptNull, so
// that the next turn rebuilds it). It does not change UpdatedAt: rebuilding
// a prompt is not activity. ErrNotFound (wrapped) if the session does not
// exist.
func (s *Store) SetSystemPrompt(id string, prompt *string) error {
	return s.update(func(tx *bolt.Tx) error {
		sess, err := s.getSession(tx, id, false)
		if err != nil {
			return err
		}
		sess.SystemPrompt, sess.SystemPromptState = prompt, ""
		if prompt == nil {
			sess.SystemPromptState = PromptNull
		}
		return s.putSession(tx, sess, true)
	})
}
