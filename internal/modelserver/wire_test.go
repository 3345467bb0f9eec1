package modelserver

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// sse reads a server-sent event stream: each event's name ("" when none) and data.
func sse(t *testing.T, resp *http.Response) (names, data []string) {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		if name, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
			names = append(names, name)
		}
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			data = append(data, d)
		}
	}
	return names, data
}

// seenTurn is a script of one main-agent turn that keeps the request it answered.
func seenTurn(seen **Request, answer Turn) []Turn {
	answer.Agent = MainAgent
	answer.Expect = func(r *Request) error { *seen = r; return nil }
	return []Turn{answer}
}

// checkSeen: the request was read into the common shape, whatever its format: the system prompt,
// the tools, the marker in the prompt (these clients cannot append to their system prompt), the
// earlier call's result under its id.
func checkSeen(t *testing.T, r *Request, format Format, model, tool string, isError bool) {
	t.Helper()
	if r == nil {
		t.Fatal("no turn answered the request")
	}
	if r.Format != format || r.Model != model || r.System != "sys" || len(r.Tools) == 0 || r.Tools[0] != tool {
		t.Fatalf("read as format %q model %q system %q tools %v", r.Format, r.Model, r.System, r.Tools)
	}
	res, ok := r.ToolResult("c1")
	if !ok || res.Text != "refused: ideate" || res.IsError != isError {
		t.Fatalf("result of c1: %+v %v", res, ok)
	}
	if got := r.ToolResults(); len(got) != 1 || got[0].ToolUseID != "c1" {
		t.Fatalf("last message's results %+v", got)
	}
	if !strings.Contains(r.Text(), "go "+MainAgent) {
		t.Fatalf("the prompt is not in the request's text:\n%s", r.Text())
	}
}

func TestResponsesAPI(t *testing.T) {
	var seen *Request
	patch := "*** Begin Patch\n*** Add File: a.go\n+package a\n*** End Patch\n"
	s := New(seenTurn(&seen, Turn{Text: "running", ToolUses: []ToolUse{
		{ID: "c2", Name: "exec_command", Input: map[string]any{"cmd": "echo hi"}},
		{ID: "c3", Name: "apply_patch", Input: patch}}}))
	defer s.Close()
	body := `{"model":"gpt-x","instructions":"sys","stream":true,
	  "tools":[{"type":"function","name":"exec_command"},{"type":"custom","name":"apply_patch"}],
	  "input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"go ` + MainAgent + `"}]},
	    {"type":"reasoning","summary":[]},
	    {"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"ls\"}","call_id":"c1"},
	    {"type":"function_call_output","call_id":"c1","output":"refused: ideate"}]}`
	names, data := sse(t, post(t, s, "/v1/responses", body))
	checkSeen(t, seen, Responses, "gpt-x", "exec_command", false)
	if call := seen.Payload.Messages[1].Blocks()[0]; call.Type != "tool_use" || call.Name != "exec_command" || string(call.Input) != `{"cmd":"ls"}` {
		t.Fatalf("the earlier call read as %+v", call)
	}
	if names[0] != "response.created" || names[len(names)-1] != "response.completed" {
		t.Fatalf("events %v", names)
	}
	items := map[string]map[string]any{}
	for i, d := range data {
		var ev struct {
			Type string         `json:"type"`
			Item map[string]any `json:"item"`
		}
		if err := json.Unmarshal([]byte(d), &ev); err != nil || ev.Type != names[i] {
			t.Fatalf("event %d %q: %v %s", i, names[i], err, d)
		}
		if ev.Type == "response.output_item.done" {
			callID, _ := ev.Item["call_id"].(string)
			items[ev.Item["type"].(string)+":"+callID] = ev.Item
		}
	}
	if fc := items["function_call:c2"]; fc == nil || fc["name"] != "exec_command" || fc["arguments"] != `{"cmd":"echo hi"}` {
		t.Fatalf("function call %v (items %v)", fc, items)
	}
	// apply_patch is a custom (free-form) tool in the request: its call carries the text as input.
	if ct := items["custom_tool_call:c3"]; ct == nil || ct["input"] != patch {
		t.Fatalf("custom tool call %v", ct)
	}
	if msg := items["message:"]; msg == nil || !strings.Contains(anyString(msg["content"]), "running") {
		t.Fatalf("message %v", msg)
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
}

func anyString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func TestChatCompletions(t *testing.T) {
	var seen *Request
	s := New(append(seenTurn(&seen, Turn{ToolUses: []ToolUse{{ID: "c2", Name: "run_shell_command", Input: map[string]any{"command": "echo hi"}}}}),
		Turn{Agent: MainAgent, Text: "done"}))
	defer s.Close()
	body := func(stream bool) string {
		b, _ := json.Marshal(map[string]any{"model": "qwen-x", "stream": stream,
			"tools": []any{map[string]any{"type": "function", "function": map[string]any{"name": "run_shell_command"}}},
			"messages": []any{
				map[string]any{"role": "system", "content": "sys"},
				map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "go " + MainAgent}}},
				map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": "c1", "type": "function",
					"function": map[string]any{"name": "run_shell_command", "arguments": `{"command":"ls"}`}}}},
				map[string]any{"role": "tool", "tool_call_id": "c1", "content": "refused: ideate"},
			}})
		return string(b)
	}
	_, data := sse(t, post(t, s, "/v1/chat/completions", body(true)))
	checkSeen(t, seen, ChatCompletions, "qwen-x", "run_shell_command", false)
	if data[len(data)-1] != "[DONE]" {
		t.Fatalf("the stream ends with %q", data[len(data)-1])
	}
	var id, name, args, finish string
	for _, d := range data[:len(data)-1] {
		var c struct {
			Object  string `json:"object"`
			Choices []struct {
				Delta struct {
					ToolCalls []struct {
						ID       string `json:"id"`
						Function struct{ Name, Arguments string }
					} `json:"tool_calls"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(d), &c); err != nil || c.Object != "chat.completion.chunk" {
			t.Fatalf("chunk %s: %v", d, err)
		}
		for _, tc := range c.Choices[0].Delta.ToolCalls {
			id, name, args = id+tc.ID, name+tc.Function.Name, args+tc.Function.Arguments
		}
		if f := c.Choices[0].FinishReason; f != nil {
			finish = *f
		}
	}
	if id != "c2" || name != "run_shell_command" || args != `{"command":"echo hi"}` || finish != "tool_calls" {
		t.Fatalf("call %q %q %q, finish %q", id, name, args, finish)
	}
	// Not streamed: one chat.completion.
	var done struct {
		Choices []struct {
			Message      struct{ Content string } `json:"message"`
			FinishReason string                   `json:"finish_reason"`
		} `json:"choices"`
	}
	if err := json.NewDecoder(post(t, s, "/v1/chat/completions", body(false)).Body).Decode(&done); err != nil {
		t.Fatal(err)
	}
	if done.Choices[0].Message.Content != "done" || done.Choices[0].FinishReason != "stop" {
		t.Fatalf("answer %+v", done)
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
}

func TestGeminiAPI(t *testing.T) {
	var seen *Request
	s := New(seenTurn(&seen, Turn{Text: "running", ToolUses: []ToolUse{{ID: "c2", Name: "run_shell_command", Input: map[string]any{"command": "echo hi"}}}}))
	defer s.Close()
	body := `{"systemInstruction":{"role":"user","parts":[{"text":"sys"}]},
	  "tools":[{"functionDeclarations":[{"name":"run_shell_command"},{"name":"write_file"}]}],
	  "contents":[{"role":"user","parts":[{"text":"go ` + MainAgent + `"}]},
	    {"role":"model","parts":[{"text":"thinking","thought":true},{"functionCall":{"id":"c1","name":"run_shell_command","args":{"command":"ls"}}}]},
	    {"role":"user","parts":[{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"error":"refused: ideate"}}}]}]}`
	_, data := sse(t, post(t, s, "/v1beta/models/gemini-x:streamGenerateContent?alt=sse", body))
	checkSeen(t, seen, Gemini, "gemini-x", "run_shell_command", true)
	if strings.Contains(seen.Text(), "thinking") {
		t.Fatal("a thought part was read as text")
	}
	var parts []map[string]any
	var finish string
	for _, d := range data {
		var r struct {
			Candidates []struct {
				Content      struct{ Parts []map[string]any } `json:"content"`
				FinishReason string                           `json:"finishReason"`
			} `json:"candidates"`
		}
		if err := json.Unmarshal([]byte(d), &r); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, r.Candidates[0].Content.Parts...)
		finish = r.Candidates[0].FinishReason
	}
	if len(parts) != 2 || parts[0]["text"] != "running" || finish != "STOP" {
		t.Fatalf("parts %v finish %q", parts, finish)
	}
	if fc := anyString(parts[1]["functionCall"]); fc != `{"args":{"command":"echo hi"},"id":"c2","name":"run_shell_command"}` {
		t.Fatalf("function call %s", fc)
	}
	var n struct {
		TotalTokens int `json:"totalTokens"`
	}
	_ = json.NewDecoder(post(t, s, "/v1beta/models/gemini-x:countTokens", `{"contents":[]}`).Body).Decode(&n)
	if n.TotalTokens <= 0 || len(s.Unknown()) != 0 {
		t.Fatalf("countTokens answered %d, unknown %v", n.TotalTokens, s.Unknown())
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
}
