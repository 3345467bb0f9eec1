package workflow

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestStateJSONFirstUseChild is BenchmarkStateJSONFirstUse's child: one decode and one encode of a
// state in a fresh process, timed, by the hand-written codec or by encoding/json.
func TestStateJSONFirstUseChild(t *testing.T) {
	codec := os.Getenv("EXARCHOS_STATE_JSON_CHILD")
	if codec == "" {
		t.Skip("run by BenchmarkStateJSONFirstUse")
	}
	// A state of every field that the hand-written reader reads itself, written by the
	// hand-written writer: nothing here builds encoding/json's tables before the timed part.
	var b []byte
	for _, s := range randomStates(20)[1:] {
		enc, err := s.MarshalJSON()
		if _, ok := decodeStateFast(enc); err == nil && ok {
			b = enc
			break
		}
	}
	if b == nil {
		t.Fatal("no state the fast reader reads")
	}
	start := time.Now()
	switch codec {
	case "hand":
		s, err := DecodeState(b)
		if err == nil {
			_, err = s.MarshalJSON()
		}
		if err != nil {
			t.Fatal(err)
		}
	case "library":
		s, err := decodingJSON(b)
		if err == nil {
			_, err = encodingJSON(s)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	fmt.Printf("elapsed-ns %d\n", time.Since(start).Nanoseconds())
}

// BenchmarkStateJSONFirstUse times what an append or a hook call pays for State's JSON: a decode
// and an encode in a fresh process, where encoding/json first builds its tables for State's
// types. Each iteration is one child process per codec; the figure is the median.
//
//	go test ./workflow -run '^$' -bench BenchmarkStateJSONFirstUse -benchtime 40x
func BenchmarkStateJSONFirstUse(b *testing.B) {
	for _, codec := range []string{"hand", "library"} {
		b.Run(codec, func(b *testing.B) {
			var times []float64
			for b.Loop() {
				cmd := exec.Command(os.Args[0], "-test.run=^TestStateJSONFirstUseChild$", "-test.count=1")
				cmd.Env = append(os.Environ(), "EXARCHOS_STATE_JSON_CHILD="+codec)
				out, err := cmd.Output()
				if err != nil {
					b.Fatalf("%v: %s", err, out)
				}
				_, ns, _ := strings.Cut(string(out), "elapsed-ns ")
				ns, _, _ = strings.Cut(ns, "\n")
				v, err := strconv.ParseFloat(ns, 64)
				if err != nil {
					b.Fatalf("child said %q", out)
				}
				times = append(times, v)
			}
			slices.Sort(times)
			b.ReportMetric(times[len(times)/2]/1e3, "µs-median")
		})
	}
}
