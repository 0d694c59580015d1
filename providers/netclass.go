package providers

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"
)

// classifyPlain sorts an error that is not an *APIError: a transport
// failure the transport did not wrap, or a failure of our own code.
func classifyPlain(err error, in ClassifyInput) Classified {
	if c, ok := classifyTransport(err, false, in); ok {
		return c
	}
	// Wrapped with %v somewhere, so the type is gone: trust only the
	// unambiguous network phrases.
	if c, ok := byNetworkText(strings.ToLower(err.Error()), false, false, in); ok {
		return c
	}
	return newClassified(ReasonLocalError)
}

// isTransportErr reports whether err is a failure of the network or the
// HTTP stack rather than of our own code.
func isTransportErr(err error) bool {
	_, ok := classifyTransport(err, false, ClassifyInput{})
	if ok {
		return true
	}
	var ue *url.Error
	return errors.As(err, &ue)
}

// classifyTransport recognises transport failures by type: certificate
// errors fail fast; TLS alerts, timeouts, refused or unreachable
// connections are timeouts (retry); a reset or cut connection is a
// disconnect (see disconnect).
func classifyTransport(err error, midStream bool, in ClassifyInput) (Classified, bool) {
	var (
		unknownAuth x509.UnknownAuthorityError
		certInvalid x509.CertificateInvalidError
		hostErr     x509.HostnameError
		verifyErr   *tls.CertificateVerificationError
		alert       tls.AlertError
		recordErr   tls.RecordHeaderError
		netErr      net.Error
		opErr       *net.OpError
		dnsErr      *net.DNSError
		urlErr      *url.Error
		ourTimeout  *TimeoutError
	)
	switch {
	case errors.As(err, &ourTimeout):
		return newClassified(ReasonTimeout), true
	case errors.As(err, &unknownAuth), errors.As(err, &certInvalid),
		errors.As(err, &hostErr), errors.As(err, &verifyErr):
		return newClassified(ReasonSSLCertVerification), true
	case errors.As(err, &alert), errors.As(err, &recordErr):
		return newClassified(ReasonTimeout), true
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, syscall.ETIMEDOUT):
		return newClassified(ReasonTimeout), true
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, syscall.ECONNABORTED), errors.Is(err, net.ErrClosed):
		return disconnect(midStream, in), true
	case errors.As(err, &netErr) && netErr.Timeout():
		return newClassified(ReasonTimeout), true
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.EHOSTUNREACH),
		errors.Is(err, syscall.ENETUNREACH), errors.As(err, &dnsErr), errors.As(err, &opErr):
		return newClassified(ReasonTimeout), true
	case errors.As(err, &urlErr):
		// The HTTP client failed in a way not recognised above; the
		// message may still say what happened.
		return byNetworkText(strings.ToLower(urlErr.Err.Error()), true, midStream, in)
	}
	return Classified{}, false
}

// byNetworkText sorts a failure by the network phrases of its lowercase
// text t: a certificate failure fails fast; a TLS alert, a refused or
// unreachable connection (and, with timeouts, a timeout) is a timeout; a
// server that hung up is a disconnect (see disconnect).
func byNetworkText(t string, timeouts, midStream bool, in ClassifyInput) (Classified, bool) {
	switch {
	case certText.inText(t):
		return newClassified(ReasonSSLCertVerification), true
	case tlsTransientText.inText(t), connectText.inText(t), timeouts && timeoutText.inText(t):
		return newClassified(ReasonTimeout), true
	case disconnectText.inText(t):
		return disconnect(midStream, in), true
	}
	return Classified{}, false
}
