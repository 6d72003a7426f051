#!/bin/sh
# class-data-archive.sh JAR ARCHIVE: writes a class-data sharing archive (JDK AppCDS) of the classes
# the ata parts load, so that a JVM started with -XX:SharedArchiveFile=ARCHIVE maps them instead of
# loading, verifying and linking them again: a broker restarted after a crash serves about 1.5 s
# sooner on 2 busy cores (docs/containers.md). The Dockerfile runs it at the image's build.
#
# What it records is a short job on a Kafka of its own: the broker, a trainer and three workers in
# one JVM ('ata demo --workload quadratic'), Kafka in another so that its classes stay out. Nothing
# is left behind but ARCHIVE. It needs only the jar and java on the PATH, and 127.0.0.1.
set -eu
jar=$1
archive=$2
work=$(mktemp -d)
kafka=
cleanup() {
  [ -z "$kafka" ] || kill "$kafka" 2>/dev/null || true
  [ -z "$kafka" ] || wait "$kafka" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "class-data-archive: $1; its log:" >&2
  tail -n 40 "$2" >&2
  exit 1
}
# user.home in $work: the parts' default state and data directories go there, not into the image
java -Duser.home="$work" -jar "$jar" kafka --port 0 >"$work/kafka.log" 2>&1 &
kafka=$!
bootstrap=
for _ in $(seq 1 240); do
  bootstrap=$(sed -n 's/^bootstrap\.servers=//p' "$work/kafka.log")
  [ -n "$bootstrap" ] && break
  kill -0 "$kafka" 2>/dev/null || fail "Kafka did not start" "$work/kafka.log"
  sleep 0.5
done
[ -n "$bootstrap" ] || fail "Kafka gave no bootstrap.servers in 120 s" "$work/kafka.log"
java -Duser.home="$work" -XX:DumpLoadedClassList="$work/classes" -jar "$jar" demo \
  --bootstrap-server "$bootstrap" --workload quadratic --policies ata-auto --agents 3 --rounds 3 \
  --http-port 0 --out "$work/demo" >"$work/demo.log" 2>&1 || fail "the recorded job failed" "$work/demo.log"
java -Xshare:dump -XX:SharedClassListFile="$work/classes" -XX:SharedArchiveFile="$archive" -cp "$jar" \
  >"$work/dump.log" 2>&1 || fail "the dump failed" "$work/dump.log"
echo "class-data-archive: $archive, $(wc -l <"$work/classes") classes listed, $(du -m "$archive" | cut -f1) MB"
