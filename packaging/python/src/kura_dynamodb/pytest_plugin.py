"""pytest plugin: one Kura server for the session, emptied before each test that asks
for `dynamodb` (a reset takes about a millisecond; creating and deleting tables per test
takes longer and leaks between tests when one fails)."""

import os

import pytest

from . import KuraContainer, KuraServer


def pytest_addoption(parser):
    group = parser.getgroup("kura")
    group.addoption("--kura", choices=["binary", "container"],
                    default=os.environ.get("KURA_PYTEST_MODE", "binary"),
                    help="run Kura from its binary (default) or its container image "
                         "($KURA_IMAGE, default kura:latest)")


@pytest.fixture(scope="session")
def kura(request):
    """The session's Kura server (`KuraServer` or `KuraContainer`), in memory."""
    if request.config.getoption("--kura") == "container":
        server = KuraContainer()
    else:
        server = KuraServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def kura_endpoint(kura):
    """The session server's URL, e.g. http://127.0.0.1:41234."""
    return kura.endpoint


@pytest.fixture()
def dynamodb(kura):
    """A boto3 DynamoDB client of an empty server."""
    kura.reset()
    return kura.client()


@pytest.fixture()
def dynamodb_resource(kura):
    """A boto3 DynamoDB resource of an empty server."""
    kura.reset()
    return kura.resource()
