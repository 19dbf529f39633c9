package main

import (
	"fmt"
	"strings"
	"testing"
)

// line is one benchmark result line as go test -bench -benchmem prints it.
func line(name string, ns, bytes, allocs float64) string {
	return fmt.Sprintf("%s-2 \t 1000000\t %g ns/op\t %g B/op\t %g allocs/op\n", name, ns, bytes, allocs)
}

// output is a run of the summary benchmarks: for each goal case, ours per call takes perCall
// ns/op, ours with a Summarizer summarizer ns/op (0: not run) and Cluster API 20000 ns/op.
func output(perCall, summarizer float64) string {
	var b strings.Builder
	for _, c := range goalCases {
		if perCall > 0 {
			b.WriteString(line(summaryPrefix+"machinestatus/"+c, perCall, 160, 2))
		}
		if summarizer > 0 {
			b.WriteString(line(summaryPrefix+"machinestatus-summarizer/"+c, summarizer, 160, 2))
		}
		b.WriteString(line(summaryPrefix+"clusterapi/"+c, 20000, 12000, 54))
	}
	b.WriteString(line(goalSummarize, 1500, 0, 0))
	return b.String()
}

func TestRender(t *testing.T) {
	for _, tc := range []struct {
		name      string
		output    string
		want      []string // lines the rendering must hold
		notMetLen int      // goals not met
	}{
		{
			name:   "per call below the goal, a Summarizer above it",
			output: output(1250, 800),
			want: []string{
				"| 10conditions_1False | 1250 [1250–1250] | 160 | 2 | 800 [800–800] | 160 | 2 | 20000 [20000–20000] | 12000 | 54 | 16.0× | 25.0× |",
				"- at least 20× faster than Cluster API on 10conditions_1False with a Summarizer, our options checked once, Cluster API's on every call (25.0×): met",
				"- per call, options checked on every call as the goal was first measured, on 10conditions_1False (16.0×): **below 20×**",
				"- at most 5 allocs/op on 50conditions_1False per call (2): met",
				"- Summarize under 2 µs, an absolute time that moves with the host's speed (median 1500 ns): met",
			},
		},
		{
			name:      "a Summarizer below the goal",
			output:    output(1250, 1100),
			want:      []string{"- at least 20× faster than Cluster API on 50conditions_1False with a Summarizer, our options checked once, Cluster API's on every call (18.2×): **not met**"},
			notMetLen: 2,
		},
		{
			name:   "per call at the goal",
			output: output(1000, 500),
			want: []string{
				"- at least 20× faster than Cluster API on 10conditions_1False with a Summarizer, our options checked once, Cluster API's on every call (40.0×): met",
				"- per call, options checked on every call as the goal was first measured, on 10conditions_1False (20.0×): at least 20×",
			},
		},
		{
			name:   "no Summarizer run: the goal is not measured, the rows stay",
			output: output(1250, 0),
			want: []string{
				"| 10conditions_1False | 1250 [1250–1250] | 160 | 2 | – | – | – | 20000 [20000–20000] | 12000 | 54 | 16.0× | – |",
				"- at least 20× faster than Cluster API on 10conditions_1False with a Summarizer (not measured): **not met**",
				"- at most 5 allocs/op on 10conditions_1False with a Summarizer (not measured): **not met**",
			},
			notMetLen: 4,
		},
		{
			name:   "no per-call run: the cases still come from the other libraries",
			output: output(0, 800),
			want: []string{
				"| 50conditions_1False | – | – | – | 800 [800–800] | 160 | 2 | 20000 [20000–20000] | 12000 | 54 | – | 25.0× |",
				"- at least 20× faster than Cluster API on 50conditions_1False with a Summarizer, our options checked once, Cluster API's on every call (25.0×): met",
				"- at most 5 allocs/op on 10conditions_1False per call (not measured): **not met**",
			},
			notMetLen: 2,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := parse([]byte(tc.output))
			if err != nil {
				t.Fatal(err)
			}
			got := render(r)
			for _, w := range tc.want {
				if !strings.Contains(got, w+"\n") {
					t.Errorf("the rendering lacks the line\n%s\nin\n%s", w, got)
				}
			}
			if n := strings.Count(got, "**not met**"); n != tc.notMetLen {
				t.Errorf("%d goals not met, want %d, in\n%s", n, tc.notMetLen, got)
			}
		})
	}
}
