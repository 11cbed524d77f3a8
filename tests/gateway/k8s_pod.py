"""Run by Enterprise Gateway's venv for test_kubernetes.py: renders the
kernel-pod template of deploy/enterprise-gateway/ as EG's
launch_kubernetes.py does (Jinja2 with trim_blocks and lstrip_blocks, a
yaml_safe filter, every KERNEL_* variable lower-cased, the launcher's
environment appended to the container's env), checks the result against
the Kubernetes client's V1Pod model, then starts the container's command
as the kubelet would (its $(VAR)s expanded from the container's env, the
image's /opt/gpuc/bin/gpuc replaced by the gpuc under test) and waits for
its connection information at EG's own ResponseManager.

usage: python k8s_pod.py TEMPLATE GPUC_BIN   (KERNEL_* in the environment)
prints one JSON object: {"pod": ..., "info": ..., "exit": ...}"""
import asyncio
import json
import os
import re
import socket
import subprocess
import sys

import yaml
from jinja2 import Environment, FileSystemLoader
from kubernetes import client

from enterprise_gateway.services.processproxies.processproxy import ResponseManager

IMAGE_GPUC = "/opt/gpuc/bin/gpuc"


def quoted(value):
    """yaml_safe: a value as one YAML scalar or flow collection."""
    if isinstance(value, str):
        return yaml.dump(value, default_style='"', width=10000).strip()
    return yaml.dump(value, default_flow_style=True, width=10000).replace("\n...", "").strip()


def render(template: str) -> dict:
    env = Environment(loader=FileSystemLoader(os.path.dirname(template)), trim_blocks=True,
                      lstrip_blocks=True, autoescape=False)
    env.filters["yaml_safe"] = quoted
    keywords = {k.lower(): v for k, v in os.environ.items() if k.startswith("KERNEL_")}
    text = env.get_template(os.path.basename(template)).render(**keywords)
    docs = [d for d in yaml.safe_load_all(text) if d]
    assert [d["kind"] for d in docs] == ["Pod"], docs
    pod = docs[0]
    container = pod["spec"]["containers"][0]
    names = {e["name"] for e in container.get("env") or []}
    container["env"] = (container.get("env") or []) + [
        {"name": k, "value": v} for k, v in os.environ.items() if k not in names]
    return pod


def expand(word: str, env: dict) -> str:
    return re.sub(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", lambda m: env.get(m[1], m[0]), word)


async def main():
    template, gpuc = sys.argv[1], sys.argv[2]
    rm = ResponseManager.instance()
    kernel_id = os.environ["KERNEL_ID"]
    rm.register_event(kernel_id)
    # what launch_kubernetes.py sets before rendering
    os.environ.update({"PORT_RANGE": "0..0", "PUBLIC_KEY": rm.public_key,
                       "RESPONSE_ADDRESS": rm.response_address})
    pod = render(template)
    api = client.ApiClient()
    model = api._ApiClient__deserialize(pod, "V1Pod")  # raises on a malformed pod
    assert model.spec.containers[0].name == pod["spec"]["containers"][0]["name"]
    container = pod["spec"]["containers"][0]
    env = {e["name"]: e["value"] for e in container["env"]}
    argv = [expand(w, env) for w in container["command"] + container["args"]]
    assert argv[0] == IMAGE_GPUC, argv
    proc = subprocess.Popen([gpuc] + argv[1:], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    info = None
    for _ in range(600):
        try:
            info = await rm.get_connection_info(kernel_id)
            break
        except asyncio.TimeoutError:
            if proc.poll() is not None:
                break
    if info:  # EG ends a pod's kernel with SIGTERM through the comm port, then deletes the pod
        with socket.create_connection(("127.0.0.1", int(info["comm_port"]))) as s:
            s.sendall(json.dumps({"signum": 15}).encode())
    try:
        code = proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        code = "killed after 30 s"
    print(json.dumps({"pod": api.sanitize_for_serialization(model), "info": info, "exit": code}))


asyncio.run(main())
