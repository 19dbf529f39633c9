package monitoring

import (
	"encoding/json"
	"fmt"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
	"github.com/grafana/grafana-foundation-sdk/go/table"
	"github.com/grafana/grafana-foundation-sdk/go/timeseries"
)

// DashboardUID is the dashboard's uid in Grafana.
const DashboardUID = "machinestatus-fleet"

// selection is the matchers of the dashboard's variables, for the per-pool series.
const selection = `api_group=~"$api_group", cluster=~"$cluster", pool=~"$pool"`

// Dashboard returns the Grafana dashboard (JSON, indented, ending in a newline): Machines by
// phase, operations in flight and failed, operation durations and the stuck and failed
// Machines, for the api_group, cluster and pool chosen in its variables, from the data source
// chosen in its datasource variable. It reads the recording rules of RulesFile, and the
// operation duration histogram for quantiles over several pools.
func Dashboard() ([]byte, error) {
	ds := common.DataSourceRef{Type: cog.ToPtr("prometheus"), Uid: cog.ToPtr("${datasource}")}
	query := func(expr, legend string) *prometheus.DataqueryBuilder {
		return prometheus.NewDataqueryBuilder().Datasource(ds).Expr(expr).LegendFormat(legend).Range()
	}
	series := func(title, description, unit string, h, w, x, y uint32) *timeseries.PanelBuilder {
		return timeseries.NewPanelBuilder().Title(title).Description(description).Datasource(ds).
			Unit(unit).Min(0).Height(h).Span(w).GridPos(dashboard.GridPos{H: h, W: w, X: x, Y: y}).
			Legend(common.NewVizLegendOptionsBuilder().DisplayMode(common.LegendDisplayModeTable).
				Placement(common.LegendPlacementRight).ShowLegend(true))
	}
	stacked := common.NewStackingConfigBuilder().Mode(common.StackingModeNormal)

	// The classic dashboard model (deprecated by the SDK for its v2 schema): what Grafana's
	// sidecar and file provisioning load; v2 needs Grafana 12 with its Kubernetes dashboards API.
	//nolint:staticcheck // SA1019: the classic model on purpose, see above.
	b := dashboard.NewDashboardBuilder("machinestatus: Machines by cluster and pool").
		Uid(DashboardUID).
		Description("Phases, operations and operation durations of the Machines machinestatus reconciles (machinestatus.io and cluster.x-k8s.io), from the recording rules of config/prometheus. docs/alerts.md.").
		Tags([]string{"machinestatus"}).
		Editable().
		Refresh("1m").
		Time("now-6h", "now").
		Timezone(common.TimeZoneBrowser).
		Tooltip(dashboard.DashboardCursorSyncCrosshair).
		WithVariable(dashboard.NewDatasourceVariableBuilder("datasource").Label("Data source").Type("prometheus")).
		WithVariable(poolVariable("api_group", "API group", "machinestatus:pool_phase_machines:count")).
		WithVariable(poolVariable("cluster", "Cluster", `machinestatus:pool_phase_machines:count{api_group=~"$api_group"}`)).
		WithVariable(poolVariable("pool", "Pool", `machinestatus:pool_phase_machines:count{api_group=~"$api_group", cluster=~"$cluster"}`)).
		WithVariable(dashboard.NewCustomVariableBuilder("window").Label("Duration window").
			Values(dashboard.StringOrMap{String: cog.ToPtr("1h,6h,1d,7d")}).
			Current(dashboard.VariableOption{Text: dashboard.StringOrArrayOfString{String: cog.ToPtr("1h")}, Value: dashboard.StringOrArrayOfString{String: cog.ToPtr("1h")}})).
		WithRow(dashboard.NewRowBuilder("Machines")).
		WithPanel(series("Machines by phase", "Machines by phase, per cluster and pool.", "short", 9, 12, 0, 1).
			Stacking(stacked).FillOpacity(40).
			WithTarget(query(`sum by (cluster, pool, phase) (machinestatus:pool_phase_machines:count{`+selection+`})`, "{{cluster}}/{{pool}} {{phase}}"))).
		WithPanel(series("Share not Running", "Share of each pool's Machines in a phase other than Running or Standby (MachinePoolNotRunning alerts above its threshold).", "percentunit", 9, 12, 12, 1).
			WithTarget(query(`max by (cluster, pool) (machinestatus:pool_machines_not_running:ratio{`+selection+`})`, "{{cluster}}/{{pool}}"))).
		WithPanel(series("Operations in flight", "Machines whose lastOperation is Processing, by operation type.", "short", 8, 12, 0, 10).
			Stacking(stacked).FillOpacity(40).
			WithTarget(query(`sum by (operation_type) (machinestatus:pool_operation_machines:count{operation_state="Processing", `+selection+`})`, "{{operation_type}}"))).
		WithPanel(series("Operations failed", "Machines whose lastOperation is Failed, by operation type.", "short", 8, 12, 12, 10).
			Stacking(stacked).FillOpacity(40).
			WithTarget(query(`sum by (operation_type) (machinestatus:pool_operation_machines:count{operation_state="Failed", `+selection+`})`, "{{operation_type}}"))).
		WithRow(dashboard.NewRowBuilder("Operation durations")).
		WithPanel(series("Duration p50 by type ($window)", "Median duration of the operations that succeeded in the window, over the pools chosen.", "s", 8, 8, 0, 19).
			WithTarget(query(durationQuantile("0.5"), "{{type}}"))).
		WithPanel(series("Duration p95 by type ($window)", "95th percentile duration of the operations that succeeded in the window, over the pools chosen.", "s", 8, 8, 8, 19).
			WithTarget(query(durationQuantile("0.95"), "{{type}}"))).
		WithPanel(series("Duration p95 by pool (1h)", "95th percentile duration per pool and type of the operations that succeeded in the last hour (recording rule).", "s", 8, 8, 16, 19).
			WithTarget(query(`max by (cluster, pool, type) (machinestatus:operation_duration_seconds:p95_1h{`+selection+`})`, "{{cluster}}/{{pool}} {{type}}"))).
		WithPanel(series("Operations ended in the last hour", "Operations that ended in the last hour, by type and result.", "short", 8, 24, 0, 27).
			WithTarget(query(`sum by (type, state) (machinestatus:operation_results:increase1h{`+selection+`})`, "{{type}} {{state}}"))).
		WithRow(dashboard.NewRowBuilder("Machines to look at")).
		WithPanel(machineTable("Stuck Machines", "Machines whose lastOperation has been Processing for longer than its threshold (MachineOperationStuck), with how long.", 36,
			`machinestatus:machine_last_operation_age_seconds{operation_state="Processing", `+selection+`}
> on (operation_type) group_left ()
machinestatus:operation_stuck_threshold_seconds`, ds)).
		WithPanel(machineTable("Failed Machines", "Machines whose lastOperation is Failed, with how long.", 46,
			`machinestatus:machine_last_operation_age_seconds{operation_state="Failed", `+selection+`}`, ds))

	d, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("cannot build the dashboard: %w", err)
	}
	out, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// poolVariable is a multi-value variable of the values label takes on the series of selector,
// "All" matching every value, none included (a Machine without a pool has no pool label).
func poolVariable(label, title, selector string) *dashboard.QueryVariableBuilder {
	q := fmt.Sprintf("label_values(%s, %s)", selector, label)
	return dashboard.NewQueryVariableBuilder(label).Label(title).
		Datasource(common.DataSourceRef{Type: cog.ToPtr("prometheus"), Uid: cog.ToPtr("${datasource}")}).
		Query(dashboard.StringOrMap{Map: map[string]any{"query": q, "refId": "PrometheusVariableQueryEditor-VariableQuery", "qryType": 1}}).
		Definition(q).
		Refresh(dashboard.VariableRefreshOnTimeRangeChanged).
		Sort(dashboard.VariableSortAlphabeticalAsc).
		Multi(true).IncludeAll(true).AllValue(".*").
		Current(dashboard.VariableOption{Text: dashboard.StringOrArrayOfString{String: cog.ToPtr("All")}, Value: dashboard.StringOrArrayOfString{String: cog.ToPtr("$__all")}})
}

// durationQuantile is the q-quantile of the durations of the operations that succeeded in
// $window on the pools chosen, by operation type.
func durationQuantile(q string) string {
	return `histogram_quantile(` + q + `, sum by (type, le) (rate(machinestatus_machine_operation_duration_seconds_bucket{state="Successful", ` + selection + `}[$window])))`
}

// machineTable is a table of the Machines expr returns (instant), one row each, its value the
// seconds since the Machine's lastOperation changed.
func machineTable(title, description string, y uint32, expr string, ds common.DataSourceRef) *table.PanelBuilder {
	return table.NewPanelBuilder().Title(title).Description(description).Datasource(ds).
		Height(10).Span(24).GridPos(dashboard.GridPos{H: 10, W: 24, X: 0, Y: y}).
		Unit("s").
		WithTarget(prometheus.NewDataqueryBuilder().Datasource(ds).Expr(expr).Instant().Format(prometheus.PromQueryFormatTable)).
		WithTransformation(dashboard.DataTransformerConfig{Id: "organize", Options: map[string]any{
			"excludeByName": map[string]any{"Time": true, "__name__": true, "operation_state": true},
			"indexByName": map[string]any{
				"namespace": 0, "name": 1, "cluster": 2, "pool": 3, "api_group": 4,
				"operation_type": 5, "phase": 6, "Value": 7,
			},
			"renameByName": map[string]any{"Value": "for", "operation_type": "operation"},
		}}).
		SortBy([]cog.Builder[common.TableSortByFieldState]{common.NewTableSortByFieldStateBuilder().DisplayName("for").Desc(true)})
}
