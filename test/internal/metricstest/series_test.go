package metricstest

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestExpandingNotation(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		in   []float64
		want string
	}{
		{[]float64{1, 1, 1}, "1x2"},
		{[]float64{nan, nan, 1, 1, nan, nan}, "_x2 1x1 stale"},
		{[]float64{0, 1, 2, 2, nan, 3}, "0 1 2x1 stale 3"},
		{[]float64{1.5, nan}, "1.5 stale"},
	} {
		if got := ExpandingNotation(c.in); got != c.want {
			t.Errorf("ExpandingNotation(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestInputSeries(t *testing.T) {
	text := []string{`# TYPE machinestatus_machine_info gauge
machinestatus_machine_info{api_group="machinestatus.io",name="a",namespace="fleet",phase="Running",up_to_date=""} 1
# TYPE machinestatus_machine_operation_duration_seconds histogram
machinestatus_machine_operation_duration_seconds_bucket{type="Create",le="60"} 0
machinestatus_machine_operation_duration_seconds_bucket{type="Create",le="+Inf"} 1
machinestatus_machine_operation_duration_seconds_sum{type="Create"} 90
machinestatus_machine_operation_duration_seconds_count{type="Create"} 1
`, `# TYPE machinestatus_machine_operation_duration_seconds histogram
machinestatus_machine_operation_duration_seconds_bucket{type="Create",le="60"} 1
machinestatus_machine_operation_duration_seconds_bucket{type="Create",le="+Inf"} 2
machinestatus_machine_operation_duration_seconds_sum{type="Create"} 120
machinestatus_machine_operation_duration_seconds_count{type="Create"} 2
`}
	var scrapes []Families
	for _, s := range text {
		f, err := Parse(strings.NewReader(s))
		if err != nil {
			t.Fatal(err)
		}
		scrapes = append(scrapes, f)
	}
	got := string(InputSeries(time.Unix(1767225600, 0), 30*time.Second, map[string]string{"job": "m", "namespace": "machinestatus-system"}, scrapes))
	want := `start_timestamp: 1767225600
interval: 30s
input_series:
- series: 'machinestatus_machine_info{api_group="machinestatus.io", job="m", name="a", namespace="fleet", phase="Running"}'
  values: '1 stale'
- series: 'machinestatus_machine_operation_duration_seconds_bucket{job="m", le="+Inf", namespace="machinestatus-system", type="Create"}'
  values: '1 2'
- series: 'machinestatus_machine_operation_duration_seconds_bucket{job="m", le="60", namespace="machinestatus-system", type="Create"}'
  values: '0 1'
- series: 'machinestatus_machine_operation_duration_seconds_count{job="m", namespace="machinestatus-system", type="Create"}'
  values: '1 2'
- series: 'machinestatus_machine_operation_duration_seconds_sum{job="m", namespace="machinestatus-system", type="Create"}'
  values: '90 120'
`
	if got != want {
		t.Errorf("InputSeries:\n%s\nwant:\n%s", got, want)
	}
}
