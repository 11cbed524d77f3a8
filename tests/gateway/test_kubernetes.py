"""The Kubernetes kernelspec and pod template of deploy/enterprise-gateway/
(docs/gateway.md), checked as far as a machine without a cluster allows:
rendered as EG's launch_kubernetes.py renders it, read by the Kubernetes
client's V1Pod model, and the container's command run as the kubelet would
run it, reporting to EG's own ResponseManager (k8s_pod.py)."""
from __future__ import annotations

import json
import os
import subprocess
import uuid

import pytest

from gpuc_testing.timing import scaled

from gpuc_testing.gateway import DEPLOY, eg_python

SPEC = DEPLOY / "kernelspecs" / "gpuc_kubernetes"
HELPER = os.path.join(os.path.dirname(__file__), "k8s_pod.py")


def launch(gpuc_bin, **kernel_env) -> dict:
    python = eg_python()
    if not python.exists():
        pytest.fail(f"no Enterprise Gateway venv at {python.parent.parent} (make venv makes it)")
    spec = json.loads((SPEC / "kernel.json").read_text())
    kid = str(uuid.uuid4())
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KERNEL_", "JPY_"))}
    env.update(spec["env"])  # EG passes the kernelspec's env on
    env.update({"KERNEL_ID": kid, "KERNEL_NAMESPACE": "jupyter",
                "KERNEL_POD_NAME": f"gpuc-{kid}", "KERNEL_SERVICE_ACCOUNT_NAME": "default",
                "KERNEL_IMAGE": spec["metadata"]["process_proxy"]["config"]["image_name"],
                "KERNEL_USERNAME": "alice"})
    env.update(kernel_env)
    proc = subprocess.run([str(python), HELPER, str(SPEC / "scripts" / "kernel-pod.yaml.j2"),
                           str(gpuc_bin)], env=env, capture_output=True, text=True,
                          timeout=scaled(120))
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["kernel_id"] = kid
    return out


def test_kernelspec_names_eg_launcher_and_process_proxy():
    spec = json.loads((SPEC / "kernel.json").read_text())
    proxy = spec["metadata"]["process_proxy"]
    assert proxy["class_name"] == "enterprise_gateway.services.processproxies.k8s.KubernetesProcessProxy"
    argv = spec["argv"]
    assert argv[1].endswith("/gpuc_kubernetes/scripts/launch_kubernetes.py")
    for flag, value in [("--RemoteProcessProxy.kernel-id", "{kernel_id}"),
                        ("--RemoteProcessProxy.response-address", "{response_address}"),
                        ("--RemoteProcessProxy.public-key", "{public_key}"),
                        ("--RemoteProcessProxy.port-range", "{port_range}")]:
        assert argv[argv.index(flag) + 1] == value


def test_pod_requests_one_gpu_and_its_kernel_reports_to_the_gateway(gpuc_bin):
    out = launch(gpuc_bin)
    pod = out["pod"]
    c = pod["spec"]["containers"][0]
    assert pod["metadata"]["labels"]["kernel_id"] == out["kernel_id"]
    assert c["resources"]["limits"]["nvidia.com/gpu"] == "1"
    assert c["image"] == "registry.example.com/gpuc-kernel:latest"
    assert pod["spec"]["restartPolicy"] == "Never"
    info = out["info"]
    assert info is not None, "the pod's gpuc never reported to the gateway"
    assert info["kernel_id"] == out["kernel_id"]
    assert {"shell_port", "iopub_port", "stdin_port", "hb_port", "control_port", "key",
            "comm_port", "pid", "pgid"} <= set(info)
    assert out["exit"] == 0, "SIGTERM through the comm port did not stop the kernel cleanly"


def test_pod_takes_gpu_count_resources_and_bundle_folder(gpuc_bin):
    out = launch(gpuc_bin, KERNEL_GPUS="2", KERNEL_MEMORY="8Gi", KERNEL_MEMORY_LIMIT="16Gi",
                 KERNEL_GPUC_HOST_PATH="/srv/gpuc-1.0")
    spec = out["pod"]["spec"]
    c = spec["containers"][0]
    assert c["resources"]["limits"] == {"nvidia.com/gpu": "2", "memory": "16Gi"}
    assert c["resources"]["requests"] == {"memory": "8Gi"}
    assert {"name": "gpuc", "mountPath": "/opt/gpuc", "readOnly": True} in c["volumeMounts"]
    assert {"name": "gpuc", "hostPath": {"path": "/srv/gpuc-1.0", "type": "Directory"}} \
        in spec["volumes"]
    assert out["info"] is not None and out["exit"] == 0
