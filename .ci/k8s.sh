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
print(f"ok: preStop {wait} s + shutdown grace {grace} s < terminationGracePeriodSeconds {period} s; non-root, read-only root, probes {probes}")
PY
