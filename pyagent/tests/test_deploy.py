"""The compose service and the Kubernetes component run the Python agent with flags it has."""

import pytest

from conftest import REPO, require_packages

require_packages("avro", "numpy", "prometheus_client", "confluent_kafka")
yaml = pytest.importorskip("yaml", reason="needs the Debian package python3-yaml")

from pyagent.cli import parser  # noqa: E402


def parses(args):
    args = [a.replace("$(BOOTSTRAP_SERVERS)", "kafka:9092").replace("$(SCHEMA_REGISTRY_URL)", "http://r:8081")
            for a in args]
    parsed = parser().parse_args(args)
    assert parsed.bootstrap_servers and parsed.schema_registry_url and parsed.metrics_port == 9400


def test_compose_runs_real_flags():
    services = yaml.safe_load((REPO / "deploy/compose/compose.yaml").read_text())["services"]
    service = services["pyagent"]
    assert service["build"]["dockerfile"] == "pyagent/Dockerfile" and service["profiles"] == ["python"]
    parses(service["command"])


def test_kubernetes_runs_real_flags_with_probes():
    deployment = yaml.safe_load((REPO / "deploy/k8s/components/python-agent/pyagent.yaml").read_text())
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert container["livenessProbe"]["httpGet"]["path"] == "/health"
    assert container["readinessProbe"]["httpGet"]["path"] == "/ready"
    parses(container["args"])


def test_the_image_runs_the_module():
    dockerfile = (REPO / "pyagent/Dockerfile").read_text()
    assert 'ENTRYPOINT ["python3", "-m", "pyagent"]' in dockerfile
    for package in ("python3-confluent-kafka", "python3-avro", "python3-torch", "python3-prometheus-client",
                    "python3-numpy"):
        assert package in dockerfile
