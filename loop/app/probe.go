package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"talaria/loop/config"
)

// LocalServer is a well-known local OpenAI-compatible server address.
type LocalServer struct {
	Name    string
	BaseURL string
}

// LocalServers lists the servers probed when no provider is configured.
func LocalServers() []LocalServer {
	return []LocalServer{
		{"Ollama", "http://127.0.0.1:11434/v1"},
		{"llama.cpp", "http://127.0.0.1:8080/v1"},
		{"LM Studio", "http://127.0.0.1:1234/v1"},
		{"vLLM", "http://127.0.0.1:8000/v1"},
	}
}

// Probe asks each server's /models at once and returns the first in list
// order that answers with a model within the timeout.
func Probe(ctx context.Context, servers []LocalServer, timeout time.Duration) (config.Backend, string, bool) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	type answer struct {
		model string
		ok    bool
	}
	results := make([]chan answer, len(servers))
	for i, s := range servers {
		results[i] = make(chan answer, 1)
		go func(s LocalServer, out chan<- answer) {
			m, err := firstModel(ctx, s.BaseURL)
			out <- answer{m, err == nil && m != ""}
		}(s, results[i])
	}
	for i, s := range servers {
		if a := <-results[i]; a.ok {
			provider := "custom"
			if s.Name == "Ollama" {
				provider = "ollama"
			}
			return config.Backend{Provider: provider, Model: a.model, BaseURL: s.BaseURL, APIMode: "chat_completions"}, s.Name, true
		}
	}
	return config.Backend{}, "", false
}

func firstModel(ctx context.Context, baseURL string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, baseURL+"/models", nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s/models: %s", baseURL, resp.Status)
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		return "", err
	}
	if len(list.Data) == 0 {
		return "", fmt.Errorf("GET %s/models: no models listed", baseURL)
	}
	return list.Data[0].ID, nil
}
