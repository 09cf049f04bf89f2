"""Builds the aether C core (c_core/aether_core.c and c_core/aether_batch.c) into one shared
library, aether/_aether_c*.so, which aether/_core.py loads with ctypes (no Python C API).

Where the C sources come from: the repository's generated c_core/, found beside this folder
(python/../c_core; pip builds a local folder in place, so this file is still in the repository),
or at $AETHER_C_CORE. The files are copied into the build folder and compiled from there. The
build stops when the header's AETHER_CONTRACT_ID is not the contract id of the generated binding
table (aether/_generated/table.py): the C and the table must come from one `cargo run -p
generator`.

Flags: the compiler's own optimisation (-O2 added), -ffp-contract=off and -fno-fast-math (the
core also guards its products itself and refuses the fast-math family with an #error), -lm.
$AETHER_CFLAGS adds flags (e.g. -march=native: the same bits, the batches' AVX paths).
"""
import os
import re
import shlex
import shutil
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = ("aether_core.c", "aether_batch.c")
HEADERS = ("aether_core.h", "aether_batch.h")
FLAGS = ["-O2", "-ffp-contract=off", "-fno-fast-math"]


def c_core_dir():
    d = os.environ.get("AETHER_C_CORE") or os.path.join(os.path.dirname(HERE), "c_core")
    missing = [f for f in SOURCES + HEADERS if not os.path.isfile(os.path.join(d, f))]
    if missing:
        sys.exit(
            "aether: the C core is not at %s (missing %s). Install from the repository "
            "(pip install ./python from its root) or set AETHER_C_CORE to a c_core folder." % (d, ", ".join(missing))
        )
    return d


def table_contract_id():
    text = open(os.path.join(HERE, "aether", "_generated", "table.py"), encoding="utf-8").read()
    return re.search(r'^CONTRACT_ID = "([^"]*)"$', text, re.M).group(1)


class BuildCore(build_ext):
    def build_extensions(self):
        src = c_core_dir()
        header = open(os.path.join(src, "aether_core.h"), encoding="utf-8").read()
        m = re.search(r'^#define AETHER_CONTRACT_ID "([^"]*)"$', header, re.M)
        if not m or m.group(1) != table_contract_id():
            sys.exit(
                "aether: %s/aether_core.h is contract %r, the binding table is %r: regenerate both "
                "(cargo run -p generator)" % (src, m and m.group(1), table_contract_id())
            )
        dest = os.path.join(os.path.abspath(self.build_temp), "c_core")
        os.makedirs(dest, exist_ok=True)
        for f in SOURCES + HEADERS:
            shutil.copyfile(os.path.join(src, f), os.path.join(dest, f))
        extra = shlex.split(os.environ.get("AETHER_CFLAGS", ""))
        for ext in self.extensions:
            ext.sources = [os.path.relpath(os.path.join(dest, f)) for f in SOURCES]
            ext.include_dirs = [dest]
            ext.extra_compile_args = FLAGS + extra
        super().build_extensions()

    def get_export_symbols(self, ext):
        return []  # a plain shared library loaded with ctypes: no PyInit_ function


setup(
    ext_modules=[Extension("aether._aether_c", sources=list(SOURCES), libraries=["m"])],
    cmdclass={"build_ext": BuildCore},
)
