"""A cloud service's failure in its own words: the message it sent (botocore's code and
message, else the exception's text), the HTTP status, and whether the connection
itself failed (through the exception's causes, across s3fs, gcsfs and adlfs).

Apart from the store (`remote.py`), which turns these into the OSErrors the
repository code reports, because each client library has its own exception tree and
this is where all three are read.
"""

from __future__ import annotations

import re


def describe_failure(error: BaseException) -> str:
    """What the service said: botocore's error code and message, else the exception."""
    response = getattr(error, "response", None)
    if isinstance(response, dict):
        detail = response.get("Error", {})
        code, message = detail.get("Code", ""), detail.get("Message", "")
        if code or message:
            return f"{message} ({code})" if code and message else code or message
    cause = error.__cause__ or error.__context__
    text = str(error) or type(error).__name__
    if isinstance(error, OSError) and error.strerror:
        text = error.strerror
    if cause is not None and getattr(cause, "response", None) and text == type(error).__name__:
        return describe_failure(cause)
    return text


def http_status(error: BaseException) -> int | None:
    response = getattr(error, "response", None)
    if isinstance(response, dict):
        status = response.get("ResponseMetadata", {}).get("HTTPStatusCode")
        return status if isinstance(status, int) else None
    for name in ("status", "status_code", "code"):
        value = getattr(error, name, None)
        if isinstance(value, int) and 100 <= value < 600:
            return value
    return None


_CONNECTION_NAMES = re.compile(
    r"EndpointConnectionError|ConnectTimeout|ConnectionError|ClientConnectorError|"
    r"ServerDisconnected|ConnectionClosed|ReadTimeout|TimeoutError|ServiceRequestError|"
    r"ClientOSError|ProxyConnectionError|ConnectionRefused"
)


def is_connection_error(error: BaseException) -> bool:
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, (ConnectionError, TimeoutError)):
            return True
        if any(_CONNECTION_NAMES.search(k.__name__) for k in type(current).__mro__):
            return True
        current = current.__cause__ or current.__context__
    return False


def not_found_message(text: str, url: str) -> str:
    if "bucket" in text.lower() or "container" in text.lower():
        return f"{text}: {url}"
    return f"{url} does not exist"
