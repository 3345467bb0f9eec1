package ghclient

import (
	"net"
	"net/http"
	"net/url"
	"strings"
)

// authorizing adds the token to requests bound for the API host, and to nothing else: a redirect
// to another host (or from HTTPS down to HTTP) goes out without it. go-github's WithAuthToken
// sets the header on every request the client makes, redirected ones included, which is why the
// header is set here, per request, from the request's own URL.
type authorizing struct {
	next  http.RoundTripper
	api   *url.URL
	token string
}

func (t *authorizing) RoundTrip(req *http.Request) (*http.Response, error) {
	out := req.Clone(req.Context()) // RoundTrip must not modify req
	out.Header.Del("Authorization")
	if t.token != "" && tokenAllowed(t.api, req.URL) {
		out.Header.Set("Authorization", "Bearer "+t.token)
	}
	return t.next.RoundTrip(out)
}

// tokenAllowed reports whether a request to u may carry the token of the API at api: same scheme
// and host (port included), and HTTPS unless the host is the loopback interface.
func tokenAllowed(api, u *url.URL) bool {
	if !strings.EqualFold(u.Scheme, api.Scheme) || !strings.EqualFold(u.Host, api.Host) {
		return false
	}
	return strings.EqualFold(u.Scheme, "https") || (strings.EqualFold(u.Scheme, "http") && isLoopback(u.Hostname()))
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
