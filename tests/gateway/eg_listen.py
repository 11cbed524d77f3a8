"""Run by Enterprise Gateway's venv for test_launcher.py: EG's own
ResponseManager (its RSA key pair and response socket) waits for one
launch. The command after the arguments is run with {kernel_id},
{response_address} and {public_key} replaced, as EG fills a kernelspec's
argv; the decrypted connection information is printed as one JSON line
(null when none came), and the command is left running, its output
dropped.

usage: python eg_listen.py KERNEL_ID SECONDS COMMAND..."""
import asyncio
import json
import subprocess
import sys

from enterprise_gateway.services.processproxies.processproxy import ResponseManager


async def main():
    kernel_id, seconds, argv = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
    rm = ResponseManager.instance()
    rm.register_event(kernel_id)
    fill = {"kernel_id": kernel_id, "response_address": rm.response_address,
            "public_key": rm.public_key}
    # the kernel outlives this script: it must not hold our caller's pipes
    proc = subprocess.Popen([w.format(**fill) for w in argv], start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    info = None
    while info is None and loop.time() < end and proc.poll() is None:
        try:
            info = await rm.get_connection_info(kernel_id)
        except asyncio.TimeoutError:
            pass
    print(json.dumps({"info": info, "pid": proc.pid, "exit": proc.poll()}), flush=True)


asyncio.run(main())
