package modelserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Format is a request's wire format, told by its path.
type Format string

const (
	Anthropic       Format = "anthropic"        // POST /v1/messages
	Responses       Format = "responses"        // POST …/responses (Codex CLI)
	ChatCompletions Format = "chat-completions" // POST …/chat/completions (Qwen Code, Copilot CLI)
	Gemini          Format = "gemini"           // POST …/models/<model>:[stream]generateContent
)

func formatOf(path string) Format {
	switch {
	case strings.HasSuffix(path, "/responses"):
		return Responses
	case strings.HasSuffix(path, "/chat/completions"):
		return ChatCompletions
	case strings.HasSuffix(path, ":generateContent"), strings.HasSuffix(path, ":streamGenerateContent"):
		return Gemini
	}
	return Anthropic
}

// id is the call's id: its own, or one numbered by the answer and its place in it.
func (u ToolUse) id(answer, i int) string {
	if u.ID != "" {
		return u.ID
	}
	return fmt.Sprintf("toolu_e2e_%d_%d", answer, i)
}

func (u ToolUse) input() any {
	if u.Input == nil {
		return map[string]any{}
	}
	return u.Input
}

// arguments is the call's input as a JSON text (the OpenAI formats send arguments so).
func (u ToolUse) arguments() string {
	b, _ := json.Marshal(u.input())
	return string(b)
}

func rawJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// conversation builds the Messages API form of a conversation: blocks appended to the current
// message while the role stays the same (consecutive tool results make one user message, as they
// do in the Messages API).
type conversation struct{ msgs []Message }

func (c *conversation) add(role string, b Block) {
	if n := len(c.msgs); n > 0 && c.msgs[n-1].Role == role {
		var bs []Block
		_ = json.Unmarshal(c.msgs[n-1].Content, &bs)
		c.msgs[n-1].Content = rawJSON(append(bs, b))
		return
	}
	c.msgs = append(c.msgs, Message{Role: role, Content: rawJSON([]Block{b})})
}

func toolResultBlock(id, text string, isError bool) Block {
	return Block{Type: "tool_result", ToolUseID: id, Content: rawJSON(text), IsError: isError}
}

// argsJSON keeps arguments that are JSON as they are, and a text that is not as a JSON string.
func argsJSON(s string) json.RawMessage {
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	return rawJSON(s)
}

// parseResponses reads an OpenAI Responses API request: instructions, input items (messages,
// function and custom tool calls and their outputs), tools.
func parseResponses(path string, h http.Header, body []byte) (*Request, error) {
	var v struct {
		Model        string            `json:"model"`
		Stream       bool              `json:"stream"`
		Instructions string            `json:"instructions"`
		Input        json.RawMessage   `json:"input"`
		Tools        []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return nil, fmt.Errorf("request body: %w", err)
	}
	req := &Request{Format: Responses, Path: path, Header: h.Clone(), Body: body, Stream: v.Stream, Model: v.Model, System: v.Instructions, Turn: -1}
	for _, raw := range v.Tools {
		var t struct{ Type, Name string }
		_ = json.Unmarshal(raw, &t)
		req.Tools = append(req.Tools, cmpOr(t.Name, t.Type))
	}
	var items []struct {
		Type    string          `json:"type"`
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
		Name    string          `json:"name"`
		CallID  string          `json:"call_id"`
		Args    string          `json:"arguments"`
		Input   string          `json:"input"`
		Output  json.RawMessage `json:"output"`
	}
	var s string
	if json.Unmarshal(v.Input, &s) == nil {
		req.Payload.Messages = []Message{{Role: "user", Content: rawJSON(s)}}
		return req, nil
	}
	if err := json.Unmarshal(v.Input, &items); err != nil {
		return nil, fmt.Errorf("request input: %w", err)
	}
	var c conversation
	for _, it := range items {
		switch it.Type {
		case "message", "":
			role := it.Role
			if role != "assistant" {
				role = "user" // user, developer, system: what the client says to the model
			}
			c.add(role, Block{Type: "text", Text: blockText(it.Content)})
		case "function_call":
			c.add("assistant", Block{Type: "tool_use", ID: it.CallID, Name: it.Name, Input: argsJSON(it.Args)})
		case "custom_tool_call":
			c.add("assistant", Block{Type: "tool_use", ID: it.CallID, Name: it.Name, Input: rawJSON(it.Input)})
		case "function_call_output", "custom_tool_call_output":
			c.add("user", toolResultBlock(it.CallID, outputText(it.Output), false))
		}
	}
	req.Payload.Messages = c.msgs
	return req, nil
}

// outputText is a Responses tool output: a string, a list of content parts, or {"content": …}.
func outputText(raw json.RawMessage) string {
	var o struct {
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &o) == nil && len(o.Content) > 0 {
		return blockText(o.Content)
	}
	return blockText(raw)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// writeResponses answers a Responses API request: a message item for the text and a
// function_call item per call (a custom_tool_call when the request offers the tool as a custom,
// free-form tool: its input is the call's Input, a string), streamed as the API's events.
func writeResponses(w http.ResponseWriter, req *Request, id int, t Turn) {
	custom := map[string]bool{}
	var v struct {
		Tools []struct{ Type, Name string } `json:"tools"`
	}
	_ = json.Unmarshal(req.Body, &v)
	for _, tl := range v.Tools {
		custom[tl.Name] = tl.Type == "custom"
	}
	respID := fmt.Sprintf("resp_e2e_%d", id)
	var items []map[string]any
	if t.Text != "" {
		items = append(items, map[string]any{"type": "message", "id": fmt.Sprintf("msg_e2e_%d", id), "role": "assistant", "status": "completed",
			"content": []map[string]any{{"type": "output_text", "text": t.Text, "annotations": []any{}}}})
	}
	for i, u := range t.ToolUses {
		if s, ok := u.Input.(string); ok && custom[u.Name] {
			items = append(items, map[string]any{"type": "custom_tool_call", "id": fmt.Sprintf("ctc_e2e_%d_%d", id, i), "status": "completed", "call_id": u.id(id, i), "name": u.Name, "input": s})
			continue
		}
		items = append(items, map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_e2e_%d_%d", id, i), "status": "completed", "call_id": u.id(id, i), "name": u.Name, "arguments": u.arguments()})
	}
	usage := map[string]any{"input_tokens": 10, "input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens": 10,
		"output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 20}
	resp := map[string]any{"id": respID, "object": "response", "created_at": time.Now().Unix(), "status": "completed", "model": req.Model,
		"output": items, "usage": usage}
	if !req.Stream {
		writeJSON(w, resp)
		return
	}
	var buf bytes.Buffer
	event := func(data map[string]any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(&buf, "event: %s\ndata: %s\n\n", data["type"], b)
	}
	event(map[string]any{"type": "response.created", "response": map[string]any{"id": respID, "object": "response", "status": "in_progress", "model": req.Model, "output": []any{}}})
	for i, it := range items {
		event(map[string]any{"type": "response.output_item.added", "output_index": i, "item": it})
		if it["type"] == "message" {
			event(map[string]any{"type": "response.output_text.delta", "output_index": i, "content_index": 0, "item_id": it["id"], "delta": t.Text})
		}
		event(map[string]any{"type": "response.output_item.done", "output_index": i, "item": it})
	}
	event(map[string]any{"type": "response.completed", "response": resp})
	writeSSE(w, buf.Bytes())
}

func writeSSE(w http.ResponseWriter, b []byte) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// parseChat reads an OpenAI Chat Completions request: system messages are the system prompt, an
// assistant's tool_calls are tool_use blocks, tool messages tool_result blocks.
func parseChat(path string, h http.Header, body []byte) (*Request, error) {
	var v struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return nil, fmt.Errorf("request body: %w", err)
	}
	req := &Request{Format: ChatCompletions, Path: path, Header: h.Clone(), Body: body, Stream: v.Stream, Model: v.Model, Turn: -1}
	for _, t := range v.Tools {
		req.Tools = append(req.Tools, t.Function.Name)
	}
	var system []string
	var c conversation
	for _, m := range v.Messages {
		switch m.Role {
		case "system", "developer":
			system = append(system, blockText(m.Content))
		case "tool":
			c.add("user", toolResultBlock(m.ToolCallID, blockText(m.Content), false))
		default:
			if text := blockText(m.Content); text != "" || len(m.ToolCalls) == 0 {
				c.add(m.Role, Block{Type: "text", Text: text})
			}
			for _, tc := range m.ToolCalls {
				c.add(m.Role, Block{Type: "tool_use", ID: tc.ID, Name: tc.Function.Name, Input: argsJSON(tc.Function.Arguments)})
			}
		}
	}
	req.System = strings.Join(system, "\n")
	req.Payload.Messages = c.msgs
	return req, nil
}

// writeChat answers a Chat Completions request: a chat.completion, or its chunks (the text, then
// each call with its arguments in two pieces, then the finish reason and usage, then [DONE]).
func writeChat(w http.ResponseWriter, req *Request, id int, t Turn) {
	chatID := fmt.Sprintf("chatcmpl-e2e-%d", id)
	finish := "stop"
	if len(t.ToolUses) > 0 {
		finish = "tool_calls"
	}
	usage := map[string]any{"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}
	var calls []map[string]any
	for i, u := range t.ToolUses {
		calls = append(calls, map[string]any{"index": i, "id": u.id(id, i), "type": "function", "function": map[string]any{"name": u.Name, "arguments": u.arguments()}})
	}
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": t.Text}
		if len(calls) > 0 {
			msg["tool_calls"] = calls
		}
		writeJSON(w, map[string]any{"id": chatID, "object": "chat.completion", "created": time.Now().Unix(), "model": req.Model,
			"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	var buf bytes.Buffer
	chunk := func(delta map[string]any, finish any, usage any) {
		c := map[string]any{"id": chatID, "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": req.Model,
			"choices": []map[string]any{{"index": 0, "delta": delta, "finish_reason": finish}}}
		if usage != nil {
			c["usage"] = usage
		}
		b, _ := json.Marshal(c)
		fmt.Fprintf(&buf, "data: %s\n\n", b)
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil, nil)
	if t.Text != "" {
		chunk(map[string]any{"content": t.Text}, nil, nil)
	}
	for i, u := range t.ToolUses {
		args := u.arguments()
		half := len(args) / 2
		chunk(map[string]any{"tool_calls": []map[string]any{{"index": i, "id": u.id(id, i), "type": "function", "function": map[string]any{"name": u.Name, "arguments": args[:half]}}}}, nil, nil)
		chunk(map[string]any{"tool_calls": []map[string]any{{"index": i, "function": map[string]any{"arguments": args[half:]}}}}, nil, nil)
	}
	chunk(map[string]any{}, finish, usage)
	buf.WriteString("data: [DONE]\n\n")
	writeSSE(w, buf.Bytes())
}

// geminiPart is one part of a Gemini API content.
type geminiPart struct {
	Text         string `json:"text,omitempty"`
	Thought      bool   `json:"thought,omitempty"`
	FunctionCall *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall,omitempty"`
	FunctionResponse *struct {
		ID       string          `json:"id"`
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse,omitempty"`
}

// parseGemini reads a Gemini API request: the model from the path, systemInstruction, contents
// (a model's functionCall parts are tool_use blocks, a user's functionResponse parts tool_result
// blocks, with the call's id), the function declarations.
func parseGemini(path string, h http.Header, body []byte) (*Request, error) {
	var v struct {
		Contents []struct {
			Role  string       `json:"role"`
			Parts []geminiPart `json:"parts"`
		} `json:"contents"`
		SystemInstruction *struct {
			Parts []geminiPart `json:"parts"`
		} `json:"systemInstruction"`
		Tools []struct {
			FunctionDeclarations []struct {
				Name string `json:"name"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return nil, fmt.Errorf("request body: %w", err)
	}
	model := path[strings.LastIndex(path, "/")+1:]
	model = model[:strings.Index(model, ":")]
	req := &Request{Format: Gemini, Path: path, Header: h.Clone(), Body: body, Stream: strings.HasSuffix(path, ":streamGenerateContent"), Model: model, Turn: -1}
	if v.SystemInstruction != nil {
		var parts []string
		for _, p := range v.SystemInstruction.Parts {
			parts = append(parts, p.Text)
		}
		req.System = strings.Join(parts, "\n")
	}
	for _, t := range v.Tools {
		for _, d := range t.FunctionDeclarations {
			req.Tools = append(req.Tools, d.Name)
		}
	}
	var c conversation
	for _, m := range v.Contents {
		role := "user"
		if m.Role == "model" {
			role = "assistant"
		}
		for _, p := range m.Parts {
			switch {
			case p.FunctionCall != nil:
				c.add(role, Block{Type: "tool_use", ID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Input: p.FunctionCall.Args})
			case p.FunctionResponse != nil:
				text, isErr := geminiResponse(p.FunctionResponse.Response)
				c.add(role, toolResultBlock(p.FunctionResponse.ID, text, isErr))
			case !p.Thought:
				c.add(role, Block{Type: "text", Text: p.Text})
			}
		}
	}
	req.Payload.Messages = c.msgs
	return req, nil
}

// geminiResponse is a functionResponse's text: its "output" or "error", else the whole response.
func geminiResponse(raw json.RawMessage) (string, bool) {
	var r struct {
		Output *string `json:"output"`
		Error  *string `json:"error"`
	}
	_ = json.Unmarshal(raw, &r)
	switch {
	case r.Error != nil:
		return *r.Error, true
	case r.Output != nil:
		return *r.Output, false
	}
	return string(raw), false
}

// writeGemini answers a Gemini API request: one candidate whose parts are the text and a
// functionCall per call (with the call's id, which the client returns in its functionResponse);
// streamed, the text and each call are one server-sent event each, the last with the finish reason.
func writeGemini(w http.ResponseWriter, req *Request, id int, t Turn) {
	var parts []map[string]any
	if t.Text != "" {
		parts = append(parts, map[string]any{"text": t.Text})
	}
	for i, u := range t.ToolUses {
		parts = append(parts, map[string]any{"functionCall": map[string]any{"id": u.id(id, i), "name": u.Name, "args": u.input()}})
	}
	if parts == nil {
		parts = []map[string]any{{"text": ""}}
	}
	response := func(parts []map[string]any, last bool) map[string]any {
		cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
		if last {
			cand["finishReason"] = "STOP"
		}
		return map[string]any{"candidates": []any{cand}, "modelVersion": req.Model, "responseId": fmt.Sprintf("e2e-%d", id),
			"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 10, "totalTokenCount": 20}}
	}
	if !req.Stream {
		writeJSON(w, response(parts, true))
		return
	}
	var buf bytes.Buffer
	for i, p := range parts {
		b, _ := json.Marshal(response([]map[string]any{p}, i == len(parts)-1))
		fmt.Fprintf(&buf, "data: %s\n\n", b)
	}
	writeSSE(w, buf.Bytes())
}
