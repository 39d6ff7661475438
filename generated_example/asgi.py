"""The gift server as an ASGI app, for several uvicorn workers behind a load balancer:

    uvicorn asgi:app --app-dir generated_example --host 127.0.0.1 --port 8000 --workers 4

Every request stands alone (stateless Streamable HTTP), so any worker can answer it.
Workers must share the key that seals `requestState`: set MCP_REQUEST_STATE_KEY to 32 or more
random bytes, e.g. `python -c "import secrets; print(secrets.token_hex(32))"`.
"""

from __future__ import annotations

from app import GiftShop
from gift_server import create_app

app = create_app(GiftShop())
