#!/usr/bin/env bash
# A Docker engine on a Debian machine that reaches Debian's packages but no image registry, and
# the images ATA's containers need, built from Debian packages. Used by .ci/run and by hand:
#
#   deploy/docker/engine.sh start   # install docker.io and docker-compose where absent, start dockerd
#   deploy/docker/engine.sh base    # the base image: debootstrap of bookworm + openjdk-17-jre-headless
#   deploy/docker/engine.sh image   # the ata image from the jar, FROM the base image
#   deploy/docker/engine.sh up      # start + base
#   deploy/docker/engine.sh stop    # stop the dockerd that 'start' started (nothing else)
#   deploy/docker/engine.sh status  # one line: does an engine answer, which images are there
#
# dockerd runs with --bridge=none --iptables=false: no default bridge network, no firewall rules,
# so only containers on the host's network (--network host) work; they are reached on 127.0.0.1.
# A machine with a working engine (and a registry) needs none of this: 'start' leaves a running
# engine alone.
#
# Settings (environment):
#   ATA_BASE_IMAGE  the base image's name (default ata-base:bookworm)
#   ATA_IMAGE       the ata image's name (default ata:latest)
#   ATA_JAR         the distribution jar the image copies (default cli/target/ata.jar)
#   ATA_DOCKER_LOG  dockerd's log (default /var/log/ata-dockerd.log)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BASE_IMAGE="${ATA_BASE_IMAGE:-ata-base:bookworm}"
IMAGE="${ATA_IMAGE:-ata:latest}"
JAR="${ATA_JAR:-cli/target/ata.jar}"
LOG="${ATA_DOCKER_LOG:-/var/log/ata-dockerd.log}"
# the pid of the dockerd this script started: 'stop' ends that one only
STARTED=/run/ata-dockerd.pid
# the pid of a 'base' building the base image, while it builds: the container test (DockerImages)
# waits for that build instead of finding no base image (.ci/run builds it beside Maven)
BUILDING=/run/ata-base.building
SUITE=bookworm

say() { echo "engine: $*" >&2; }
die() { say "$*"; exit 1; }

answers() { docker info >/dev/null 2>&1; }

# apt-get install of the packages whose command is missing (command:package pairs)
install_missing() {
  local wanted=() pair
  for pair in "$@"; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || wanted+=("${pair#*:}")
  done
  [ ${#wanted[@]} -eq 0 ] && return 0
  command -v apt-get >/dev/null || die "no apt-get: install ${wanted[*]} by hand"
  [ "$(id -u)" -eq 0 ] || die "not root: cannot install ${wanted[*]}"
  say "installing ${wanted[*]} (Debian)"
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive NEEDRESTART_SUSPEND=1 apt-get install -y -qq "${wanted[@]}" >/dev/null \
    || die "apt-get install ${wanted[*]} failed"
}

start() {
  if answers; then
    say "a Docker engine answers already: $(docker info --format '{{.ServerVersion}}, {{.Driver}}')"
    install_missing docker-compose:docker-compose || say "no docker-compose: the compose files cannot be run"
    return 0
  fi
  install_missing dockerd:docker.io docker-compose:docker-compose
  [ "$(id -u)" -eq 0 ] || die "not root: cannot start dockerd"
  say "starting dockerd --bridge=none --iptables=false (log: $LOG)"
  # setsid: its own session, so that a CI step's end or a Ctrl-C does not take it down mid-run
  setsid dockerd --bridge=none --iptables=false --ip6tables=false >>"$LOG" 2>&1 </dev/null &
  echo $! >"$STARTED"
  local i
  for i in $(seq 1 60); do
    if answers; then
      say "dockerd $(docker info --format '{{.ServerVersion}}, storage {{.Driver}}') answers after ${i}s"
      return 0
    fi
    if ! kill -0 "$(cat "$STARTED")" 2>/dev/null; then
      rm -f "$STARTED"
      die "dockerd exited: $(tail -n 3 "$LOG" | tr '\n' ' ')"
    fi
    sleep 1
  done
  die "dockerd does not answer after 60 s: $(tail -n 3 "$LOG" | tr '\n' ' ')"
}

stop() {
  [ -f "$STARTED" ] || { say "no dockerd started by this script"; return 0; }
  local pid
  pid="$(cat "$STARTED")"
  if kill -0 "$pid" 2>/dev/null; then
    # the containers first: a container left running keeps its ports on the host
    local running
    running="$(docker ps -q 2>/dev/null || true)"
    # shellcheck disable=SC2086
    [ -z "$running" ] || docker kill $running >/dev/null 2>&1 || true
    kill "$pid"
    local i
    for i in $(seq 1 30); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 1
    done
    kill -0 "$pid" 2>/dev/null && die "dockerd ($pid) still runs after 30 s"
    say "dockerd ($pid) stopped"
  fi
  rm -f "$STARTED"
}

# The Debian mirror this machine's apt uses (its sources), so that debootstrap reads the same one.
mirror() {
  local m=""
  if compgen -G "/etc/apt/sources.list.d/*.sources" >/dev/null; then
    m="$(awk -v s="$SUITE" '
      /^URIs:/ { uri = $2 } /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == s) found = uri }
      /^$/ { uri = "" } END { print found }' /etc/apt/sources.list.d/*.sources)"
  fi
  if [ -z "$m" ] && [ -f /etc/apt/sources.list ]; then
    m="$(awk -v s="$SUITE" '$1 == "deb" && $3 == s { print $2; exit }' /etc/apt/sources.list)"
  fi
  [ -n "$m" ] || die "no Debian $SUITE mirror in /etc/apt/sources*: cannot debootstrap"
  echo "$m"
}

base() {
  answers || die "no Docker engine answers: run '$0 start' first"
  if docker image inspect "$BASE_IMAGE" >/dev/null 2>&1; then
    say "base image $BASE_IMAGE is there ($(size "$BASE_IMAGE"))"
    return 0
  fi
  echo $$ >"$BUILDING"
  trap 'rm -f "$BUILDING"' EXIT
  install_missing debootstrap:debootstrap
  local dir started
  dir="$(mktemp -d /var/tmp/ata-base.XXXXXX)"
  started=$(date +%s)
  say "building $BASE_IMAGE: debootstrap $SUITE (minbase) + openjdk-17-jre-headless from $(mirror) into $dir"
  if ! debootstrap --variant=minbase --include=openjdk-17-jre-headless "$SUITE" "$dir" "$(mirror)" \
      >"$dir.log" 2>&1; then
    tail -n 5 "$dir.log" >&2
    rm -rf "$dir"
    die "debootstrap failed (log: $dir.log)"
  fi
  # an image needs no package lists, caches, manuals or translations
  chroot "$dir" apt-get clean
  rm -rf "$dir"/var/lib/apt/lists/* "$dir"/usr/share/doc/* "$dir"/usr/share/man/* "$dir"/usr/share/locale/*
  tar -C "$dir" -c . | docker import \
    --change 'ENV LANG=C.UTF-8' \
    --change 'CMD ["bash"]' \
    --message "debootstrap --variant=minbase $SUITE + openjdk-17-jre-headless" \
    - "$BASE_IMAGE" >/dev/null
  rm -rf "$dir" "$dir.log"
  say "base image $BASE_IMAGE built in $(($(date +%s) - started)) s ($(size "$BASE_IMAGE"))"
}

image() {
  answers || die "no Docker engine answers: run '$0 start' first"
  [ -f "$root/$JAR" ] || die "no $JAR: build it first (./mvnw -B package -DskipTests)"
  docker image inspect "$BASE_IMAGE" >/dev/null 2>&1 || base
  local started
  started=$(date +%s)
  # the legacy builder: Debian's engine has no buildx; .dockerignore cuts the context to the jar and scripts
  DOCKER_BUILDKIT=0 docker build -q -f "$root/deploy/docker/Dockerfile" \
    --build-arg "BASE_IMAGE=$BASE_IMAGE" --build-arg "ATA_JAR=$JAR" -t "$IMAGE" "$root" >/dev/null
  say "image $IMAGE built in $(($(date +%s) - started)) s ($(size "$IMAGE"))"
}

size() {
  docker image inspect --format '{{.Size}}' "$1" | awk '{ printf "%d MB", $1 / 1000000 }'
}

status() {
  if ! answers; then
    echo "no Docker engine answers"
    return 1
  fi
  local i line="Docker $(docker info --format '{{.ServerVersion}}') answers"
  for i in "$BASE_IMAGE" "$IMAGE"; do
    if docker image inspect "$i" >/dev/null 2>&1; then line+="; $i $(size "$i")"; else line+="; no $i"; fi
  done
  echo "$line"
}

case "${1:-}" in
  start) start ;;
  base) base ;;
  image) image ;;
  up) start && base ;;
  stop) stop ;;
  status) status ;;
  *) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
