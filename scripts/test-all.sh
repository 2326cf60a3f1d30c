#!/usr/bin/env bash
# The whole test suite with every component it needs: `sudo npm run test:all` on Debian 12, right
# after `npm ci` (.ci/run calls it on a fresh machine). It installs the Debian packages the suite
# needs, starts a private Docker daemon, builds the sandbox images the tests use, then runs `npm test`
# with INTERCODE_REQUIRE_ALL=1: a test that would be skipped for a missing component fails instead.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" -ne 0 ]; then
  echo 'test-all: run it as root (sudo npm run test:all): it installs packages and starts a Docker daemon' >&2
  exit 2
fi

export DEBIAN_FRONTEND=noninteractive
packages=(
  # the bwrap sandbox backend
  bubblewrap util-linux python3
  # the Python client's test builds and installs it offline into a venv (test/clients/python-client.test.ts)
  python3-venv python3-setuptools python3-wheel
  # tools the NL2Bash tasks call in the host image
  ncal bsdextrautils cpio curl bind9-dnsutils hostname jq iputils-ping psmisc tree procps
  # tools the demo/ctf golds call in the host image (strings, xxd), and `file` for the demo/ctf test
  binutils xxd file
  # the clock of deterministic sandboxes in the host image (`--deterministic`, on for built-in datasets)
  libfaketime
  # builder of the debian sandbox images (`intercode image build`; the debian conformance test builds `bash`)
  mmdebstrap
  # the docker sandbox backend (a private daemon is started below)
  docker.io
  # database servers of the mysql and postgres SQL engines (the project starts private ones)
  mariadb-server postgresql
  # the queue of distributed runs (the tests start private instances on loopback)
  redis-server
  # the headless browser of the viewer's browser tests (test/viewer/*.browser.test.ts), driven through
  # playwright-core: Debian's build, never a browser downloaded by a test tool
  chromium
)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done
if [ "${#missing[@]}" -gt 0 ]; then
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

[ -d node_modules ] || npm ci --no-audit --no-fund
# The image builds below run the compiled CLI.
npm run build

# Every skip gate of the suite fails instead (INTERCODE_REQUIRE_DOCKER: the same for the docker
# tests that read only that switch).
export INTERCODE_REQUIRE_ALL=1 INTERCODE_REQUIRE_DOCKER=1

# A private Docker daemon: its own data root and socket, and no change to the host's network (no
# bridge, no iptables rules, no IP forwarding). Stopped, and its folder removed, on exit.
# Folders of earlier runs cut short before their exit trap ran (a machine restart): their dockerd
# (named in the folder's pid file) is gone, yet their data root may still be mounted. Unmounted and
# removed here; a folder whose dockerd still runs (another run) or that has no pid file is left alone.
for stale in /var/tmp/intercode-docker.*; do
  [ -f "$stale/dockerd.pid" ] || continue
  stale_pid="$(cat "$stale/dockerd.pid" 2>/dev/null || true)"
  if [ -n "$stale_pid" ] && [ "$(cat "/proc/$stale_pid/comm" 2>/dev/null || true)" = dockerd ]; then continue; fi
  awk -v root="$stale/" 'index($2, root) == 1 { print $2 }' /proc/self/mounts | sort -r |
    while read -r mounted; do umount -l "$mounted" 2>/dev/null || true; done
  if ! awk -v root="$stale/" 'index($2, root) == 1 { found = 1 } END { exit !found }' /proc/self/mounts; then
    echo "test-all: removing $stale (left by a run that did not end)" >&2
    rm -rf "$stale"
  fi
done

docker_root="$(mktemp -d /var/tmp/intercode-docker.XXXXXX)"
dockerd_pid=''
stop_dockerd() {
  if [ -n "$dockerd_pid" ]; then
    kill "$dockerd_pid" 2>/dev/null || true
    wait "$dockerd_pid" 2>/dev/null || true
  fi
  # dockerd may leave its data root mounted (on itself, or the file system made below).
  umount -R "$docker_root/data" 2>/dev/null || true
  mountpoint -q "$docker_root/data" 2>/dev/null || rm -rf "$docker_root" || true
}
trap stop_dockerd EXIT

# The data root on the host's file system (overlay2). Where that cannot limit a container's writable
# layer (overlay2 on ext4: no XFS project quotas), the docker disk-quota case is skipped as a platform
# limit, the one skip test-all accepts (see test/support/require-all-reporter.ts). A btrfs loop
# device was tried and does not stop writes to the sandbox's /tmp.
mkdir "$docker_root/data"
storage=()

export DOCKER_HOST="unix://$docker_root/docker.sock"
dockerd --data-root "$docker_root/data" --exec-root "$docker_root/exec" --pidfile "$docker_root/dockerd.pid" \
  --host "$DOCKER_HOST" --iptables=false --ip-forward=false --bridge=none "${storage[@]}" \
  >"$docker_root/dockerd.log" 2>&1 &
dockerd_pid=$!
for _ in $(seq 1 300); do [ -S "$docker_root/docker.sock" ] && break; sleep 0.1; done
if [ ! -S "$docker_root/docker.sock" ]; then
  echo 'test-all: the private Docker daemon did not start:' >&2
  tail -n 20 "$docker_root/dockerd.log" >&2
  exit 1
fi

# The debian images of the sandbox tests (the docker tests import them into the daemon); `python` is
# the image of the gold runs of demo/python on both backends (run-command.docker.test.ts).
./bin/intercode image build bash
./bin/intercode image build python

./bin/intercode doctor
npm test
