"""A client of the Schema Registry's REST API (Confluent's, which the project's embedded registry
serves): register a schema under a subject, fetch a schema by id. Only the standard library."""

from __future__ import annotations

import base64
import json
import threading
import urllib.error
import urllib.parse
import urllib.request
from typing import Dict, Optional

CONTENT_TYPE = "application/vnd.schemaregistry.v1+json"


class RegistryError(OSError):
    """The registry answered with an error, or could not be reached."""

    def __init__(self, message: str, status: int = 0, error_code: int = 0):
        super().__init__(message)
        self.status = status
        self.error_code = error_code


class SchemaNotFound(LookupError):
    """The registry has no schema of that id (error 40403)."""


class RegistryClient:
    """Thread-safe; caches ids by (subject, schema) and schemas by id, which never change."""

    def __init__(self, url: str, basic_auth: Optional[str] = None, timeout: float = 10.0):
        if not url or not url.startswith(("http://", "https://")):
            raise ValueError("schema registry url must start with http:// or https://, was %r" % url)
        self.url = url.split(",")[0].rstrip("/")
        self.timeout = timeout
        self._auth = None
        if basic_auth:
            self._auth = "Basic " + base64.b64encode(basic_auth.encode("utf-8")).decode("ascii")
        self._ids: Dict[tuple, int] = {}
        self._schemas: Dict[int, str] = {}
        self._lock = threading.Lock()

    def _call(self, method: str, path: str, body: Optional[dict] = None) -> dict:
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(self.url + path, data=data, method=method)
        request.add_header("Accept", CONTENT_TYPE + ", application/json")
        if data is not None:
            request.add_header("Content-Type", CONTENT_TYPE)
        if self._auth:
            request.add_header("Authorization", self._auth)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as e:
            text = e.read().decode("utf-8", "replace")
            try:
                detail = json.loads(text)
            except ValueError:
                detail = {"message": text[:200]}
            raise RegistryError(
                "%s %s: HTTP %d: %s" % (method, path, e.code, detail.get("message", "")),
                e.code, int(detail.get("error_code", e.code) or 0)) from None
        except (urllib.error.URLError, OSError, ValueError) as e:
            raise RegistryError("%s %s%s: %s" % (method, self.url, path, e)) from None

    def register(self, subject: str, schema: str) -> int:
        """Registers ``schema`` (Avro JSON text) under ``subject``; its id (the same one again
        if it is there already)."""
        key = (subject, schema)
        with self._lock:
            if key in self._ids:
                return self._ids[key]
        answer = self._call("POST", "/subjects/%s/versions" % urllib.parse.quote(subject, safe=""),
                            {"schema": schema})
        schema_id = int(answer["id"])
        with self._lock:
            self._ids[key] = schema_id
            self._schemas.setdefault(schema_id, schema)
        return schema_id

    def schema(self, schema_id: int) -> str:
        """The schema text of ``schema_id``; raises :class:`SchemaNotFound` if there is none."""
        with self._lock:
            if schema_id in self._schemas:
                return self._schemas[schema_id]
        try:
            answer = self._call("GET", "/schemas/ids/%d" % schema_id)
        except RegistryError as e:
            if e.error_code == 40403 or e.status == 404:
                raise SchemaNotFound("schema %d not found" % schema_id) from None
            raise
        text = answer["schema"]
        with self._lock:
            self._schemas[schema_id] = text
        return text

    def latest(self, subject: str) -> dict:
        """``{"subject", "version", "id", "schema"}`` of the subject's latest version."""
        return self._call("GET", "/subjects/%s/versions/latest" % urllib.parse.quote(subject, safe=""))
