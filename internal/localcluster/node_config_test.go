package localcluster

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestNewNodeSpec(t *testing.T) {
	tests := []struct {
		i                 int
		host, token, name string
		jmx               int
	}{
		{0, "127.0.0.1", "-9223372036854775808", "node1", 7100},
		{1, "127.0.0.2", "-3074457345618258603", "node2", 7200},
		{2, "127.0.0.3", "3074457345618258602", "node3", 7300},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := newNodeSpec(tt.i, "dcx", "/data")
			if n.host != tt.host || n.token != tt.token || n.name() != tt.name || n.jmxPort != tt.jmx {
				t.Errorf("got %+v (name %s), want host %s token %s jmx %d", n, n.name(), tt.host, tt.token, tt.jmx)
			}
			if got, want := n.dir, "/data/"+tt.name; got != want {
				t.Errorf("dir = %s, want %s", got, want)
			}
			if got, want := n.seed(), tt.i == 0; got != want {
				t.Errorf("seed = %t, want %t", got, want)
			}
		})
	}
}

func yamlFor(t *testing.T, c Config, tls *tlsPaths) string {
	t.Helper()
	c, err := c.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	return cassandraYAML(c, newNodeSpec(1, c.Datacenters[1%len(c.Datacenters)], "/d"), tls)
}

func TestCassandraYAML(t *testing.T) {
	tls := &tlsPaths{keystore: "/d/tls/server.pem", truststore: "/d/tls/ca.pem"}
	tests := []struct {
		name    string
		cfg     Config
		tls     *tlsPaths
		want    []string
		notWant []string
	}{
		{
			name: "defaults",
			cfg:  Config{Nodes: 3},
			want: []string{
				"endpoint_snitch: GossipingPropertyFileSnitch", "num_tokens: 1",
				"initial_token: -3074457345618258603", "auto_bootstrap: false",
				"listen_address: 127.0.0.2", "rpc_address: 127.0.0.2",
				"native_transport_port: 9042", "storage_port: 7000",
				`      - seeds: "127.0.0.1:7000"`, "authenticator: AllowAllAuthenticator",
			},
			notWant: []string{"client_encryption_options", "tombstone_warn_threshold", "read_thresholds_enabled", "crypto_provider"},
		},
		{
			name: "auth",
			cfg:  Config{Auth: true},
			want: []string{"authenticator: PasswordAuthenticator", "authorizer: CassandraAuthorizer", "role_manager: CassandraRoleManager"},
		},
		{
			name: "thresholds and extra yaml",
			cfg:  Config{TombstoneWarnThreshold: 10, ReadThresholds: true, ExtraYAML: "batch_size_warn_threshold: 1KiB\n\n"},
			want: []string{"tombstone_warn_threshold: 10", "read_thresholds_enabled: true", "batch_size_warn_threshold: 1KiB"},
		},
		{
			name: "tls",
			cfg:  Config{TLS: true},
			tls:  tls,
			want: []string{
				"client_encryption_options:", "  enabled: true", "  optional: false",
				"    class_name: org.apache.cassandra.security.PEMBasedSslContextFactory",
				"  keystore: /d/tls/server.pem", "  truststore: /d/tls/ca.pem", "  require_client_auth: false",
			},
		},
		{
			name: "tls client cert",
			cfg:  Config{TLS: true, RequireClientCert: true},
			tls:  tls,
			want: []string{"  require_client_auth: true"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := strings.Split(yamlFor(t, tt.cfg, tt.tls), "\n")
			for _, w := range tt.want {
				if !slices.Contains(lines, w) {
					t.Errorf("missing line %q in\n%s", w, strings.Join(lines, "\n"))
				}
			}
			for _, nw := range tt.notWant {
				for _, l := range lines {
					if strings.Contains(l, nw) {
						t.Errorf("unexpected %q in line %q", nw, l)
					}
				}
			}
		})
	}
}

func TestCassandraYAMLEndsWithExtra(t *testing.T) {
	got := yamlFor(t, Config{ExtraYAML: "cdc_enabled: false"}, nil)
	if want := "# ExtraYAML\ncdc_enabled: false\n"; !strings.HasSuffix(got, want) {
		t.Errorf("yaml ends with %q, want suffix %q", got[len(got)-40:], want)
	}
}

func TestRackdcProperties(t *testing.T) {
	got := rackdcProperties(newNodeSpec(2, "west", "/d"))
	if want := "dc=west\nrack=rack1\nprefer_local=true\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestLogbackXML(t *testing.T) {
	got := logbackXML(newNodeSpec(0, "dc1", "/d"))
	if want := "<file>/d/node1/logs/system.log</file>"; !strings.Contains(got, want) {
		t.Errorf("logback.xml lacks %q:\n%s", want, got)
	}
}

func TestJVMArgs(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		node    int
		want    []string
		notWant []string
	}{
		{
			name: "defaults",
			want: []string{
				"-Xms768m", "-Xmx768m", "-XX:+UseG1GC", "-Djava.net.preferIPv4Stack=true",
				"--add-opens=java.base/java.io=ALL-UNNAMED", "--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED",
				"-Djdk.attach.allowAttachSelf=true", "-Dio.netty.tryReflectionSetAccessible=true",
				"-javaagent:/lib/jamm-0.4.0.jar",
				"-Dcassandra.config=file:///d/node1/conf/cassandra.yaml", "-Dcassandra-foreground=yes",
				"-Dcassandra.storagedir=/d/node1/data", "-Dcassandra.logdir=/d/node1/logs",
				"-Dlogback.configurationFile=/d/node1/conf/logback.xml",
				"-Dcassandra-rackdc.properties=file:///d/node1/conf/cassandra-rackdc.properties",
				"-Dcassandra.jmx.local.port=7100", "-Dcassandra.skip_wait_for_gossip_to_settle=0",
				"-Dcassandra.ring_delay_ms=1000", "-Dcassandra.triggers_dir=/d/node1/conf/triggers",
			},
			notWant: []string{"-Dcassandra.superuser_setup_delay_ms=0", "-Dcassandra.size_recorder_interval", "-Dcassandra.unsafesystem"},
		},
		{
			name: "options",
			cfg:  Config{Nodes: 3, HeapMB: 512, Auth: true, SizeRecorderInterval: 5 * time.Second, UnsafeSystem: true},
			node: 2,
			want: []string{
				"-Xms512m", "-Xmx512m", "-Dcassandra.jmx.local.port=7300", "-Dcassandra.superuser_setup_delay_ms=0",
				"-Dcassandra.size_recorder_interval=5", "-Dcassandra.unsafesystem=true",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := tt.cfg.withDefaults()
			if err != nil {
				t.Fatal(err)
			}
			args := jvmArgs(c, newNodeSpec(tt.node, "dc1", "/d"), "/lib")
			for _, w := range tt.want {
				if !slices.Contains(args, w) {
					t.Errorf("missing %q in %v", w, args)
				}
			}
			for _, nw := range tt.notWant {
				if slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, nw) }) {
					t.Errorf("unexpected %q", nw)
				}
			}
			if got := args[len(args)-3:]; !slices.Equal(got, []string{"-cp", "/lib/*", "org.apache.cassandra.service.CassandraDaemon"}) {
				t.Errorf("tail = %v", got)
			}
		})
	}
}

func TestCassandraYAMLCommitLogGroup(t *testing.T) {
	n := newNodeSpec(0, "dc1", t.TempDir())
	if y := cassandraYAML(Config{}, n, nil); !strings.Contains(y, "commitlog_sync: periodic\n") {
		t.Errorf("default: no periodic commit log sync:\n%s", y)
	}
	y := cassandraYAML(Config{CommitLogGroupWindow: 10 * time.Millisecond}, n, nil)
	if !strings.Contains(y, "commitlog_sync: group\ncommitlog_sync_group_window: 10ms\n") || strings.Contains(y, "commitlog_sync_period") {
		t.Errorf("group window: wrong commit log settings:\n%s", y)
	}
}
