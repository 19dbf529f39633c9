package scale

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/harness"
	infrav1 "github.com/machinestatus/machinestatus/test/infra/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/internal/fleet"
	"github.com/machinestatus/machinestatus/test/internal/host"
	"github.com/machinestatus/machinestatus/test/internal/metricstest"
	"github.com/machinestatus/machinestatus/test/internal/proc"
	"github.com/machinestatus/machinestatus/test/kwok"
)

// MetricsCost is what one manager binary's metrics cost, each figure measured on a process
// started fresh: with no Machine, and with the N Running Machines of the run once it has
// reconciled them all.
type MetricsCost struct {
	// Series are the samples of one scrape (every family; a histogram bucket is one), Ours
	// those of the machinestatus_* families.
	SeriesEmpty, SeriesN, OursEmpty, OursN int
	// Bytes is the size of a scrape's body (the text format, uncompressed).
	BytesEmpty, BytesN int
	// Scrape is the median time of scrapeRounds scrapes (request to parsed body).
	ScrapeEmpty, ScrapeN time.Duration
	// RSS is the manager's resident memory, in bytes.
	RSSEmpty, RSSN float64
}

// SeriesChurn is what a remediation loop costs in series: Remediated Machines fail their
// health check, are deleted and replaced by new Machines, while the manager is scraped every
// churnScrapeInterval. Created are the series seen in a scrape that the scrape before the loop
// did not have; Removed those seen before or during the loop that the scrape after it has not
// (a state a Machine went through is both); PerMachine counts only the per-Machine families
// (machinestatus_machine_info and machinestatus_machine_last_operation_timestamp_seconds).
type SeriesChurn struct {
	Remediated                           int
	Created, Removed                     int
	PerMachineCreated, PerMachineRemoved int
	// Scrapes is how many scrapes the loop took.
	Scrapes int
}

const (
	// scrapeRounds is how many scrapes a scrape time is the median of.
	scrapeRounds = 10
	// churnScrapeInterval is how often the remediation loop scrapes the manager.
	churnScrapeInterval = time.Second
	// churnHealthCheck is the remediated Machines' Node Ready=False timeout.
	churnHealthCheck = 5
)

// scrapeText GETs a plain-HTTP metrics endpoint and returns the body and how long it took.
func scrapeText(ctx context.Context, url string) (string, time.Duration, error) {
	start := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", 0, err
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return "", 0, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	if _, err := metricstest.Parse(strings.NewReader(string(b))); err != nil {
		return "", 0, err
	}
	return string(b), time.Since(start), nil
}

// seriesOf returns the series of a text exposition (name and labels as written), one per
// sample line.
func seriesOf(body string) []string {
	var out []string
	for _, line := range strings.Split(body, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if i := strings.LastIndexByte(line, ' '); i > 0 {
			out = append(out, line[:i])
		}
	}
	return out
}

// familyOf returns the metric name of a series as seriesOf writes it.
func familyOf(series string) string {
	if i := strings.IndexByte(series, '{'); i >= 0 {
		return series[:i]
	}
	return series
}

// measureScrapes scrapes url scrapeRounds times and fills the figures of one fleet size.
func measureScrapes(ctx context.Context, url string) (series, ours, bytes int, median time.Duration, err error) {
	var times []time.Duration
	for range scrapeRounds {
		body, d, err := scrapeText(ctx, url)
		if err != nil {
			return 0, 0, 0, 0, err
		}
		times = append(times, d)
		all := seriesOf(body)
		series, bytes, ours = len(all), len(body), 0
		for _, s := range all {
			if strings.HasPrefix(s, "machinestatus_") {
				ours++
			}
		}
	}
	slices.Sort(times)
	return series, ours, bytes, times[len(times)/2], nil
}

// costManager is a manager process started for a cost measurement.
type costManager struct {
	*proc.Process
	url string
}

// startCostManager starts bin as the fleet's manager user with the flags of the run (metrics on
// a free port, plain HTTP), named name.
func startCostManager(f *fleet.Fleet, o Options, bin, name string) (*costManager, error) {
	port, err := host.FreePort()
	if err != nil {
		return nil, err
	}
	p, err := proc.Start(proc.Options{
		Name: name,
		Args: append([]string{bin, "--kubeconfig", f.ManagerKubeconfig, "--leader-election-namespace=" + fleet.ManagerNamespace},
			managerArgs(port, o)...),
		LogPath: filepath.Join(f.StateDir, name+".log"),
	})
	if err != nil {
		return nil, err
	}
	return &costManager{Process: p, url: fmt.Sprintf("http://127.0.0.1:%d/metrics", port)}, nil
}

// settled waits until the manager answers and, when n > 0, counts n Machines in
// machinestatus_machines with an empty work queue and no reconcile running, three scrapes in a
// row; then it lets it settle 5 s more.
func (m *costManager) settled(ctx context.Context, n int) error {
	calm := 0
	err := harness.Poll(ctx, 5*time.Minute+time.Duration(n)*50*time.Millisecond, func(ctx context.Context) (bool, string) {
		select {
		case <-m.Done():
			return false, fmt.Sprintf("%v\n%s", m.ExitError(), m.Tail(10))
		default:
		}
		fams, err := metricstest.Fetch(ctx, nil, m.url, "")
		if err != nil {
			return false, err.Error()
		}
		if n == 0 {
			return true, ""
		}
		machines := fams.Sum("machinestatus_machines", nil)
		depth := fams.Sum("workqueue_depth", map[string]string{"name": "machine"})
		active := fams.Sum("controller_runtime_active_workers", map[string]string{"controller": "machine"})
		if machines == float64(n) && depth == 0 && active == 0 {
			calm++
		} else {
			calm = 0
		}
		return calm >= 3, fmt.Sprintf("%v Machines counted, queue depth %v, %v reconciles running", machines, depth, active)
	})
	if err != nil {
		return fmt.Errorf("waiting for %s to settle: %w", m.Name, err)
	}
	time.Sleep(5 * time.Second)
	return nil
}

// measure fills the figures of one fleet size (n Machines: empty when 0).
func (m *costManager) measure(ctx context.Context, c *MetricsCost, n int) error {
	if err := m.settled(ctx, n); err != nil {
		return err
	}
	r, err := rss(m.Pid())
	if err != nil {
		return err
	}
	series, ours, bytes, median, err := measureScrapes(ctx, m.url)
	if err != nil {
		return err
	}
	if n == 0 {
		c.RSSEmpty, c.SeriesEmpty, c.OursEmpty, c.BytesEmpty, c.ScrapeEmpty = r, series, ours, bytes, median
	} else {
		c.RSSN, c.SeriesN, c.OursN, c.BytesN, c.ScrapeN = r, series, ours, bytes, median
	}
	return nil
}

// remediate runs the remediation loop on the Machines names, with the manager of url running:
// their health check shortened, their Nodes NotReady until it fails them, then each deleted
// with its SimMachine (Node) and replaced by a new Machine, until every replacement is Running.
func remediate(ctx context.Context, c client.Client, url string, names []string, out io.Writer) (*SeriesChurn, error) {
	before, _, err := scrapeText(ctx, url)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var mu sync.Mutex
	scrapes := 0
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(churnScrapeInterval)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			body, _, err := scrapeText(ctx, url)
			if err != nil {
				continue
			}
			mu.Lock()
			for _, s := range seriesOf(body) {
				seen[s] = true
			}
			scrapes++
			mu.Unlock()
		}
	}()
	defer func() {
		select {
		case <-stop:
		default:
			close(stop)
		}
		<-done
	}()

	replacements := make([]string, len(names))
	for i, n := range names {
		replacements[i] = "r" + strings.TrimPrefix(n, "m")
	}
	hc := fmt.Sprintf(`{"spec":{"healthCheck":{"unhealthyNodeConditions":[{"type":"Ready","status":"False","timeoutSeconds":%d},{"type":"Ready","status":"Unknown","timeoutSeconds":%d}]}}}`,
		churnHealthCheck, churnHealthCheck)
	fmt.Fprintf(out, "remediation loop: %d Machines fail their health check, are deleted and replaced...\n", len(names))
	if err := parallel(ctx, names, func(n string) error {
		return c.Patch(ctx, &v1alpha1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: n}}, client.RawPatch(types.MergePatchType, []byte(hc)))
	}); err != nil {
		return nil, err
	}
	if err := parallel(ctx, names, func(n string) error {
		return c.Patch(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n}},
			client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"`+kwok.NotReadyLabel+`":"true"}}}`)))
	}); err != nil {
		return nil, err
	}
	if err := waitInfo(ctx, url, names, func(l map[string]string) bool { return l["phase"] == string(v1alpha1.MachinePhaseFailed) }, "Failed"); err != nil {
		return nil, err
	}
	if err := parallel(ctx, names, func(n string) error {
		if err := c.Delete(ctx, &v1alpha1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: n}}); err != nil {
			return err
		}
		return c.Delete(ctx, &infrav1.SimMachine{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: n}})
	}); err != nil {
		return nil, err
	}
	if err := waitInfo(ctx, url, names, nil, "gone"); err != nil {
		return nil, err
	}
	if err := createAll(ctx, c, replacements); err != nil {
		return nil, err
	}
	if err := waitInfo(ctx, url, replacements, func(l map[string]string) bool { return l["phase"] == string(v1alpha1.MachinePhaseRunning) }, "Running"); err != nil {
		return nil, err
	}
	time.Sleep(2 * churnScrapeInterval)
	close(stop)
	<-done
	after, _, err := scrapeText(ctx, url)
	if err != nil {
		return nil, err
	}

	ch := &SeriesChurn{Remediated: len(names), Scrapes: scrapes}
	had := map[string]bool{}
	for _, s := range seriesOf(before) {
		had[s] = true
	}
	has := map[string]bool{}
	for _, s := range seriesOf(after) {
		has[s] = true
		seen[s] = true
	}
	perMachine := func(s string) bool {
		f := familyOf(s)
		return f == "machinestatus_machine_info" || f == "machinestatus_machine_last_operation_timestamp_seconds"
	}
	for s := range seen {
		if !had[s] {
			ch.Created++
			if perMachine(s) {
				ch.PerMachineCreated++
			}
		}
	}
	for s := range seen {
		had[s] = true
	}
	for s := range had {
		if !has[s] {
			ch.Removed++
			if perMachine(s) {
				ch.PerMachineRemoved++
			}
		}
	}
	return ch, nil
}

// waitInfo waits until every Machine of names has one machinestatus_machine_info series whose
// labels satisfy ok, or (ok nil) none.
func waitInfo(ctx context.Context, url string, names []string, ok func(map[string]string) bool, what string) error {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	return harness.Poll(ctx, 5*time.Minute+time.Duration(len(names))*100*time.Millisecond, func(ctx context.Context) (bool, string) {
		fams, err := metricstest.Fetch(ctx, nil, url, "")
		if err != nil {
			return false, err.Error()
		}
		matched, present := 0, 0
		for _, m := range fams["machinestatus_machine_info"].GetMetric() {
			l := metricstest.Labels(m)
			if !want[l["name"]] {
				continue
			}
			present++
			if ok != nil && ok(l) {
				matched++
			}
		}
		if ok == nil {
			return present == 0, fmt.Sprintf("%d of %d Machines still have series", present, len(names))
		}
		return matched == len(names), fmt.Sprintf("%d of %d Machines %s", matched, len(names), what)
	})
}

// loadSampler samples the 1-minute load average every 10 s until stopped.
type loadSampler struct {
	mu      sync.Mutex
	samples []float64
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
}

func startLoadSampler() *loadSampler {
	l := &loadSampler{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(l.done)
		t := time.NewTicker(10 * time.Second)
		defer t.Stop()
		for {
			if v, err := loadAverage(); err == nil {
				l.mu.Lock()
				l.samples = append(l.samples, v)
				l.mu.Unlock()
			}
			select {
			case <-l.stop:
				return
			case <-t.C:
			}
		}
	}()
	return l
}

// Stop stops sampling (it may be called again) and returns the lowest and highest sample.
func (l *loadSampler) Stop() (lo, hi float64) {
	l.once.Do(func() { close(l.stop) })
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.samples) == 0 {
		return 0, 0
	}
	return slices.Min(l.samples), slices.Max(l.samples)
}

// loadAverage reads the 1-minute load average (Linux /proc/loadavg).
func loadAverage() (float64, error) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, fmt.Errorf("empty /proc/loadavg")
	}
	return strconv.ParseFloat(f[0], 64)
}
