"""Which LLM failures are transient (worth another try) and which mean "unreachable".

A transient failure is one that may pass if we wait: the server refused or dropped the
connection, a request timed out, or it answered HTTP 408, 429 or 5xx. Anything else (400,
401, 403, 404, a bad schema, a parsing error) is permanent. Nothing here imports LangChain
or a provider SDK: classes are recognised by name.
"""

from __future__ import annotations

from collections.abc import Iterator

#: HTTP statuses worth another try: request timeout, rate limit, and every server error.
TRANSIENT_STATUSES = frozenset({408, 429})

#: Exception class names (anywhere in the MRO) that mean "try again later".
_TRANSIENT_TYPE_NAMES = frozenset(
    {
        "TimeoutException",  # httpx / httpx2: connect, read, write and pool timeouts
        "NetworkError",  # httpx / httpx2: connect, read, write, close errors
        "RemoteProtocolError",  # httpx / httpx2: the server dropped the connection
        "APIConnectionError",  # openai / anthropic: could not reach the server
        "APITimeoutError",  # openai / anthropic
        "InternalServerError",  # openai / anthropic 5xx
        "RateLimitError",  # openai / anthropic 429
        "ServiceUnavailable",  # google.api_core 503
        "TooManyRequests",  # google.api_core 429
        "ResourceExhausted",  # google.api_core 429
        "DeadlineExceeded",  # google.api_core 504
    }
)

def exception_chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc``, then its ``__cause__`` / ``__context__`` ancestors, each once."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def status_code_of(exc: BaseException) -> int | None:
    """Return the HTTP status an exception carries (``status_code`` or ``response.status_code``)."""
    for candidate in (exc, getattr(exc, "response", None)):
        code = getattr(candidate, "status_code", None)
        if isinstance(code, int) and 100 <= code <= 599:
            return code
    return None


def is_transient(exc: BaseException) -> bool:
    """Whether ``exc`` (or what caused it) is a failure that a later retry may get past.

    An HTTP status decides first: 408, 429 and 5xx are transient, any other 4xx is
    not (even when a transient error appears further down the chain).
    """
    for error in exception_chain(exc):
        status = status_code_of(error)
        if status is not None:
            return status in TRANSIENT_STATUSES or status >= 500
        if isinstance(error, ConnectionError | TimeoutError):
            return True
        if any(cls.__name__ in _TRANSIENT_TYPE_NAMES for cls in type(error).__mro__):
            return True
    return False


def is_connection_error(exc: BaseException) -> bool:
    """Whether ``exc`` (or anything in its cause chain) means "could not reach the LLM".

    Connection refused / unreachable and connect timeouts count; a slow answer (read
    timeout), an HTTP error status, or a connection the server dropped in the middle of
    its reply (the client's "connection error" wrapping httpx's ``RemoteProtocolError``)
    does not.
    """
    chain = list(exception_chain(exc))
    if any({c.__name__ for c in type(e).__mro__} & {"RemoteProtocolError", "ReadError"}
           for e in chain):
        return False  # it was reached, then dropped the connection
    for error in chain:
        if isinstance(error, ConnectionError):  # incl. ConnectionRefusedError, ollama's
            return True
        names = {cls.__name__ for cls in type(error).__mro__}
        if names & {"ConnectError", "ConnectTimeout"}:  # httpx, httpx2
            return True
        if "APIConnectionError" in names and "APITimeoutError" not in names:
            return True  # openai / anthropic: could not connect
        if "failed to connect" in str(error).lower():
            return True
    return False
