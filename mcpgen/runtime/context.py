"""What a handler can do with the request it is serving: progress, logging, asking the client.

Asking the client (elicitation, sampling, roots) works in both protocol eras. On
2025-11-25 it is a request to the client while the call waits. On 2026-07-28 the
server answers `input_required` with the questions; the client asks its user and
retries the same call with the answers, and the handler runs again from the start,
finding earlier answers in the signed `requestState`. So a handler that asks must be
safe to re-run up to the point where it asks.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ServerMessageMetadata
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel

from .errors import INVALID_PARAMS, MISSING_CAPABILITY

if TYPE_CHECKING:  # server.py imports the tables, which import this module
    from .server import GeneratedServer

InputRequest = types.ElicitRequest | types.CreateMessageRequest | types.ListRootsRequest
InputResponse = types.ElicitResult | types.CreateMessageResult | types.ListRootsResult
R = TypeVar("R", bound=BaseModel)

_RESULT_TYPES: dict[str, type[InputResponse]] = {
    "elicitation/create": types.ElicitResult,
    "sampling/createMessage": types.CreateMessageResult,
    "roots/list": types.ListRootsResult,
}
Capability = Literal["elicitation", "sampling", "roots"]
_CAPABILITIES: dict[str, Capability] = {
    "elicitation/create": "elicitation",
    "sampling/createMessage": "sampling",
    "roots/list": "roots",
}


class InputRequired(Exception):
    """Raised on 2026-07-28 when a handler needs answers the client has not given yet."""

    def __init__(
        self, requests: Mapping[str, InputRequest], answers: Mapping[str, Any]
    ) -> None:
        super().__init__(sorted(requests))
        self.result = types.InputRequiredResult(
            input_requests=dict(requests),
            request_state=json.dumps({"answers": dict(answers)}, sort_keys=True),
        )


def elicitation(message: str, schema: Mapping[str, Any]) -> types.ElicitRequest:
    """A question for the user, answered in the shape of `schema` (a flat JSON Schema object)."""
    params = types.ElicitRequestFormParams.model_validate(
        {"message": message, "requestedSchema": dict(schema)}
    )
    return types.ElicitRequest(params=params)


def sampling(
    prompt: str | Sequence[types.SamplingMessage], max_tokens: int = 1000
) -> types.CreateMessageRequest:
    """A request for the client's model to answer `prompt`."""
    messages = (
        [types.SamplingMessage(role="user", content=types.TextContent(text=prompt))]
        if isinstance(prompt, str)
        else list(prompt)
    )
    return types.CreateMessageRequest(
        params=types.CreateMessageRequestParams(
            messages=messages, max_tokens=max_tokens
        )
    )


def roots() -> types.ListRootsRequest:
    """A request for the client's roots (the folders it lets the server see)."""
    return types.ListRootsRequest()


@dataclass(frozen=True)
class Auth:
    """Who called, by the access token the request carried (HTTP with authorization).
    `subject` is unique per issuer only (`claims["iss"]`)."""

    subject: str | None
    client_id: str
    scopes: tuple[str, ...]
    claims: Mapping[str, Any]
    expires_at: int | None


class Context:
    """The request a handler is serving, and what it may do with it."""

    def __init__(
        self,
        request: ServerRequestContext[Any, Any],
        server: GeneratedServer | None = None,
    ) -> None:
        self.request = request
        self.server = server
        self._asked = 0

    @property
    def protocol_version(self) -> str:
        return self.request.protocol_version

    @property
    def is_legacy(self) -> bool:
        """True for the 2025-11-25 handshake era, False for stateless 2026-07-28."""
        return self.request.protocol_version not in MODERN_PROTOCOL_VERSIONS

    @property
    def auth(self) -> Auth | None:
        """The caller's access token, as the server's authorization checked it; None
        on stdio, or over HTTP without authorization."""
        http_request = self.request.request
        user = getattr(http_request, "scope", {}).get("user")
        token = getattr(user, "access_token", None)
        if token is None:
            return None
        return Auth(
            subject=token.subject,
            client_id=token.client_id,
            scopes=tuple(token.scopes),
            claims=dict(token.claims or {}),
            expires_at=token.expires_at,
        )

    def client_supports(self, capability: Capability) -> bool:
        """Whether the client declared the capability (on 2026-07-28, on this very request)."""
        declared = self.request.session.client_capabilities
        return declared is not None and getattr(declared, capability, None) is not None

    def require(self, capability: Capability) -> None:
        """Stop with the protocol's missing-capability error (-32021) unless the client has it."""
        if not self.client_supports(capability):
            raise MCPError(
                MISSING_CAPABILITY,
                f"This request needs the client capability '{capability}'.",
                {"requiredCapabilities": {capability: {}}},
            )

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Send a progress notification, if the caller asked for progress."""
        await self.request.session.report_progress(progress, total, message)

    async def log(
        self, level: types.LoggingLevel, data: Any, logger_name: str | None = None
    ) -> None:
        """Send a log message to the client, where the client asked for that level."""
        if self.server is not None and not self.server.log_level_allows(
            self.request.session, level
        ):
            return
        with warnings.catch_warnings():
            # Logging is deprecated in 2026-07-28, but 2025-11-25 clients still read it.
            warnings.simplefilter("ignore")
            await self.request.session.send_log_message(
                level, data, logger_name, self.request.request_id
            )

    async def ask(
        self, requests: Mapping[str, InputRequest], *, before_task: bool = False
    ) -> dict[str, InputResponse]:
        """Ask the client several things at once; the answers come back under the same keys.

        `before_task=True` matters only to a call that may become a 2026-07-28 task (see
        `tasks_modern`): the question is asked before any task starts, as on a plain call
        (`input_required` on the call itself), instead of making the call a task that waits
        for the answer."""
        for request in requests.values():
            self.require(_CAPABILITIES[request.method])
        if self.is_legacy:
            return {key: await self._send(request) for key, request in requests.items()}
        answers = self._answers()
        missing = {
            key: request for key, request in requests.items() if key not in answers
        }
        if missing:
            raise InputRequired(missing, answers)
        return {key: _parse(requests[key], answers[key]) for key in requests}

    async def elicit(
        self,
        message: str,
        schema: Mapping[str, Any],
        *,
        key: str | None = None,
        before_task: bool = False,
    ) -> types.ElicitResult:
        """Ask the user a question; `result.action` says whether they answered."""
        question = {self._key(key): elicitation(message, schema)}
        answer = await self.ask(question, before_task=before_task)
        return _only(answer, types.ElicitResult)

    async def sample(
        self,
        prompt: str | Sequence[types.SamplingMessage],
        max_tokens: int = 1000,
        *,
        key: str | None = None,
        before_task: bool = False,
    ) -> types.CreateMessageResult:
        """Ask the client's model."""
        question = {self._key(key): sampling(prompt, max_tokens)}
        answer = await self.ask(question, before_task=before_task)
        return _only(answer, types.CreateMessageResult)

    async def list_roots(
        self, *, key: str | None = None, before_task: bool = False
    ) -> types.ListRootsResult:
        answer = await self.ask({self._key(key): roots()}, before_task=before_task)
        return _only(answer, types.ListRootsResult)

    async def notify_tools_changed(self) -> None:
        if self.server is not None:
            await self.server.notify_tools_changed()

    async def notify_prompts_changed(self) -> None:
        if self.server is not None:
            await self.server.notify_prompts_changed()

    async def notify_resources_changed(self) -> None:
        if self.server is not None:
            await self.server.notify_resources_changed()

    async def notify_resource_updated(self, uri: str) -> None:
        if self.server is not None:
            await self.server.notify_resource_updated(uri)

    def _key(self, key: str | None) -> str:
        # Questions asked one by one are numbered in the order the handler asks them,
        # which is the same on every run of a deterministic handler.
        self._asked += 1
        return key or f"input-{self._asked}"

    def _answers(self) -> dict[str, Any]:
        params = self.request.params or {}
        answers: dict[str, Any] = {}
        state = params.get("requestState")
        if isinstance(state, str):
            try:
                answers.update(json.loads(state)["answers"])
            except (ValueError, KeyError, TypeError):
                raise MCPError(INVALID_PARAMS, "Invalid requestState") from None
        responses = params.get("inputResponses")
        if isinstance(responses, Mapping):
            answers.update(responses)
        return answers

    async def _send(self, request: InputRequest) -> InputResponse:
        metadata = ServerMessageMetadata(related_request_id=self.request.request_id)
        result = await self.request.session.send_request(
            request, _RESULT_TYPES[request.method], metadata=metadata
        )
        return _parse(request, result)


def _parse(request: InputRequest, answer: Any) -> InputResponse:
    """The client's answer to `request`, as its result model (-32602 if it has another shape)."""
    if isinstance(answer, BaseModel):
        answer = answer.model_dump(by_alias=True, exclude_none=True)
    try:
        return _RESULT_TYPES[request.method].model_validate(answer)
    except ValueError:
        raise MCPError(
            INVALID_PARAMS, f"The answer to '{request.method}' has the wrong shape."
        ) from None


def _only(answers: Mapping[str, InputResponse], kind: type[R]) -> R:
    [answer] = answers.values()
    assert isinstance(answer, kind)
    return answer
