"""Avro records in the Schema Registry wire format, as the Java parts write them.

A record value is the magic byte 0, the writer schema's id (4 bytes, big-endian), then the Avro
binary body. Writing, the agent registers its own schema of the record under the topic's subject
(``<topic>-value``) once and puts the id the registry gives in front of every record. Reading, it
fetches the writer schema of each id once and resolves it to its own (reader) schema, so a record
written with a newer schema (a field added with a default) still reads, and one written with an
older schema gets the defaults.

The schemas are the project's ``.avsc`` files, bundled in ``pyagent/schemas``. Two of them use
types defined in others (``TimingStatus`` in RoundEvent, ``TensorEncoding`` in TaskResult), as
the Java build imports them; :func:`self_contained` inlines such a type at its first use, in field
order, which is how Avro's Java ``Schema.toString()`` writes them, so the registry sees the very
schema the Java parts register and serves one id to both.
"""

from __future__ import annotations

import copy
import io
import json
import struct
import threading
from importlib import resources
from typing import Any, Callable, Dict, Optional

import avro.io
import avro.schema

MAGIC_BYTE = 0
HEADER_LENGTH = 5
NAMESPACE = "io.ata.schemas"
# The Java build generates java.lang.String fields, and Avro writes that into the schema as a
# property of every string type: the registry compares schemas with it, so ours carry it too.
JAVA_STRING = {"type": "string", "avro.java.string": "String"}
PRIMITIVES = {"null", "boolean", "int", "long", "float", "double", "bytes", "string"}

# every record a topic carries, by the file that defines it
RECORDS = (
    "DeadLetter",
    "Evaluation",
    "JobState",
    "JobWorkerState",
    "ModelVersion",
    "OptimizerState",
    "RoundEvent",
    "TaskAssignment",
    "TaskResult",
    "TaskTiming",
    "WorkerHeartbeat",
)


class DecodeError(ValueError):
    """A value that is not a record of the expected type: its reason goes into a dead letter."""


def frame(schema_id: int, body: bytes) -> bytes:
    """Header plus ``body``: a complete record value."""
    return struct.pack(">bI", MAGIC_BYTE, schema_id) + body


def schema_id_of(value: Optional[bytes]) -> int:
    """The schema id in the header of ``value``; raises :class:`DecodeError` saying what is wrong."""
    if value is None:
        raise DecodeError("no value (a tombstone)")
    if len(value) == 0:
        raise DecodeError("record too short: empty (0 bytes), expected magic byte 0 + 4-byte schema id + Avro body")
    if value[0] != MAGIC_BYTE:
        raise DecodeError("unknown magic byte 0x%02x (not Schema Registry wire format)" % value[0])
    if len(value) < HEADER_LENGTH:
        raise DecodeError(
            "record too short: %d bytes, expected at least 5 (magic byte 0 + 4-byte schema id)" % len(value))
    return struct.unpack(">I", value[1:5])[0]


def _raw_schemas() -> Dict[str, Any]:
    folder = resources.files("pyagent").joinpath("schemas")
    return {name: json.loads(folder.joinpath(name + ".avsc").read_text("utf-8")) for name in RECORDS}


def _full(name: str, namespace: str) -> str:
    return name if "." in name else namespace + "." + name


def _named_definitions(raw: Dict[str, Any]) -> Dict[str, Any]:
    """Every named type (record, enum, fixed) the files define, by full name."""
    table: Dict[str, Any] = {}

    def walk(node: Any, namespace: str) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item, namespace)
        elif isinstance(node, dict):
            kind = node.get("type")
            if kind in ("record", "error", "enum", "fixed") and "name" in node:
                ns = node.get("namespace", namespace)
                full = _full(node["name"], ns)
                table.setdefault(full, (node, ns))
                for field in node.get("fields", []):
                    walk(field.get("type"), ns)
            elif kind in ("array",):
                walk(node.get("items"), namespace)
            elif kind in ("map",):
                walk(node.get("values"), namespace)
            elif isinstance(kind, (dict, list)):
                walk(kind, namespace)

    for node in raw.values():
        walk(node, NAMESPACE)
    return table


def self_contained(record: str, raw: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """The schema of ``record`` with every named type it uses defined at its first use."""
    raw = raw if raw is not None else _raw_schemas()
    table = _named_definitions(raw)
    defined = set()

    def walk(node: Any, namespace: str) -> Any:
        if isinstance(node, str):
            if node == "string":
                return dict(JAVA_STRING)
            if node in PRIMITIVES:
                return node
            full = _full(node, namespace)
            if full in defined:
                return node
            if full not in table:
                raise ValueError("schema %s uses the undefined type %s" % (record, node))
            definition, ns = table[full]
            return walk(copy.deepcopy(definition), ns)
        if isinstance(node, list):
            return [walk(item, namespace) for item in node]
        if isinstance(node, dict):
            kind = node.get("type")
            if kind in ("record", "error", "enum", "fixed") and "name" in node:
                ns = node.get("namespace", namespace)
                defined.add(_full(node["name"], ns))
                for field in node.get("fields", []):
                    field["type"] = walk(field["type"], ns)
                return node
            if kind == "array":
                node["items"] = walk(node["items"], namespace)
                return node
            if kind == "map":
                node["values"] = walk(node["values"], namespace)
                return node
            if isinstance(kind, (dict, list)) or (isinstance(kind, str) and kind not in PRIMITIVES):
                node["type"] = walk(kind, namespace)
            elif kind == "string":
                node.setdefault("avro.java.string", "String")
            return node
        return node

    return walk(copy.deepcopy(raw[record]), NAMESPACE)


def _float_defaults(node: Any) -> Any:
    """A copy of a schema whose float and double fields have float defaults: 0 and 0.0 are one
    default to Avro, but Python's reader takes only a float (the text we register keeps Java's 0)."""
    if isinstance(node, list):
        return [_float_defaults(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _float_defaults(value) for key, value in node.items()}
    for field in out.get("fields", []) if out.get("type") in ("record", "error") else []:
        first = field["type"][0] if isinstance(field["type"], list) else field["type"]
        if isinstance(first, dict):
            first = first.get("type")
        if first in ("float", "double") and isinstance(field.get("default"), int):
            field["default"] = float(field["default"])
    return out


def subject(topic: str, is_key: bool = False) -> str:
    """Confluent's TopicNameStrategy: ``<topic>-value`` (``-key`` for keys)."""
    return topic + ("-key" if is_key else "-value")


class Codec:
    """Encodes and decodes the records of the project's topics through a Schema Registry.

    ``registry`` needs two methods: ``register(subject, schema_text) -> id`` and
    ``schema(id) -> schema_text``. Thread-safe: schema ids and readers are cached under a lock.
    """

    def __init__(self, registry, schemas: Optional[Dict[str, Dict[str, Any]]] = None):
        self.registry = registry
        raw = _raw_schemas()
        texts = schemas or {name: self_contained(name, raw) for name in RECORDS}
        self.schema_texts = {name: json.dumps(obj) for name, obj in texts.items()}
        self.schemas = {name: avro.schema.parse(json.dumps(_float_defaults(obj))) for name, obj in texts.items()}
        self._writers = {name: avro.io.DatumWriter(s) for name, s in self.schemas.items()}
        self._ids: Dict[tuple, int] = {}
        self._writer_schemas: Dict[int, Any] = {}
        self._readers: Dict[tuple, Any] = {}
        self._lock = threading.Lock()

    def schema_id(self, topic: str, record: str) -> int:
        """The id of our schema of ``record`` under ``topic``'s subject, registered on first use."""
        key = (topic, record)
        with self._lock:
            known = self._ids.get(key)
        if known is not None:
            return known
        schema_id = self.registry.register(subject(topic), self.schema_texts[record])
        with self._lock:
            self._ids[key] = schema_id
        return schema_id

    def encode(self, topic: str, record: str, datum: Dict[str, Any]) -> bytes:
        """``datum`` (a dict in the schema's field names) as the bytes of a record of ``topic``."""
        schema_id = self.schema_id(topic, record)
        out = io.BytesIO()
        out.write(struct.pack(">bI", MAGIC_BYTE, schema_id))
        self._writers[record].write(datum, avro.io.BinaryEncoder(out))
        return out.getvalue()

    def _reader(self, schema_id: int, record: str):
        key = (schema_id, record)
        with self._lock:
            reader = self._readers.get(key)
        if reader is not None:
            return reader
        try:
            text = self.registry.schema(schema_id)
        except LookupError as e:
            raise DecodeError("unknown schema id %d (the Schema Registry does not have it)" % schema_id) from e
        try:
            writer = avro.schema.parse(text)
        except Exception as e:  # noqa: BLE001 - any schema the library refuses
            raise DecodeError("writer schema id %d does not parse: %s" % (schema_id, e)) from e
        reader = avro.io.DatumReader(writer, self.schemas[record])
        with self._lock:
            self._readers[key] = reader
        return reader

    def decode(self, record: str, value: Optional[bytes]) -> Dict[str, Any]:
        """The ``record`` that ``value`` holds; raises :class:`DecodeError` with the reason.

        A registry that cannot be reached raises its own error (``OSError``), not DecodeError: the
        record is then read again later, never dead-lettered for it.
        """
        schema_id = schema_id_of(value)
        reader = self._reader(schema_id, record)
        body = io.BytesIO(value)
        body.seek(HEADER_LENGTH)
        try:
            datum = reader.read(avro.io.BinaryDecoder(body))
        except Exception as e:  # noqa: BLE001 - a hostile body may break the library anywhere
            raise DecodeError("malformed Avro body for %s written with schema id %d (%d bytes): %s: %s" % (
                record, schema_id, len(value) - HEADER_LENGTH, type(e).__name__, e)) from e
        if body.tell() != len(value):
            raise DecodeError(
                "malformed Avro body: bytes left over after a complete %s written with schema id %d "
                "(wrong schema id, or two records in one?)" % (record, schema_id))
        return datum


Decoder = Callable[[Optional[bytes]], Dict[str, Any]]
