package otlp

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"net/textproto"
	"net/url"
	"os"
	"strings"
)

// envSettings is what the standard OTEL_EXPORTER_OTLP_* variables add to
// the endpoint: headers (a collector's API key), gzip, and TLS material.
// Each has a TRACES_ variant that wins over the general one.
type envSettings struct {
	headers http.Header
	gzip    bool
	tls     *tls.Config
}

// lookup returns the traces-specific variable's value, else the general
// one's, with the name it came from.
func lookup(getenv func(string) string, what string) (value, name string) {
	name = "OTEL_EXPORTER_OTLP_TRACES_" + what
	if v := getenv(name); v != "" {
		return v, name
	}
	name = "OTEL_EXPORTER_OTLP_" + what
	return getenv(name), name
}

func readEnv(getenv func(string) string) (envSettings, error) {
	var s envSettings
	raw, name := lookup(getenv, "HEADERS")
	h, err := parseHeaders(raw)
	if err != nil {
		return s, fmt.Errorf("%s: %w", name, err)
	}
	s.headers = h
	switch raw, name := lookup(getenv, "COMPRESSION"); strings.ToLower(strings.TrimSpace(raw)) {
	case "gzip":
		s.gzip = true
	case "", "none":
	default:
		return s, fmt.Errorf("%s: %q is not gzip or none", name, raw)
	}
	s.tls, err = tlsConfig(getenv)
	return s, err
}

// parseHeaders reads the W3C-baggage-like list the spec gives
// OTEL_EXPORTER_OTLP_HEADERS: key=value pairs, comma-separated,
// percent-encoded. Errors name the entry by position, never its value (a
// header is often an API key).
func parseHeaders(raw string) (http.Header, error) {
	h := http.Header{}
	for i, entry := range strings.Split(raw, ",") {
		if strings.TrimSpace(entry) == "" {
			continue
		}
		k, v, ok := strings.Cut(entry, "=")
		k, kerr := url.PathUnescape(strings.TrimSpace(k))
		v, verr := url.PathUnescape(strings.TrimSpace(v))
		if !ok || k == "" || kerr != nil || verr != nil || !validHeaderName(k) || strings.ContainsAny(v, "\r\n\x00") {
			return nil, fmt.Errorf("entry %d is not key=value (percent-encoded)", i+1)
		}
		h.Add(textproto.CanonicalMIMEHeaderKey(k), v)
	}
	return h, nil
}

func validHeaderName(k string) bool {
	for _, c := range k {
		if c <= ' ' || c >= 0x7f || strings.ContainsRune(`()<>@,;:\"/[]?={}`, c) {
			return false
		}
	}
	return true
}

// tlsConfig reads the CA and client certificate files, or returns nil when
// none is set (the system roots).
func tlsConfig(getenv func(string) string) (*tls.Config, error) {
	ca, caName := lookup(getenv, "CERTIFICATE")
	cert, certName := lookup(getenv, "CLIENT_CERTIFICATE")
	key, keyName := lookup(getenv, "CLIENT_KEY")
	if ca == "" && cert == "" && key == "" {
		return nil, nil
	}
	c := &tls.Config{MinVersion: tls.VersionTLS12}
	if ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", caName, err)
		}
		c.RootCAs = x509.NewCertPool()
		if !c.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s: %s holds no PEM certificate", caName, ca)
		}
	}
	if (cert == "") != (key == "") {
		return nil, fmt.Errorf("%s and %s go together", certName, keyName)
	}
	if cert != "" {
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("%s/%s: %w", certName, keyName, err)
		}
		c.Certificates = []tls.Certificate{pair}
	}
	return c, nil
}
