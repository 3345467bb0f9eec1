// Package modelserver is a scripted model API on 127.0.0.1 for end-to-end tests of real agent
// clients. It speaks four wire formats, each at its own path: Anthropic's Messages API (Claude Code,
// ANTHROPIC_BASE_URL: POST /v1/messages), OpenAI's Responses API (Codex CLI: POST …/responses),
// OpenAI's Chat Completions (Qwen Code, Copilot CLI: POST …/chat/completions) and the Gemini API
// (Gemini CLI: POST …/models/<model>:generateContent or :streamGenerateContent). Each answers,
// streamed (server-sent events) or not, from a script of turns per agent; every request is read
// into one shape (Request: the conversation as Messages API blocks, whatever the format) and
// recorded, so a test asserts what reached the model the same way for every client; the client's
// side requests (those that carry no tools: titles, summaries, topic checks) get short text
// outside the script.
//
// Hand-written rather than a library: no maintained Go package fakes these APIs' streaming
// protocols for a client under test; the protocol needed here is a few event shapes per format.
//
// It may import the standard library only.
package modelserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// MainAgent is the marker the e2e harness appends to the main agent's system prompt
// (--append-system-prompt), so the server tells the main agent from its subagents.
const MainAgent = "[e2e-agent:main]"

// ToolUse is one tool call a turn makes. ID is filled in when empty.
type ToolUse struct {
	ID    string
	Name  string
	Input any // marshalled to the tool's JSON input
}

// Turn is one answer of the model to one agent request.
type Turn struct {
	// Agent is a string the request's system prompt must contain for this turn to answer it:
	// MainAgent for the main agent, a line of a subagent's instructions for that subagent.
	Agent string
	// Expect checks the request this turn answers (the results of the previous turn's tools reach
	// the model in it); a non-nil error is recorded and reported by Server.Err.
	Expect func(r *Request) error
	// Before runs before the answer is sent, while the client waits: a human's step between two
	// turns (e.g. `git exarchos approve` run by the test, outside the agent).
	Before func() error
	// Text is said before the tool calls; ToolUses are the calls. No tool calls ends the turn
	// (stop_reason end_turn), else stop_reason is tool_use.
	Text     string
	ToolUses []ToolUse
}

// Request is one request the server received.
type Request struct {
	Time    time.Time // when it arrived
	Format  Format
	Path    string
	Header  http.Header
	Body    json.RawMessage
	Stream  bool
	Model   string
	System  string   // the system prompt's text, blocks joined by newlines
	Tools   []string // tool names offered
	Turn    int      // index of the script turn that answered it, -1 for side requests and others
	Agent   string   // the turn's Agent, "" when none answered
	Payload struct {
		Messages []Message `json:"messages"`
	}
}

// Message is one message of a request's conversation.
type Message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"` // a string or content blocks
}

// Block is a content block of a message.
type Block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"` // tool_result: a string or blocks
	IsError   bool            `json:"is_error,omitempty"`
}

// Blocks are a message's content as blocks (a string content is one text block).
func (m Message) Blocks() []Block {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return []Block{{Type: "text", Text: s}}
	}
	var bs []Block
	_ = json.Unmarshal(m.Content, &bs)
	return bs
}

// ToolResult is a tool's result as it reached the model.
type ToolResult struct {
	ToolUseID string
	Text      string
	IsError   bool
}

// ToolResults are the tool results of the request's last message.
func (r *Request) ToolResults() []ToolResult {
	msgs := r.Payload.Messages
	if len(msgs) == 0 {
		return nil
	}
	var out []ToolResult
	for _, b := range msgs[len(msgs)-1].Blocks() {
		if b.Type == "tool_result" {
			out = append(out, ToolResult{ToolUseID: b.ToolUseID, Text: blockText(b.Content), IsError: b.IsError})
		}
	}
	return out
}

// ToolResult is the result of the tool call with this id, anywhere in the conversation.
func (r *Request) ToolResult(id string) (ToolResult, bool) {
	for _, m := range r.Payload.Messages {
		for _, b := range m.Blocks() {
			if b.Type == "tool_result" && b.ToolUseID == id {
				return ToolResult{ToolUseID: id, Text: blockText(b.Content), IsError: b.IsError}, true
			}
		}
	}
	return ToolResult{}, false
}

// Text is every text the model was sent in this request (system prompt, messages, tool results),
// to look for a hook's added context.
func (r *Request) Text() string {
	var b strings.Builder
	b.WriteString(r.System)
	for _, m := range r.Payload.Messages {
		for _, bl := range m.Blocks() {
			b.WriteString("\n")
			b.WriteString(bl.Text)
			b.WriteString(blockText(bl.Content))
		}
	}
	return b.String()
}

func blockText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var bs []Block
	_ = json.Unmarshal(raw, &bs)
	var parts []string
	for _, b := range bs {
		parts = append(parts, b.Text)
	}
	return strings.Join(parts, "\n")
}

// SideText answers the client's side requests (those without tools).
const SideText = "ok"

// Server is the scripted API.
type Server struct {
	*httptest.Server

	mu       sync.Mutex
	script   []Turn
	used     []bool
	requests []*Request
	errs     []string
	unknown  []string
	ids      int
}

// New starts a server on 127.0.0.1 answering from script. Close it when done.
func New(script []Turn) *Server {
	s := &Server{}
	s.SetScript(script)
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// SetScript replaces the turns still to serve (a new session of the same test).
func (s *Server) SetScript(script []Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script, s.used = script, make([]bool, len(script))
}

// Requests returns every request received so far, in order.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.requests...)
}

// AgentRequests returns the requests a script turn answered.
func (s *Server) AgentRequests() []*Request {
	var out []*Request
	for _, r := range s.Requests() {
		if r.Turn >= 0 {
			out = append(out, r)
		}
	}
	return out
}

// Unknown lists the method and path of requests to endpoints the server does not know.
func (s *Server) Unknown() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.unknown...)
}

// Err reports failed expectations, agent requests no turn was left for, and turns never served.
func (s *Server) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	errs := append([]string(nil), s.errs...)
	for i, u := range s.used {
		if !u {
			errs = append(errs, fmt.Sprintf("turn %d (%s) was never served", i, s.script[i].Agent))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("model server: %s", strings.Join(errs, "; "))
}

func (s *Server) fail(format string, args ...any) {
	s.errs = append(s.errs, fmt.Sprintf(format, args...))
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	path := r.URL.Path
	switch {
	case r.Method == http.MethodPost && path == "/v1/messages/count_tokens":
		writeJSON(w, map[string]any{"input_tokens": 1 + len(body)/4})
		return
	case r.Method == http.MethodPost && path == "/v1/messages":
	case r.Method == http.MethodPost && strings.HasSuffix(path, ":countTokens"):
		writeJSON(w, map[string]any{"totalTokens": 1 + len(body)/4})
		return
	case r.Method == http.MethodGet && strings.HasSuffix(path, "/models"):
		writeJSON(w, map[string]any{"object": "list", "data": []any{}, "models": []any{}})
		return
	case r.Method == http.MethodPost && formatOf(path) != Anthropic:
	default:
		s.mu.Lock()
		s.unknown = append(s.unknown, r.Method+" "+path)
		s.mu.Unlock()
		http.NotFound(w, r)
		return
	}
	format := formatOf(path)
	parse := parseRequest
	switch format {
	case Responses:
		parse = parseResponses
	case ChatCompletions:
		parse = parseChat
	case Gemini:
		parse = parseGemini
	}
	req, err := parse(path, r.Header, body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req.Time = time.Now()
	s.mu.Lock()
	s.requests = append(s.requests, req)
	var turn *Turn
	if len(req.Tools) > 0 {
		turn = s.pick(req)
		if turn == nil {
			s.fail("request %d: no turn left for an agent request (system prompt starts %q)", len(s.requests)-1, head(req.System, 120))
		}
	}
	s.mu.Unlock()

	var answer Turn
	if turn == nil {
		answer = Turn{Text: SideText}
		if len(req.Tools) > 0 {
			answer.Text = "The test script has no turn left for this request."
		}
	} else {
		answer = *turn
		if answer.Expect != nil {
			if err := answer.Expect(req); err != nil {
				s.mu.Lock()
				s.fail("turn %d (%s): %v", req.Turn, answer.Agent, err)
				s.mu.Unlock()
			}
		}
		if answer.Before != nil {
			if err := answer.Before(); err != nil {
				s.mu.Lock()
				s.fail("turn %d (%s) before: %v", req.Turn, answer.Agent, err)
				s.mu.Unlock()
			}
		}
	}
	s.mu.Lock()
	s.ids++
	id := s.ids
	s.mu.Unlock()
	switch format {
	case Responses:
		writeResponses(w, req, id, answer)
		return
	case ChatCompletions:
		writeChat(w, req, id, answer)
		return
	case Gemini:
		writeGemini(w, req, id, answer)
		return
	}
	msg := message(req.Model, id, answer)
	if req.Stream {
		writeStream(w, msg)
	} else {
		writeJSON(w, msg)
	}
}

// pick marks and returns the first unused turn of the agent whose marker the system prompt
// contains. A subagent's marker wins over MainAgent: a subagent's prompt may carry what was
// appended to the main one.
func (s *Server) pick(req *Request) *Turn {
	// The Messages API's clients take the marker in the system prompt; the others, which cannot
	// append to theirs, in the prompt or a context file, anywhere in the request.
	where := req.System
	if req.Format != Anthropic {
		where = req.Text()
	}
	agent := MainAgent
	for _, t := range s.script {
		if t.Agent != MainAgent && strings.Contains(where, t.Agent) {
			agent = t.Agent
			break
		}
	}
	if !strings.Contains(where, agent) {
		return nil
	}
	for i, t := range s.script {
		if !s.used[i] && t.Agent == agent {
			s.used[i] = true
			req.Turn, req.Agent = i, t.Agent
			return &s.script[i]
		}
	}
	return nil
}

func head(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func parseRequest(path string, h http.Header, body []byte) (*Request, error) {
	var v struct {
		Model    string          `json:"model"`
		Stream   bool            `json:"stream"`
		System   json.RawMessage `json:"system"`
		Messages []Message       `json:"messages"`
		Tools    []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return nil, fmt.Errorf("request body: %w", err)
	}
	req := &Request{Format: Anthropic, Path: path, Header: h.Clone(), Body: body, Stream: v.Stream, Model: v.Model, System: blockText(v.System), Turn: -1}
	req.Payload.Messages = v.Messages
	for _, t := range v.Tools {
		req.Tools = append(req.Tools, t.Name)
	}
	return req, nil
}

// message is the Messages API response for a turn; id numbers the answer.
func message(model string, id int, t Turn) map[string]any {
	var content []map[string]any
	if t.Text != "" {
		content = append(content, map[string]any{"type": "text", "text": t.Text})
	}
	for i, u := range t.ToolUses {
		content = append(content, map[string]any{"type": "tool_use", "id": u.id(id, i), "name": u.Name, "input": u.input()})
	}
	stop := "end_turn"
	if len(t.ToolUses) > 0 {
		stop = "tool_use"
	}
	if content == nil {
		content = []map[string]any{{"type": "text", "text": ""}}
	}
	return map[string]any{
		"id": fmt.Sprintf("msg_e2e_%d", id), "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 10},
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// writeStream sends msg as the Messages API's server-sent events: text as text_delta, tool
// inputs as input_json_delta in two pieces (so the client's reassembly is exercised).
func writeStream(w http.ResponseWriter, msg map[string]any) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	var buf bytes.Buffer
	event := func(name string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(&buf, "event: %s\ndata: %s\n\n", name, b)
	}
	start := map[string]any{}
	for k, v := range msg {
		start[k] = v
	}
	start["content"], start["stop_reason"] = []any{}, nil
	start["usage"] = map[string]any{"input_tokens": 10, "output_tokens": 1}
	event("message_start", map[string]any{"type": "message_start", "message": start})
	for i, c := range msg["content"].([]map[string]any) {
		switch c["type"] {
		case "text":
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": c["text"]}})
		case "tool_use":
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": c["id"], "name": c["name"], "input": map[string]any{}}})
			in, _ := json.Marshal(c["input"])
			half := len(in) / 2
			for _, part := range []string{string(in[:half]), string(in[half:])} {
				event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
			}
		}
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": msg["stop_reason"], "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}})
	event("message_stop", map[string]any{"type": "message_stop"})
	_, _ = w.Write(buf.Bytes())
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
