package ghclient

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// maxAttempts bounds retries even when the time budget would allow more.
const maxAttempts = 6

// retrying is an http.RoundTripper that retries GET requests (and PATCH, idempotent here, with its
// body replayed) on 5xx answers, on secondary rate
// limits (honouring Retry-After) and once on network errors, with exponential backoff, within a
// total time budget. Primary rate limits are not retried: they reset in up to an hour.
type retrying struct {
	next     http.RoundTripper
	budget   time.Duration
	requests atomic.Int64
}

func (t *retrying) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	backoff := min(500*time.Millisecond, t.budget/8)
	var err0 error
	for attempt := 1; ; attempt++ {
		t.requests.Add(1)
		try := req
		if attempt > 1 && req.GetBody != nil {
			try = req.Clone(req.Context()) // RoundTrip must not modify req: replay the body on a copy
			if try.Body, err0 = req.GetBody(); err0 != nil {
				return nil, err0
			}
		}
		resp, err := t.next.RoundTrip(try)
		wait, secondary, retry := retryable(req, resp, err, attempt, backoff)
		if !retry {
			return resp, err
		}
		status := 0
		if resp != nil {
			status = resp.StatusCode
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
			resp.Body.Close()
		}
		elapsed := time.Since(start)
		if attempt >= maxAttempts || elapsed+wait > t.budget {
			return nil, &gaveUp{status: status, attempts: attempt, elapsed: elapsed, retryAfter: wait, secondary: secondary, err: err}
		}
		timer := time.NewTimer(wait)
		select {
		case <-req.Context().Done():
			timer.Stop()
			return nil, req.Context().Err()
		case <-timer.C:
		}
		backoff = min(backoff*2, 8*time.Second)
	}
}

// retryable says whether to retry, after how long, and whether a secondary rate limit asked for it.
func retryable(req *http.Request, resp *http.Response, err error, attempt int, backoff time.Duration) (time.Duration, bool, bool) {
	switch req.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodPatch: // setting fields to values: repeating it changes nothing
		if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
			return 0, false, false
		}
	default: // POST creates (a second comment): never repeated
		return 0, false, false
	}
	if err != nil {
		return backoff, false, attempt < 2 && req.Context().Err() == nil
	}
	after, hasAfter := retryAfter(resp)
	switch {
	case resp.StatusCode >= 500:
		if hasAfter {
			return after, false, true
		}
		return backoff, false, true
	case resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusTooManyRequests:
		if resp.Header.Get("X-RateLimit-Remaining") == "0" {
			return 0, false, false // primary limit exhausted: report when it resets
		}
		if hasAfter {
			return after, true, true
		}
		if secondaryLimit(resp) {
			return time.Minute, true, true // GitHub's advice without Retry-After: wait a minute
		}
	}
	return 0, false, false
}

func retryAfter(resp *http.Response) (time.Duration, bool) {
	v := resp.Header.Get("Retry-After")
	if v == "" {
		return 0, false
	}
	if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0), true
	}
	return 0, false
}

// secondaryLimit peeks at a 403 body for GitHub's secondary rate limit message, and puts it back.
func secondaryLimit(resp *http.Response) bool {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return bytes.Contains(bytes.ToLower(body), []byte("secondary rate limit"))
}
