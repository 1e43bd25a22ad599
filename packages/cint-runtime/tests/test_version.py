"""cint-runtime is on the version train of its siblings."""
import cint_abi
import cint_runtime


def test_version_agrees_with_cint_abi():
    assert cint_runtime.__version__ == cint_abi.__version__ == "0.2.0"
