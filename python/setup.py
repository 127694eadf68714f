"""The extension crawl_sieve._sieve for `pip install ./python` (pyproject.toml
holds the rest): src/sieve_module.cc compiled against the installed sieve
library, whose flags come from pkg-config (sieve.pc). --static: the default
install is static libraries, which need their private dependencies (Abseil,
zstd) on the link line; against shared ones the extra names are harmless."""
import shlex
import subprocess

from pybind11.setup_helpers import Pybind11Extension
from setuptools import setup


def pkg_config(*args: str) -> str:
    try:
        return subprocess.run(["pkg-config", *args, "sieve"], check=True, text=True,
                              capture_output=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as error:
        stderr = getattr(error, "stderr", "") or str(error)
        raise SystemExit("crawl_sieve needs the installed sieve library (cmake --install) "
                         "and pkg-config: set PKG_CONFIG_PATH=<prefix>/lib/pkgconfig. "
                         f"pkg-config said: {stderr.strip()}") from error


setup(
    version=pkg_config("--modversion"),
    ext_modules=[
        Pybind11Extension("crawl_sieve._sieve", ["src/sieve_module.cc"], cxx_std=20,
                          extra_compile_args=shlex.split(pkg_config("--cflags")),
                          extra_link_args=shlex.split(pkg_config("--libs", "--static"))),
    ],
)
