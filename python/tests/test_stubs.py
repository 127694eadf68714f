"""The typing the package ships (PEP 561): py.typed beside the modules, and
_sieve.pyi naming exactly what the compiled module exposes, so the stub
cannot drift from python/src/sieve_module.cc silently."""
import ast
import pathlib

from crawl_sieve import _sieve

PACKAGE = pathlib.Path(_sieve.__file__).parent


def stub_names():
    """The stub's module-level names and each class's members (type aliases,
    plain assignments to underscore names, are the stub's own)."""
    tree = ast.parse((PACKAGE / "_sieve.pyi").read_text())
    names, classes = set(), {}
    for node in tree.body:
        if isinstance(node, ast.AnnAssign):
            names.add(node.target.id)
        elif isinstance(node, ast.ClassDef):
            names.add(node.name)
            classes[node.name] = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
    return names, classes


def exposed(namespace):
    """What pybind11 defined: neither dunders nor pybind11's own helpers."""
    return {n for n in namespace if not n.startswith("__") and not n.startswith("_pybind11")}


def test_the_stub_names_exactly_what_the_module_exposes():
    names, classes = stub_names()
    assert names == exposed(dir(_sieve))
    for name, members in classes.items():
        assert members == exposed(vars(getattr(_sieve, name))), name


def test_the_package_is_marked_typed():
    assert (PACKAGE / "py.typed").is_file()
    assert (PACKAGE / "py.typed").read_bytes() == b""
