"""The wire format, the schemas and the registry: records round-trip, bad values are refused with
a reason, schema evolution both ways, and the ids the real registry serves."""

import copy
import io
import json
import os
import struct
import urllib.request

import pytest

from conftest import REPO, require_packages

require_packages("avro")

import avro.io  # noqa: E402
import avro.schema  # noqa: E402

from pyagent.codec import RECORDS, Codec, DecodeError, frame, schema_id_of, self_contained  # noqa: E402
from pyagent.registry import RegistryClient, SchemaNotFound  # noqa: E402


class FakeRegistry:
    def __init__(self):
        self.by_id = {}
        self.ids = {}

    def register(self, subject, schema):
        key = json.dumps(json.loads(schema), sort_keys=True)
        if key not in self.ids:
            self.ids[key] = len(self.ids) + 1
            self.by_id[self.ids[key]] = schema
        return self.ids[key]

    def schema(self, schema_id):
        if schema_id not in self.by_id:
            raise SchemaNotFound(schema_id)
        return self.by_id[schema_id]


ASSIGNMENT = {"job": "j", "round": 3, "model_version": 2, "worker_id": "w", "partition": 1,
              "task_ids": ["j/3/0", "j/3/1"], "batch": 4, "policy": "ata-auto", "created_ms": 7,
              "deadline_ms": 0.0, "backup_of": ""}


def test_the_bundled_schemas_are_the_projects():
    for name in RECORDS:
        bundled = (REPO / "pyagent" / "pyagent" / "schemas" / (name + ".avsc")).read_text()
        assert json.loads(bundled) == json.loads((REPO / "schemas/src/main/avro" / (name + ".avsc")).read_text()), name


def test_types_of_other_files_are_defined_at_their_first_use():
    model = self_contained("ModelVersion")
    encoding = [f for f in model["fields"] if f["name"] == "encoding"][0]
    assert encoding["type"]["type"] == "enum" and encoding["type"]["name"] == "TensorEncoding"
    result = json.dumps(self_contained("TaskResult"))
    assert result.count('"name": "TimingStatus"') == 1
    for name in RECORDS:
        avro.schema.parse(json.dumps(self_contained(name)))  # self-contained: parses alone


def test_strings_carry_the_java_property_so_the_registry_sees_the_java_schema():
    heartbeat = self_contained("WorkerHeartbeat")
    worker_id = [f for f in heartbeat["fields"] if f["name"] == "worker_id"][0]
    assert worker_id["type"] == {"type": "string", "avro.java.string": "String"}


def test_records_round_trip_with_the_header():
    codec = Codec(FakeRegistry())
    value = codec.encode("ata.tasks", "TaskAssignment", ASSIGNMENT)
    assert value[0] == 0 and schema_id_of(value) == 1
    assert codec.decode("TaskAssignment", value) == ASSIGNMENT


@pytest.mark.parametrize("value, reason", [
    (b"", "empty"),
    (b"\x07abcdef", "magic byte 0x07"),
    (b"\x00\x00\x01", "too short"),
    (frame(99, b"\x02"), "unknown schema id 99"),
])
def test_bad_headers_say_why(value, reason):
    with pytest.raises(DecodeError, match=reason):
        Codec(FakeRegistry()).decode("TaskAssignment", value)


def test_bad_bodies_say_why():
    codec = Codec(FakeRegistry())
    value = codec.encode("ata.tasks", "TaskAssignment", ASSIGNMENT)
    with pytest.raises(DecodeError, match="malformed Avro body"):
        codec.decode("TaskAssignment", value[: len(value) // 2])
    with pytest.raises(DecodeError, match="left over"):
        codec.decode("TaskAssignment", value + b"\x00\x00")
    with pytest.raises(DecodeError, match="malformed"):
        codec.decode("TaskAssignment", value[:5] + os.urandom(64))
    with pytest.raises(DecodeError, match="tombstone"):
        codec.decode("TaskAssignment", None)


def evolved(record, field):
    schema = self_contained(record)
    schema["fields"].append(field)
    return schema


def write_with(schema, datum, schema_id):
    out = io.BytesIO()
    out.write(struct.pack(">bI", 0, schema_id))
    avro.io.DatumWriter(avro.schema.parse(json.dumps(schema))).write(datum, avro.io.BinaryEncoder(out))
    return out.getvalue()


def test_a_field_added_by_a_newer_writer_is_skipped():
    registry = FakeRegistry()
    codec = Codec(registry)
    newer = evolved("TaskAssignment", {"name": "priority", "type": ["null", "int"], "default": None})
    schema_id = registry.register("ata.tasks-value", json.dumps(newer))
    value = write_with(newer, dict(ASSIGNMENT, priority=5), schema_id)
    assert codec.decode("TaskAssignment", value) == ASSIGNMENT


def test_an_older_writer_gets_the_defaults():
    registry = FakeRegistry()
    codec = Codec(registry)
    older = self_contained("TaskAssignment")
    older["fields"] = [f for f in older["fields"] if f["name"] not in ("deadline_ms", "backup_of")]
    schema_id = registry.register("ata.tasks-value", json.dumps(older))
    datum = {k: v for k, v in ASSIGNMENT.items() if k not in ("deadline_ms", "backup_of")}
    decoded = codec.decode("TaskAssignment", write_with(older, datum, schema_id))
    assert decoded["deadline_ms"] == 0 and decoded["backup_of"] == ""


# ---- against the real registry (./ata broker's embedded one) ----

def get(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read())


def test_records_carry_ids_the_registry_serves(cluster):
    codec = Codec(RegistryClient(cluster.registry))
    value = codec.encode("codec.tasks", "TaskAssignment", ASSIGNMENT)
    schema_id = schema_id_of(value)
    served = get("%s/schemas/ids/%d" % (cluster.registry, schema_id))["schema"]
    assert avro.schema.parse(served) == codec.schemas["TaskAssignment"]
    assert get("%s/subjects/codec.tasks-value/versions" % cluster.registry) == [1]
    again = Codec(RegistryClient(cluster.registry)).encode("codec.tasks", "TaskAssignment", ASSIGNMENT)
    assert schema_id_of(again) == schema_id, "the same schema keeps its id"
    assert Codec(RegistryClient(cluster.registry)).decode("TaskAssignment", value) == ASSIGNMENT


def test_an_added_optional_field_registers_and_reads(cluster):
    registry = RegistryClient(cluster.registry)
    codec = Codec(registry)
    codec.encode("evolution.tasks", "TaskAssignment", ASSIGNMENT)  # version 1: ours
    newer = evolved("TaskAssignment", {"name": "priority", "type": ["null", "int"], "default": None})
    schema_id = registry.register("evolution.tasks-value", json.dumps(newer))  # BACKWARD: accepted
    assert get("%s/subjects/evolution.tasks-value/versions" % cluster.registry) == [1, 2]
    value = write_with(newer, dict(ASSIGNMENT, priority=9), schema_id)
    assert Codec(RegistryClient(cluster.registry)).decode("TaskAssignment", value) == ASSIGNMENT
