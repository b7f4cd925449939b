package deploy

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tsbucket/tsbucket/internal/provision"
)

const composeFile = "../docker-compose.yml"

type compose struct {
	Services map[string]service `yaml:"services"`
}

type service struct {
	Image string `yaml:"image"`
	Build struct {
		Context    string `yaml:"context"`
		Dockerfile string `yaml:"dockerfile"`
	} `yaml:"build"`
	Command     []string                              `yaml:"command"`
	Ports       []string                              `yaml:"ports"`
	Volumes     []string                              `yaml:"volumes"`
	DependsOn   map[string]struct{ Condition string } `yaml:"depends_on"`
	Healthcheck struct {
		Test []string `yaml:"test"`
	} `yaml:"healthcheck"`
	Environment map[string]string `yaml:"environment"`
}

func readCompose(t *testing.T) compose {
	t.Helper()
	var c compose
	readYAML(t, composeFile, &c)
	return c
}

func TestComposeServices(t *testing.T) {
	c := readCompose(t)
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
				if !strings.HasPrefix(p, "127.0.0.1:") {
					t.Errorf("port %q is published beyond localhost", p)
				}
			}
			for dep, d := range s.DependsOn {
				if _, ok := c.Services[dep]; !ok {
					t.Errorf("depends on unknown service %q", dep)
				}
				if d.Condition == "" {
					t.Errorf("depends on %q without a condition", dep)
				}
			}
			for _, v := range s.Volumes {
				src, _, _ := strings.Cut(v, ":")
				if _, err := os.Stat(filepath.Join("..", src)); err != nil {
					t.Errorf("volume source %s: %v", src, err)
				}
			}
		})
	}
}

func TestComposeScylla(t *testing.T) {
	s := readCompose(t).Services["scylla"]
	if s.Image != provision.ScyllaImage {
		t.Errorf("scylla image %q, want %q (internal/provision pins it)", s.Image, provision.ScyllaImage)
	}
	if len(s.Healthcheck.Test) == 0 {
		t.Error("scylla has no healthcheck: the demo would start before CQL answers")
	}
}

func TestComposeDemo(t *testing.T) {
	c := readCompose(t)
	s := c.Services["demo"]
	if s.Build.Context != "." {
		t.Errorf("demo build context %q, want .", s.Build.Context)
	}
	if _, err := os.Stat(filepath.Join("..", s.Build.Dockerfile)); err != nil {
		t.Errorf("demo Dockerfile: %v", err)
	}
	if got := s.DependsOn["scylla"].Condition; got != "service_healthy" {
		t.Errorf("demo depends on scylla with condition %q, want service_healthy", got)
	}
	for _, want := range []string{"demo", "--hosts=scylla", "--dc=datacenter1", "--metrics-addr=0.0.0.0:9464"} {
		if !slices.Contains(s.Command, want) {
			t.Errorf("demo command %q lacks %q", s.Command, want)
		}
	}
	if !slices.Contains(s.Ports, "127.0.0.1:9464:9464") {
		t.Errorf("demo ports %q do not publish 9464", s.Ports)
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
	if !slices.Contains(p.Volumes, "./deploy/prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro") {
		t.Errorf("prometheus volumes %q do not mount deploy/prometheus/prometheus.yml", p.Volumes)
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
		if !slices.Contains(g.Volumes, want) {
			t.Errorf("grafana volumes %q lack %q", g.Volumes, want)
		}
	}
	if home := g.Environment["GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH"]; home != prov.Providers[0].Options.Path+"/tsbucket.json" {
		t.Errorf("home dashboard %q is not the provisioned one", home)
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
