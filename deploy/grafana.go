package deploy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// DatasourceUID is the uid of the Prometheus data source that
// grafana/provisioning/datasources/prometheus.yml provisions.
const DatasourceUID = "tsbucket-prometheus"

// RateInterval is the Grafana variable the queries use as their rate window.
const RateInterval = "$__rate_interval"

// DashboardFile is the generated dashboard, relative to this directory.
const DashboardFile = "grafana/dashboards/tsbucket.json"

// Grafana dashboard JSON model: only the fields this dashboard sets.
type (
	// Dashboard is a Grafana dashboard.
	Dashboard struct {
		UID           string     `json:"uid"`
		Title         string     `json:"title"`
		Description   string     `json:"description"`
		Tags          []string   `json:"tags"`
		Timezone      string     `json:"timezone"`
		Editable      bool       `json:"editable"`
		Refresh       string     `json:"refresh"`
		SchemaVersion int        `json:"schemaVersion"`
		Time          TimeRange  `json:"time"`
		Templating    Templating `json:"templating"`
		Panels        []Panel    `json:"panels"`
	}
	// TimeRange is the default time range.
	TimeRange struct {
		From string `json:"from"`
		To   string `json:"to"`
	}
	// Templating holds the dashboard's template variables.
	Templating struct {
		List []any `json:"list"`
	}
	// Variable is a query template variable.
	Variable struct {
		Name       string          `json:"name"`
		Label      string          `json:"label"`
		Type       string          `json:"type"`
		Datasource *Datasource     `json:"datasource"`
		Definition string          `json:"definition"`
		Query      VariableQuery   `json:"query"`
		IncludeAll bool            `json:"includeAll"`
		Multi      bool            `json:"multi"`
		AllValue   string          `json:"allValue"`
		Refresh    int             `json:"refresh"` // 2: on time range change
		Sort       int             `json:"sort"`
		Current    VariableCurrent `json:"current"`
	}
	// VariableQuery is the query of a template variable.
	VariableQuery struct {
		Query string `json:"query"`
		RefID string `json:"refId"`
	}
	// VariableCurrent is a variable's initial selection.
	VariableCurrent struct {
		Text  []string `json:"text"`
		Value []string `json:"value"`
	}
	// Panel is a panel or a row.
	Panel struct {
		ID          int          `json:"id"`
		Type        string       `json:"type"`
		Title       string       `json:"title"`
		Description string       `json:"description,omitempty"`
		GridPos     GridPos      `json:"gridPos"`
		Datasource  *Datasource  `json:"datasource,omitempty"`
		Targets     []Target     `json:"targets,omitempty"`
		FieldConfig *FieldConfig `json:"fieldConfig,omitempty"`
		Collapsed   *bool        `json:"collapsed,omitempty"`
		Panels      []Panel      `json:"panels,omitempty"` // rows only
	}
	// GridPos places a panel on the 24-column grid.
	GridPos struct {
		H int `json:"h"`
		W int `json:"w"`
		X int `json:"x"`
		Y int `json:"y"`
	}
	// Datasource refers to a data source by uid.
	Datasource struct {
		Type string `json:"type"`
		UID  string `json:"uid"`
	}
	// Target is one query of a panel.
	Target struct {
		RefID        string      `json:"refId"`
		Datasource   *Datasource `json:"datasource"`
		Expr         string      `json:"expr"`
		LegendFormat string      `json:"legendFormat"`
		Range        bool        `json:"range"`
	}
	// FieldConfig sets the unit and minimum of a panel's values.
	FieldConfig struct {
		Defaults  FieldDefaults `json:"defaults"`
		Overrides []any         `json:"overrides"`
	}
	// FieldDefaults are the per-field defaults.
	FieldDefaults struct {
		Unit string   `json:"unit,omitempty"`
		Min  *float64 `json:"min,omitempty"`
	}
)

// Query is one expression of a panel.
type Query struct {
	Panel string // panel title
	Row   string // title of the row the panel is under
	RefID string
	Expr  string
}

// Server reports whether q reads the database's own metrics (a row titled
// ServerRowPrefix...), which only a real ScyllaDB exports: such queries are
// checked for syntax, not for data.
func (q Query) Server() bool { return strings.HasPrefix(q.Row, ServerRowPrefix) }

// JSON renders d as the committed file holds it: indented, HTML characters
// left alone (PromQL is full of < and >), ending with a newline.
func (d Dashboard) JSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(d); err != nil {
		return nil, fmt.Errorf("deploy: encode dashboard: %w", err)
	}
	return b.Bytes(), nil
}

// Queries returns every query of every panel of a dashboard JSON document,
// rows included, in panel order. It reads the JSON rather than Dashboard so
// that tests check the file Grafana actually loads.
func Queries(doc []byte) ([]Query, error) {
	var d Dashboard
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, fmt.Errorf("deploy: decode dashboard: %w", err)
	}
	var qs []Query
	var walk func(ps []Panel, row string)
	walk = func(ps []Panel, row string) {
		for _, p := range ps {
			if p.Type == "row" {
				row = p.Title
			}
			for _, t := range p.Targets {
				qs = append(qs, Query{Panel: p.Title, Row: row, RefID: t.RefID, Expr: t.Expr})
			}
			walk(p.Panels, row)
		}
	}
	walk(d.Panels, "")
	return qs, nil
}
