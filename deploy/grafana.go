package deploy

import (
	"bytes"
	"encoding/json"
	"fmt"
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
	// Templating holds dashboard variables (none: queries use only $__rate_interval).
	Templating struct {
		List []any `json:"list"`
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
	RefID string
	Expr  string
}

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
	var walk func(ps []Panel)
	walk = func(ps []Panel) {
		for _, p := range ps {
			for _, t := range p.Targets {
				qs = append(qs, Query{Panel: p.Title, RefID: t.RefID, Expr: t.Expr})
			}
			walk(p.Panels)
		}
	}
	walk(d.Panels)
	return qs, nil
}
