package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// output is a literal go test -bench -benchmem output: three runs of each library on the two goal
// cases and one other case, and Summarize alone.
const output = `goos: linux
goarch: amd64
pkg: github.com/machinestatus/machinestatus/hack/bench
BenchmarkNewSummaryCondition/machinestatus/10conditions_1False-2         	  900000	      2000 ns/op	     160 B/op	       2 allocs/op
BenchmarkNewSummaryCondition/machinestatus/10conditions_1False-2         	  900000	      1000 ns/op	     160 B/op	       2 allocs/op
BenchmarkNewSummaryCondition/machinestatus/10conditions_1False-2         	  900000	      4000 ns/op	     160 B/op	       2 allocs/op
BenchmarkNewSummaryCondition/clusterapi/10conditions_1False-2            	   50000	     21000 ns/op	   11992 B/op	      54 allocs/op
BenchmarkNewSummaryCondition/clusterapi/10conditions_1False-2            	   50000	     20000 ns/op	   11992 B/op	      54 allocs/op
BenchmarkNewSummaryCondition/clusterapi/10conditions_1False-2            	   50000	     19000 ns/op	   11992 B/op	      54 allocs/op
BenchmarkNewSummaryCondition/machinestatus/10conditions_allTrue-2        	  900000	      1500 ns/op	      96 B/op	       1 allocs/op
BenchmarkNewSummaryCondition/clusterapi/10conditions_allTrue-2           	   50000	     15000 ns/op	   11576 B/op	      46 allocs/op
BenchmarkNewSummaryCondition/machinestatus/50conditions_1False-2         	  300000	      6000 ns/op	     144 B/op	       2 allocs/op
BenchmarkNewSummaryCondition/machinestatus/50conditions_1False-2         	  300000	      5000 ns/op	     144 B/op	       2 allocs/op
BenchmarkNewSummaryCondition/clusterapi/50conditions_1False-2            	   10000	     25000 ns/op	   67782 B/op	     105 allocs/op
BenchmarkNewSummaryCondition/clusterapi/50conditions_1False-2            	   10000	     30000 ns/op	   67782 B/op	     105 allocs/op
BenchmarkSummarize/RunningMachine-2                                      	  700000	      1706 ns/op	       0 B/op	       0 allocs/op
PASS
ok  	github.com/machinestatus/machinestatus/hack/bench	30.123s
`

func TestMedian(t *testing.T) {
	samples, err := parse([]byte(output))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		want sample
	}{
		{"BenchmarkNewSummaryCondition/machinestatus/10conditions_1False", sample{2000, 160, 2}}, // odd: the middle one
		{"BenchmarkNewSummaryCondition/clusterapi/10conditions_1False", sample{20000, 11992, 54}},
		{"BenchmarkNewSummaryCondition/machinestatus/50conditions_1False", sample{5500, 144, 2}}, // even: the mean of the middle two
		{"BenchmarkSummarize/RunningMachine", sample{1706, 0, 0}},
	} {
		if got, ok := median(samples[tc.name]); !ok || got != tc.want {
			t.Errorf("median of %s = %+v, %v; want %+v", tc.name, got, ok, tc.want)
		}
	}
	if _, ok := median(samples["BenchmarkClusterAPIMachineStatus/RunningMachine"]); ok {
		t.Error("median of a benchmark that did not run: ok")
	}
}

func TestRender(t *testing.T) {
	samples, err := parse([]byte(output))
	if err != nil {
		t.Fatal(err)
	}
	want := `| case | machinestatus ns/op | clusterapi ns/op | speed-up | B/op (machinestatus / clusterapi) | allocs/op (machinestatus / clusterapi) |
|---|---:|---:|---:|---:|---:|
| 10conditions_1False | 2000 | 20000 | 10.0× | 160 / 11992 | 2 / 54 |
| 10conditions_allTrue | 1500 | 15000 | 10.0× | 96 / 11576 | 1 / 46 |
| 50conditions_1False | 5500 | 27500 | 5.0× | 144 / 67782 | 2 / 105 |
| Summarize/RunningMachine (machinestatus only) | 1706 | – | – | 0 | 0 |

10 conditions: 10.0× Cluster API per call — goal ≥5×: met
50 conditions: 5.0× Cluster API per call — goal ≥5×: met
`
	if got := render(samples); got != want {
		t.Errorf("render() =\n%s\nwant\n%s", got, want)
	}
}

func TestRenderGoalNotMet(t *testing.T) {
	for _, tc := range []struct {
		name, output string
		want         []string
	}{
		{
			name: "below 5×",
			output: "BenchmarkNewSummaryCondition/machinestatus/10conditions_1False-2 1 4100 ns/op 160 B/op 2 allocs/op\n" +
				"BenchmarkNewSummaryCondition/clusterapi/10conditions_1False-2 1 20000 ns/op 11992 B/op 54 allocs/op\n",
			want: []string{
				"| 10conditions_1False | 4100 | 20000 | 4.9× | 160 / 11992 | 2 / 54 |",
				"10 conditions: 4.9× Cluster API per call — goal ≥5×: not met",
				"50 conditions: not measured — goal ≥5×: not met",
			},
		},
		{
			name:   "Cluster API did not run",
			output: "BenchmarkNewSummaryCondition/machinestatus/50conditions_1False-2 1 5000 ns/op 144 B/op 2 allocs/op\n",
			want: []string{
				"| 50conditions_1False | 5000 | – | – | 144 / – | 2 / – |",
				"50 conditions: not measured — goal ≥5×: not met",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			samples, err := parse([]byte(tc.output))
			if err != nil {
				t.Fatal(err)
			}
			got := render(samples)
			for _, w := range tc.want {
				if !strings.Contains(got, w+"\n") {
					t.Errorf("the rendering lacks the line\n%s\nin\n%s", w, got)
				}
			}
		})
	}
}

func TestParseNothing(t *testing.T) {
	if _, err := parse([]byte("PASS\nok  \tx\t0.1s\n")); err == nil {
		t.Error("parse of an output without results: no error")
	}
}

func TestRefresh(t *testing.T) {
	path := filepath.Join(t.TempDir(), "benchmarks.md")
	doc := "# Benchmarks\n\nHand-written.\n\n" + beginMarker + "\n\nold table\n" + endMarker + "\n\nAfter.\n"
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := refresh(path, "new table\n"); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "# Benchmarks\n\nHand-written.\n\n" + beginMarker + "\n\nnew table\n\n" + endMarker + "\n\nAfter.\n"
	if string(got) != want {
		t.Errorf("refreshed to\n%s\nwant\n%s", got, want)
	}

	if err := os.WriteFile(path, []byte("# Benchmarks\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := refresh(path, "new table\n"); err == nil {
		t.Error("refresh of a page without the markers: no error")
	}
}
