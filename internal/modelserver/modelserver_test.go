package modelserver

import (
	"bufio"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
)

func post(t *testing.T, s *Server, path, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(s.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// agentBody is a request of an agent (it offers tools) whose system prompt is system.
func agentBody(system string, stream bool, lastUser string) string {
	b, _ := json.Marshal(map[string]any{
		"model": "m", "stream": stream, "system": []map[string]any{{"type": "text", "text": system}},
		"tools":    []map[string]any{{"name": "Bash"}},
		"messages": []map[string]any{{"role": "user", "content": json.RawMessage(lastUser)}},
	})
	return string(b)
}

func TestStreamedTurnIsTheMessagesAPIEventSequence(t *testing.T) {
	s := New([]Turn{{Agent: MainAgent, Text: "running it", ToolUses: []ToolUse{{ID: "toolu_1", Name: "Bash", Input: map[string]any{"command": "echo hi"}}}}})
	defer s.Close()
	resp := post(t, s, "/v1/messages", agentBody("sys "+MainAgent, true, `"go"`))
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	var events []string
	var partial strings.Builder
	var stop string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "event: "); ok {
			events = append(events, name)
		}
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			var raw map[string]json.RawMessage
			_ = json.Unmarshal([]byte(data), &raw)
			var delta map[string]any
			_ = json.Unmarshal(raw["delta"], &delta)
			if pj, ok := delta["partial_json"].(string); ok {
				partial.WriteString(pj)
			}
			if sr, ok := delta["stop_reason"].(string); ok {
				stop = sr
			}
		}
	}
	want := "message_start content_block_start content_block_delta content_block_stop content_block_start content_block_delta content_block_delta content_block_stop message_delta message_stop"
	if got := strings.Join(events, " "); got != want {
		t.Fatalf("events:\n got %s\nwant %s", got, want)
	}
	if partial.String() != `{"command":"echo hi"}` || stop != "tool_use" {
		t.Fatalf("tool input %q, stop %q", partial.String(), stop)
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
}

func TestAgentsAreServedFromTheirOwnTurnsAndSideRequestsOutsideTheScript(t *testing.T) {
	s := New([]Turn{
		{Agent: MainAgent, Text: "main 1"},
		{Agent: "You are the reviewer", Text: "reviewer 1"},
		{Agent: MainAgent, Text: "main 2"},
	})
	defer s.Close()
	answer := func(body string) (text, stop string) {
		var m struct {
			Content    []Block `json:"content"`
			StopReason string  `json:"stop_reason"`
		}
		if err := json.NewDecoder(post(t, s, "/v1/messages", body).Body).Decode(&m); err != nil {
			t.Fatal(err)
		}
		return m.Content[0].Text, m.StopReason
	}
	// A side request (no tools) does not use a turn.
	if text, _ := answer(`{"model":"m","system":"title this","messages":[{"role":"user","content":"x"}]}`); text != SideText {
		t.Fatalf("side request answered %q", text)
	}
	// The reviewer's prompt carries the main marker too (appended to every prompt): its own wins.
	if text, stop := answer(agentBody("You are the reviewer. "+MainAgent, false, `"review"`)); text != "reviewer 1" || stop != "end_turn" {
		t.Fatalf("reviewer got %q %q", text, stop)
	}
	if text, _ := answer(agentBody(MainAgent, false, `"a"`)); text != "main 1" {
		t.Fatalf("main got %q", text)
	}
	if err := s.Err(); err == nil || !strings.Contains(err.Error(), "turn 2") {
		t.Fatalf("an unserved turn is an error: %v", err)
	}
	answer(agentBody(MainAgent, false, `"b"`))
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	// One agent request too many: answered, and an error.
	if text, _ := answer(agentBody(MainAgent, false, `"c"`)); !strings.Contains(text, "no turn left") {
		t.Fatalf("extra request answered %q", text)
	}
	if err := s.Err(); err == nil || !strings.Contains(err.Error(), "no turn left") {
		t.Fatalf("extra request not reported: %v", err)
	}
	if got := len(s.Requests()); got != 5 {
		t.Fatalf("%d requests recorded", got)
	}
	if got := len(s.AgentRequests()); got != 3 {
		t.Fatalf("%d agent requests", got)
	}
}

func TestExpectSeesTheToolResultsAndItsFailureIsReported(t *testing.T) {
	var seen []ToolResult
	s := New([]Turn{{Agent: MainAgent, Expect: func(r *Request) error {
		seen = r.ToolResults()
		return errors.New("denial reason missing")
	}}})
	defer s.Close()
	post(t, s, "/v1/messages", agentBody(MainAgent, true, `[{"type":"tool_result","tool_use_id":"toolu_9","is_error":true,"content":[{"type":"text","text":"refused: ideate"}]}]`))
	if len(seen) != 1 || seen[0].ToolUseID != "toolu_9" || !seen[0].IsError || seen[0].Text != "refused: ideate" {
		t.Fatalf("tool results %+v", seen)
	}
	if err := s.Err(); err == nil || !strings.Contains(err.Error(), "denial reason missing") {
		t.Fatalf("failed expectation not reported: %v", err)
	}
}

func TestCountTokensAndUnknownPaths(t *testing.T) {
	s := New(nil)
	defer s.Close()
	var n struct {
		InputTokens int `json:"input_tokens"`
	}
	_ = json.NewDecoder(post(t, s, "/v1/messages/count_tokens", `{"messages":[]}`).Body).Decode(&n)
	if n.InputTokens <= 0 {
		t.Fatalf("count_tokens answered %d", n.InputTokens)
	}
	if resp := post(t, s, "/v1/other", "{}"); resp.StatusCode != 404 {
		t.Fatalf("unknown path answered %d", resp.StatusCode)
	}
	if u := s.Unknown(); len(u) != 1 || u[0] != "POST /v1/other" {
		t.Fatalf("unknown %v", u)
	}
}
