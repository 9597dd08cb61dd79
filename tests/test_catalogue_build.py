"""The message catalogue's builder, on tiny synthetic wheels: no network, no real Triton.

Two releases of a fake ``triton`` wheel hold one file of each kind the builder reads (Python
sources, a driver's C file, ``libtriton.so`` as a minimal ELF with a ``.rodata`` section, a
``ptxas``), and a fake torch package holds Inductor files; the test checks every kind of template,
the placeholders, lines, releases, provenance, and that a failed run writes nothing.
"""

import gzip
import hashlib
import json
import struct
import zipfile

import pytest

from conftest import ROOT
from triton_faq import catalogue_build, messages

CORE_V1 = '''\
import warnings


def arange(start, end):
    if (end - start) & (end - start - 1):
        raise ValueError("arange's range must be a power of 2")
    if end > 4096:
        raise ValueError(f"Block size {end} too large for {start}")
    assert start >= 0
    assert end > start, "end must be greater than start, got %d" % end
    raise TypeError("unsupported type: {}".format(type(start).__name__))


def gone_in_v2():
    raise RuntimeError("this message left in the second release")


def dedented(name):
    msg = f"Cannot access global variable {name} from within jit'ed function"
    raise NameError(msg.strip())


class OutOfStuff(RuntimeError):
    def __str__(self):
        return f"out of stuff: {self.name}, Required: {self.required}"


def deprecated():
    warnings.warn("passing foo is deprecated, use bar instead")
'''

DRIVER_C = r'''
static bool gpuAssert(CUresult code, const char *file, int line) {
  const char *prefix = "Triton Error [CUDA]: ";
  PyErr_SetString(PyExc_RuntimeError, err);
}
static void bad(int idx) {
  PyErr_Format(PyExc_ValueError,
               "Pointer argument (at %d) cannot be accessed from Triton (cpu tensor?)", idx);
}
'''

RODATA = [
    b"expected operand to be a tensor of i32 type",  # a diagnostic
    b"static void mlir::Foo::build(::mlir::OpBuilder &, int)",  # a C++ signature: dropped
    b'idx < size() && "index out of range for this small vector"',  # an assertion with a message
    b"Enable the frobnicator pass for all functions",  # option help: no diagnostic word, dropped
    b", which is not supported.",  # the middle of a message: dropped
    b" must be floating-point-like, but got ",  # the constraint of an MLIR verifier: an op's operand
]
OUTSIDE_RODATA = b"failed to legalize this operation outside rodata"


def tiny_elf(rodata: list[bytes], elsewhere: bytes) -> bytes:
    """A 64-bit little-endian ELF file with a .rodata section holding ``rodata`` (NUL-separated) and
    ``elsewhere`` outside any .rodata section."""
    data = b"\x00" + b"\x00".join(rodata) + b"\x00"
    names = b"\x00.rodata\x00.shstrtab\x00"
    other = b"\x00" + elsewhere + b"\x00"
    rodata_at = 64
    names_at = rodata_at + len(data)
    other_at = names_at + len(names)
    headers_at = (other_at + len(other) + 7) & ~7
    ident = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)
    header = ident + struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, 0, headers_at, 0, 64, 0, 0, 64, 3, 2)
    body = header + data + names + other
    body += bytes(headers_at - len(body))
    sections = [bytes(64),
                struct.pack("<IIQQQQIIQQ", 1, 1, 2, 0, rodata_at, len(data), 0, 0, 1, 0),
                struct.pack("<IIQQQQIIQQ", 9, 3, 0, 0, names_at, len(names), 0, 0, 1, 0)]
    return body + b"".join(sections)


def wheel(folder, version, core, rodata=RODATA):
    path = folder / f"triton-{version}-cp311-cp311-manylinux_2_28_x86_64.whl"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("triton/language/core.py", core)
        archive.writestr("triton/backends/nvidia/driver.c", DRIVER_C)
        archive.writestr("triton/_C/libtriton.so", tiny_elf(rodata, OUTSIDE_RODATA))
        archive.writestr("triton/backends/nvidia/bin/ptxas",
                         b"\x00ptxas fatal   : \x00Value '%s' is not defined for option '%s'\x00%8x %4d\x00")
        archive.writestr(f"triton-{version}.dist-info/METADATA", "Name: triton\n")
    return path


@pytest.fixture
def built(tmp_path):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    wheel(wheels, "9.8.0", CORE_V1)
    wheel(wheels, "9.9.0", CORE_V1.replace('raise RuntimeError("this message left in the second release")', "pass"))
    torch = tmp_path / "torch"
    (torch / "_inductor" / "runtime").mkdir(parents=True)
    (torch / "utils").mkdir()
    (torch / "version.py").write_text("__version__ = '9.9.9+cpu'\n")
    (torch / "_inductor" / "runtime" / "triton_heuristics.py").write_text(
        'def check():\n    raise RuntimeError("Installed triton version too old, please upgrade")\n')
    (torch / "_inductor" / "scheduler.py").write_text(
        'def f(name):\n    raise RuntimeError("an unrelated scheduler failure happened")\n'
        '    raise RuntimeError(f"Triton kernel {name} failed to compile")\n')
    (torch / "utils" / "_triton.py").write_text('def g():\n    raise ImportError("triton is missing here")\n')
    output = tmp_path / "catalogue.json.gz"
    code = catalogue_build.main(["--wheels", str(wheels), "--torch", str(torch), "--output", str(output)], ROOT)
    assert code == 0
    with gzip.open(output, "rb") as stream:
        data = json.loads(stream.read())
    return data, tmp_path, wheels, torch, output


def rows(data):
    index = messages.Catalogue(data)
    return {(t.kind, t.text): t for t in index.templates}


def test_a_message_returned_to_a_raise_through_a_helper_is_found():
    """A function that returns the exception its callers raise, and a helper that returns what it
    returns: a message given to either in a `return` is a message too (Triton 3.9's binary operators)."""
    source = '''
class UnsupportedLanguageConstruct(Exception):
    pass


class Generator:
    def _unsupported(self, node, message):
        return UnsupportedLanguageConstruct(node, message)

    def _unsupported_binary_operator(self, node, symbol, lhs, rhs):
        return self._unsupported(node, f"unsupported operand type(s) for {symbol}: '{lhs}' and '{rhs}'")

    def visit_BinOp(self, node):
        raise self._unsupported_binary_operator(node, "**", "tensor", "int")

    def not_a_message(self):
        return len("some text that is no exception")
'''
    found = {m["text"] if "text" in m else "".join(p if i % 2 == 0 else "{" + p + "}" for i, p in enumerate(m["parts"])): m
             for m in catalogue_build.python_messages(source, "triton/compiler/code_generator.py")}
    message = "unsupported operand type(s) for {symbol}: '{lhs}' and '{rhs}'"
    assert message in found and found[message]["form"] == "raise UnsupportedLanguageConstruct"
    assert not any("some text" in text for text in found)


def test_a_module_constant_given_to_a_warning_is_found():
    """Triton 3.9 keeps its deprecation warnings in module constants and prints them through
    `warn_once(CONSTANT)`: the constant's text is a message, a function's own name for it wins."""
    source = '''
FP_FUSION_DEFAULT_WARNING = ("TRITON_DEFAULT_FP_FUSION is unset: defaulting to FP fusion ENABLED. "
                             "The default will change to DISABLED in Triton 3.10")
UNUSED = "a constant no warning or raise uses"


def warn_once(message):
    warnings.warn(message, UserWarning, stacklevel=2)


def fp_fusion_enabled(requested):
    if requested is None:
        warn_once(FP_FUSION_DEFAULT_WARNING)
'''
    texts = {catalogue_build.render(m["parts"]): m for m in catalogue_build.python_messages(source, "triton/_utils.py")}
    text = "TRITON_DEFAULT_FP_FUSION is unset: defaulting to FP fusion ENABLED. The default will change to DISABLED in Triton 3.10"
    assert text in texts and texts[text]["form"] == "warning" and texts[text]["line"] == 13
    assert not any("no warning or raise" in t for t in texts)


def test_each_kind_of_message_becomes_a_template_with_its_source(built):
    data, *_ = built
    found = rows(data)
    python = {text: t for (kind, text), t in found.items() if kind == "python"}
    assert python["arange's range must be a power of 2"].line == 6
    assert python["arange's range must be a power of 2"].file == "triton/language/core.py"
    assert "Block size {end} too large for {start}" in python  # f-string
    assert "end must be greater than start, got {end}" in python  # % formatting
    assert "unsupported type: {type(start).__name__}" in python  # .format
    assert "assert start >= 0" in python  # a bare assert: the line the traceback shows
    assert "Cannot access global variable {name} from within jit'ed function" in python  # via a variable
    assert "out of stuff: {self.name}, Required: {self.required}" in python  # an exception's __str__
    assert python["passing foo is deprecated, use bar instead"].form == "warning"
    driver = {text for kind, text in found if kind == "driver"}
    assert "Triton Error [CUDA]: {cuGetErrorString}" in driver
    assert "Triton Error [CUDA]: misaligned address" in driver  # one per cited CUDA error string
    assert "Pointer argument (at {%d}) cannot be accessed from Triton (cpu tensor?)" in driver
    compiler = {text for kind, text in found if kind == "compiler"}
    assert compiler == {"expected operand to be a tensor of i32 type",
                        'idx < size() && "index out of range for this small vector"',
                        "'{op}' op {operand} #{index} must be floating-point-like, but got {type}"}
    assert {text for kind, text in found if kind == "ptxas"} == {"Value '{%s}' is not defined for option '{%s}'"}
    inductor = {text: t for (kind, text), t in found.items() if kind == "inductor"}
    assert set(inductor) == {"Installed triton version too old, please upgrade",
                             "Triton kernel {name} failed to compile", "triton is missing here"}
    assert inductor["Triton kernel {name} failed to compile"].releases == ("torch 9.9.9+cpu",)


def test_releases_and_provenance(built):
    data, _, wheels, _, _ = built
    found = rows(data)
    assert data["releases"] == ["9.8.0", "9.9.0"]
    assert found["python", "this message left in the second release"].releases == ("9.8.0",)
    assert found["python", "arange's range must be a power of 2"].releases == ("9.8.0", "9.9.0")
    recorded = {w["wheel"]: w["sha256"] for w in data["wheels"]}
    assert recorded == {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in wheels.glob("*.whl")}
    assert data["provenance"]["command"].startswith("triton-faq catalogue --wheels")
    assert data["provenance"]["date"]
    assert data["counts"]["per_release"]["9.8.0"] == data["counts"]["per_release"]["9.9.0"] + 1


def test_the_built_catalogue_matches_pasted_messages(built):
    data, *_ = built
    index = messages.Catalogue(data)
    hits = index.match("Traceback (most recent call last):\n  ...\nValueError: Block size 8192 too large for 0\n")
    assert [h.template.text for h in hits] == ["Block size {end} too large for {start}"]
    hits = index.match("RuntimeError: Triton Error [CUDA]: misaligned address")
    assert hits[0].template.text == "Triton Error [CUDA]: misaligned address"  # the generic form gives way
    assert len(hits) == 1


def test_a_failed_run_writes_nothing(built):
    _, tmp_path, wheels, torch, output = built
    before = output.read_bytes()
    (wheels / "triton-9.10.0-cp311-cp311-manylinux_2_28_x86_64.whl").write_bytes(b"not a zip file")
    code = catalogue_build.main(["--wheels", str(wheels), "--torch", str(torch), "--output", str(output)], ROOT)
    assert code == 1
    assert output.read_bytes() == before
    assert [p.name for p in output.parent.iterdir() if p.name.startswith(".catalogue")] == []
