"""The logger the runtime writes to: the generated package's own (e.g. `gift_server`).

This module is `<package>/_runtime/log.py` in a generated package, so its records are
named after `<package>`, the logger a deployment configures. Records never reach the
client: they carry what the client must not see (tracebacks, schema violations).
"""

from __future__ import annotations

import logging

logger = logging.getLogger((__package__ or __name__).rpartition(".")[0] or __name__)
