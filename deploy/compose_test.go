package deploy

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"

	"github.com/tsbucket/tsbucket/internal/provision"
)

const composeFile = "../docker-compose.yml"

// loadCompose loads docker-compose.yml with compose-go, the loader the
// docker compose plugin itself uses: schema validation, interpolation,
// normalization and the consistency checks (unknown services in
// depends_on, undefined volumes or networks) all run, so a file the
// plugin would refuse fails here, without the plugin or an engine.
// Paths stay as written (relative to the repository root) so that tests
// can compare them with the mounts they expect.
func loadCompose(t *testing.T, files ...string) (*types.Project, error) {
	t.Helper()
	if len(files) == 0 {
		files = []string{composeFile}
	}
	opts, err := cli.NewProjectOptions(files,
		cli.WithWorkingDirectory(".."),
		cli.WithEnv(nil), // the runner's environment must not change the result
		cli.WithResolvedPaths(false),
		cli.WithDiscardEnvFile)
	if err != nil {
		return nil, err
	}
	return opts.LoadProject(t.Context())
}

func readCompose(t *testing.T) *types.Project {
	t.Helper()
	p, err := loadCompose(t)
	if err != nil {
		t.Fatalf("compose-go rejects %s: %v", composeFile, err)
	}
	return p
}

// The loader is not a rubber stamp: files the plugin refuses are refused.
func TestComposeLoaderRejects(t *testing.T) {
	tests := []struct{ name, yaml string }{
		{"unknown key", "services:\n  a:\n    image: x:1\n    imagee: y\n"},
		{"unknown dependency", "services:\n  a:\n    image: x:1\n    depends_on:\n      b:\n        condition: service_started\n"},
		{"bad port", "services:\n  a:\n    image: x:1\n    ports: [\"127.0.0.1:notaport:80\"]\n"},
		{"undefined volume", "services:\n  a:\n    image: x:1\n    volumes: [\"data:/data\"]\n"},
		{"bad condition", "services:\n  a:\n    image: x:1\n    depends_on:\n      b:\n        condition: when_ready\n  b:\n    image: x:1\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "compose.yml")
			if err := os.WriteFile(path, []byte("name: broken\n"+tc.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := loadCompose(t, path); err == nil {
				t.Errorf("compose-go accepted:\n%s", tc.yaml)
			}
		})
	}
}

func TestComposeServices(t *testing.T) {
	c := readCompose(t)
	if c.Name != "tsbucket" {
		t.Errorf("project name %q, want tsbucket", c.Name)
	}
	for _, name := range []string{"scylla", "demo", "prometheus", "grafana"} {
		if _, ok := c.Services[name]; !ok {
			t.Errorf("no service %q", name)
		}
	}
	for name, s := range c.Services {
		t.Run(name, func(t *testing.T) {
			_, tag, ok := strings.Cut(s.Image, ":")
			if !ok || tag == "" || tag == "latest" {
				t.Errorf("image %q is not pinned to a tag", s.Image)
			}
			for _, p := range s.Ports {
				if p.HostIP != "127.0.0.1" {
					t.Errorf("port %d is published on %q, beyond localhost", p.Target, p.HostIP)
				}
			}
			for dep, d := range s.DependsOn {
				if d.Condition == "" {
					t.Errorf("depends on %q without a condition", dep)
				}
			}
			for _, v := range s.Volumes {
				if v.Type != types.VolumeTypeBind {
					continue
				}
				if _, err := os.Stat(filepath.Join("..", v.Source)); err != nil {
					t.Errorf("volume source %s: %v", v.Source, err)
				}
			}
		})
	}
}

// mounts returns a service's bind mounts as source:target[:ro], sources
// relative to the repository root as written in the file.
func mounts(s types.ServiceConfig) []string {
	var out []string
	for _, v := range s.Volumes {
		m := v.Source + ":" + v.Target
		if v.ReadOnly {
			m += ":ro"
		}
		out = append(out, m)
	}
	return out
}

func published(s types.ServiceConfig) []string {
	var out []string
	for _, p := range s.Ports {
		out = append(out, fmt.Sprintf("%s:%s:%d", p.HostIP, p.Published, p.Target))
	}
	return out
}

func TestComposeScylla(t *testing.T) {
	s := readCompose(t).Services["scylla"]
	if s.Image != provision.ScyllaImage {
		t.Errorf("scylla image %q, want %q (internal/provision pins it)", s.Image, provision.ScyllaImage)
	}
	if s.HealthCheck == nil || len(s.HealthCheck.Test) == 0 {
		t.Error("scylla has no healthcheck: the demo would start before CQL answers")
	}
}

func TestComposeDemo(t *testing.T) {
	c := readCompose(t)
	s := c.Services["demo"]
	if s.Build == nil {
		t.Fatal("demo has no build section")
	}
	if s.Build.Context != "." {
		t.Errorf("demo build context %q, want .", s.Build.Context)
	}
	if _, err := os.Stat(filepath.Join("..", s.Build.Dockerfile)); err != nil {
		t.Errorf("demo Dockerfile: %v", err)
	}
	if got := s.DependsOn["scylla"].Condition; got != types.ServiceConditionHealthy {
		t.Errorf("demo depends on scylla with condition %q, want service_healthy", got)
	}
	for _, want := range []string{"demo", "--hosts=scylla", "--dc=datacenter1", "--metrics-addr=0.0.0.0:9464"} {
		if !slices.Contains(s.Command, want) {
			t.Errorf("demo command %q lacks %q", s.Command, want)
		}
	}
	if !slices.Contains(published(s), "127.0.0.1:9464:9464") {
		t.Errorf("demo ports %q do not publish 9464", published(s))
	}
}

// Prometheus scrapes the demo and Scylla where compose puts them.
func TestComposePrometheus(t *testing.T) {
	var cfg struct {
		ScrapeConfigs []struct {
			JobName       string `yaml:"job_name"`
			StaticConfigs []struct {
				Targets []string `yaml:"targets"`
			} `yaml:"static_configs"`
		} `yaml:"scrape_configs"`
	}
	readYAML(t, "prometheus/prometheus.yml", &cfg)
	targets := map[string][]string{}
	for _, sc := range cfg.ScrapeConfigs {
		for _, st := range sc.StaticConfigs {
			targets[sc.JobName] = append(targets[sc.JobName], st.Targets...)
		}
	}
	want := map[string]string{"tsbucket": "demo:9464", "scylla": "scylla:9180"}
	for job, target := range want {
		if !slices.Equal(targets[job], []string{target}) {
			t.Errorf("job %s targets %q, want [%s]", job, targets[job], target)
		}
	}
	p := readCompose(t).Services["prometheus"]
	if !slices.Contains(mounts(p), "./deploy/prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro") {
		t.Errorf("prometheus volumes %q do not mount deploy/prometheus/prometheus.yml", mounts(p))
	}
	// prometheus.yml names alerts.yml relative to itself.
	if !slices.Contains(mounts(p), "./deploy/prometheus/alerts.yml:/etc/prometheus/alerts.yml:ro") {
		t.Errorf("prometheus volumes %q do not mount deploy/prometheus/alerts.yml next to the configuration", mounts(p))
	}
}

func TestComposeGrafana(t *testing.T) {
	g := readCompose(t).Services["grafana"]
	var prov struct {
		Providers []struct {
			Options struct{ Path string } `yaml:"options"`
		} `yaml:"providers"`
	}
	readYAML(t, "grafana/provisioning/dashboards/tsbucket.yml", &prov)
	if len(prov.Providers) != 1 {
		t.Fatalf("got %d dashboard providers, want 1", len(prov.Providers))
	}
	mount := "./deploy/grafana/dashboards:" + prov.Providers[0].Options.Path + ":ro"
	for _, want := range []string{mount, "./deploy/grafana/provisioning:/etc/grafana/provisioning:ro"} {
		if !slices.Contains(mounts(g), want) {
			t.Errorf("grafana volumes %q lack %q", mounts(g), want)
		}
	}
	if home := g.Environment["GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH"]; home == nil || *home != prov.Providers[0].Options.Path+"/tsbucket.json" {
		t.Errorf("home dashboard %v is not the provisioned one", home)
	}
}

// docker compose itself, where its plugin is installed (it needs no engine).
func TestComposeConfig(t *testing.T) {
	docker, err := exec.LookPath("docker")
	if err != nil || exec.Command(docker, "compose", "version").Run() != nil {
		t.Skip("the docker compose plugin is not installed; the YAML checks above still ran")
	}
	if out, err := exec.Command(docker, "compose", "-f", composeFile, "config", "--quiet").CombinedOutput(); err != nil {
		t.Fatalf("docker compose config: %v\n%s", err, out)
	}
}

func TestPrometheusConfig(t *testing.T) {
	promtool := lookTool(t, "promtool")
	if out, err := exec.Command(promtool, "check", "config", "prometheus/prometheus.yml").CombinedOutput(); err != nil {
		t.Fatalf("promtool check config: %v\n%s", err, out)
	}
}
