package persist

import (
	"bytes"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// SaveTodos stores the session's todo list, replacing the previous one.
// The list is opaque JSON to the store (the tools package owns its item
// type); it must be valid JSON. Empty raw (nothing but white space)
// removes the list. ErrNotFound (wrapped) if the session does not exist.
// Saving todos is not activity: UpdatedAt is kept.
func (s *Store) SaveTodos(id string, raw json.RawMessage) error {
	remove := len(bytes.TrimSpace(raw)) == 0
	if !remove && !json.Valid(raw) {
		return fmt.Errorf("save the todos of session %s: the list is not valid JSON", id)
	}
	return s.update(func(tx *bolt.Tx) error {
		if _, err := s.getSession(tx, id, false); err != nil {
			return err
		}
		todos, err := s.bucket(tx, bucketTodos)
		if err != nil {
			return err
		}
		if remove {
			return todos.Delete([]byte(id))
		}
		return todos.Put([]byte(id), raw)
	})
}

// Todos returns the session's todo list as stored by SaveTodos, or nil
// when it has none. ErrNotFound (wrapped) if the session does not exist; a
// *DamagedError if the stored list is not JSON.
func (s *Store) Todos(id string) (json.RawMessage, error) {
	var out json.RawMessage
	err := s.view(func(tx *bolt.Tx) error {
		if _, err := s.getSession(tx, id, false); err != nil {
			return err
		}
		todos, err := s.bucket(tx, bucketTodos)
		if err != nil {
			return err
		}
		if v := todos.Get([]byte(id)); v != nil {
			out = bytes.Clone(v)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if out != nil && !json.Valid(out) {
		return nil, s.damaged(fmt.Sprintf("the todos of session %s are unreadable", id), nil)
	}
	return out, nil
}
