#!/bin/sh
# class-data-archive.sh JAR ARCHIVE: writes a class-data sharing archive (JDK AppCDS) of the classes
# the ata parts load, so that a JVM started with -XX:SharedArchiveFile=ARCHIVE maps them instead of
# loading, verifying and linking them again: a restarted part is ready about 1-2 s sooner on 2 busy
# cores (docs/containers.md). The Dockerfile runs it at the image's build; it needs a HotSpot java
# on the PATH, the jar and 127.0.0.1.
#
# What it records is a short job: the broker, a trainer and three workers in one JVM ('ata demo
# --workload quadratic': three rounds of uta, then three of ata-auto) on 'ata kafka' in another JVM,
# whose classes stay out (the parts never load them; they would add a third to the archive).
# Everything the JVMs write goes to a work directory deleted at the end: only ARCHIVE is left, and
# the font cache that the demo's charts fill (fontconfig's, in /var/cache/fontconfig as root).
set -eu
jar=$1
archive=$2
work=$(mktemp -d)
kafka=
cleanup() {
  if [ -n "$kafka" ]; then
    kill "$kafka" 2>/dev/null || true
    # a Kafka that does not stop within 30 s is not waited for longer
    for _ in $(seq 1 60); do
      kill -0 "$kafka" 2>/dev/null || break
      sleep 0.5
    done
    kill -9 "$kafka" 2>/dev/null || true
    wait "$kafka" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
fail() {
  echo "class-data-archive: $1; its log:" >&2
  tail -n 40 "$2" >&2
  exit 1
}
cd "$work"
# -Xmx1g: the dump's heap decides whether the archive is for compressed object pointers, which every
# heap under 32 GB uses; the others keep the build's memory small. Home, temporary files and the JVMs'
# perf data in $work, so that nothing lands in the image's layer.
jvm="-Xmx1g -XX:-UsePerfData -Duser.home=$work -Djava.io.tmpdir=$work"
export HOME="$work"
: >"$work/kafka.log"
# shellcheck disable=SC2086
java $jvm -jar "$jar" kafka --port 0 --data-dir "$work/kafka" >"$work/kafka.log" 2>&1 &
kafka=$!
bootstrap=
for _ in $(seq 1 240); do
  bootstrap=$(sed -n 's/^bootstrap\.servers=//p' "$work/kafka.log")
  [ -n "$bootstrap" ] && break
  kill -0 "$kafka" 2>/dev/null || fail "Kafka did not start" "$work/kafka.log"
  sleep 0.5
done
[ -n "$bootstrap" ] || fail "Kafka gave no bootstrap.servers in 120 s" "$work/kafka.log"
# shellcheck disable=SC2086
timeout 600 java $jvm -XX:DumpLoadedClassList="$work/classes" -jar "$jar" demo \
  --bootstrap-server "$bootstrap" --workload quadratic --policies ata-auto --agents 3 --rounds 3 \
  --warmup-rounds 3 --http-port 0 --out "$work/demo" >"$work/demo.log" 2>&1 \
  || fail "the recorded job failed or took over 10 minutes" "$work/demo.log"
# shellcheck disable=SC2086
java $jvm -Xshare:dump -XX:SharedClassListFile="$work/classes" -XX:SharedArchiveFile="$archive" \
  -cp "$jar" >"$work/dump.log" 2>&1 || fail "the dump failed" "$work/dump.log"
echo "class-data-archive: $archive, $(wc -l <"$work/classes") lines listed, $(du -m "$archive" | cut -f1) MB"
