"""A jupyter_server configuration file that sends each websocket frame to
the browser at once (TCP_NODELAY), for a hub's single-user servers
(jupyterhub_config.py adds it with GPUC_HUB_NODELAY=1; any jupyter_server
takes it as --config=singleuser_nodelay.py).

jupyter_server writes a kernel's messages on the websocket one by one; with
Nagle's algorithm on (tornado's default) each small frame after the first
waits for the browser's delayed ACK, ~40 ms on Linux: a cell's round trip
through the hub is then ~44 ms whatever the kernel (docs/hosting.md
measures it). tornado's WebSocketHandler.set_nodelay turns that off."""
from jupyter_server.services.kernels.websocket import KernelWebsocketHandler

_open = KernelWebsocketHandler.open


async def _open_nodelay(self, *args, **kwargs):
    self.set_nodelay(True)
    return await _open(self, *args, **kwargs)


KernelWebsocketHandler.open = _open_nodelay
