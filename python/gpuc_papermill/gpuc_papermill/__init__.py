"""papermill parameters for gpuc notebooks, as C.

papermill writes the cell tagged "injected-parameters" with a translator
that it looks up by kernel name in its own process. This module registers
one for the kernel "gpuc"; papermill imports it through the
"papermill.engine" entry point when it starts.

The text is the one `gpuc run -p` writes (kernel/jk_params.c; the tests
compare the two): integers as `long long`, other numbers as `double`,
booleans as `int` 1/0, None as `void *` NULL, strings (and "true" /
"false" given as strings) as `const char *`. A name that the cell tagged
"parameters" mentions keeps the type declared there: it is assigned, not
declared again.
"""
import inspect
import math
import re

from papermill.engines import NBClientEngine
from papermill.exceptions import PapermillException
from papermill.translators import Translator, papermill_translators

__all__ = ["CTranslator", "GpucEngine", "c_source"]

LLONG_MIN, LLONG_MAX = -(2**63), 2**63 - 1
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def c_string(value):
    """A C string literal of value's UTF-8 bytes."""
    out = []
    for byte in value.encode("utf-8"):
        ch = chr(byte)
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif byte < 0x20 or byte == 0x7F:
            out.append("\\%03o" % byte)
        else:
            out.append(ch)
    return '"' + bytes("".join(out), "latin-1").decode("utf-8") + '"'


def c_double(value):
    """The shortest %.Ng that reads back as value; ".0" when it would read
    as an integer; INFINITY and NAN by name."""
    if math.isnan(value):
        return "NAN"
    if math.isinf(value):
        return "-INFINITY" if value < 0 else "INFINITY"
    for digits in (15, 16, 17):
        text = "%.*g" % (digits, value)
        if float(text) == value:
            break
    return text if ("." in text or "e" in text) else text + ".0"


def c_value(value):
    """(declared type, C source) for one parameter's value."""
    if isinstance(value, str) and value in ("true", "false"):
        value = value == "true"
    if value is None:
        return "void *", "NULL"
    if isinstance(value, bool):
        return "int ", "1" if value else "0"
    if isinstance(value, int):
        if not LLONG_MIN <= value <= LLONG_MAX:
            return "double ", c_double(float(value))
        if value == LLONG_MIN:
            return "long long ", "(-9223372036854775807LL - 1)"
        return "long long ", str(value)
    if isinstance(value, float):
        return "double ", c_double(value)
    if isinstance(value, str):
        return "const char *", c_string(value)
    raise PapermillException(
        "gpuc parameters are numbers, booleans, strings or None; %r is a %s"
        % (value, type(value).__name__))


def mentions(text, name):
    return re.search(r"(?<![A-Za-z0-9_])%s(?![A-Za-z0-9_])" % re.escape(name), text) is not None


def c_source(parameters, defaults=None, comment="Parameters"):
    """The injected cell's C source for parameters (a dict). defaults: the
    source of the cell tagged "parameters", or None."""
    lines = ["// %s" % comment]
    for name, value in parameters.items():
        if not IDENTIFIER.match(name):
            raise PapermillException("parameter '%s' is not a C name" % name)
        ctype, text = c_value(value)
        declared = "" if defaults and mentions(defaults, name) else ctype
        lines.append("%s%s = %s;" % (declared, name, text))
    return "\n".join(lines) + "\n"


def parameters_cell_source():
    """The source of the notebook's cell tagged "parameters", or None.

    papermill hands a translator the values only; the notebook it is
    parameterizing is the `nb` of its parameterize_notebook(), the caller
    of translate_parameters(), which we read from the call stack."""
    frame = inspect.currentframe()
    while frame and frame.f_code.co_name != "parameterize_notebook":
        frame = frame.f_back
    nb = frame.f_locals.get("nb") if frame else None
    for cell in getattr(nb, "cells", None) or []:
        if "parameters" in cell.get("metadata", {}).get("tags", []):
            source = cell.get("source", "")
            return "".join(source) if isinstance(source, list) else source
    return None


class CTranslator(Translator):
    @classmethod
    def codify(cls, parameters, comment="Parameters"):
        return c_source(parameters, parameters_cell_source(), comment)

    @classmethod
    def comment(cls, cmt_str):
        return "// %s" % cmt_str


class GpucEngine(NBClientEngine):
    """papermill's nbclient engine under the name "gpuc"."""


papermill_translators.register("gpuc", CTranslator)
