package main

import (
	"flag"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/internal/demo"
	"github.com/tsbucket/tsbucket/internal/provision"
	"github.com/tsbucket/tsbucket/repo"
)

// clusterFlags are the connection flags shared by demo, schema and inspect.
type clusterFlags struct {
	hosts, dc, keyspace string
	username, password  string
}

func (c *clusterFlags) register(fs *flag.FlagSet, e env) {
	envStringVar(fs, &c.hosts, "hosts", e.getenv(provision.EnvHosts), "comma-separated `host[:port]` of the cluster (default $"+provision.EnvHosts+")")
	envStringVar(fs, &c.dc, "dc", e.getenv(provision.EnvDC), "local `datacenter` of the cluster (default $"+provision.EnvDC+", else dc1)")
	envStringVar(fs, &c.keyspace, "keyspace", defaultKeyspace(e), "`name` of the keyspace (default $"+envKeyspace+", else "+demoKeyspace+")")
	fs.StringVar(&c.username, "username", "", "user name (PasswordAuthenticator)")
	envStringVar(fs, &c.password, "password", e.getenv("TSBUCKET_PASSWORD"), "`password` (default $TSBUCKET_PASSWORD)")
}

// envKeyspace names the environment variable that sets the default of
// --keyspace, so a deployment's commands need not repeat it.
const envKeyspace = "TSBUCKET_KEYSPACE"

// demoKeyspace is the keyspace of the demo, the default when
// $TSBUCKET_KEYSPACE is unset.
const demoKeyspace = "tsbucket_demo"

func defaultKeyspace(e env) string {
	if ks := e.getenv(envKeyspace); ks != "" {
		return ks
	}
	return demoKeyspace
}

func (c *clusterFlags) datacenter() string {
	if c.dc == "" {
		return "dc1"
	}
	return c.dc
}

// validate checks what needs no cluster; hosts are required when need is set.
func (c *clusterFlags) validate(need bool) error {
	if need && len(splitList(c.hosts)) == 0 {
		return usageErr("no cluster: pass --hosts or set %s", provision.EnvHosts)
	}
	if err := demo.ValidateKeyspace(c.keyspace); err != nil {
		return usageErr("--keyspace: %v", err)
	}
	if c.password != "" && c.username == "" {
		return usageErr("--password without --username")
	}
	return nil
}

// session connects to the cluster, bound to keyspace ("" for none).
func (c *clusterFlags) session(keyspace string) (*gocql.Session, error) {
	return repo.NewSession(repo.SessionConfig{
		Hosts: splitList(c.hosts), Datacenter: c.datacenter(), Keyspace: keyspace,
		Username: c.username, Password: c.password, Timeout: 10 * time.Second,
	})
}
