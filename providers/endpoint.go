package providers

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Client is the HTTP client that carries every request of the endpoint:
// HTTPClient, or a default client without timeout (so long streams are
// not cut) when it is nil.
func (ep Endpoint) Client() *http.Client {
	if ep.HTTPClient != nil {
		return ep.HTTPClient
	}
	return &http.Client{}
}

// Base is the base URL of the endpoint's calls: BaseURL with surrounding
// spaces and trailing slashes trimmed, or def (the wire's default) when
// that leaves nothing; u is its parse. It must be an http(s) URL with a
// host: the error names the provider, quotes BaseURL as configured and
// suggests example.
func (ep Endpoint) Base(def, example string) (base string, u *url.URL, err error) {
	base = strings.TrimRight(strings.TrimSpace(ep.BaseURL), "/")
	if base == "" {
		base = def
	}
	u, err = url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", nil, fmt.Errorf("%s: base_url %q is not an http(s) URL; set model.base_url to something like %s", ep.Provider, ep.BaseURL, example)
	}
	return base, u, nil
}

// ModelFor is the model id a call of req goes to: req.Model, else the
// endpoint's Model. With neither, it is an error that says "no model set"
// followed by hint (what to set).
func (ep Endpoint) ModelFor(req Request, hint string) (string, error) {
	switch {
	case req.Model != "":
		return req.Model, nil
	case ep.Model != "":
		return ep.Model, nil
	}
	return "", errors.New("no model set; " + hint)
}

// ModelHint is the hint of ModelFor for wires whose model ids need no
// example.
const ModelHint = "set model.name in the config or pass --model"

// LocalError is the error of a request that never left: building it
// failed (err) before anything was sent. Classify sorts it as
// ReasonLocalError.
func LocalError(provider string, err error) *APIError {
	return &APIError{Provider: provider, Message: err.Error(), Err: err}
}
