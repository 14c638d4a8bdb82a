#!/usr/bin/env bash
# deploy/k8s/, checked offline: every manifest against the OpenAPI schemas of the oldest and the
# newest Kubernetes versions that kubernetes-validate ships and we support (strict: an unknown
# field is an error, as `kubectl apply --validate=strict` would say), then the timings that
# must agree with the server: the preStop wait plus SENET_SHUTDOWN_GRACE must end before
# terminationGracePeriodSeconds, or SIGKILL cuts the drain short.
set -euo pipefail
cd "$(dirname "$0")/.."
versions=(1.32.0 1.37.0)

python3 -m pip install --quiet --root-user-action=ignore 'kubernetes-validate==1.37.0'
for version in "${versions[@]}"; do
    kubernetes-validate --strict --quiet --kubernetes-version "$version" deploy/k8s/*.yaml
    echo "ok: deploy/k8s/*.yaml valid for Kubernetes $version"
done

python3 - <<'PY'
import yaml

config = yaml.safe_load(open("deploy/k8s/configmap.yaml"))["data"]
pod = yaml.safe_load(open("deploy/k8s/deployment.yaml"))["spec"]["template"]["spec"]
container = next(c for c in pod["containers"] if c["name"] == "senet")
pre_stop = container["lifecycle"]["preStop"]["exec"]["command"]
assert pre_stop[0] == "sleep", pre_stop
wait, grace = int(pre_stop[1]), int(config["SENET_SHUTDOWN_GRACE"])
period = pod["terminationGracePeriodSeconds"]
assert wait + grace < period, f"preStop {wait} s + shutdown grace {grace} s >= {period} s"
assert container["securityContext"]["readOnlyRootFilesystem"] is True
assert pod["securityContext"]["runAsUser"] == 10001, "the Dockerfile's user is 10001"
probes = {name: container[name]["httpGet"]["path"] for name in ("readinessProbe", "livenessProbe", "startupProbe")}
assert probes["readinessProbe"] == "/readyz" and probes["livenessProbe"] == "/healthz", probes
# Listening on 0.0.0.0, the server refuses to start without its public origin; /metrics is
# served only on its own listener, which the Ingress never routes to.
assert config["SENET_LISTEN"].startswith("0.0.0.0:") and config.get("SENET_PUBLIC_ORIGIN"), config
metrics_port = int(config["SENET_METRICS_LISTEN"].rsplit(":", 1)[1])
ingress = yaml.safe_load(open("deploy/k8s/ingress.yaml"))
backends = [p["backend"]["service"]["port"] for r in ingress["spec"]["rules"] for p in r["http"]["paths"]]
service = yaml.safe_load(open("deploy/k8s/service.yaml"))
ports = {p["name"]: p["targetPort"] for p in service["spec"]["ports"]}
routed = [ports.get(b.get("name"), b.get("number")) for b in backends]
assert metrics_port not in routed and all(r != "metrics" for r in routed), (routed, metrics_port)
print(f"ok: SENET_PUBLIC_ORIGIN set; /metrics on port {metrics_port}, which the Ingress does not route to")
print(f"ok: preStop {wait} s + shutdown grace {grace} s < terminationGracePeriodSeconds {period} s; non-root, read-only root, probes {probes}")
PY
