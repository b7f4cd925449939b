#!/usr/bin/env bash
# ensure-deps.sh: makes sure what the tests and the demo need is installed.
#   Go 1.26 always; Java 17 and Maven for the local Cassandra (not needed where a
#   Docker engine answers or TSBUCKET_HOSTS names a cluster); Prometheus for the
#   dashboard test (with "prometheus" as first argument).
# As root on Debian/Ubuntu it installs what is missing with apt-get; otherwise it
# stops and prints the exact command to run.
set -euo pipefail

want_prometheus=${1:-}
missing=()

have() { command -v "$1" >/dev/null 2>&1; }

java17() {
	local j
	for j in "${JAVA_HOME:-}/bin/java" "$(command -v java || true)" /usr/lib/jvm/java-17-openjdk-*/bin/java; do
		[ -x "$j" ] || continue
		# Capture first, then match: "java | grep -q" can fail under pipefail
		# when grep exits before java has finished writing.
		local v
		v=$("$j" -version 2>&1) || continue
		case "$v" in *'version "17.'* | *'version "17"'*) return 0 ;; esac
	done
	return 1
}

if ! have go; then
	echo "ensure-deps: Go 1.26 is required: https://go.dev/dl/ (go1.26.8)" >&2
	exit 1
fi

need_local_cassandra=1
if [ -n "${TSBUCKET_HOSTS:-}" ]; then need_local_cassandra=0; fi
if [ "$need_local_cassandra" = 1 ] && [ "${TSBUCKET_NO_DOCKER:-}" != 1 ] && have docker && timeout 5 docker info >/dev/null 2>&1; then
	need_local_cassandra=0
fi

if [ "$need_local_cassandra" = 1 ]; then
	java17 || missing+=(openjdk-17-jre-headless)
	have mvn || missing+=(maven)
fi
if [ "$want_prometheus" = prometheus ]; then
	have prometheus && have promtool || missing+=(prometheus)
fi

if [ ${#missing[@]} -eq 0 ]; then exit 0; fi

if [ "$(id -u)" = 0 ] && have apt-get; then
	echo "ensure-deps: installing ${missing[*]} with apt-get" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null
	# Debian's openjdk postinst needs the man directory that slim images delete.
	mkdir -p /usr/share/man/man1
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
	exit 0
fi

echo "ensure-deps: missing ${missing[*]}; install them with:" >&2
echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
exit 1
